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
 * overhead_us = us_per_iter minus preallocated's; the variants timed round
 * robin, each stream-ordered one with its pool put back as its own runs
 * leave it before each run (pool_restore). The pool's reserved and used
 * memory (cudaMemPoolAttrReservedMemCurrent/High, UsedMemCurrent/High) are
 * read after one more run of each stream-ordered variant, alone, from an
 * empty pool.
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

/* Checked runs only (below): holds stream s until the reuse probe on another
 * stream has filled its buffer (*go set), or about max_us microseconds. */
__global__ void hold_until(const volatile int *go, int max_us)
{
    for (int us = 0; us < max_us && !*go; us++) __nanosleep(1000);
}

__global__ void set_flag(volatile int *go)
{
    *go = 1;
}

/* ---- launchers ---------------------------------------------------------- */

typedef enum { ALLOC_MALLOC, ALLOC_ASYNC, ALLOC_NONE } alloc_kind;

/* What a checked run adds to the loop (NULL in a timed run, which runs the
 * loop as it is shown):
 *  - a guard zone after every temporary: CHECK_GUARD_BYTES allocated after
 *    its n words, poisoned in stream order when it is allocated, copied back
 *    before it is freed and compared after the iteration: a temporary
 *    allocated too small (n bytes instead of n words) is written past its
 *    end, into the guard, by produce;
 *  - for the stream-ordered variants, the reuse probe: once produce has
 *    written the temporary, another stream (probe) allocates a buffer of the
 *    same size from the same pool and fills it with 0xFF, while accumulate
 *    waits (hold_until) for that fill. Freed in s's order, the temporary is
 *    still in use then: the pool cannot hand it out, the probe gets other
 *    memory (or the same after accumulate), and the result is right. Freed
 *    out of s's order (cudaFreeAsync on another stream: nothing orders it
 *    after accumulate), it can go back to the pool at once: the probe's
 *    buffer is the temporary, the fill overwrites it before accumulate reads
 *    it, and acc is wrong. */
typedef struct {
    unsigned char *guard;       /* pinned: the guard zone copied back */
    size_t guard_bad;           /* guard bytes found changed */
    const char *what;
    int probe;                  /* this variant gets the reuse probe */
    cudaStream_t probe_stream;  /* non-blocking: no implicit order with s */
    cudaEvent_t produced;       /* recorded on s after produce */
    int *go;                    /* device flag: the probe's fill is done */
} loop_checks;

/* The hold's limit: long enough for the host to reach the probe, short
 * enough that a pool which orders the probe after the free (it may insert
 * that dependency itself) costs little. */
#define HOLD_MAX_US 50000

typedef struct {
    const unsigned int *in;
    unsigned int *acc;          /* the result (guarded) */
    unsigned int *prealloc;     /* the preallocated variant's temporary (guarded) */
    int n, block, iters;
    loop_checks *chk;           /* NULL: a timed run */
    cudaMemPool_t pool;         /* the device's default pool ... */
    unsigned long long threshold;   /* ... and its release threshold, for pool_restore */
} loop_ctx;

/* The temporary holds n words. */
static size_t temp_bytes(const loop_ctx *c)
{
    return (size_t)c->n * sizeof(unsigned int);
}

/* What to allocate for it: a checked run adds the guard zone. */
static size_t alloc_bytes(const loop_ctx *c)
{
    return temp_bytes(c) + (c->chk ? CHECK_GUARD_BYTES : 0);
}

/* One iteration's compute on a temporary, whichever way it was allocated;
 * a checked run poisons the guard first, and, with the probe, holds
 * accumulate until the probe has had its chance. */
static void compute(const loop_ctx *c, unsigned int *tmp, int t, cudaStream_t s)
{
    loop_checks *k = c->chk;
    int grid = (c->n + c->block - 1) / c->block;
    if (k) CUDA_CHECK(cudaMemsetAsync((char *)tmp + temp_bytes(c), 0xFF, CHECK_GUARD_BYTES, s));
    if (k && k->probe) CUDA_CHECK(cudaMemsetAsync(k->go, 0, sizeof(int), s));
    produce<<<grid, c->block, 0, s>>>(c->in, tmp, c->n, (unsigned int)t);
    CHECK_LAUNCH();
    if (k && k->probe) {
        CUDA_CHECK(cudaEventRecord(k->produced, s));
        hold_until<<<1, 1, 0, s>>>(k->go, HOLD_MAX_US);
        CHECK_LAUNCH();
    }
    accumulate<<<grid, c->block, 0, s>>>(tmp, c->acc, c->n);
    CHECK_LAUNCH();
    if (k) CUDA_CHECK(cudaMemcpyAsync(k->guard, (char *)tmp + temp_bytes(c), CHECK_GUARD_BYTES,
                                      cudaMemcpyDeviceToHost, s));
}

