/* cooperativeGroups: thread-block tiles, cg::reduce, and a grid-wide barrier
 * (grid.sync) in a cooperative launch, used for a two-phase algorithm in
 * one kernel, against the same algorithm as two kernels.
 *
 * What it teaches: Cooperative Groups names groups of threads and gives
 * each a sync() and collectives. A thread_block_tile<32> is a warp as a
 * group: cg::reduce(tile, v, cg::plus<float>()) sums v over its 32 threads
 * (shuffles, no shared memory). The grid_group is every thread of the
 * launch: grid.sync() is a barrier for all of them, legal only in a
 * cooperative launch (cudaLaunchCooperativeKernel) on a device that
 * supports it (cudaDevAttrCooperativeLaunch), and only when every block of
 * the grid is resident at once: a block that waits at the barrier for a
 * block that cannot start until it finishes would wait forever, so the
 * launch itself is refused (cudaErrorCooperativeLaunchTooLarge) when the
 * grid is larger than occupancy x SMs. The sample sizes its grid with
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs, and shows the
 * refusal by asking for one block more.
 *
 * The algorithm: y = x / sum(x). Phase one: every block sums its share of
 * x (grid-stride loop, tiles, cg::reduce) and writes a partial sum. Phase
 * two needs all partials: every block sums them (the same way, so every
 * block gets the same total) and writes its share of y. Between the phases
 * every partial must be written: either a kernel boundary (two_kernels) or
 * grid.sync() (grid_sync).
 *
 * Build:  make -C 6_Advanced/cooperativeGroups   (or `make cooperativeGroups`)
 * Run:    bin/cooperativeGroups                  n = 2^16+1 (launch-bound) and 2^26+1 (bandwidth-bound)
 *         bin/cooperativeGroups --n=2^20+1 --block=512
 *         bin/cooperativeGroups --quick          small sizes, for compute-sanitizer
 * Variants (one table below drives checks, timing and --help):
 *   cpu          compensated sum, then the division, on the host (timed once)
 *   two_kernels  phase one, phase two as two launches: the reference
 *   grid_sync    one cooperative launch, grid.sync() between the phases
 *
 * Bytes counted: 12 per element (x read in each phase, y written once);
 * 1e9 bytes per GB.
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include "check.h"
#include "cpu_ref.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "timing.h"

#include "coop_ref.h"

namespace cg = cooperative_groups;

/* ---- CPU reference ------------------------------------------------------
 * coop_ref.c: coop_cpu_normalise (compensated sum, then y = x / S) is the
 * CPU variant; coop_check compares y with x / S for the derived tolerance. */

/* ---- kernels ------------------------------------------------------------ */

/* The sum of one value per thread over the block, valid in thread 0:
 * cg::reduce over each warp-sized tile, the tile sums through shared memory,
 * cg::reduce again in the first tile. block.sync() makes the tile sums
 * visible to the first tile; the caller must not write warp_sums again
 * before another block-wide barrier. */
__device__ float block_reduce(float v, float *warp_sums)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) warp_sums[tile.meta_group_rank()] = v;
    block.sync();
    float s = 0.0f;
    if (tile.meta_group_rank() == 0) {
        s = tile.thread_rank() < tile.meta_group_size() ? warp_sums[tile.thread_rank()] : 0.0f;
        s = cg::reduce(tile, s, cg::plus<float>());
    }
    return s;
}

/* Phase one: this block's sum of its grid-stride share of x, written by
 * thread 0 to partials[blockIdx.x]. */
__device__ void phase_one(const float *x, size_t n, float *partials, float *warp_sums)
{
    float v = 0.0f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) v += x[i];
    float s = block_reduce(v, warp_sums);
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

/* Phase two: the total of the gridDim.x partials, summed by this block in
 * the same order as every other block (so all get the same float), then
 * y = x / total over the block's share. The partials are read with __ldcg
 * (from L2): they were written by other SMs. Block 0 also writes the
 * total, for the check. */
