/* transpose: transpose a matrix of floats, from the naive kernel to TMA.
 *
 * What it teaches: a transpose reads rows and writes columns, so one of its
 * two global accesses is strided unless the block stages its tile in shared
 * memory; the staged tile's column reads then hit one bank 32 times over
 * unless its rows are padded; a thread per element leaves too few bytes in
 * flight; on Hopper the TMA unit can move whole swizzled tiles in and out
 * by itself; and blocks that stay resident keep several tiles' loads in
 * flight while they transpose one. Every step is checked bit for bit against a CPU transpose
 * and timed against a device-to-device copy of the same bytes: a transpose
 * reads and writes each element once, as a copy does, so the copy is its
 * ceiling.
 *
 * Build:  make -C 0_Simple/transpose          (or `make transpose` at the top)
 * Run:    bin/transpose                        16384 x 16384 floats (1 GiB), every variant
 *         bin/transpose --rows=4097 --cols=3001 --variant=padded_tile
 *         bin/transpose --quick                small shapes, for compute-sanitizer
 * Variants (the table below drives checks, timing and --help), in teaching
 * order; each step changes one thing, and its kernel is kernels/NN_<variant>.cuh:
 *   cpu          the CPU reference (transpose_cpu.c, 64 x 64 blocks), timed once
 *   memcpy_d2d   cudaMemcpyAsync device-to-device of the same bytes: the reference
 *   naive        01: one thread per element, strided stores
 *   smem_tile    02: a 32 x 32 tile through shared memory (32-way bank conflicts)
 *   padded_tile  03: the tile padded to 33 columns (no conflicts)
 *   wider        04: 4 elements per thread, 32 x 8 threads per tile
 *   tma          05: TMA loads and stores of swizzled tiles (sm_90)
 *   pipelined    06: step 05 in blocks that stay resident, the next tiles' loads in flight
 *
 * Checked shapes: 1 x 1, 33 x 17, 17 x 33, 4097 x 3001 (not under --quick)
 * and the run's shape; every check is exact (the same 32 bits), and the
 * padding columns of the output (rows are stored transpose_ld() floats
 * apart, a multiple of 16 bytes) must stay unwritten.
 * Bytes counted: 8 per element (a 4-byte read and a 4-byte write), for the
 * copy too; 1e9 bytes per GB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>   /* PFN_cuTensorMapEncodeTiled, found at run time */

#include "check.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "rng.h"
#include "timing.h"

/* ---- CPU reference -----------------------------------------------------
 * transpose_cpu.c: the row stride, the blocked CPU transpose, the exact check. */
#include "transpose_cpu.h"

/* ---- kernels: one file per step, in teaching order --------------------- */
#include "kernels/00_tile.cuh"
#include "kernels/00_tma.cuh"
#include "kernels/01_naive.cuh"
#include "kernels/02_smem_tile.cuh"
#include "kernels/03_padded_tile.cuh"
#include "kernels/04_wider.cuh"
#include "kernels/05_tma.cuh"
#include "kernels/06_pipelined.cuh"

/* ---- launchers ----------------------------------------------------------
 * Every launch is one line `kernel<<<...>>>(...);`. */

typedef struct {
    const float *in;
    float *out;
    int rows, cols;             /* in is rows x cols, out cols x rows */
    size_t ld_in, ld_out;       /* row strides in elements (multiples of 4) */
    CUtensorMap map_in, map_out; /* TMA: boxes of 32 x TMA_ROWS of in, 32 x 32 of out */
    int resident_blocks;        /* step 06: blocks of transpose_pipelined the GPU holds at once */
} tr_ctx;

static unsigned tiles(int n, int tile) { return (unsigned)((n + tile - 1) / tile); }

static void run_memcpy(void *p, cudaStream_t s)
{
    const tr_ctx *x = (const tr_ctx *)p;
    CUDA_CHECK(cudaMemcpyAsync(x->out, x->in, (size_t)x->rows * x->cols * sizeof(float),
                               cudaMemcpyDeviceToDevice, s));
}

static void run_naive(void *p, cudaStream_t s)
{
    const tr_ctx *x = (const tr_ctx *)p;
    dim3 grid(tiles(x->cols, TILE), tiles(x->rows, TILE)), block(TILE, TILE);
    transpose_naive<<<grid, block, 0, s>>>(x->in, x->out, x->rows, x->cols, x->ld_in, x->ld_out);
    CHECK_LAUNCH();
}

