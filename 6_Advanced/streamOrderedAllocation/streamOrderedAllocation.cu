/* streamOrderedAllocation: a loop that allocates a temporary buffer, computes
 * with it and frees it, with cudaMalloc/cudaFree and with the stream-ordered
 * allocator (cudaMallocAsync/cudaFreeAsync), and what the memory pool's
 * release threshold changes.
 *
 * What it teaches: cudaMalloc maps fresh memory and cudaFree unmaps it and
 * synchronises the whole device, every time. cudaMallocAsync takes memory
 * from a pool in stream order (the allocation is usable by work enqueued
 * after it on that stream), and cudaFreeAsync returns it to the pool in
 * stream order: no device-wide synchronisation. What the pool then does
 * with memory nobody uses is the release threshold
 * (cudaMemPoolAttrReleaseThreshold): at every synchronisation (stream,
 * event or device), a pool holding more than the threshold gives the excess
 * back to the system. The default threshold is 0, so a loop that
 * synchronises every iteration (as one that reads a result back must) gives
 * its buffer back each time and maps it again at the next cudaMallocAsync.
 * A high threshold keeps it: the next allocation is a pool lookup.
 *
 * Build:  make -C 6_Advanced/streamOrderedAllocation
 * Run:    bin/streamOrderedAllocation               64 MiB temporary, 20 iterations per timed run
 *         bin/streamOrderedAllocation --n=256K      1 MiB: allocation cost against a shorter compute
 *         bin/streamOrderedAllocation --iters=100 --reps=5
 *         bin/streamOrderedAllocation --quick       small sizes, for compute-sanitizer
 * Variants (one table below drives checks, timing and --help):
 *   malloc_free     cudaMalloc + kernels + cudaFree each iteration: the reference
 *   async_release0  cudaMallocAsync + kernels + cudaFreeAsync, release threshold 0 (the default)
 *   async_keep      the same with the release threshold at its maximum: the pool keeps the memory
 *   preallocated    one buffer allocated before the loop: no allocation at all, the floor
 * Every iteration ends with cudaStreamSynchronize in every variant: the
 * loops differ only in how the temporary is allocated.
 *
 * Measured: `iters` iterations between two CUDA events (the host-side
 * allocation calls and synchronisations included: the GPU waits for them),
 * median of --reps after 3 warm-ups; us_per_iter = time / iters;
 * overhead_us = us_per_iter minus preallocated's. The pool's reserved and
 * used memory (cudaMemPoolAttrReservedMemCurrent/High, UsedMemCurrent/High)
 * are read after each stream-ordered variant.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "check.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "timing.h"

#include "soa_ref.h"

/* ---- CPU reference ------------------------------------------------------
 * soa_ref.c: soa_expected gives acc after T iterations in one pass over
 * the input (soa_ref.h); no CPU variant is timed (README.md says why). */

/* ---- kernels ------------------------------------------------------------ */

/* Iteration t's temporary: tmp[i] = in[i] * (t + 1) + t. */
__global__ void produce(const unsigned int *in, unsigned int *tmp, int n, unsigned int t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tmp[i] = in[i] * (t + 1u) + t;
}

/* acc = 3 acc + tmp: the temporary is read after the kernel that wrote it,
 * so it must stay allocated until this kernel is done (stream order sees to
 * that). The factor 3 makes the order of the iterations matter, and changes
 * any word written past the end (soa_ref.h). */
__global__ void accumulate(const unsigned int *tmp, unsigned int *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] = 3u * acc[i] + tmp[i];
}

/* ---- launchers ---------------------------------------------------------- */

typedef enum { ALLOC_MALLOC, ALLOC_ASYNC, ALLOC_NONE } alloc_kind;

typedef struct {
    const unsigned int *in;
    unsigned int *acc;          /* the result (guarded) */
    unsigned int *prealloc;     /* the preallocated variant's temporary */
    int n, block, iters;
} loop_ctx;

/* One iteration's compute on a temporary, whichever way it was allocated. */
static void compute(const loop_ctx *c, unsigned int *tmp, int t, cudaStream_t s)
{
    int grid = (c->n + c->block - 1) / c->block;
    produce<<<grid, c->block, 0, s>>>(c->in, tmp, c->n, (unsigned int)t);
    CHECK_LAUNCH();
    accumulate<<<grid, c->block, 0, s>>>(tmp, c->acc, c->n);
    CHECK_LAUNCH();
}

/* cudaMalloc is not stream-ordered and cudaFree waits for the whole device
 * before it unmaps: each iteration pays a map, an unmap and a device-wide
 * synchronisation. */