__device__ void phase_two(const float *x, float *y, size_t n, const float *partials,
                          float *warp_sums, float *total_shared, float *total_out)
{
    float v = 0.0f;
    for (unsigned int j = threadIdx.x; j < gridDim.x; j += blockDim.x) v += __ldcg(&partials[j]);
    float t = block_reduce(v, warp_sums);
    if (threadIdx.x == 0) {
        *total_shared = t;
        if (blockIdx.x == 0) *total_out = t;
    }
    cg::this_thread_block().sync();
    const float total = *total_shared;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = x[i] / total;
}

/* two_kernels, launch 1: phase one. */
__global__ void partial_sums(const float *x, size_t n, float *partials)
{
    __shared__ float warp_sums[32];
    phase_one(x, n, partials, warp_sums);
}

/* two_kernels, launch 2 (same grid): phase two. The boundary between the
 * two launches is the grid-wide barrier: every partial is written and
 * visible before the second kernel starts. */
__global__ void normalise_by_partials(const float *x, float *y, size_t n, const float *partials,
                                      float *total_out)
{
    __shared__ float warp_sums[32];
    __shared__ float total;
    phase_two(x, y, n, partials, warp_sums, &total, total_out);
}

/* grid_sync: both phases in one kernel. grid.sync() waits until every
 * thread of every block has arrived, and orders their memory operations
 * before everything after it: each block's partial is written and visible
 * before any block reads them. It also is a block-wide barrier, which
 * separates phase one's use of warp_sums from phase two's. */
__global__ void normalise_grid_sync(const float *x, float *y, size_t n, float *partials,
                                    float *total_out)
{
    __shared__ float warp_sums[32];
    __shared__ float total;
    cg::grid_group grid = cg::this_grid();
    phase_one(x, n, partials, warp_sums);
    grid.sync();
    phase_two(x, y, n, partials, warp_sums, &total, total_out);
}

/* ---- launchers ---------------------------------------------------------- */

typedef struct {
    const float *x;
    float *y;              /* output (guarded) */
    size_t n;
    float *partials;       /* one per block (room for one block more: the refused launch) */
    float *total;          /* block 0's total, for the check */
    unsigned int grid;     /* occupancy x SMs: every block resident at once */
    int block;
} coop_ctx;

static void run_two_kernels(void *p, cudaStream_t s)
{
    const coop_ctx *c = (const coop_ctx *)p;
    partial_sums<<<c->grid, c->block, 0, s>>>(c->x, c->n, c->partials);
    CHECK_LAUNCH();
    normalise_by_partials<<<c->grid, c->block, 0, s>>>(c->x, c->y, c->n, c->partials, c->total);
    CHECK_LAUNCH();
}

/* A cooperative launch takes the arguments as an array of pointers to them. */
static cudaError_t launch_grid_sync(const coop_ctx *c, unsigned int grid, cudaStream_t s)
{
    const float *x = c->x;
    float *y = c->y, *partials = c->partials, *total = c->total;
    size_t n = c->n;
    void *args[] = {(void *)&x, (void *)&y, (void *)&n, (void *)&partials, (void *)&total};
    return cudaLaunchCooperativeKernel((const void *)normalise_grid_sync, dim3(grid),
                                       dim3(c->block), args, 0, s);
}

static void run_grid_sync(void *p, cudaStream_t s)
{
    const coop_ctx *c = (const coop_ctx *)p;
    CUDA_CHECK(launch_grid_sync(c, c->grid, s));
}

/* ---- variant table ------------------------------------------------------ */

typedef struct {
    const char *name;
    timed_fn run;
    int is_reference;
    int launches;
    const char *what;
} variant;