static void run_smem_tile(void *p, cudaStream_t s)
{
    const tr_ctx *x = (const tr_ctx *)p;
    dim3 grid(tiles(x->cols, TILE), tiles(x->rows, TILE)), block(TILE, TILE);
    transpose_smem_tile<0><<<grid, block, 0, s>>>(x->in, x->out, x->rows, x->cols, x->ld_in, x->ld_out);
    CHECK_LAUNCH();
}

static void run_padded_tile(void *p, cudaStream_t s)
{
    const tr_ctx *x = (const tr_ctx *)p;
    dim3 grid(tiles(x->cols, TILE), tiles(x->rows, TILE)), block(TILE, TILE);
    transpose_padded_tile<<<grid, block, 0, s>>>(x->in, x->out, x->rows, x->cols, x->ld_in, x->ld_out);
    CHECK_LAUNCH();
}

static void run_wider(void *p, cudaStream_t s)
{
    const tr_ctx *x = (const tr_ctx *)p;
    dim3 grid(tiles(x->cols, TILE), tiles(x->rows, TILE)), block(TILE, WIDER_ROWS);
    transpose_wider<<<grid, block, 0, s>>>(x->in, x->out, x->rows, x->cols, x->ld_in, x->ld_out);
    CHECK_LAUNCH();
}

static void run_tma(void *p, cudaStream_t s)
{
    const tr_ctx *x = (const tr_ctx *)p;
    dim3 grid(tiles(x->cols, TILE), tiles(x->rows, TMA_ROWS));
    transpose_tma<<<grid, TMA_THREADS, TMA_SMEM_BYTES, s>>>(x->map_in, x->map_out, x->out, x->rows,
                                                           x->cols, x->ld_out);
    CHECK_LAUNCH();
}

static void run_pipelined(void *p, cudaStream_t s)
{
    const tr_ctx *x = (const tr_ctx *)p;
    const int n_tiles = (int)(tiles(x->cols, TILE) * tiles(x->rows, TMA_ROWS));
    const int grid = pipe_grid(n_tiles, x->resident_blocks);   /* tma_layout.h */
    transpose_pipelined<<<grid, TMA_THREADS, PIPE_SMEM_BYTES, s>>>(x->map_in, x->map_out, x->out,
                                                                   x->rows, x->cols, x->ld_out);
    CHECK_LAUNCH();
}

/* ---- variant table ------------------------------------------------------
 * The single source of truth: names, order (the steps of the lesson),
 * --help, checks and timing. */

typedef struct {
    const char *name;
    timed_fn run;
    int is_reference;   /* the copy: timed, not checked as a transpose */
    int needs_tma;      /* runs only where TMA exists (compute capability 9.0 and up) */
    const char *what;
} variant;

static const variant variants[] = {
    {"memcpy_d2d", run_memcpy, 1, 0, "cudaMemcpyAsync device-to-device of the same bytes (reference)"},
    {"naive", run_naive, 0, 0, "01: one thread per element, strided stores"},
    {"smem_tile", run_smem_tile, 0, 0, "02: 32 x 32 tile in shared memory (bank conflicts)"},
    {"padded_tile", run_padded_tile, 0, 0, "03: the tile padded to 33 columns"},
    {"wider", run_wider, 0, 0, "04: 4 elements per thread, 32 x 8 threads"},
    {"tma", run_tma, 0, 1, "05: TMA tile loads and stores, 128-byte swizzle (sm_90)"},
    {"pipelined", run_pipelined, 0, 1, "06: step 05 in resident blocks, 4 TMA loads in flight each (sm_90)"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ------------------------------------------------------------ */

#define MAX_DIM (1LL << 20)   /* rows / TILE blocks must fit gridDim.y (65535) */
static long long opt_rows = 16384;
static long long opt_cols = 16384;
static const char *opt_variant = "all";
static char variant_choices[256];
static char help_notes[1024];

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("rows", "N", "rows of the input matrix", &opt_rows, 1, MAX_DIM),
    OPT_INT_SPEC("cols", "N", "columns of the input matrix", &opt_cols, 1, MAX_DIM),
    OPT_STRING_SPEC("variant", "NAME", "run one variant (the reference always runs)",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "transpose", "transpose a matrix of floats: naive, shared-memory tiles, padding, TMA",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

static void build_help_from_table(void)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-12s %s\n", "cpu",
                                "the CPU transpose, timed once");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-12s %s\n",
                              variants[v].name, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "Every variant is checked exactly at 1x1, 33x17, 17x33, 4097x3001 and the run's "
             "shape\n(--quick: 515x1031, and not 4097x3001) before it is timed.");
}