static void run_malloc_free(void *p, cudaStream_t s)
{
    const loop_ctx *c = (const loop_ctx *)p;
    for (int t = 0; t < c->iters; t++) {
        unsigned int *tmp;
        CUDA_CHECK(cudaMalloc(&tmp, (size_t)c->n * sizeof(unsigned int)));
        compute(c, tmp, t, s);
        CUDA_CHECK(cudaFree(tmp));
        CUDA_CHECK(cudaStreamSynchronize(s));
    }
}

/* Stream-ordered: the allocation and the free are operations on s, ordered
 * with the kernels between them; nothing waits for the device. What the
 * pool keeps across the synchronisation at the end of each iteration is
 * the release threshold's business (set by the caller). */
static void run_async(void *p, cudaStream_t s)
{
    const loop_ctx *c = (const loop_ctx *)p;
    for (int t = 0; t < c->iters; t++) {
        unsigned int *tmp;
        CUDA_CHECK(cudaMallocAsync((void **)&tmp, (size_t)c->n * sizeof(unsigned int), s));
        compute(c, tmp, t, s);
        CUDA_CHECK(cudaFreeAsync(tmp, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
    }
}

static void run_preallocated(void *p, cudaStream_t s)
{
    const loop_ctx *c = (const loop_ctx *)p;
    for (int t = 0; t < c->iters; t++) {
        compute(c, c->prealloc, t, s);
        CUDA_CHECK(cudaStreamSynchronize(s));
    }
}

/* ---- variant table ------------------------------------------------------ */

#define THRESHOLD_KEEP_ALL (~0ULL)

typedef struct {
    const char *name;
    timed_fn run;
    alloc_kind alloc;
    unsigned long long threshold;   /* ALLOC_ASYNC: the pool's release threshold */
    const char *what;
} variant;

static const variant variants[] = {
    {"malloc_free", run_malloc_free, ALLOC_MALLOC, 0,
     "cudaMalloc + cudaFree every iteration (reference)"},
    {"async_release0", run_async, ALLOC_ASYNC, 0,
     "cudaMallocAsync + cudaFreeAsync, release threshold 0 (default)"},
    {"async_keep", run_async, ALLOC_ASYNC, THRESHOLD_KEEP_ALL,
     "cudaMallocAsync + cudaFreeAsync, release threshold max: memory kept"},
    {"preallocated", run_preallocated, ALLOC_NONE, 0,
     "one buffer allocated before the loop (the floor)"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ------------------------------------------------------------ */

static long long opt_n = 1LL << 24;
static long long opt_iters = 20;
static long long opt_block = 256;
static const char *opt_variant = "all";
static char variant_choices[256];
static char help_notes[1536];

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("n", "N", "elements (4 bytes each) of the temporary and of the result", &opt_n, 1,
                 1LL << 30),
    OPT_INT_SPEC("iters", "N", "allocate-compute-free iterations per timed run", &opt_iters, 1,
                 10000),
    OPT_INT_SPEC("block", "THREADS", "threads per block (multiple of 32)", &opt_block, 32, 1024),
    OPT_STRING_SPEC("variant", "NAME",
                    "time one variant (malloc_free, the reference, and preallocated always run)",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "streamOrderedAllocation",
    "allocate-compute-free loop: cudaMalloc vs cudaMallocAsync, pool release threshold 0 vs max",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

static void build_help_from_table(void)
{
    /* "all" without "cpu": no CPU baseline here (README.md says why) */
    opts_join_choices(variant_choices, sizeof variant_choices, "all", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-16s %s\n",
                              variants[v].name, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "No CPU baseline: what is measured is the cost of allocating device memory.\n"
             "Each iteration: allocate, two kernels, free, cudaStreamSynchronize.\n"
             "--quick: n = 2^17+3, 8 iterations, checks at n = 1, 1000, 4097 too.\n"
             "WAIVED (exit 2) on a device without memory pools (cudaDevAttrMemoryPoolsSupported = 0).");
}

/* ---- checks ------------------------------------------------------------- */

typedef struct {
    unsigned long long reserved, reserved_high, used, used_high;
} pool_state;

static void pool_read(cudaMemPool_t pool, pool_state *st)
{
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &st->reserved));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &st->reserved_high));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &st->used));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &st->used_high));
}

/* An empty pool with this variant's threshold and its high-water marks at
 * zero, so what is read afterwards belongs to this variant alone. */