static const variant variants[] = {
    {"two_kernels", run_two_kernels, 1, 2, "partial sums, then normalise: two launches (reference)"},
    {"grid_sync", run_grid_sync, 0, 1, "one cooperative launch, grid.sync() between the phases"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ------------------------------------------------------------ */

static long long opt_n = 0;
static long long opt_block = 256;
static const char *opt_variant = "all";
static char variant_choices[128];
static char help_notes[1024];

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("n", "N", "elements; 0 = two sizes, 2^16+1 and 2^26+1", &opt_n, 0, 1LL << 30),
    OPT_INT_SPEC("block", "THREADS", "threads per block (multiple of 32)", &opt_block, 32, 1024),
    OPT_STRING_SPEC("variant", "NAME", "time one variant (two_kernels, the reference, always runs)",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "cooperativeGroups", "y = x / sum(x): two kernels vs one cooperative kernel with grid.sync()",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

static void build_help_from_table(void)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-13s %s\n", "cpu",
                                "compensated sum, then the division, on the host (timed once)");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-13s %s\n",
                              variants[v].name, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "The grid is occupancy x SMs for both GPU variants; one launch of one block more\n"
             "shows cudaErrorCooperativeLaunchTooLarge. Checked at n = 1, 31, 1000, 4097, 2^17+3\n"
             "(8 times each) and at the timed sizes. --quick: n = 2^17+3.\n"
             "WAIVED (exit 2) where cudaDevAttrCooperativeLaunch is 0.");
}

/* ---- checks ------------------------------------------------------------- */

#define CHECK_REPEATS 8

/* Host buffers of the checks: y, the partials and the CPU's per-block sums. */
typedef struct {
    float *y;
    float *partials;     /* grid */
    double *want;        /* grid: coop_block_sums */
} check_bufs;

/* One checked run at n elements: y poisoned (NaN) with its guard zone, the
 * partials and the total poisoned too, so a partial read before it was
 * written turns the total, and every y, into NaN. Then every block's
 * partial is compared with the CPU's sum of that block's elements (exactly:
 * the inputs are integers, coop_ref.h), the total with S and y with x / S
 * (coop_ref.h derives the tolerances). */
static int check_variant(const variant *v, const coop_ctx *ctx, size_t n, const float *h_x,
                         check_bufs *hb, cudaStream_t s)
{
    float *h_y = hb->y;
    coop_ctx c = *ctx;
    c.n = n;
    size_t bytes = n * sizeof(float);
    poison_guarded(c.y, bytes);
    poison_device(c.partials, ((size_t)c.grid + 1) * sizeof(float));
    poison_device(c.total, sizeof(float));
    v->run(&c, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaMemcpy(h_y, c.y, bytes, cudaMemcpyDeviceToHost));
    float total = 0;
    CUDA_CHECK(cudaMemcpy(&total, c.total, sizeof total, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hb->partials, c.partials, c.grid * sizeof(float), cudaMemcpyDeviceToHost));
    double S = cpu_sum_f32(h_x, n);
    char what[96];
    snprintf(what, sizeof what, "%s(n=%zu) partials", v->name, n);
    coop_block_sums(h_x, n, c.grid, (unsigned)c.block, hb->want);
    size_t bad = coop_check_partials(what, hb->partials, hb->want, c.grid,
                                     coop_partial_rel_tol(n, c.grid, (unsigned)c.block));
    snprintf(what, sizeof what, "%s(n=%zu) y", v->name, n);
    bad += coop_check(what, h_x, h_y, n, S, coop_rel_tol(n, c.grid, (unsigned)c.block));
    double sum_tol = coop_sum_rel_tol(n, c.grid, (unsigned)c.block);
    if (!close_enough(total, S, 0.0, sum_tol)) {
        fprintf(stderr, "  %s(n=%zu): total %.9g, expected %.9g (relative tolerance %.3g)\n",
                v->name, n, total, S, sum_tol);
        bad++;
    }
    bad += check_guard(what, c.y, bytes);
    return bad == 0;
}

/* ---- main --------------------------------------------------------------- */