/* ---- TMA tensor maps ----------------------------------------------------- */

static PFN_cuTensorMapEncodeTiled_v12000 encode_tiled;   /* NULL: no TMA here */

/* A 2D tensor map of a rows x cols float matrix with row stride ld, read and
 * written in boxes of 32 columns x box_rows rows, 128-byte swizzle, zeros
 * for what a load finds outside the matrix. */
static void make_map(CUtensorMap *map, const float *base, int rows, int cols, size_t ld,
                     int box_rows)
{
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};   /* innermost first */
    cuuint64_t strides[1] = {(cuuint64_t)(ld * sizeof(float))};  /* a multiple of 16 */
    cuuint32_t box[2] = {TILE, (cuuint32_t)box_rows};
    cuuint32_t elem_strides[2] = {1, 1};
    CUresult r = encode_tiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)base, dims, strides,
                              box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        report_fail("cuTensorMapEncodeTiled(%d x %d, row stride %zu, box 32 x %d) failed: CUresult %d",
                    rows, cols, ld, box_rows, (int)r);
        exit(report_finish());
    }
}

/* Point the context at a shape (the input already on the device). */
static void set_shape(tr_ctx *x, int rows, int cols)
{
    x->rows = rows;
    x->cols = cols;
    x->ld_in = transpose_ld((size_t)cols);
    x->ld_out = transpose_ld((size_t)rows);
    if (encode_tiled) {
        make_map(&x->map_in, x->in, rows, cols, x->ld_in, TMA_ROWS);
        make_map(&x->map_out, x->out, cols, rows, x->ld_out, TILE);
    }
}

/* ---- checking ------------------------------------------------------------ */

/* Run variant v on the context's shape and compare with the CPU reference,
 * bit for bit (a transpose moves values, it computes nothing). out is
 * poisoned over all its rows (padding included) and its guard zone first:
 * the check sees an element never written, one written twice with the wrong
 * value, a write into the padding, and a write past the end. */
static int check_variant(const variant *v, const tr_ctx *x, const float *h_ref, float *h_out)
{
    const size_t out_bytes = (size_t)x->cols * x->ld_out * sizeof(float);
    poison_guarded(x->out, out_bytes);
    v->run((void *)x, 0);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        report_fail("%s (%d x %d): the kernel failed: %s (%s)", v->name, x->rows, x->cols,
                    cudaGetErrorString(e), cudaGetErrorName(e));
        exit(report_finish());
    }
    CUDA_CHECK(cudaMemcpy(h_out, x->out, out_bytes, cudaMemcpyDeviceToHost));
    char what[96];
    snprintf(what, sizeof what, "transpose: %s (%d x %d)", v->name, x->rows, x->cols);
    size_t bad = transpose_check(what, h_ref, h_out, (size_t)x->rows, (size_t)x->cols, x->ld_out);
    bad += check_guard(what, x->out, out_bytes);
    return bad == 0;
}

static void fail_arg(const char *msg)
{
    fprintf(stderr, "transpose: error: %s\n", msg);
    printf("transpose: FAIL (bad argument)\n");
    exit(1);
}

