/* vectorAdd: c[i] = a[i] + b[i], the first CUDA program, measured honestly.
 *
 * What it teaches: the thread-index arithmetic, the bounds check that every
 * kernel needs, and why a memory-bound kernel is judged in GB/s against the
 * fastest copy the device can do (cudaMemcpy device-to-device), not against
 * the CPU.
 *
 * Build:  make -C 0_Simple/vectorAdd           (or `make vectorAdd` at the top)
 * Run:    bin/vectorAdd                        n = 2^28 floats (1 GiB per array)
 *         bin/vectorAdd --quick                small sizes, for compute-sanitizer
 *         bin/vectorAdd --n=2^20+3 --block=128
 * Variants (one table below drives checks, timing and --help):
 *   cpu                 the CPU baseline, timed once
 *   memcpy_d2d          cudaMemcpy device-to-device of one array: the reference
 *   naive               one thread per element, one 4-byte load per input
 *   grid_stride_float4  a grid sized to fill the GPU once, each thread looping
 *                       over 16-byte float4 loads and stores
 *
 * Bytes counted: 12 per element (two 4-byte reads, one 4-byte write); the
 * copy moves 8 per element (read + write). Both are 1e9 bytes per GB.
 */
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
#include "rng.h"
#include "timing.h"

/* ---- kernels ----------------------------------------------------------- */

/* One thread per element. The bounds check matters whenever n is not a
 * multiple of the block size: the last block has threads past the end. */
__global__ void add_naive(const float *a, const float *b, float *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

/* A grid that covers the GPU once (not the array), each thread striding over
 * it. float4 makes each load 16 bytes, so a warp moves 512 contiguous bytes
 * per instruction: a quarter of the load/store instructions of the naive
 * kernel, and fewer blocks to schedule. cudaMalloc returns 256-byte aligned
 * pointers, so the float4 casts are aligned; the last n % 4 elements are
 * done one by one. */
__global__ void add_grid_stride_float4(const float *a, const float *b, float *c, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t n4 = n / 4;
    const float4 *a4 = (const float4 *)a;
    const float4 *b4 = (const float4 *)b;
    float4 *c4 = (float4 *)c;
    for (size_t i = tid; i < n4; i += stride) {
        float4 x = a4[i], y = b4[i];
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    for (size_t i = 4 * n4 + tid; i < n; i += stride) c[i] = a[i] + b[i];
}

/* ---- launchers --------------------------------------------------------- */

typedef struct {
    const float *a, *b;
    float *c;
    size_t n;
    int block;          /* threads per block */
    int grid_stride_blocks; /* grid of the grid-stride kernel */
} add_ctx;

static void run_memcpy(void *p, cudaStream_t s)
{
    add_ctx *x = (add_ctx *)p;
    CUDA_CHECK(cudaMemcpyAsync(x->c, x->a, x->n * sizeof(float), cudaMemcpyDeviceToDevice, s));
}

static void run_naive(void *p, cudaStream_t s)
{
    add_ctx *x = (add_ctx *)p;
    size_t blocks = (x->n + x->block - 1) / x->block;
    add_naive<<<(unsigned)blocks, x->block, 0, s>>>(x->a, x->b, x->c, x->n);
    CHECK_LAUNCH();
}

static void run_grid_stride(void *p, cudaStream_t s)
{
    add_ctx *x = (add_ctx *)p;
    add_grid_stride_float4<<<x->grid_stride_blocks, x->block, 0, s>>>(x->a, x->b, x->c, x->n);
    CHECK_LAUNCH();
}

/* make try SAMPLE=vectorAdd EX=N builds your exercise in here: its file
 * (exercises/exN_*.cuh) defines exercise_kernel and its launcher
 * exercise_run(void *ctx, cudaStream_t s), run as the variant "exercise". */
#ifdef EXERCISE
#include EXERCISE
#define EXERCISE_ROW {"exercise", exercise_run, 0, 1, "your kernel (make try SAMPLE=vectorAdd EX=N)"},
#else
#define EXERCISE_ROW
#endif

/* ---- variant table ----------------------------------------------------- */

typedef struct {
    const char *name;
    timed_fn run;
    int is_reference;   /* the copy: timed, not checked as an addition */
    int grid_stride;    /* 1: also checked on a tiny grid (see check_variant) */
    const char *what;
} variant;

static const variant variants[] = {
    {"memcpy_d2d", run_memcpy, 1, 0, "cudaMemcpy device-to-device of one array (reference)"},
    {"naive", run_naive, 0, 0, "one thread per element"},
    {"grid_stride_float4", run_grid_stride, 0, 1, "grid-stride loop, 16-byte loads"},
    EXERCISE_ROW
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ----------------------------------------------------------- */

static long long opt_n = 1LL << 28;
static long long opt_block = 256;
static const char *opt_variant = "all";
static char variant_choices[256];   /* "all|cpu|memcpy_d2d|...", from the table */
static char help_notes[1024];       /* the variant list of --help, from the table */

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("n", "N", "elements per vector", &opt_n, 1, 1LL << 32),
    OPT_INT_SPEC("block", "THREADS", "threads per block (multiple of 32)", &opt_block, 32, 1024),
    OPT_STRING_SPEC("variant", "NAME", "run one variant (the reference always runs)",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "vectorAdd", "c = a + b, one thread per element vs a grid-stride float4 loop",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

/* --variant's choices and the --help notes come from the variant table. */
static void build_help_from_table(void)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-20s %s\n", "cpu",
                                "the CPU baseline, timed once");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-20s %s\n",
                              variants[v].name, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "--quick checks n = 1, 3, 1000, 4097 and 2^17+3 (the grid-stride kernel also on a "
             "3-block grid).");
}

/* ---- checking ---------------------------------------------------------- */

/* Run one variant on n elements of the inputs and compare with the CPU.
 * Addition of two floats is exact to the last bit on both sides (IEEE
 * round-to-nearest), so the tolerance is zero: any difference is a bug.
 * c is poisoned over [0, n) and the guard zone after it; the compare sees
 * an element left unwritten, check_guard a write past element n-1 (what a
 * kernel without its bounds check does at n = 1000). grid_blocks != 0
 * replaces the grid of the grid-stride kernel. */
static int check_variant(const variant *v, add_ctx *ctx, size_t n, const float *h_ref,
                         float *h_out, int grid_blocks)
{
    add_ctx x = *ctx;
    x.n = n;
    if (grid_blocks) x.grid_stride_blocks = grid_blocks;
    poison_guarded(x.c, n * sizeof(float));
    v->run(&x, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_out, x.c, n * sizeof(float), cudaMemcpyDeviceToHost));
    char what[96];
    snprintf(what, sizeof what, "%s(n=%zu%s) c", v->name, n, grid_blocks ? ", 3-block grid" : "");
    size_t bad = check_close_f32(what, h_out, h_ref, n, 0.0, 0.0);
    bad += check_guard(what, x.c, n * sizeof(float));
    return bad == 0;
}