/* After the temporary's free (checked runs): the reuse probe (loop_checks). */
static void reuse_probe(const loop_ctx *c)
{
    loop_checks *k = c->chk;
    if (!k || !k->probe) return;
    CUDA_CHECK(cudaEventSynchronize(k->produced));   /* a free out of order has completed by now */
    CUDA_CHECK(cudaStreamWaitEvent(k->probe_stream, k->produced, 0));
    void *q;
    CUDA_CHECK(cudaMallocAsync(&q, alloc_bytes(c), k->probe_stream));
    CUDA_CHECK(cudaMemsetAsync(q, 0xFF, temp_bytes(c), k->probe_stream));
    set_flag<<<1, 1, 0, k->probe_stream>>>(k->go);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaFreeAsync(q, k->probe_stream));
}

/* After the iteration's synchronisation (checked runs): the probe done, the
 * guard copied back is compared. */
static void iteration_checked(const loop_ctx *c)
{
    loop_checks *k = c->chk;
    if (!k) return;
    if (k->probe) CUDA_CHECK(cudaStreamSynchronize(k->probe_stream));
    k->guard_bad += check_guard_host(k->what, k->guard, CHECK_GUARD_BYTES);
}

/* cudaMalloc is not stream-ordered and cudaFree waits for the whole device
 * before it unmaps: each iteration pays a map, an unmap and a device-wide
 * synchronisation. */
static void run_malloc_free(void *p, cudaStream_t s)
{
    const loop_ctx *c = (const loop_ctx *)p;
    for (int t = 0; t < c->iters; t++) {
        unsigned int *tmp;
        CUDA_CHECK(cudaMalloc(&tmp, alloc_bytes(c)));
        compute(c, tmp, t, s);
        CUDA_CHECK(cudaFree(tmp));
        CUDA_CHECK(cudaStreamSynchronize(s));
        iteration_checked(c);
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
        CUDA_CHECK(cudaMallocAsync((void **)&tmp, alloc_bytes(c), s));
        compute(c, tmp, t, s);
        CUDA_CHECK(cudaFreeAsync(tmp, s));
        reuse_probe(c);
        CUDA_CHECK(cudaStreamSynchronize(s));
        iteration_checked(c);
    }
}