int main(int argc, char **argv)
{
    common_opts o;
    build_help_from_table();
    opts_parse_or_exit(&cfg, argc, argv, &o);

    /* The shapes to check, the run's own last (its input stays for timing). */
    int shapes[6][2], nshapes = 0;
    const int odd[][2] = {{1, 1}, {33, 17}, {17, 33}, {4097, 3001}};
    for (int k = 0; k < 4; k++) {
        if (o.quick && odd[k][0] > 1000) continue;
        shapes[nshapes][0] = odd[k][0];
        shapes[nshapes++][1] = odd[k][1];
    }
    const int rows = o.quick ? 515 : (int)opt_rows, cols = o.quick ? 1031 : (int)opt_cols;
    shapes[nshapes][0] = rows;
    shapes[nshapes++][1] = cols;

    size_t cap_in = 0, cap_out = 0;   /* elements: the largest of each over the shapes */
    for (int k = 0; k < nshapes; k++) {
        size_t ni = (size_t)shapes[k][0] * transpose_ld((size_t)shapes[k][1]);
        size_t no = (size_t)shapes[k][1] * transpose_ld((size_t)shapes[k][0]);
        cap_in = ni > cap_in ? ni : cap_in;
        cap_out = no > cap_out ? no : cap_out;
    }
    size_t bytes;
    char err[200];
    /* in, out, and on the host in, the reference and the copy of out */
    if (opts_checked_bytes("--rows x --cols", (long long)(cap_in > cap_out ? cap_in : cap_out),
                           sizeof(float), 3, 1ULL << 40, &bytes, err, sizeof err))
        fail_arg(err);
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    report_init("transpose", o.json);
    device_info dev;
    device_setup_or_exit("transpose", o.device, o.json, &dev);

    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const double need = (double)(cap_in + cap_out) * sizeof(float) + CHECK_GUARD_BYTES + (64 << 20);
    if (need > (double)free_b) {
        report_fail("%d x %d: needs %.2f GB of device memory, the device has %.2f GB free", rows,
                    cols, need / 1e9, free_b / 1e9);
        return report_finish();
    }
    float *h_in = (float *)malloc(cap_in * sizeof(float));
    float *h_ref = (float *)malloc(cap_out * sizeof(float));
    float *h_out = (float *)malloc(cap_out * sizeof(float));
    if (!h_in || !h_ref || !h_out) {
        report_fail("cannot allocate %.2f GB of host memory",
                    (cap_in + 2.0 * cap_out) * sizeof(float) / 1e9);
        return report_finish();
    }
    tr_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    float *d_in;
    CUDA_CHECK(cudaMalloc(&d_in, cap_in * sizeof(float)));
    ctx.in = d_in;
    ctx.out = (float *)guarded_malloc(cap_out * sizeof(float));

    /* TMA: the device must have it, and the code that runs must have been
     * compiled for it (a build for sm_80 alone runs on an H200 with the TMA
     * kernel compiled empty); the driver's tensor-map encoder is reached
     * through the runtime, without linking libcuda. */
    cudaFuncAttributes tma_attr;
    CUDA_CHECK(cudaFuncGetAttributes(&tma_attr, transpose_tma));
    const int have_tma = dev.cc_major >= 9 && tma_attr.ptxVersion >= 90;
    if (have_tma) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult q;
        CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                    cudaEnableDefault, &q));
        if (q != cudaDriverEntryPointSuccess || !fn) {
            report_fail("cuTensorMapEncodeTiled not found in the driver (query result %d)", (int)q);
            return report_finish();
        }
        encode_tiled = (PFN_cuTensorMapEncodeTiled_v12000)fn;
        CUDA_CHECK(cudaFuncSetAttribute(transpose_tma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        TMA_SMEM_BYTES));
        CUDA_CHECK(cudaFuncSetAttribute(transpose_pipelined,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, PIPE_SMEM_BYTES));
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, transpose_pipelined,
                                                                 TMA_THREADS, PIPE_SMEM_BYTES));
        if (per_sm < 1) {
            report_fail("pipelined: %d bytes of shared memory per block do not fit an SM",
                        (int)PIPE_SMEM_BYTES);
            return report_finish();
        }
        ctx.resident_blocks = per_sm * dev.sm_count;
        report_note("pipelined: %d blocks of %d threads, %d per SM (%d bytes of shared memory each)",
                    ctx.resident_blocks, TMA_THREADS, per_sm, (int)PIPE_SMEM_BYTES);
    } else {
        report_note("compute capability %d.%d, code compiled for compute_%d: no TMA, the variant "
                    "tma is skipped", dev.cc_major, dev.cc_minor, tma_attr.ptxVersion);
    }

    /* Check every selected variant at every shape, the run's own last. */
    int ok[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) ok[v] = 1;
    double cpu_ms = 0;
    for (int k = 0; k < nshapes; k++) {
        const int r = shapes[k][0], c = shapes[k][1];
        const size_t ld_in = transpose_ld((size_t)c), ld_out = transpose_ld((size_t)r);
        /* seeded values in [-1, 1); the padding columns of in hold a value no
         * row holds (2.0), so a kernel that reads padding writes a wrong value */
        for (size_t i = 0; i < (size_t)r; i++)
            for (size_t j = 0; j < ld_in; j++)
                h_in[i * ld_in + j] =
                    j < (size_t)c ? rng_uniform(o.seed, RNG_STREAM_A, i * c + j, -1.0f, 1.0f) : 2.0f;
        CUDA_CHECK(cudaMemcpy(d_in, h_in, (size_t)r * ld_in * sizeof(float), cudaMemcpyHostToDevice));
        host_prefault(h_ref, (size_t)c * ld_out * sizeof(float));
        double t0 = host_seconds();
        transpose_reference(h_in, (size_t)r, (size_t)c, ld_in, h_ref, ld_out);
        cpu_ms = (host_seconds() - t0) * 1e3;   /* the last shape's: the run's */
        set_shape(&ctx, r, c);
        for (int v = 0; v < N_VARIANTS; v++) {
            if (variants[v].is_reference || (variants[v].needs_tma && !have_tma) ||
                !opts_variant_runs(opt_variant, variants[v].name, variants[v].is_reference))
                continue;
            ok[v] &= check_variant(&variants[v], &ctx, h_ref, h_out);
        }
    }

    result_rec rec;
    const double moved = 2.0 * rows * cols * sizeof(float);
    if (opts_variant_runs_cpu(opt_variant)) {
        rec_begin(&rec, "cpu");
        rec_int(&rec, "rows", rows);
        rec_int(&rec, "cols", cols);
        rec_str(&rec, "status", "PASS");
        rec_perf(&rec, cpu_ms, "gbps", moved / (cpu_ms * 1e6), 0, NULL, 0);
        rec_emit(&rec);
    }

    /* L2: flushed before each timed run only when in and out could live in it. */
    const int flush = moved < 4.0 * dev.l2_bytes;
    report_note("%d x %d floats (%.1f MiB), row strides %zu and %zu; checked at %d shapes; "
                "median of %d runs after 3 warm-ups; L2 %s", rows, cols,
                (double)rows * cols * 4 / 1048576.0, ctx.ld_in, ctx.ld_out, nshapes, reps,
                flush ? "flushed before each run" : "not flushed (data is over 4x L2)");

    /* The selected variants that passed and the reference, timed round robin
     * (common/timing.h): pct_ref is from this run, at the same clocks. */
    timed_variant group[N_VARIANTS];
    timing_stats times[N_VARIANTS];
    char ranges[N_VARIANTS][64];   /* nested NVTX ranges: transpose, then the variant */
    int slot[N_VARIANTS], n_timed = 0, ref = -1;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        slot[v] = -1;
        if (!opts_variant_runs(opt_variant, var->name, var->is_reference)) continue;
        if (var->needs_tma && !have_tma) continue;
        if (!ok[v]) continue;
        if (var->is_reference) ref = v;
        snprintf(ranges[v], sizeof ranges[v], "transpose/%s", var->name);
        group[n_timed] = (timed_variant){var->run, &ctx, ranges[v]};
        slot[v] = n_timed++;
    }
    if (n_timed > 0) {
        timing_cfg tc = timing_defaults(reps);
        tc.flush_l2 = flush;
        time_gpu_group(group, n_timed, &tc, times);
    }
    const double ref_gbps = ref >= 0 ? moved / (times[slot[ref]].median_ms * 1e6) : 0;
    for (int v = 0; v < N_VARIANTS; v++) {   /* the reference is first in the table */
        const variant *var = &variants[v];
        if (!opts_variant_runs(opt_variant, var->name, var->is_reference)) continue;
        if (var->needs_tma && !have_tma) continue;
        rec_begin(&rec, var->name);
        rec_int(&rec, "rows", rows);
        rec_int(&rec, "cols", cols);
        if (!ok[v]) {
            rec_str(&rec, "status", "FAIL");
            rec_emit(&rec);
            continue;
        }
        const timing_stats *t = &times[slot[v]];
        double gbps = moved / (t->median_ms * 1e6);
        rec_str(&rec, "status", "PASS");
        rec_perf(&rec, t->median_ms, "gbps", gbps, dev.peak_gbps, "memcpy_d2d", ref_gbps);
        rec_num(&rec, "min_ms", t->min_ms);
        timing_rec_clocks(&rec, t);
        rec_emit(&rec);
    }

    CUDA_CHECK(cudaFree(d_in));
    guarded_free(ctx.out);
    free(h_in);
    free(h_ref);
    free(h_out);
    return report_finish();
}