int main(int argc, char **argv)
{
    common_opts o;
    build_help_from_table();
    opts_parse_or_exit(&cfg, argc, argv, &o);
    if (opt_block % 32 != 0) {
        fprintf(stderr, "vectorAdd: error: --block=%lld: must be a multiple of 32\n", opt_block);
        printf("vectorAdd: FAIL (bad argument)\n");
        return 1;
    }
    size_t n = o.quick ? (1u << 17) + 3 : (size_t)opt_n;
    size_t bytes;
    char err[160];
    if (opts_checked_bytes("--n", (long long)n, sizeof(float), 3, 1ULL << 40, &bytes, err,
                           sizeof err)) {
        fprintf(stderr, "vectorAdd: error: %s\n", err);
        printf("vectorAdd: FAIL (bad argument)\n");
        return 1;
    }
    int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    report_init("vectorAdd", o.json);
    device_info dev;
    device_setup_or_exit("vectorAdd", o.device, o.json, &dev);

    /* Inputs: seeded uniform values in [-1, 1) on the host. */
    float *h_a = (float *)malloc(bytes), *h_b = (float *)malloc(bytes);
    float *h_ref = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
    if (!h_a || !h_b || !h_ref || !h_out) {
        report_fail("cannot allocate %zu bytes of host memory", 4 * bytes);
        return report_finish();
    }
    rng_fill_uniform(h_a, n, o.seed, RNG_STREAM_A, -1.0f, 1.0f);
    rng_fill_uniform(h_b, n, o.seed, RNG_STREAM_B, -1.0f, 1.0f);

    /* The CPU baseline is a variant too: timed once, reported as throughput.
     * Its output's pages are touched first, so the loop is timed, not the
     * page faults of a fresh 1 GiB array. */
    host_prefault(h_ref, bytes);
    double t0 = host_seconds();
    cpu_vector_add(h_a, h_b, h_ref, n);
    double cpu_ms = (host_seconds() - t0) * 1e3;

    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    d_c = (float *)guarded_malloc(bytes);   /* output: a guard zone follows it */
    CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));

    /* Fill the GPU exactly once with resident blocks: more only adds
     * scheduling, fewer leaves SMs idle. */
    int blocks_per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, add_grid_stride_float4, (int)opt_block, 0));
    add_ctx ctx = {d_a, d_b, d_c, n, (int)opt_block, dev.sm_count * blocks_per_sm};

    /* L2: flush before each timed run only when the data could live in it. */
    int flush = (double)bytes * 3 < 4.0 * dev.l2_bytes;
    report_note("n=%zu (%.1f MiB per array), block=%d, grid-stride grid=%d blocks, L2 %s",
                n, bytes / 1048576.0, ctx.block, ctx.grid_stride_blocks,
                flush ? "flushed before each run" : "not flushed (data is over 4x L2)");

    /* Check every addition variant first: odd sizes that are not multiples of
     * the block or of 4, then the full size. The grid-stride kernel's own
     * grid covers 4 x its threads (4 x 270k on an H200) in one sweep, so at
     * the small sizes it is also checked on a 3-block grid: every thread
     * then goes round the loop, and a wrong stride or loop bound shows. */
    const size_t small_sizes[] = {1, 3, 1000, 4097, (1u << 17) + 3};
    const int tiny_grid = 3;
    int ok[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) {
        ok[v] = 1;
        if (variants[v].is_reference ||
            !opts_variant_runs(opt_variant, variants[v].name, variants[v].is_reference))
            continue;
        for (size_t s = 0; s < sizeof small_sizes / sizeof small_sizes[0]; s++) {
            if (small_sizes[s] > n) continue;
            ok[v] &= check_variant(&variants[v], &ctx, small_sizes[s], h_ref, h_out, 0);
            if (variants[v].grid_stride)
                ok[v] &= check_variant(&variants[v], &ctx, small_sizes[s], h_ref, h_out, tiny_grid);
        }
        ok[v] &= check_variant(&variants[v], &ctx, n, h_ref, h_out, 0);
    }

    result_rec r;
    if (opts_variant_runs_cpu(opt_variant)) {
        rec_begin(&r, "cpu");
        rec_int(&r, "n", (long long)n);
        rec_str(&r, "status", "PASS");
        double cpu_gbps = 12.0 * n / (cpu_ms * 1e6);
        rec_perf(&r, cpu_ms, "gbps", cpu_gbps, 0, NULL, 0);
        rec_emit(&r);
    }

    /* Time the chosen variants that passed and the reference round robin
     * (common/timing.h): every pct_ref is from this run, at the same clocks. */
    timed_variant group[N_VARIANTS];
    timing_stats times[N_VARIANTS];
    char ranges[N_VARIANTS][64];
    int slot[N_VARIANTS], n_timed = 0;
    double ref_gbps = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        slot[v] = -1;
        if (!opts_variant_runs(opt_variant, var->name, var->is_reference) || !ok[v]) continue;
        snprintf(ranges[v], sizeof ranges[v], "vectorAdd/%s", var->name);
        group[n_timed] = (timed_variant){var->run, &ctx, ranges[v], flush};
        slot[v] = n_timed++;
    }
    if (n_timed > 0) {
        timing_cfg tc = timing_defaults(reps);
        time_gpu_group(group, n_timed, &tc, times);
    }
    for (int v = 0; v < N_VARIANTS; v++)
        if (variants[v].is_reference && slot[v] >= 0)
            ref_gbps = 8.0 * n / (times[slot[v]].median_ms * 1e6);
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
        double moved = var->is_reference ? 8.0 * n : 12.0 * n;
        double gbps = moved / (t->median_ms * 1e6);
        rec_str(&r, "status", "PASS");
        rec_perf(&r, t->median_ms, "gbps", gbps, dev.peak_gbps, "memcpy_d2d", ref_gbps);
        rec_num(&r, "min_ms", t->min_ms);
        timing_rec_clocks(&r, t);
        rec_emit(&r);
    }

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    guarded_free(d_c);
    free(h_a);
    free(h_b);
    free(h_ref);
    free(h_out);
    return report_finish();
}