static void run_preallocated(void *p, cudaStream_t s)
{
    const loop_ctx *c = (const loop_ctx *)p;
    for (int t = 0; t < c->iters; t++) {
        compute(c, c->prealloc, t, s);
        CUDA_CHECK(cudaStreamSynchronize(s));
        iteration_checked(c);
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

/* Before each timed run of a stream-ordered variant, outside its events:
 * the pool as this variant's own runs leave it, whatever ran in between
 * (the variants are timed round robin, and async_release0 empties the pool
 * that async_keep relies on): emptied, with its threshold, then one
 * temporary allocated and freed, which the pool keeps if its threshold
 * lets it. */
static void pool_restore(void *p, cudaStream_t s)
{
    const loop_ctx *c = (const loop_ctx *)p;
    pool_prepare(c->pool, c->threshold);
    if (c->threshold == 0) return;
    void *q;
    CUDA_CHECK(cudaMallocAsync(&q, alloc_bytes(c), s));
    CUDA_CHECK(cudaFreeAsync(q, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
}

/* One checked loop at n elements: acc poisoned with its guard zone, then
 * zeroed over [0, n); the loop, with the checks of loop_checks (every
 * temporary's guard zone, the reuse probe); acc copied back asynchronously
 * into pinned memory poisoned beforehand; the stream synchronised; acc
 * compared exactly with soa_expected and the guards checked. For the
 * stream-ordered variants the pool must hold no allocation afterwards: a
 * temporary that is never freed shows here (used memory above zero). */
static int check_variant(const variant *v, const loop_ctx *ctx, loop_checks *chk, int n,
                         const unsigned int *h_in, unsigned int *h_want, unsigned int *h_got,
                         cudaMemPool_t pool, cudaStream_t s)
{
    loop_ctx x = *ctx;
    x.n = n;
    char tmp_what[96];
    snprintf(tmp_what, sizeof tmp_what, "%s(n=%d) temporary", v->name, n);
    chk->guard_bad = 0;
    chk->what = tmp_what;
    chk->probe = v->alloc == ALLOC_ASYNC;
    x.chk = chk;
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
    bad += chk->guard_bad;
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
    ctx.prealloc = (unsigned int *)guarded_malloc(bytes);
    ctx.n = n;
    ctx.block = (int)opt_block;
    ctx.iters = iters;
    ctx.chk = NULL;
    ctx.pool = pool;
    ctx.threshold = 0;
    loop_checks chk;
    memset(&chk, 0, sizeof chk);
    CUDA_CHECK(cudaMallocHost(&chk.guard, CHECK_GUARD_BYTES));
    CUDA_CHECK(cudaStreamCreateWithFlags(&chk.probe_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&chk.produced, cudaEventDisableTiming));
    CUDA_CHECK(cudaMalloc(&chk.go, sizeof(int)));
    report_note("n=%d (%.1f MiB temporary), %d iterations per timed run, each: allocate, produce, "
                "accumulate, free, cudaStreamSynchronize; median of %d runs", n,
                soa_mib(bytes), iters, reps);

    /* Check every variant at sizes that are not multiples of the block,
     * then at n; the pool emptied and set to the variant's threshold first.
     * A variant stops at its first failure: a loop that writes past what it
     * allocated would only go further past it at a larger size. */
    const int small_sizes[] = {1, 1000, 4097};
    int ok[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) {
        ok[v] = 1;
        if (variants[v].alloc == ALLOC_ASYNC) pool_prepare(pool, variants[v].threshold);
        for (size_t k = 0; k < sizeof small_sizes / sizeof small_sizes[0]; k++)
            if (small_sizes[k] < n && ok[v])
                ok[v] = check_variant(&variants[v], &ctx, &chk, small_sizes[k], h_in, h_want,
                                      h_got, pool, s);
        if (ok[v]) ok[v] = check_variant(&variants[v], &ctx, &chk, n, h_in, h_want, h_got, pool, s);
    }

    /* Time every selected variant that passed, the reference and the floor
     * with them, round robin (common/timing.h): pct_ref and overhead_us are
     * from the same run, at the same clocks. Each variant has its own
     * context; the stream-ordered ones get their pool back first. */
    loop_ctx vctx[N_VARIANTS];
    timed_variant group[N_VARIANTS];
    timing_stats times[N_VARIANTS];
    char ranges[N_VARIANTS][64];
    int slot[N_VARIANTS], n_group = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        slot[v] = -1;
        if (!ok[v]) continue;
        /* malloc_free (the reference) and preallocated (the floor) always run */
        if (!opts_variant_runs(opt_variant, var->name, var->alloc != ALLOC_ASYNC)) continue;
        vctx[v] = ctx;
        vctx[v].threshold = var->threshold;
        snprintf(ranges[v], sizeof ranges[v], "streamOrderedAllocation/%s", var->name);
        /* with_launches: the allocations are host work, and each run waits
         * for its stream inside the call (timing.h) */
        group[n_group] = (timed_variant){var->run, &vctx[v], ranges[v], 0,
                                         var->alloc == ALLOC_ASYNC ? pool_restore : NULL, 1};
        slot[v] = n_group++;
    }
    if (n_group > 0) {
        timing_cfg tc = timing_defaults(reps);
        tc.stream = s;
        time_gpu_group(group, n_group, &tc, times);
    }

    /* The pool's figures: one more run of each stream-ordered variant,
     * alone, on an emptied pool with its threshold. */
    timing_stats t[N_VARIANTS];
    pool_state st[N_VARIANTS];
    int timed[N_VARIANTS];
    memset(st, 0, sizeof st);
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        timed[v] = slot[v] >= 0;
        if (!timed[v]) continue;
        t[v] = times[slot[v]];
        if (var->alloc != ALLOC_ASYNC) continue;
        pool_prepare(pool, var->threshold);
        var->run(&vctx[v], s);
        pool_read(pool, &st[v]);
        if (var->threshold == 0 && st[v].reserved != 0)
            report_note("%s: the pool still reserves %.1f MiB after the last synchronisation, "
                        "although its release threshold is 0", var->name, soa_mib(st[v].reserved));
        if (var->threshold != 0 && st[v].reserved < bytes)
            report_note("%s: the pool reserves %.1f MiB, less than one temporary, although "
                        "its release threshold keeps everything", var->name,
                        soa_mib(st[v].reserved));
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
        timing_rec_clocks(&r, &t[v]);
        rec_emit(&r);
    }

    /* Leave the pool as it was found: its threshold back, its memory released. */
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold_before));
    CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
    CUDA_CHECK(cudaStreamDestroy(s));
    guarded_free(ctx.acc);
    guarded_free(ctx.prealloc);
    CUDA_CHECK(cudaFreeHost(chk.guard));
    CUDA_CHECK(cudaStreamDestroy(chk.probe_stream));
    CUDA_CHECK(cudaEventDestroy(chk.produced));
    CUDA_CHECK(cudaFree(chk.go));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_got));
    free(h_in);
    free(h_want);
    return report_finish();
}
