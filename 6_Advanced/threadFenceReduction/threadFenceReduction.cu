/* threadFenceReduction: sum an array in ONE kernel launch, blocks finishing
 * each other's work through a fence and an atomic ticket.
 *
 * What it teaches: blocks cannot wait for each other (__syncthreads is a
 * barrier for the threads of one block only, and the blocks of a grid are
 * not even guaranteed to be resident at the same time), yet a reduction
 * needs one final step after every block is done. The pattern: each block
 * writes its partial sum, executes __threadfence() so that the write is
 * visible to the whole device before anything that follows, then takes a
 * ticket from a counter with atomicAdd; the block that draws the last
 * ticket knows every other partial is already visible and sums them. The
 * counter is reset by that last block, so the next launch reuses it with no
 * host memset. Without the fence the last block can read a partial that
 * another block has written but not yet made visible: a wrong sum now and
 * then, which is why this sample has a --stress mode.
 *
 * Build:  make -C 6_Advanced/threadFenceReduction   (or `make threadFenceReduction`)
 * Run:    bin/threadFenceReduction                  2^28 floats, every variant
 *         bin/threadFenceReduction --stress=1000    1000 back-to-back launches, random sizes, each checked
 *         bin/threadFenceReduction --check-sizes    n = 1 2 31 33 1000 2^20+1 2^28
 *         bin/threadFenceReduction --n=2^31+1       64-bit indexing (8.6 GB of floats)
 *         bin/threadFenceReduction --block=1024 --type=int
 *         bin/threadFenceReduction --quick          small sizes + a short stress, for compute-sanitizer
 * Variants (the table below drives checks, stress, timing and --help):
 *   cpu                 Neumaier sum on the host, timed once (2^25 elements at most)
 *   cub                 cub::DeviceReduce::Sum: the reference
 *   multi_pass          two kernels: per-block partials, then one block sums them
 *   single_pass         one kernel: partials, __threadfence, atomic ticket, last block sums
 *   single_pass_u8      the same with 8 independent 16-byte loads in flight per thread
 *   single_pass_b1024   the same with 1024 threads per block
 *   exercise            your kernel, when `make try` builds one (exercises/)
 *
 * Types: --type=float (default), double, int (int accumulates in long long).
 * The inputs are small nonzero integers, so every sum is exact and the check
 * demands equality (common/reduce_ref.h). Bytes counted:
 * n * sizeof(element), read once; 1e9 bytes per GB.
 * The "Measured" figures in the kernel comments are copied by hand from
 * results/H200/threadFenceReduction.txt, commit 13f861f (2026-12-02);
 * `make bench` measures again and regenerates the README's table only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "check.h"
#include "cpu_ref.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "timing.h"

/* Shared with 0_Simple/reduction: input values, accumulator and vector
 * types, warp/block sums, the grid-stride per-thread sum (thread_sum). */
#include "reduce_device.cuh"
#include "reduce_ref.h"

/* ---- CPU reference ------------------------------------------------------
 * common/reduce_ref.c: the exact sum streamed over the generated values, for
 * many prefixes in one pass. */

/* ---- kernels ------------------------------------------------------------ */

/* Multi-pass, pass 1 (and pass 2 with one block): each thread sums its
 * grid-stride share with UNROLL 16-byte loads in flight, the block sums with
 * warp shuffles, one partial per block. The second launch is the "grid-wide
 * barrier": kernel boundaries order all memory operations.
 * Measured (H200, 2^28 floats, two launches): 4494 GB/s, 99.46% of CUB. */