static void fail_arg(const char *msg)
{
    fprintf(stderr, "cooperativeGroups: error: %s\n", msg);
    printf("cooperativeGroups: FAIL (bad argument)\n");
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
    /* The sizes timed, and the smaller ones only checked. */
    size_t timed_n[2];
    int n_timed = 0;
    if (o.quick && opt_n == 0) timed_n[n_timed++] = (1u << 17) + 3;
    else if (opt_n == 0) { timed_n[n_timed++] = (1u << 16) + 1; timed_n[n_timed++] = (1u << 26) + 1; }
    else timed_n[n_timed++] = (size_t)opt_n;
    const size_t max_n = timed_n[n_timed - 1];
    const size_t check_only[] = {1, 31, 1000, 4097, (1u << 17) + 3};
    size_t bytes;
    if (opts_checked_bytes("--n", (long long)max_n, sizeof(float), 4, 1ULL << 40, &bytes, err,
                           sizeof err))
        fail_arg(err);
    bytes = max_n * sizeof(float);
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    report_init("cooperativeGroups", o.json);
    device_info dev;
    device_setup_or_exit("cooperativeGroups", o.device, o.json, &dev);
    int coop = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev.id));
    if (!coop) {
        char why[160];
        snprintf(why, sizeof why, "device %d does not support cooperative launches "
                 "(cudaDevAttrCooperativeLaunch = 0): grid.sync() needs them", dev.id);
        device_waive("cooperativeGroups", why);
    }

    /* The grid: as many blocks as can be resident at once. Both variants
     * use it, so they differ only in the barrier. */
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, normalise_grid_sync,
                                                             (int)opt_block, 0));
    if (per_sm < 1) {
        report_fail("normalise_grid_sync cannot run with %lld threads per block", opt_block);
        return report_finish();
    }
    coop_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.grid = (unsigned int)(per_sm * dev.sm_count);
    ctx.block = (int)opt_block;
    report_note("grid.sync() is legal here: cudaDevAttrCooperativeLaunch = 1, and a grid of %d "
                "blocks per SM x %d SMs = %u blocks of %d threads is resident at once", per_sm,
                dev.sm_count, ctx.grid, ctx.block);

    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes);
    check_bufs hb = {h_y, (float *)malloc(ctx.grid * sizeof(float)),
                     (double *)malloc(ctx.grid * sizeof(double))};
    if (!h_x || !h_y || !hb.partials || !hb.want) {
        report_fail("out of host memory (%zu bytes)", 2 * bytes);
        return report_finish();
    }
    if (!coop_partials_exact(max_n, ctx.grid, (unsigned)ctx.block))
        report_note("at n = %zu a block's partial can pass 2^24: partials are checked within a "
                    "tolerance, not exactly (coop_ref.h)", max_n);
    coop_input(o.seed, h_x, max_n);
    float *d_x;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    ctx.x = d_x;
    ctx.y = (float *)guarded_malloc(bytes);
    CUDA_CHECK(cudaMalloc(&ctx.partials, ((size_t)ctx.grid + 1) * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&ctx.total, sizeof(float)));
    /* A blocking stream: the legacy-stream memsets and copies of the checks
     * are ordered with it. */
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));

    /* Check both variants at every size first. A missing barrier gives a
     * wrong answer only when a block reads a partial before its writer got
     * to it, a matter of timing: the small sizes, where the race is
     * tightest, are checked CHECK_REPEATS times each (stopping at the first
     * failure). */
    int ok[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) {
        ok[v] = 1;
        for (size_t k = 0; k < sizeof check_only / sizeof check_only[0]; k++)
            for (int rep = 0; rep < CHECK_REPEATS && ok[v] && check_only[k] < max_n; rep++)
                ok[v] &= check_variant(&variants[v], &ctx, check_only[k], h_x, &hb, s);
        for (int k = 0; k < n_timed; k++)
            ok[v] &= check_variant(&variants[v], &ctx, timed_n[k], h_x, &hb, s);
    }

    /* One block more than fits: the driver must refuse the launch (it
     * cannot promise that every block reaches grid.sync()). The error is the
     * lesson, not a failure: shown, cleared, and the program goes on. */
    {
        coop_ctx c = ctx;
        c.n = 1;
        cudaError_t e = launch_grid_sync(&c, ctx.grid + 1, s);
        (void)cudaGetLastError();
        if (e == cudaErrorCooperativeLaunchTooLarge)
            report_note("a cooperative launch of %u blocks (one more than fit at once) is refused, "
                        "as it must be: %s (%s)", ctx.grid + 1, cudaGetErrorName(e),
                        cudaGetErrorString(e));
        else if (e == cudaSuccess) {
            CUDA_CHECK(cudaStreamSynchronize(s));
            report_note("a cooperative launch of %u blocks was accepted: the occupancy query was "
                        "conservative on this device", ctx.grid + 1);
        } else
            report_fail("a cooperative launch of %u blocks: expected "
                        "cudaErrorCooperativeLaunchTooLarge, got %s", ctx.grid + 1,
                        cudaGetErrorName(e));
    }

    for (int k = 0; k < n_timed; k++) {
        const size_t n = timed_n[k];
        result_rec r;
        /* The CPU variant, timed once at sizes it finishes in well under a second. */
        if (n <= (1u << 26) + 1 && opts_variant_runs_cpu(opt_variant)) {
            host_prefault(h_y, n * sizeof(float));
            double t0 = host_seconds();
            double S = coop_cpu_normalise(h_x, h_y, n);
            double cpu_ms = (host_seconds() - t0) * 1e3;
            size_t bad = coop_check("cpu y", h_x, h_y, n, S, 2 * FLT_EPSILON);
            rec_begin(&r, "cpu");
            rec_int(&r, "n", (long long)n);
            rec_str(&r, "status", bad ? "FAIL" : "PASS");
            rec_perf(&r, cpu_ms, "gbps", 12.0 * n / (cpu_ms * 1e6), 0, NULL, 0);
            rec_emit(&r);
        }
        ctx.n = n;
        const int flush = 8.0 * n < 4.0 * dev.l2_bytes;
        /* The variants that passed, the reference with them, timed round
         * robin (common/timing.h): pct_ref is from the same run, at the same
         * clocks. */
        timed_variant group[N_VARIANTS];
        timing_stats times[N_VARIANTS];
        char ranges[N_VARIANTS][64];
        int slot[N_VARIANTS], n_group = 0;
        double ref_gbps = 0;
        for (int v = 0; v < N_VARIANTS; v++) {
            const variant *var = &variants[v];
            slot[v] = -1;
            if (!opts_variant_runs(opt_variant, var->name, var->is_reference) || !ok[v]) continue;
            snprintf(ranges[v], sizeof ranges[v], "cooperativeGroups/%s", var->name);
            group[n_group] = (timed_variant){var->run, &ctx, ranges[v], 0};
            slot[v] = n_group++;
        }
        if (n_group > 0) {
            timing_cfg tc = timing_defaults(reps);
            tc.stream = s;
            tc.flush_l2 = flush;
            time_gpu_group(group, n_group, &tc, times);
        }
        for (int v = 0; v < N_VARIANTS; v++)
            if (variants[v].is_reference && slot[v] >= 0)
                ref_gbps = 12.0 * n / (times[slot[v]].median_ms * 1e6);
        for (int v = 0; v < N_VARIANTS; v++) {
            const variant *var = &variants[v];
            if (!opts_variant_runs(opt_variant, var->name, var->is_reference)) continue;
            rec_begin(&r, var->name);
            rec_int(&r, "n", (long long)n);
            if (!ok[v]) {
                rec_str(&r, "status", "FAIL");
                rec_emit(&r);
                continue;
            }
            const timing_stats *t = &times[slot[v]];
            double gbps = 12.0 * n / (t->median_ms * 1e6);
            rec_str(&r, "status", "PASS");
            rec_perf(&r, t->median_ms, "gbps", gbps, dev.peak_gbps, "two_kernels", ref_gbps);
            rec_int(&r, "launches", var->launches);
            rec_int(&r, "grid", ctx.grid);
            rec_int(&r, "block", ctx.block);
            rec_str(&r, "l2", flush ? "flushed" : "not_flushed");
            rec_num(&r, "min_ms", t->min_ms);
            timing_rec_clocks(&r, t);
            rec_emit(&r);
        }
    }

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_x));
    guarded_free(ctx.y);
    CUDA_CHECK(cudaFree(ctx.partials));
    CUDA_CHECK(cudaFree(ctx.total));
    free(h_x);
    free(h_y);
    free(hb.partials);
    free(hb.want);
    return report_finish();
}
