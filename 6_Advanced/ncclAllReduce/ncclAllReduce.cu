/* ncclAllReduce: all-reduce, reduce-scatter and all-gather over every
 * visible GPU from one process with NCCL, reported the way nccl-tests
 * reports them, every result checked exactly.
 *
 * What it teaches: the single-process form of NCCL: one communicator per
 * GPU from ncclCommInitAll, one stream per GPU, and every rank's call of a
 * collective inside ncclGroupStart/ncclGroupEnd (one thread drives all the
 * GPUs, so without the group the first call would wait for ranks that have
 * not been called yet). Then what the two bandwidths of nccl-tests mean:
 * algbw = S / t, and busbw = algbw x 2(n-1)/n for all-reduce, x (n-1)/n for
 * reduce-scatter and all-gather (S per nccl-tests: nccl_util.h), the figure
 * that is comparable with one GPU's link bandwidth whatever the number of
 * ranks.
 *
 * Build:  make -C 6_Advanced/ncclAllReduce        (or `make ncclAllReduce`)
 *         NCCL is found beside the CUDA toolkit (nccl.h and libnccl.so;
 *         NCCL_HOME=DIR for another one). Without it the program still
 *         builds and WAIVES (exit 2), saying why.
 * Run:    bin/ncclAllReduce                        8 B .. 64 MiB, doubling, every visible GPU
 *         bin/ncclAllReduce --max-bytes=1G         the full sweep (bench.args)
 *         bin/ncclAllReduce --coll=all_reduce --min-bytes=1M --max-bytes=1M --reps=50
 *         bin/ncclAllReduce --quick                8 B .. 2 MiB by 8x, 3 trials (sanitizers)
 *         CUDA_VISIBLE_DEVICES=0,1 bin/ncclAllReduce
 * Variants (one table below): all_reduce, reduce_scatter, all_gather; float
 * sums (ncclFloat, ncclSum) of whole numbers, so every result is exact and
 * is compared bit for bit with a CPU reference.
 * NCCL_NVLS_ENABLE=0 is set before the communicators are made, unless the
 * environment already sets it (README.md says why).
 * With one GPU it exits 2 (WAIVED): a collective needs two ranks to mean
 * anything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#ifdef HAVE_NCCL
#include <nccl.h>
#endif

#include "check.h"
#include "cuda_check.h"
#include "device.h"
#include "nccl_util.h"
#include "options.h"
#include "report.h"
#include "timing.h"

#define MAX_RANKS 64

/* ---- variant table ----------------------------------------------------- */

typedef struct {
    coll_kind kind;
    const char *what;
} variant;

static const variant variants[] = {
    {COLL_ALL_REDUCE, "ncclAllReduce: every rank gets the sum of all inputs"},
    {COLL_REDUCE_SCATTER, "ncclReduceScatter: rank r gets block r of the sum"},
    {COLL_ALL_GATHER, "ncclAllGather: every rank gets every rank's input, in rank order"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ----------------------------------------------------------- */

static long long opt_min = 8;
static long long opt_max = 64LL << 20;
static long long opt_factor = 2;
static const char *opt_coll = "all";
static char coll_choices[128];   /* "all|all_reduce|...", from the variant table */
#define DEF_MAX (64LL << 20)
/* --quick: 8 B .. 2 MiB by 8x; 2 MiB is 524288 floats, over twice the fill
 * kernel's grid on an H200, so its grid-stride loop is checked too. */
#define QUICK_MAX (2LL << 20)
#define QUICK_FACTOR 8
#define MAX_BYTES (1LL << 34)

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("min-bytes", "BYTES", "first size of the sweep (S of all_reduce)", &opt_min, 4,
                 MAX_BYTES),
    OPT_INT_SPEC("max-bytes", "BYTES", "last size of the sweep (inclusive)", &opt_max, 4, MAX_BYTES),
    OPT_INT_SPEC("factor", "F", "each size is F times the last", &opt_factor, 2, 1024),
    OPT_STRING_SPEC("coll", "NAME", "run one collective", &opt_coll, coll_choices),
};

static const opts_config cfg = {
    "ncclAllReduce",
    "all-reduce, reduce-scatter and all-gather over every visible GPU with NCCL, nccl-tests' algbw and busbw",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]),
    "Every visible GPU is a rank (choose them with CUDA_VISIBLE_DEVICES); --device takes only\n"
    "'all'. Variants: all_reduce reduce_scatter all_gather (ncclFloat, ncclSum of whole\n"
    "numbers: exact). Sizes are nccl-tests' nominal bytes; each RESULT line gives S (bytes),\n"
    "the count NCCL was called with, algbw = S / t and busbw (also as gbps): x 2(n-1)/n for\n"
    "all_reduce, x (n-1)/n for the other two. Odd counts (1, 3, 12345) are checked first.\n"
    "--quick: 8 B .. 2 MiB by 8x, 3 trials, at most 2 operations per trial.",
    1};