template <typename In, typename A, int UNROLL>
__global__ void reduce_partials(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A v = thread_sum<In, A, UNROLL>(in, n);
    v = block_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/* Single pass. Every block: its partial sum, as above, stored to
 * partials[blockIdx.x]. Then thread 0:
 *   __threadfence()  - the partial is visible to every thread of the device
 *                      before anything this thread does afterwards, in
 *                      particular before the ticket below. Without it, the
 *                      write may still sit in this SM's path to L2 while the
 *                      counter increment (an L2 atomic) is already seen.
 *   atomicAdd        - the ticket: 0, 1, ..., gridDim.x - 1 in the order the
 *                      blocks finish. Exactly one block draws the last one.
 * The last block then (after a second fence on its side, the acquire half,
 * and __syncthreads to tell its own threads) reads all gridDim.x partials
 * with __ldcg (from L2, never from a stale L1 line), sums them and writes
 * the result, and resets the counter to 0 for the next launch: no other
 * block touches it again in this launch, and the kernel boundary makes the
 * reset visible to the next one. (atomicInc with gridDim.x - 1 as the wrap
 * value would reset it as a side effect; the explicit store says it.)
 * Why not __syncthreads: it waits for the threads of one block; other
 * blocks may not have started yet (a grid larger than what fits on the GPU
 * runs in waves), so no barrier inside a normal launch can wait for them.
 * Here nobody waits: the last block to finish does the rest.
 * Measured (H200, 2^28 floats, one launch): 4510 GB/s, 99.82% of CUB; with
 * 8 loads in flight 4510 GB/s (99.82%); with 1024 threads per block
 * 4534 GB/s (100.4%). */
template <typename In, typename A, int UNROLL>
__global__ void reduce_single_pass(const In *__restrict__ in, size_t n, A *partials,
                                   unsigned int *retired, A *out)
{
    __shared__ bool am_last;
    A v = thread_sum<In, A, UNROLL>(in, n);
    v = block_sum(v);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();
        unsigned int ticket = atomicAdd(retired, 1u);
        am_last = ticket == gridDim.x - 1;
        if (am_last) __threadfence();
    }
    __syncthreads();   /* am_last known to all; also separates the two block_sum calls */
    if (am_last) {
        A w = (A)0;
        for (unsigned int i = threadIdx.x; i < gridDim.x; i += blockDim.x) w += __ldcg(&partials[i]);
        w = block_sum(w);
        if (threadIdx.x == 0) {
            *out = w;
            *retired = 0;
        }
    }
}

/* make try SAMPLE=threadFenceReduction EX=N builds your exercise in here: its
 * file (exercises/exN_*.cuh) defines exercise_kernel, a template with
 * reduce_single_pass's parameters, run as the variant "exercise" (run_exercise). */
#ifdef EXERCISE
#include EXERCISE
#endif

/* ---- launchers ---------------------------------------------------------- */

typedef struct {
    const void *in;
    size_t n;
    int block;              /* --block */
    int sm_count;
    size_t grid_cap;        /* 0, or at most this many blocks (checks: every thread loops) */
    void *part;             /* partial sums, one per block of pass 1 */
    size_t part_cap;        /* how many it holds (the size guard) */
    void *result;           /* where the sum goes (one accumulator) */
    unsigned int *retired;  /* the single-pass retirement counter, 0 between launches */
    void *cub_temp;
    size_t cub_bytes;
} tfr_ctx;

/* Blocks of pass 1: fill the GPU once (resident blocks per SM x SMs), fewer
 * when n is small (and at most grid_cap in the checks that make every
 * thread go round its grid-stride loop). One partial sum per block: the
 * grid must fit the partial-sum buffer. */
static unsigned int grid_for(const tfr_ctx *x, int block, int resident_per_sm, size_t per_thread)
{
    size_t want = (x->n + (size_t)block * per_thread - 1) / ((size_t)block * per_thread);
    size_t grid = (size_t)resident_per_sm * x->sm_count;
    if (want < grid) grid = want;
    if (x->grid_cap > 0 && grid > x->grid_cap) grid = x->grid_cap;
    if (grid < 1) grid = 1;
    red_partials_fit("threadFenceReduction", grid, x->part_cap);
    return (unsigned int)grid;
}

template <int UNROLL, int BLOCK, typename T>
static void run_multi_pass(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const tfr_ctx *x = (const tfr_ctx *)p;
    const int block = BLOCK ? BLOCK : x->block;
    static int cb = 0, c = 0;
    int r = red_resident_per_sm(reduce_partials<T, A, UNROLL>, block, &cb, &c);
    unsigned int grid = grid_for(x, block, r, (size_t)vec16<T>::N * UNROLL);
    A *dst = grid == 1 ? (A *)x->result : (A *)x->part;
    reduce_partials<T, A, UNROLL><<<grid, block, 0, s>>>((const T *)x->in, x->n, dst);
    CHECK_LAUNCH();
    if (grid == 1) return;
    reduce_partials<A, A, 1><<<1, block, 0, s>>>((const A *)x->part, grid, (A *)x->result);
    CHECK_LAUNCH();
}