static void pool_prepare(cudaMemPool_t pool, unsigned long long threshold)
{
    unsigned long long zero = 0;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
}

/* One checked loop at n elements: acc poisoned with its guard zone, then
 * zeroed over [0, n); the loop; acc copied back asynchronously into pinned
 * memory poisoned beforehand; the stream synchronised; acc compared exactly
 * with soa_expected and the guard checked. For the stream-ordered
 * variants the pool must hold no allocation afterwards: a temporary that is
 * never freed shows here (used memory above zero). */
static int check_variant(const variant *v, const loop_ctx *ctx, int n, const unsigned int *h_in,
                         unsigned int *h_want, unsigned int *h_got, cudaMemPool_t pool,
                         cudaStream_t s)
{
    loop_ctx x = *ctx;
    x.n = n;
    size_t bytes = (size_t)n * sizeof(unsigned int);
    poison_guarded(x.acc, bytes);
    CUDA_CHECK(cudaMemset(x.acc, 0, bytes));   /* legacy stream: s is blocking, so ordered */
    soa_expected(h_in, h_want, (size_t)n, x.iters);
    v->run(&x, s);
    poison_host(h_got, bytes);
    CUDA_CHECK(cudaMemcpyAsync(h_got, x.acc, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    char what[96];
    snprintf(what, sizeof what, "%s(n=%d, %d iterations) acc", v->name, n, x.iters);
    size_t bad = check_exact_u32(what, h_got, h_want, (size_t)n);
    bad += check_guard(what, x.acc, bytes);
    if (v->alloc == ALLOC_ASYNC) {
        pool_state st;
        pool_read(pool, &st);
        if (st.used != 0) {
            fprintf(stderr, "  %s: the pool still holds %llu bytes in use after the loop: an "
                            "allocation was not freed\n", what, st.used);
            bad++;
        }
    }
    return bad == 0;
}

/* ---- main --------------------------------------------------------------- */

static void fail_arg(const char *msg)
{
    fprintf(stderr, "streamOrderedAllocation: error: %s\n", msg);
    printf("streamOrderedAllocation: FAIL (bad argument)\n");
    exit(1);
}

int main(int argc, char **argv)
{
    common_opts o;
    build_help_from_table();
    opts_parse_or_exit(&cfg, argc, argv, &o);
    char err[160];
    if (opt_block % 32 != 0) {
        snprintf(err, sizeof err, "--block=%lld: must be a multiple of 32", opt_block);
        fail_arg(err);
    }
    const int n = o.quick ? (1 << 17) + 3 : (int)opt_n;
    const int iters = (o.quick && opt_iters == 20) ? 8 : (int)opt_iters;
    size_t bytes;
    /* input, result (+ guard), the preallocated temporary and one in flight */
    if (opts_checked_bytes("--n", n, sizeof(unsigned int), 4, 1ULL << 40, &bytes, err, sizeof err))
        fail_arg(err);
    bytes = (size_t)n * sizeof(unsigned int);
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    report_init("streamOrderedAllocation", o.json);
    device_info dev;
    device_setup_or_exit("streamOrderedAllocation", o.device, o.json, &dev);
    int pools = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, dev.id));
    if (!pools) {
        char why[160];
        snprintf(why, sizeof why, "device %d does not support memory pools "
                 "(cudaDevAttrMemoryPoolsSupported = 0): cudaMallocAsync needs them", dev.id);
        device_waive("streamOrderedAllocation", why);
    }
    cudaMemPool_t pool;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev.id));
    unsigned long long threshold_before = 0;
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold_before));

    unsigned int *h_in = (unsigned int *)malloc(bytes);
    unsigned int *h_want = (unsigned int *)malloc(bytes);
    if (!h_in || !h_want) {
        report_fail("out of host memory (%zu bytes)", 2 * bytes);
        return report_finish();
    }
    soa_input(o.seed, h_in, (size_t)n);
    unsigned int *h_got, *d_in;
    CUDA_CHECK(cudaMallocHost(&h_got, bytes));
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));   /* blocking: ordered with the legacy-stream memsets */

    loop_ctx ctx;
    ctx.in = d_in;
    ctx.acc = (unsigned int *)guarded_malloc(bytes);
    CUDA_CHECK(cudaMalloc(&ctx.prealloc, bytes));
    ctx.n = n;
    ctx.block = (int)opt_block;
    ctx.iters = iters;
    report_note("n=%d (%.1f MiB temporary), %d iterations per timed run, each: allocate, produce, "
                "accumulate, free, cudaStreamSynchronize; median of %d runs", n,
                soa_mib(bytes), iters, reps);

    /* Check every variant at sizes that are not multiples of the block,
     * then at n; the pool emptied and set to the variant's threshold first. */
    const int small_sizes[] = {1, 1000, 4097};
    int ok[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) {
        ok[v] = 1;
        if (variants[v].alloc == ALLOC_ASYNC) pool_prepare(pool, variants[v].threshold);
        for (size_t k = 0; k < sizeof small_sizes / sizeof small_sizes[0]; k++)
            if (small_sizes[k] < n)
                ok[v] &= check_variant(&variants[v], &ctx, small_sizes[k], h_in, h_want, h_got,
                                       pool, s);
        ok[v] &= check_variant(&variants[v], &ctx, n, h_in, h_want, h_got, pool, s);
    }

    /* Time: every selected variant, the reference and the floor. */
    timing_stats t[N_VARIANTS];
    pool_state st[N_VARIANTS];
    int timed[N_VARIANTS];
    memset(st, 0, sizeof st);
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        timed[v] = 0;
        if (!ok[v]) continue;
        /* malloc_free (the reference) and preallocated (the floor) always run */
        if (!opts_variant_runs(opt_variant, var->name, var->alloc != ALLOC_ASYNC)) continue;
        if (var->alloc == ALLOC_ASYNC) pool_prepare(pool, var->threshold);
        char range[64];
        snprintf(range, sizeof range, "streamOrderedAllocation/%s", var->name);
        timing_cfg tc = timing_defaults(reps);
        tc.stream = s;
        tc.nvtx_name = range;
        time_gpu(var->run, &ctx, &tc, &t[v]);
        if (var->alloc == ALLOC_ASYNC) {
            pool_read(pool, &st[v]);
            if (var->threshold == 0 && st[v].reserved != 0)
                report_note("%s: the pool still reserves %.1f MiB after the last synchronisation, "
                            "although its release threshold is 0", var->name,
                            soa_mib(st[v].reserved));
            if (var->threshold != 0 && st[v].reserved < bytes)
                report_note("%s: the pool reserves %.1f MiB, less than one temporary, although "
                            "its release threshold keeps everything", var->name,
                            soa_mib(st[v].reserved));
        }
        timed[v] = 1;
    }

    /* Records, with the reference and the floor known. */
    double ref_ms = timed[0] ? t[0].median_ms : 0;
    double floor_us = 0;
    for (int v = 0; v < N_VARIANTS; v++)
        if (timed[v] && variants[v].alloc == ALLOC_NONE) floor_us = t[v].median_ms * 1e3 / iters;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        if (ok[v] && !timed[v]) continue;
        result_rec r;
        rec_begin(&r, var->name);
        rec_int(&r, "n", n);
        rec_int(&r, "iters", iters);
        if (!ok[v]) {
            rec_str(&r, "status", "FAIL");
            rec_emit(&r);
            continue;
        }
        double us = t[v].median_ms * 1e3 / iters;
        rec_str(&r, "status", "PASS");
        rec_num(&r, "time_ms", t[v].median_ms);
        rec_num(&r, "us_per_iter", us);
        if (ref_ms > 0) {
            rec_str(&r, "ref", variants[0].name);
            rec_num(&r, "pct_ref", 100.0 * ref_ms / t[v].median_ms);
        }
        if (floor_us > 0 && var->alloc != ALLOC_NONE) rec_num(&r, "overhead_us", us - floor_us);
        /* the floor is context, not an allocator: never the sample's headline */
        if (var->alloc == ALLOC_NONE) rec_str(&r, "role", "floor");
        if (var->alloc == ALLOC_ASYNC) {
            rec_str(&r, "threshold", var->threshold ? "max" : "0");
            rec_num(&r, "reserved_mib", soa_mib(st[v].reserved));
            rec_num(&r, "reserved_high_mib", soa_mib(st[v].reserved_high));
            rec_num(&r, "used_mib", soa_mib(st[v].used));
            rec_num(&r, "used_high_mib", soa_mib(st[v].used_high));
        }
        rec_num(&r, "min_ms", t[v].min_ms);
        rec_emit(&r);
    }

    /* Leave the pool as it was found: its threshold back, its memory released. */
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold_before));
    CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    CUDA_CHECK(cudaStreamDestroy(s));
    guarded_free(ctx.acc);
    CUDA_CHECK(cudaFree(ctx.prealloc));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_got));
    free(h_in);
    free(h_want);
    return report_finish();
}