/* --coll's choices come from the variant table. */
static void build_choices_from_table(void)
{
    size_t c = (size_t)snprintf(coll_choices, sizeof coll_choices, "all");
    for (int v = 0; v < N_VARIANTS; v++)
        c += (size_t)snprintf(coll_choices + c, sizeof coll_choices - c, "|%s",
                              coll_name(variants[v].kind));
}

static int bad_arg(const char *msg)
{
    fprintf(stderr, "ncclAllReduce: error: %s\n", msg);
    fprintf(stderr, "Run 'ncclAllReduce --help' for the options.\n");
    printf("ncclAllReduce: FAIL (bad argument)\n");
    return 1;
}

#ifdef HAVE_NCCL

#define NCCL_CHECK(call)                                                            \
    do {                                                                            \
        ncclResult_t r_ = (call);                                                   \
        if (r_ != ncclSuccess) {                                                    \
            fprintf(stderr, "NCCL error at %s:%d: %s failed: %s (%s)\n", __FILE__,  \
                    __LINE__, #call, ncclGetErrorString(r_), ncclGetLastError(NULL)); \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

/* ---- kernels ----------------------------------------------------------- */

/* Rank r's input: element i is coll_input_value(seed, stream, i), the same
 * function the CPU reference calls. */
__global__ void fill_input(float *x, size_t n, uint64_t seed, uint64_t stream)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = coll_input_value(seed, stream, i);
}

/* ---- state ------------------------------------------------------------- */

typedef struct {
    int n;                            /* ranks = GPUs */
    device_info dev[MAX_RANKS];
    ncclComm_t comm[MAX_RANKS];
    cudaStream_t s[MAX_RANKS];
    cudaEvent_t start[MAX_RANKS], stop[MAX_RANKS];
    float *send[MAX_RANKS], *recv[MAX_RANKS];   /* cap elements each, guarded */
    float *h_out;                     /* pinned: one rank's output, copied back */
    float *h_ref;                     /* the CPU reference of one rank's output */
    size_t cap;                       /* elements of every buffer */
    int ref_rank;                     /* whose output h_ref holds (-1: none) ... */
    uint64_t ref_round;               /* ... for which round of inputs ... */
    coll_kind ref_coll;               /* ... and which collective and count */
    size_t ref_count;
    int fill_blocks[MAX_RANKS];
    uint64_t seed, round;
    int reps, warmups, max_batch;
} coll_ctx;

static coll_ctx g;

/* ---- launchers --------------------------------------------------------- */

/* Every rank's call of one collective, as one group: NCCL launches the
 * ranks' kernels together when the group ends. */
static void run_collective(coll_kind c, const coll_counts *k)
{
    NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < g.n; r++) {
        switch (c) {
        case COLL_ALL_REDUCE:
            NCCL_CHECK(ncclAllReduce(g.send[r], g.recv[r], k->param_count, ncclFloat, ncclSum,
                                     g.comm[r], g.s[r]));
            break;
        case COLL_REDUCE_SCATTER:
            NCCL_CHECK(ncclReduceScatter(g.send[r], g.recv[r], k->param_count, ncclFloat, ncclSum,
                                         g.comm[r], g.s[r]));
            break;
        case COLL_ALL_GATHER:
            NCCL_CHECK(ncclAllGather(g.send[r], g.recv[r], k->param_count, ncclFloat, g.comm[r],
                                     g.s[r]));
            break;
        default:
            break;
        }
    }
    NCCL_CHECK(ncclGroupEnd());
}

/* ---- checking ---------------------------------------------------------- */

/* A new round of inputs (so an input left over from an earlier check is
 * wrong now), written on every rank; every output and its guard zone
 * poisoned. */
static void prepare(const coll_counts *k)
{
    g.round++;
    for (int r = 0; r < g.n; r++) {
        CUDA_CHECK(cudaSetDevice(r));
        fill_input<<<g.fill_blocks[r], 256, 0, g.s[r]>>>(g.send[r], k->send_count, g.seed,
                                                         coll_input_stream(g.round, r));
        CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(g.s[r]));
        poison_guarded(g.recv[r], k->recv_count * sizeof(float));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
}

/* Compare every rank's output (copied back on the rank's own stream, after
 * the collective) with the CPU reference, and its guard zone. */
static int check_outputs(coll_kind c, const coll_counts *k, const char *what)
{
    size_t bytes = k->recv_count * sizeof(float);
    int ok = 1;
    for (int r = 0; r < g.n; r++) {
        memset(g.h_out, 0xFF, bytes);   /* a copy that has not landed reads as NaN */
        CUDA_CHECK(cudaSetDevice(r));
        CUDA_CHECK(cudaMemcpyAsync(g.h_out, g.recv[r], bytes, cudaMemcpyDeviceToHost, g.s[r]));
        CUDA_CHECK(cudaStreamSynchronize(g.s[r]));
        /* the CPU reference, computed again only when it differs from the
         * one h_ref holds (all_reduce and all_gather give every rank the
         * same output; the check after timing has the same inputs) */
        int want_rank = coll_same_output_everywhere(c) ? 0 : r;
        if (g.ref_rank != want_rank || g.ref_round != g.round || g.ref_coll != c ||
            g.ref_count != k->param_count) {
            coll_expected_fill(c, k, g.seed, g.round, g.n, r, g.h_ref);
            g.ref_rank = want_rank;
            g.ref_round = g.round;
            g.ref_coll = c;
            g.ref_count = k->param_count;
        }
        char w[160];
        snprintf(w, sizeof w, "%s rank %d", what, r);
        /* whole numbers summed in float: exact, so the tolerance is zero */
        size_t bad = check_close_f32(w, g.h_out, g.h_ref, k->recv_count, 0.0, 0.0);
        bad += check_guard(w, g.recv[r], bytes);
        if (bad) ok = 0;
    }
    return ok;
}

static int checked_run(coll_kind c, const coll_counts *k, const char *what)
{
    prepare(k);
    run_collective(c, k);
    return check_outputs(c, k, what);
}

/* ---- timing ------------------------------------------------------------ */

/* Median over g.reps trials of the time per operation: each trial records
 * a start event on every rank's stream, issues `batch` collectives back to
 * back (one group each), records a stop event on every stream; a rank's
 * share is stop - start on its own clock, and the operation took as long
 * as the slowest rank (all must finish). */
static double time_collective(coll_kind c, const coll_counts *k, int batch)
{
    double *ms = (double *)malloc(sizeof(double) * (size_t)g.reps);
    if (!ms) {
        fprintf(stderr, "ncclAllReduce: out of host memory\n");
        exit(1);
    }
    for (int t = -g.warmups; t < g.reps; t++) {
        for (int r = 0; r < g.n; r++) {
            CUDA_CHECK(cudaSetDevice(r));
            CUDA_CHECK(cudaEventRecord(g.start[r], g.s[r]));
        }
        for (int b = 0; b < batch; b++) run_collective(c, k);
        for (int r = 0; r < g.n; r++) {
            CUDA_CHECK(cudaSetDevice(r));
            CUDA_CHECK(cudaEventRecord(g.stop[r], g.s[r]));
        }
        double worst = 0;
        for (int r = 0; r < g.n; r++) {
            float e = 0;
            CUDA_CHECK(cudaEventSynchronize(g.stop[r]));
            CUDA_CHECK(cudaEventElapsedTime(&e, g.start[r], g.stop[r]));
            if (e > worst) worst = e;
        }
        if (t >= 0) ms[t] = worst / batch;
    }
    double med = stats_median(ms, g.reps);
    free(ms);
    return med;
}

/* ---- one size ---------------------------------------------------------- */

static void run_size(const variant *v, long long nominal, int precheck_ok)
{
    coll_counts k;
    if (coll_counts_for(v->kind, (size_t)nominal, sizeof(float), g.n, &k)) return;
    coll_row row;
    memset(&row, 0, sizeof row);
    row.coll = v->kind;
    row.nranks = g.n;
    row.S_bytes = k.S_bytes;
    row.param_count = k.param_count;
    char what[96];
    snprintf(what, sizeof what, "%s(count=%zu)", coll_name(v->kind), k.param_count);
    row.ok = precheck_ok && checked_run(v->kind, &k, what);
    if (row.ok) {
        /* the timed operations must write the outputs again */
        for (int r = 0; r < g.n; r++) {
            CUDA_CHECK(cudaSetDevice(r));
            poison_guarded(g.recv[r], k.recv_count * sizeof(float));
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        int batch = coll_batch_for(k.S_bytes, g.max_batch);
        char range[96], after[128];
        snprintf(range, sizeof range, "ncclAllReduce/%s", coll_name(v->kind));
        int pushed = nvtx_push_path(range);
        row.time_ms = time_collective(v->kind, &k, batch);
        nvtx_pop_n(pushed);
        snprintf(after, sizeof after, "%s after timing", what);
        row.ok = check_outputs(v->kind, &k, after);
        row.algbw = coll_algbw(k.S_bytes, row.time_ms);
        row.busbw = coll_busbw(v->kind, k.S_bytes, row.time_ms, g.n);
        row.batch = batch;
        row.trials = g.reps;
    }
    result_rec r;
    coll_fill_record(&r, &row);
    rec_emit(&r);
}

/* Odd counts first: not multiples of 4 floats (NCCL's 16-byte loads), of
 * the ranks, or of any block. */
static int odd_checks(const variant *v)
{
    const size_t odd[] = {1, 3, 12345};
    int ok = 1;
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        coll_counts k;
        if (coll_counts_param(v->kind, odd[i], sizeof(float), g.n, &k)) continue;
        if (k.send_count > g.cap || k.recv_count > g.cap) continue;
        char what[96];
        snprintf(what, sizeof what, "%s(odd count=%zu)", coll_name(v->kind), odd[i]);
        if (!checked_run(v->kind, &k, what)) {
            report_fail("%s: wrong result", what);
            ok = 0;
        }
    }
    return ok;
}

/* ---- setup ------------------------------------------------------------- */

static void setup(const common_opts *o, size_t cap)
{
    /* NVLink SHARP (NVLS) uses NVSwitch multicast; it stays off unless the
     * user asked otherwise (README.md, "Why NCCL_NVLS_ENABLE=0"). */
    const char *nvls = getenv("NCCL_NVLS_ENABLE");
    if (nvls) report_note("NCCL_NVLS_ENABLE=%s, as set in the environment", nvls);
    else {
        setenv("NCCL_NVLS_ENABLE", "0", 0);
        report_note("NCCL_NVLS_ENABLE=0 set by this program: NVLink multicast (NVLS) stays off");
    }
    int version = 0;
    NCCL_CHECK(ncclGetVersion(&version));
    report_note("NCCL %d.%d.%d (library), built against nccl.h %d.%d.%d", version / 10000,
                (version / 100) % 100, version % 100, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);

    for (int r = 0; r < g.n; r++) {
        CUDA_CHECK(cudaSetDevice(r));
        int rc = device_query(r, &g.dev[r]);
        if (rc != 0) {
            fprintf(stderr, "ncclAllReduce: error: cannot use device %d: %s\n", r,
                    cudaGetErrorString((cudaError_t)rc));
            printf("ncclAllReduce: FAIL (device %d unusable)\n", r);
            exit(1);
        }
        device_print_header(&g.dev[r], o->json ? stderr : stdout);
        size_t free_b = 0, total_b = 0, need = 2 * (cap * sizeof(float) + CHECK_GUARD_BYTES);
        size_t margin = (size_t)1 << 30;   /* NCCL's own buffers */
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (need + margin > free_b) {
            fprintf(stderr, "ncclAllReduce: error: --max-bytes=%lld: needs %zu bytes of device "
                            "memory (+%zu for NCCL) on each GPU, but device %d has %zu bytes free\n",
                    opt_max, need, margin, r, free_b);
            printf("ncclAllReduce: FAIL (bad argument)\n");
            exit(1);
        }
        CUDA_CHECK(cudaStreamCreateWithFlags(&g.s[r], cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreate(&g.start[r]));
        CUDA_CHECK(cudaEventCreate(&g.stop[r]));
        g.send[r] = (float *)guarded_malloc(cap * sizeof(float));
        g.recv[r] = (float *)guarded_malloc(cap * sizeof(float));
        poison_guarded(g.send[r], cap * sizeof(float));   /* never a valid input by accident */
        CUDA_CHECK(cudaDeviceSynchronize());
        g.fill_blocks[r] = g.dev[r].sm_count * 4;
    }
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaMallocHost((void **)&g.h_out, cap * sizeof(float)));
    g.h_ref = (float *)malloc(cap * sizeof(float));
    if (!g.h_ref) {
        fprintf(stderr, "ncclAllReduce: error: cannot allocate %zu bytes of host memory\n",
                cap * sizeof(float));
        exit(1);
    }

    /* One communicator per GPU, all made by this one call: ranks 0..n-1
     * are devices 0..n-1. */
    int devs[MAX_RANKS];
    for (int r = 0; r < g.n; r++) devs[r] = r;
    NCCL_CHECK(ncclCommInitAll(g.comm, g.n, devs));
}

static void teardown(void)
{
    for (int r = 0; r < g.n; r++) {
        CUDA_CHECK(cudaSetDevice(r));
        CUDA_CHECK(cudaStreamSynchronize(g.s[r]));
        ncclResult_t async = ncclSuccess;
        NCCL_CHECK(ncclCommGetAsyncError(g.comm[r], &async));
        if (async != ncclSuccess)
            report_fail("rank %d: NCCL asynchronous error: %s", r, ncclGetErrorString(async));
        NCCL_CHECK(ncclCommDestroy(g.comm[r]));
        CUDA_CHECK(cudaEventDestroy(g.start[r]));
        CUDA_CHECK(cudaEventDestroy(g.stop[r]));
        CUDA_CHECK(cudaStreamDestroy(g.s[r]));
        guarded_free(g.send[r]);
        guarded_free(g.recv[r]);
    }
    CUDA_CHECK(cudaFreeHost(g.h_out));
    free(g.h_ref);
}

#endif /* HAVE_NCCL */

int main(int argc, char **argv)
{
    common_opts o;
    build_choices_from_table();
    opts_parse_or_exit(&cfg, argc, argv, &o);

    /* Everything about the arguments is settled before any CUDA call. */
    char err[256];
    if (o.device_given && !o.all_devices) {
        snprintf(err, sizeof err, "--device=%d: this sample uses every visible GPU (--device=all); "
                 "choose them with CUDA_VISIBLE_DEVICES", o.device);
        return bad_arg(err);
    }
    long long factor = opt_factor;
    if (o.quick) {
        if (opt_max == DEF_MAX) opt_max = QUICK_MAX;
        if (factor == 2) factor = QUICK_FACTOR;
        if (o.reps == OPTS_DEFAULT_REPS) o.reps = 3;
    }
    static long long sizes[COLL_MAX_SIZES];
    int n_sizes = coll_plan_sizes(opt_min, opt_max, factor, sizes, COLL_MAX_SIZES, err, sizeof err);
    if (n_sizes < 0) return bad_arg(err);

    report_init("ncclAllReduce", o.json);
    /* The busbw arithmetic against nccl-tests' known answers: a figure
     * computed with a broken factor must not be printed as a result. */
    if (coll_selftest_busbw() != 0) {
        report_fail("the busbw arithmetic does not give nccl-tests' figures");
        return report_finish();
    }
#ifndef HAVE_NCCL
    device_waive("ncclAllReduce", "NCCL was not found when this sample was built (no nccl.h or "
                                  "libnccl.so beside the CUDA toolkit; set NCCL_HOME and rebuild)");
    return 2;
#else
    int count = device_count_or_waive("ncclAllReduce");
    if (count < 2) {
        char name[300] = "", why[420];
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) snprintf(name, sizeof name, ": %s", p.name);
        snprintf(why, sizeof why, "needs at least 2 CUDA devices for a collective; this machine "
                 "shows 1%s", name);
        device_waive("ncclAllReduce", why);
    }
    g.n = count < MAX_RANKS ? count : MAX_RANKS;
    if (count > MAX_RANKS) report_note("%d GPUs visible: the first %d are the ranks", count, MAX_RANKS);
    g.seed = o.seed;
    g.reps = o.reps;
    g.warmups = 3;
    g.max_batch = o.quick ? 2 : 100;
    g.ref_rank = -1;

    /* Capacity: the largest send or receive buffer of any collective and
     * size; the odd counts are skipped where they would not fit. */
    size_t cap = 12345 * (size_t)g.n;
    for (int v = 0; v < N_VARIANTS; v++)
        for (int i = 0; i < n_sizes; i++) {
            coll_counts k;
            if (coll_counts_for(variants[v].kind, (size_t)sizes[i], sizeof(float), g.n, &k)) continue;
            if (k.send_count > cap) cap = k.send_count;
            if (k.recv_count > cap) cap = k.recv_count;
        }
    g.cap = cap;
    setup(&o, cap);
    report_note("%d ranks; sizes %lld .. %lld bytes by %lldx; median of %d trials after %d warm-ups, "
                "at most %d operations per trial; time = the slowest rank's", g.n, sizes[0],
                sizes[n_sizes - 1], factor, g.reps, g.warmups, g.max_batch);

    for (int v = 0; v < N_VARIANTS; v++) {
        if (strcmp(opt_coll, "all") && strcmp(opt_coll, coll_name(variants[v].kind))) continue;
        int ok = odd_checks(&variants[v]);
        for (int i = 0; i < n_sizes; i++) run_size(&variants[v], sizes[i], ok);
    }
    teardown();
    return report_finish();
#endif
}