template <int UNROLL, int BLOCK, typename T>
static void run_single_pass(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const tfr_ctx *x = (const tfr_ctx *)p;
    const int block = BLOCK ? BLOCK : x->block;
    static int cb = 0, c = 0;
    int r = red_resident_per_sm(reduce_single_pass<T, A, UNROLL>, block, &cb, &c);
    unsigned int grid = grid_for(x, block, r, (size_t)vec16<T>::N * UNROLL);
    reduce_single_pass<T, A, UNROLL><<<grid, block, 0, s>>>((const T *)x->in, x->n, (A *)x->part,
                                                             x->retired, (A *)x->result);
    CHECK_LAUNCH();
}

#ifdef EXERCISE
/* Your kernel, launched as single_pass launches reduce_single_pass. */
template <int UNROLL, int BLOCK, typename T>
static void run_exercise(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const tfr_ctx *x = (const tfr_ctx *)p;
    const int block = BLOCK ? BLOCK : x->block;
    static int cb = 0, c = 0;
    int r = red_resident_per_sm(exercise_kernel<T, A, UNROLL>, block, &cb, &c);
    unsigned int grid = grid_for(x, block, r, (size_t)vec16<T>::N * UNROLL);
    exercise_kernel<T, A, UNROLL><<<grid, block, 0, s>>>((const T *)x->in, x->n, (A *)x->part, x->retired,
                                                          (A *)x->result);
    CHECK_LAUNCH();
}
#endif

/* The reference: CUB, temporary storage allocated once outside the timing. */
template <int DUMMY, int DUMMY2, typename T>
static void run_cub(void *p, cudaStream_t s)
{
    const tfr_ctx *x = (const tfr_ctx *)p;
    red_cub_sum<T>(x->cub_temp, x->cub_bytes, x->in, x->result, x->n, s);
}

/* ---- variant table ------------------------------------------------------ */

#define BY_TYPE(f, ...) {f<__VA_ARGS__, float>, f<__VA_ARGS__, double>, f<__VA_ARGS__, int>}

typedef struct {
    const char *name;
    timed_fn run[3];    /* by red_type: float, double, int */
    int is_reference;
    int block;          /* fixed block size, or 0 for --block */
    const char *what;
} variant;

static const variant variants[] = {
    {"cub", BY_TYPE(run_cub, 0, 0), 1, 0, "cub::DeviceReduce::Sum (reference)"},
    {"multi_pass", BY_TYPE(run_multi_pass, 4, 0), 0, 0, "two kernels: block partials, then one block"},
    {"single_pass", BY_TYPE(run_single_pass, 4, 0), 0, 0, "one kernel: __threadfence + atomic ticket, last block sums"},
    {"single_pass_u8", BY_TYPE(run_single_pass, 8, 0), 0, 0, "single pass, 8 loads in flight per thread"},
    {"single_pass_b1024", BY_TYPE(run_single_pass, 4, 1024), 0, 1024, "single pass, 1024 threads per block"},
#ifdef EXERCISE
    {"exercise", BY_TYPE(run_exercise, 4, 0), 0, 0, "your kernel (make try SAMPLE=threadFenceReduction EX=N)"},
#endif
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ------------------------------------------------------------ */

static long long opt_n = 1LL << 28;
static long long opt_block = 256;
static const char *opt_type = "float";
static const char *opt_variant = "all";
static char variant_choices[512];   /* "all|cpu|cub|...", from the table */
static int opt_check_sizes = 0;
static long long opt_stress = 0;

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("n", "N", "elements to sum (up to 2^34; 2^31+1 needs 8.6 GB as float)", &opt_n, 1,
                 1LL << 34),
    OPT_INT_SPEC("block", "THREADS", "threads per block: a power of two, 32..1024", &opt_block, 32,
                 1024),
    OPT_STRING_SPEC("type", "TYPE", "element type", &opt_type, "float|double|int"),
    OPT_STRING_SPEC("variant", "NAME", "run one variant (and cub, the reference), or all",
                    &opt_variant, variant_choices),
    OPT_FLAG_SPEC("check-sizes", "check every variant at n = 1 2 31 33 1000 2^20+1 2^28, no timing",
                  &opt_check_sizes),
    OPT_INT_SPEC("stress", "LAUNCHES", "back-to-back launches of random sizes (1..n), each checked",
                 &opt_stress, 0, 100000),
};

static const size_t sizes_that_matter[] = {1, 2, 31, 33, 1000, (1u << 20) + 1, 1u << 28};
static const size_t quick_sizes[] = {1, 2, 31, 33, 1000, 4097, (1u << 20) + 1};

/* ---- checking ----------------------------------------------------------- */

typedef union { float f; double d; long long i; } acc_val;

static double acc_fp(red_type t, const void *p)
{
    acc_val v;
    memcpy(&v, p, red_acc_size(t));
    return t == RED_FLOAT ? (double)v.f : v.d;
}

static long long acc_int(red_type t, const void *p)
{
    acc_val v;
    memset(&v, 0, sizeof v);
    memcpy(&v, p, red_acc_size(t));
    return v.i;
}

/* Every variant is grid-stride: at sizes up to SMALL_GRID_MAX_N it is checked
 * a second time on a grid of SMALL_GRID blocks, so that a wrong stride or a
 * broken unrolled loop runs even where the full grid covers n in one sweep
 * (and the last-block logic sees a grid of more than one block). */
#define SMALL_GRID 3
#define SMALL_GRID_MAX_N ((size_t)1 << 22)

/* One checked run: partials, result and the guard zones after them poisoned
 * (NaN / -1) first, so a partial read before it was written makes the sum
 * NaN (or wrong), and a write past the end of either buffer fails. */
static int check_once(const variant *v, red_type t, const tfr_ctx *ctx, const red_ref *ref,
                      size_t grid_cap)
{
    tfr_ctx x = *ctx;
    x.n = ref->n;
    x.grid_cap = grid_cap;
    const size_t asize = red_acc_size(t);
    poison_guarded(x.part, x.part_cap * asize);
    poison_guarded(x.result, asize);
    v->run[t](&x, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned char got[8];
    CUDA_CHECK(cudaMemcpy(got, x.result, asize, cudaMemcpyDeviceToHost));
    char msg[512], what[160], cap[48] = "";
    if (grid_cap) snprintf(cap, sizeof cap, ", grid of %zu blocks", grid_cap);
    snprintf(what, sizeof what, "threadFenceReduction: %s (%s, block %d%s, n=%zu)", v->name,
             red_type_name(t), v->block ? v->block : x.block, cap, ref->n);
    size_t bad = check_guard(what, x.result, asize);
    bad += check_guard(what, x.part, x.part_cap * asize);
    if (red_check(t, ref, acc_fp(t, got), acc_int(t, got), msg, sizeof msg)) return bad == 0;
    fprintf(stderr, "%s: %s\n", what, msg);
    return 0;
}

static int check_variant(const variant *v, red_type t, const tfr_ctx *ctx, const red_ref *ref)
{
    int ok = check_once(v, t, ctx, ref, 0);
    if (!v->is_reference && ref->n <= SMALL_GRID_MAX_N) ok &= check_once(v, t, ctx, ref, SMALL_GRID);
    return ok;
}

/* Stress: `launches` launches back to back on one stream, no host
 * synchronization in between, each on a random prefix (log-uniform size in
 * [1, max_n]) with its own result slot and the partials poisoned before it.
 * This is where a missing fence or a counter that is not reset shows up.
 * Returns the number of wrong sums. */
static size_t stress_variant(const variant *v, red_type t, const tfr_ctx *ctx, size_t max_n,
                             long long launches, uint64_t size_seed, uint64_t input_seed,
                             void *d_results)
{
    const size_t asize = red_acc_size(t);
    size_t *sizes = (size_t *)malloc((size_t)launches * sizeof *sizes);
    red_ref *refs = (red_ref *)malloc((size_t)launches * sizeof *refs);
    unsigned char *got = (unsigned char *)malloc((size_t)launches * asize);
    if (!sizes || !refs || !got) {
        fprintf(stderr, "threadFenceReduction: stress: out of host memory\n");
        free(sizes); free(refs); free(got);
        return (size_t)launches;
    }
    poison_guarded(d_results, (size_t)launches * asize);
    for (long long k = 0; k < launches; k++) {
        tfr_ctx x = *ctx;
        sizes[k] = red_stress_size(size_seed, (uint64_t)k, max_n);
        x.n = sizes[k];
        x.result = (unsigned char *)d_results + (size_t)k * asize;
        CUDA_CHECK(cudaMemsetAsync(x.part, 0xFF, x.part_cap * asize, 0));
        v->run[t](&x, 0);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, d_results, (size_t)launches * asize, cudaMemcpyDeviceToHost));
    /* The sums are of the input, which was generated with --seed: the
     * sizes have a seed of their own, the reference must not use it. */
    red_ref_prefixes(t, input_seed, sizes, (int)launches, refs);
    size_t bad = 0;
    for (long long k = 0; k < launches; k++) {
        char msg[256];
        const void *g = got + (size_t)k * asize;
        if (red_check(t, &refs[k], acc_fp(t, g), acc_int(t, g), msg, sizeof msg)) continue;
        if (bad < CHECK_MAX_REPORTED)
            fprintf(stderr, "threadFenceReduction: stress %s launch %lld: %s\n", v->name, k, msg);
        bad++;
    }
    char what[96];
    snprintf(what, sizeof what, "threadFenceReduction: stress %s results", v->name);
    bad += check_guard(what, d_results, (size_t)launches * asize) ? 1 : 0;
    bad += check_guard(what, ctx->part, ctx->part_cap * asize) ? 1 : 0;
    free(sizes);
    free(refs);
    free(got);
    return bad;
}

static void fail_arg(const char *msg)
{
    fprintf(stderr, "threadFenceReduction: error: %s\n", msg);
    printf("threadFenceReduction: FAIL (bad argument)\n");
    exit(1);
}



int main(int argc, char **argv)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    static char notes[2048];
    size_t used = (size_t)snprintf(notes, sizeof notes, "Variants:\n");
    for (int v = 0; v < N_VARIANTS && used < sizeof notes; v++)
        used += (size_t)snprintf(notes + used, sizeof notes - used, "  %-19s %s\n",
                                 variants[v].name, variants[v].what);
    if (used < sizeof notes)
        snprintf(notes + used, sizeof notes - used,
                 "  cpu                 the CPU baseline (timed once)\n"
                 "--quick: n = 2^17+3, checks at 1 2 31 33 1000 4097 as well, and --stress=32\n"
                 "unless --stress is given.");
    const opts_config cfg = {"threadFenceReduction",
                             "single-pass sum across blocks: __threadfence + atomic ticket, vs CUB",
                             sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]),
                             notes, 0};
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);

    /* Validate everything before the first CUDA call. */
    char err[256];
    if (opt_block & (opt_block - 1)) {
        snprintf(err, sizeof err, "--block=%lld: must be a power of two (32, 64, ..., 1024): the "
                 "block sum works in whole warps and the variants are tuned for powers of two",
                 opt_block);
        fail_arg(err);
    }
    red_type type;
    if (red_type_parse(opt_type, &type)) fail_arg("--type: must be float, double or int");
    int selected = -1;
    if (strcmp(opt_variant, "all")) {
        for (int v = 0; v < N_VARIANTS; v++)
            if (!strcmp(opt_variant, variants[v].name)) selected = v;
    }
    const int only_cpu = selected < 0 && !strcmp(opt_variant, "cpu");
    const size_t n = o.quick ? (1u << 17) + 3 : (size_t)opt_n;
    const long long stress = (o.quick && opt_stress == 0) ? 32 : opt_stress;
    const size_t esize = red_type_size(type), asize = red_acc_size(type);

    size_t sizes[16];
    int nsizes = 0;
    const size_t *list = opt_check_sizes ? sizes_that_matter : quick_sizes;
    int nlist = opt_check_sizes ? (int)(sizeof sizes_that_matter / sizeof sizes_that_matter[0])
                                : (int)(sizeof quick_sizes / sizeof quick_sizes[0]);
    for (int k = 0; k < nlist; k++)
        if (opt_check_sizes || list[k] < n) sizes[nsizes++] = list[k];
    if (!opt_check_sizes || n != (1u << 28)) sizes[nsizes++] = n;
    size_t max_n = 0;
    for (int k = 0; k < nsizes; k++) max_n = sizes[k] > max_n ? sizes[k] : max_n;
    const size_t cpu_n = max_n < (1u << 25) ? max_n : (1u << 25);
    size_t in_bytes;
    if (opts_checked_bytes("--n", (long long)max_n, esize, 1, 1ULL << 40, &in_bytes, err, sizeof err))
        fail_arg(err);
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    report_init("threadFenceReduction", o.json);
    device_info dev;
    device_setup_or_exit("threadFenceReduction", o.device, o.json, &dev);
    /* One partial per block of pass 1, and pass 1 never has more blocks than
     * fit on the device at once; every launch checks its grid against this
     * (red_partials_fit in grid_for). */
    const size_t part_cap = red_max_resident_blocks(o.device, dev.sm_count);
    const size_t part_bytes = part_cap * asize;

    size_t cub_bytes = 0;
    for (int k = 0; k < nsizes; k++) {
        size_t b = red_cub_temp_bytes(type, sizes[k]);
        if (b > cub_bytes) cub_bytes = b;
    }
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    double need = (double)in_bytes + part_bytes + cub_bytes + (double)stress * asize +
                  3.0 * CHECK_GUARD_BYTES + (64 << 20);
    if (need > (double)free_b) {
        report_fail("--n=%zu (%s): needs %.2f GB of device memory, the device has %.2f GB free",
                    max_n, red_type_name(type), need / 1e9, free_b / 1e9);
        return report_finish();
    }

    void *d_in, *d_stress = NULL;
    tfr_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    CUDA_CHECK(cudaMalloc(&d_in, in_bytes));
    /* Outputs with a guard zone after each (check.h). */
    ctx.part = guarded_malloc(part_bytes);
    ctx.part_cap = part_cap;
    ctx.result = guarded_malloc(asize);
    CUDA_CHECK(cudaMalloc(&ctx.retired, sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc(&ctx.cub_temp, cub_bytes > 0 ? cub_bytes : 1));
    if (stress > 0) d_stress = guarded_malloc((size_t)stress * asize);
    /* The retirement counter is zeroed once, here; from then on the last
     * block of every launch resets it. */
    CUDA_CHECK(cudaMemset(ctx.retired, 0, sizeof(unsigned int)));
    ctx.in = d_in;
    ctx.n = n;
    ctx.block = (int)opt_block;
    ctx.sm_count = dev.sm_count;
    ctx.cub_bytes = cub_bytes;

    if (type == RED_FLOAT) red_fill_device((float *)d_in, max_n, o.seed, dev.sm_count);
    else if (type == RED_DOUBLE) red_fill_device((double *)d_in, max_n, o.seed, dev.sm_count);
    else red_fill_device((int *)d_in, max_n, o.seed, dev.sm_count);
    CUDA_CHECK(cudaDeviceSynchronize());

    size_t stops[17];
    red_ref refs[17];
    memcpy(stops, sizes, (size_t)nsizes * sizeof sizes[0]);
    stops[nsizes] = cpu_n;
    double t_ref = host_seconds();
    red_ref_prefixes(type, o.seed, stops, nsizes + 1, refs);
    report_note("type=%s n=%zu (%.1f MiB) block=%d; checked at %d sizes up to %zu; CPU reference "
                "%.1f s", red_type_name(type), n, n * esize / 1048576.0, ctx.block, nsizes, max_n,
                host_seconds() - t_ref);

    /* Check every selected variant (and the reference) at every size. */
    int ok[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) {
        ok[v] = 1;
        if (!variants[v].is_reference && (only_cpu || (selected >= 0 && v != selected))) continue;
        for (int k = 0; k < nsizes; k++) {
            int pass = check_variant(&variants[v], type, &ctx, &refs[k]);
            ok[v] &= pass;
            if (opt_check_sizes) {
                result_rec r;
                rec_begin(&r, variants[v].name);
                rec_int(&r, "n", (long long)sizes[k]);
                rec_str(&r, "status", pass ? "PASS" : "FAIL");
                rec_str(&r, "type", red_type_name(type));
                rec_int(&r, "block", variants[v].block ? variants[v].block : ctx.block);
                rec_emit(&r);
            }
        }
    }

    /* Stress: many launches of random sizes, each checked. */
    if (stress > 0) {
        size_t stress_max = n < max_n ? n : max_n;
        report_note("stress: %lld launches per variant, sizes log-uniform in [1, %zu]", stress,
                    stress_max);
        for (int v = 0; v < N_VARIANTS; v++) {
            if (variants[v].is_reference || only_cpu || (selected >= 0 && v != selected)) continue;
            size_t bad = stress_variant(&variants[v], type, &ctx, stress_max, stress,
                                        o.seed ^ 0x5157ULL, o.seed, d_stress);
            if (bad) ok[v] = 0;
            result_rec r;
            rec_begin(&r, variants[v].name);
            rec_str(&r, "mode", "stress");
            rec_int(&r, "launches", stress);
            rec_str(&r, "status", bad ? "FAIL" : "PASS");
            rec_int(&r, "wrong", (long long)bad);
            rec_str(&r, "type", red_type_name(type));
            rec_int(&r, "block", variants[v].block ? variants[v].block : ctx.block);
            rec_emit(&r);
        }
    }

    if (!opt_check_sizes) {
        result_rec r;
        if (selected < 0) {
            double cpu_ms = 0;
            double got = red_cpu_baseline(type, cpu_n, o.seed, &cpu_ms);
            rec_begin(&r, "cpu");
            rec_int(&r, "n", (long long)cpu_n);
            char msg[256];
            int pass = got == got && red_check(type, &refs[nsizes], got, (long long)got, msg, sizeof msg);
            if (!pass)
                fprintf(stderr, "threadFenceReduction: cpu: %s\n", got != got ? "out of host memory" : msg);
            rec_str(&r, "status", pass ? "PASS" : "FAIL");
            rec_perf(&r, cpu_ms, "gbps", (double)cpu_n * esize / (cpu_ms * 1e6), 0, NULL, 0);
            rec_str(&r, "type", red_type_name(type));
            rec_emit(&r);
        }

        const int flush = (double)n * esize < 4.0 * dev.l2_bytes;
        report_note("timing at n=%zu, median of %d runs after 3 warm-ups; L2 %s", n, reps,
                    flush ? "flushed before each run" : "not flushed (data is over 4x L2)");
        /* The chosen variants that passed and the reference, timed round
         * robin (common/timing.h): pct_ref is from this run, at the same clocks. */
        ctx.n = n;
        timed_variant group[N_VARIANTS];
        timing_stats times[N_VARIANTS];
        char ranges[N_VARIANTS][80];
        int slot[N_VARIANTS], n_timed = 0, ref = -1;
        for (int v = 0; v < N_VARIANTS; v++) {
            const variant *var = &variants[v];
            slot[v] = -1;
            if (var->is_reference) ref = v;
            if (!var->is_reference && (only_cpu || (selected >= 0 && v != selected))) continue;
            if (!ok[v]) continue;
            snprintf(ranges[v], sizeof ranges[v], "threadFenceReduction/%s", var->name);
            group[n_timed] = (timed_variant){var->run[type], &ctx, ranges[v], flush};
            slot[v] = n_timed++;
        }
        if (n_timed > 0) {
            timing_cfg tc = timing_defaults(reps);
            time_gpu_group(group, n_timed, &tc, times);
        }
        const double ref_gbps = ref >= 0 && slot[ref] >= 0
                                    ? (double)n * esize / (times[slot[ref]].median_ms * 1e6)
                                    : 0;
        for (int v = 0; v < N_VARIANTS; v++) {   /* the reference is first in the table */
            const variant *var = &variants[v];
            if (!var->is_reference && (only_cpu || (selected >= 0 && v != selected))) continue;
            rec_begin(&r, var->name);
            rec_int(&r, "n", (long long)n);
            if (!ok[v]) {
                rec_str(&r, "status", "FAIL");
                rec_str(&r, "type", red_type_name(type));
                rec_emit(&r);
                continue;
            }
            const timing_stats *ts = &times[slot[v]];
            double gbps = (double)n * esize / (ts->median_ms * 1e6);
            rec_str(&r, "status", "PASS");
            rec_perf(&r, ts->median_ms, "gbps", gbps, dev.peak_gbps, "cub", ref_gbps);
            rec_str(&r, "type", red_type_name(type));
            rec_int(&r, "block", var->block ? var->block : ctx.block);
            rec_num(&r, "min_ms", ts->min_ms);
            timing_rec_clocks(&r, ts);
            rec_emit(&r);
        }
        /* The last timed single-pass run left the counter at 0 (checked:
         * a leftover ticket would break the next launch). */
        unsigned int left = 1;
        CUDA_CHECK(cudaMemcpy(&left, ctx.retired, sizeof left, cudaMemcpyDeviceToHost));
        if (left != 0) report_fail("retirement counter is %u after the runs, expected 0", left);
    }

    CUDA_CHECK(cudaFree(d_in));
    guarded_free(ctx.part);
    guarded_free(ctx.result);
    CUDA_CHECK(cudaFree(ctx.retired));
    CUDA_CHECK(cudaFree(ctx.cub_temp));
    guarded_free(d_stress);
    return report_finish();
}
