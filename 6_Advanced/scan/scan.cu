/* scan: inclusive and exclusive prefix sums, from the textbook to CUB's speed.
 *
 * What it teaches: out[i] = in[0] + ... + in[i] (inclusive) or
 * in[0] + ... + in[i-1] (exclusive) looks sequential, yet a GPU does it at
 * the speed of a copy. The steps: Hillis-Steele inside a block, Blelloch's
 * work-efficient tree, reduce-then-scan across the grid (three passes),
 * tiles of 16 elements per thread with a warp-shuffle block scan, and the
 * single-pass decoupled look-back that CUB's DeviceScan uses: each element
 * read once and written once, the tiles passing their prefixes along
 * through 64-bit status words.
 *
 * Build:  make -C 6_Advanced/scan            (or `make scan` at the top)
 * Run:    bin/scan                           2^28 int32, every variant, both kinds
 *         bin/scan --type=float              float32, checked with a tolerance
 *         bin/scan --n=2^31+1 --variant=lookback_small_blocks --reps=3   64-bit indexing (8.6 GB in, out)
 *         bin/scan --variant=decoupled_lookback
 *         bin/scan --quick                   small sizes, for compute-sanitizer
 * Variants (the table below drives checks, timing and --help), in teaching
 * order; each is a step that changes one thing from the step before, and
 * its kernel is kernels/NN_<variant>.cuh, whose comment says what changed:
 *   cpu                  the scan in one loop on the host, timed once
 *   cub                  cub::DeviceScan::InclusiveSum / ExclusiveSum: the reference
 *   hillis_steele        01: one element per thread, Hillis-Steele in shared memory; scan-then-propagate
 *   blelloch             02: Blelloch's work-efficient up-sweep / down-sweep, 2 per thread
 *   reduce_then_scan     03: pass 1 only sums the tiles; pass 3 scans them from their offsets
 *   warp_shuffle_tiles   04: 16 per thread, 16-byte loads, a warp-shuffle block scan
 *   decoupled_lookback   05: one pass: tiles publish aggregate / prefix, look back with a warp
 *   lookback_transposed  06: step 05 with coalesced loads and stores through shared memory
 *   lookback_in_order    07: step 06 with tiles numbered by blockIdx.x, as CUB does: no atomic
 *   lookback_patient     08: step 07 with CUB's waits: sleep before looking back, between reads
 *   lookback_small_blocks 09: step 08's tile of 4096 as 128 threads x 32: more tiles per SM
 * Every variant runs inclusive and exclusive (RESULT key kind=).
 *
 * Types: --type=int (default; exact) or float (a tolerance that grows with
 * n, scan_cpu.c says why). Bytes counted: n elements read and n written,
 * 2n * 4 bytes per scan, 1e9 bytes per GB: the least any scan moves, so
 * GB/s against the device's peak says how close it is to the floor.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cub/device/device_scan.cuh>

#include "check.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "timing.h"

/* ---- CPU reference ------------------------------------------------------
 * scan_cpu.c: the inputs (the same functions of (seed, i) on both sides),
 * the CPU baseline, and the checks, which rescan the input as they compare
 * (int32 in 64 bits, exact; float32 in double, with a tolerance). */
#include "scan_cpu.h"

/* ---- kernels: one file per step, in teaching order ---------------------- */
#include "kernels/00_scan_common.cuh"
#include "kernels/01_hillis_steele.cuh"
#include "kernels/02_blelloch.cuh"
#include "kernels/03_reduce_then_scan.cuh"
#include "kernels/04_warp_shuffle_tiles.cuh"
#include "kernels/05_decoupled_lookback.cuh"
#include "kernels/06_lookback_transposed.cuh"
#include "kernels/07_lookback_in_order.cuh"
#include "kernels/08_lookback_patient.cuh"
#include "kernels/09_lookback_small_blocks.cuh"

/* The inputs, element i a function of (seed, i) alone (scan_cpu.h). */
template <typename T> __device__ T input_value(unsigned long long seed, size_t i);
template <> __device__ int input_value<int>(unsigned long long seed, size_t i) { return scan_input_i32(seed, i); }
template <> __device__ float input_value<float>(unsigned long long seed, size_t i) { return scan_input_f32(seed, i); }

template <typename T>
__global__ void fill_inputs(T *in, size_t n, unsigned long long seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        in[i] = input_value<T>(seed, i);
}

/* ---- launchers ----------------------------------------------------------
 * Every launch is one line `kernel<<<...>>>(...);`. */

typedef struct {
    const void *in;
    void *out;
    size_t n;
    void *sums;                 /* tile sums of the three-pass steps */
    size_t sums_cap;            /* how many it holds */
    unsigned long long *status; /* look-back: a word per tile, then the tile counter */
    size_t status_cap;
    void *cub_temp;
    size_t cub_bytes;
} scan_ctx;

static void sums_fit(const scan_ctx *x, size_t tiles)
{
    if (tiles > x->sums_cap) {
        fprintf(stderr, "scan: internal error: %zu tile sums, room for %zu\n", tiles, x->sums_cap);
        exit(1);
    }
}

static size_t tiles_of(size_t n, size_t tile) { return (n + tile - 1) / tile; }

enum { S_HILLIS_STEELE = 1, S_BLELLOCH, S_REDUCE_THEN_SCAN, S_WARP_SHUFFLE_TILES, S_LOOKBACK, S_LOOKBACK_TRANSPOSED,
       S_LOOKBACK_IN_ORDER, S_LOOKBACK_PATIENT, S_LOOKBACK_SMALL_BLOCKS };

template <int STEP, typename T, bool EXCL>
static void run_step(void *p, cudaStream_t s)
{
    const scan_ctx *x = (const scan_ctx *)p;
    const T *in = (const T *)x->in;
    T *out = (T *)x->out, *sums = (T *)x->sums;
    const size_t n = x->n;
    if (STEP == S_HILLIS_STEELE) {
        const size_t tiles = tiles_of(n, HS_BLOCK);
        sums_fit(x, tiles);
        hillis_steele_tile<T, EXCL><<<(unsigned)tiles, HS_BLOCK, 0, s>>>(in, out, n, sums);
        CHECK_LAUNCH();
        scan_tile_sums<T><<<1, SUMS_BLOCK, 0, s>>>(sums, tiles);
        CHECK_LAUNCH();
        add_tile_offsets<T><<<(unsigned)tiles_of(n, 256), 256, 0, s>>>(out, n, sums, HS_BLOCK);
        CHECK_LAUNCH();
    } else if (STEP == S_BLELLOCH) {
        const size_t tiles = tiles_of(n, BL_TILE);
        sums_fit(x, tiles);
        blelloch_tile<T, EXCL><<<(unsigned)tiles, BL_BLOCK, 0, s>>>(in, out, n, sums, (const T *)NULL);
        CHECK_LAUNCH();
        scan_tile_sums<T><<<1, SUMS_BLOCK, 0, s>>>(sums, tiles);
        CHECK_LAUNCH();
        add_tile_offsets<T><<<(unsigned)tiles_of(n, 256), 256, 0, s>>>(out, n, sums, BL_TILE);
        CHECK_LAUNCH();
    } else if (STEP == S_REDUCE_THEN_SCAN) {
        const size_t tiles = tiles_of(n, BL_TILE);
        sums_fit(x, tiles);
        reduce_tiles<T><<<(unsigned)tiles, BL_BLOCK, 0, s>>>(in, n, sums);
        CHECK_LAUNCH();
        scan_tile_sums<T><<<1, SUMS_BLOCK, 0, s>>>(sums, tiles);
        CHECK_LAUNCH();
        blelloch_tile<T, EXCL><<<(unsigned)tiles, BL_BLOCK, 0, s>>>(in, out, n, (T *)NULL, sums);
        CHECK_LAUNCH();
    } else if (STEP == S_WARP_SHUFFLE_TILES) {
        const size_t tiles = tiles_of(n, WS_TILE);
        sums_fit(x, tiles);
        reduce_tiles_vec<T><<<(unsigned)tiles, WS_BLOCK, 0, s>>>(in, n, sums);
        CHECK_LAUNCH();
        scan_tile_sums<T><<<1, SUMS_BLOCK, 0, s>>>(sums, tiles);
        CHECK_LAUNCH();
        scan_tiles_vec<T, EXCL><<<(unsigned)tiles, WS_BLOCK, 0, s>>>(in, out, n, sums);
        CHECK_LAUNCH();
    } else {
        /* Every status word INVALID (0) and the tile counter 0, before each
         * scan: one memset of (tiles + 1) words (07 to 09 use no counter). */
        const size_t tiles = tiles_of(n, STEP == S_LOOKBACK_SMALL_BLOCKS ? SB_TILE : WS_TILE);
        if (tiles + 1 > x->status_cap) {
            fprintf(stderr, "scan: internal error: %zu status words, room for %zu\n", tiles + 1,
                    x->status_cap);
            exit(1);
        }
        CUDA_CHECK(cudaMemsetAsync(x->status, 0, (tiles + 1) * sizeof(unsigned long long), s));
        unsigned *counter = (unsigned *)(x->status + tiles);
        if (STEP == S_LOOKBACK)
            decoupled_lookback<T, EXCL><<<(unsigned)tiles, WS_BLOCK, 0, s>>>(in, out, n, x->status, counter);
        else if (STEP == S_LOOKBACK_TRANSPOSED)
            lookback_transposed<T, EXCL><<<(unsigned)tiles, WS_BLOCK, 0, s>>>(in, out, n, x->status, counter);
        else if (STEP == S_LOOKBACK_IN_ORDER)
            lookback_in_order<T, EXCL, WS_BLOCK, WS_ITEMS, LB_MIN_BLOCKS, 0, 0><<<(unsigned)tiles, WS_BLOCK, 0, s>>>(in, out, n, x->status);
        else if (STEP == S_LOOKBACK_PATIENT)
            lookback_in_order<T, EXCL, WS_BLOCK, WS_ITEMS, LB_MIN_BLOCKS, PT_FIRST_WAIT_NS, PT_POLL_WAIT_NS><<<(unsigned)tiles, WS_BLOCK, 0, s>>>(in, out, n, x->status);
        else
            lookback_in_order<T, EXCL, SB_BLOCK, SB_ITEMS, SB_MIN_BLOCKS, PT_FIRST_WAIT_NS, PT_POLL_WAIT_NS><<<(unsigned)tiles, SB_BLOCK, 0, s>>>(in, out, n, x->status);
        CHECK_LAUNCH();
    }
}

/* The reference. CUB is given a 32-bit count when n fits (its fastest
 * path), a 64-bit one beyond. */
template <typename T, bool EXCL>
static cudaError_t cub_scan(void *temp, size_t &bytes, const T *in, T *out, size_t n,
                            cudaStream_t s)
{
    if (n <= (size_t)INT_MAX) {
        return EXCL ? cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, (int)n, s)
                    : cub::DeviceScan::InclusiveSum(temp, bytes, in, out, (int)n, s);
    }
    return EXCL ? cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, (long long)n, s)
                : cub::DeviceScan::InclusiveSum(temp, bytes, in, out, (long long)n, s);
}

template <int DUMMY, typename T, bool EXCL>
static void run_cub(void *p, cudaStream_t s)
{
    const scan_ctx *x = (const scan_ctx *)p;
    size_t bytes = x->cub_bytes;
    CUDA_CHECK((cub_scan<T, EXCL>(x->cub_temp, bytes, (const T *)x->in, (T *)x->out, x->n, s)));
}

template <typename T>
static size_t cub_temp_bytes(size_t n)
{
    size_t a = 0, b = 0;
    CUDA_CHECK((cub_scan<T, false>(NULL, a, (const T *)NULL, (T *)NULL, n, 0)));
    CUDA_CHECK((cub_scan<T, true>(NULL, b, (const T *)NULL, (T *)NULL, n, 0)));
    return a > b ? a : b;
}

/* ---- variant table ------------------------------------------------------
 * The single source of truth: names, order (the steps of the lesson),
 * --help, checks and timing. run[type][kind]: type 0 int, 1 float; kind 0
 * inclusive, 1 exclusive. */

#define BY_TYPE_KIND(f, k) {{f<k, int, false>, f<k, int, true>}, {f<k, float, false>, f<k, float, true>}}

typedef struct {
    const char *name;
    timed_fn run[2][2];
    int is_reference;
    const char *what;
} variant;

static const variant variants[] = {
    {"cub", BY_TYPE_KIND(run_cub, 0), 1, "cub::DeviceScan::InclusiveSum / ExclusiveSum (reference)"},
    {"hillis_steele", BY_TYPE_KIND(run_step, S_HILLIS_STEELE), 0, "01: Hillis-Steele block scan, scan-then-propagate"},
    {"blelloch", BY_TYPE_KIND(run_step, S_BLELLOCH), 0, "02: Blelloch work-efficient block scan"},
    {"reduce_then_scan", BY_TYPE_KIND(run_step, S_REDUCE_THEN_SCAN), 0, "03: reduce, scan the sums, scan from offsets"},
    {"warp_shuffle_tiles", BY_TYPE_KIND(run_step, S_WARP_SHUFFLE_TILES), 0, "04: 16 per thread, 16-byte loads, shuffle block scan"},
    {"decoupled_lookback", BY_TYPE_KIND(run_step, S_LOOKBACK), 0, "05: single pass, decoupled look-back"},
    {"lookback_transposed", BY_TYPE_KIND(run_step, S_LOOKBACK_TRANSPOSED), 0, "06: step 05, coalesced through shared memory"},
    {"lookback_in_order", BY_TYPE_KIND(run_step, S_LOOKBACK_IN_ORDER), 0, "07: step 06, tiles numbered by blockIdx.x"},
    {"lookback_patient", BY_TYPE_KIND(run_step, S_LOOKBACK_PATIENT), 0, "08: step 07, the look-back sleeps before reading, as CUB's"},
    {"lookback_small_blocks", BY_TYPE_KIND(run_step, S_LOOKBACK_SMALL_BLOCKS), 0, "09: step 08, 128 x 32 per tile"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))
static const char *const kind_names[2] = {"inclusive", "exclusive"};
static const char *const type_names[2] = {"int", "float"};

/* ---- options ------------------------------------------------------------ */

static long long opt_n = 1LL << 28;
static const char *opt_type = "int";
static const char *opt_variant = "all";
static char variant_choices[256];   /* "all|cpu|cub|...", from the table */
static char help_notes[1536];

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("n", "N", "elements to scan (2^31+1 needs 17.2 GB of device memory)", &opt_n, 1,
                 1LL << 33),
    OPT_STRING_SPEC("type", "TYPE", "element type: int (checked exactly) or float (with a "
                    "tolerance that grows with n)", &opt_type, "int|float"),
    OPT_STRING_SPEC("variant", "NAME", "run one variant (and cub, the reference), or all",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "scan", "inclusive and exclusive prefix sums: Hillis-Steele to decoupled look-back, vs CUB",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

static void build_help_from_table(void)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-22s %s\n", "cpu",
                                "the CPU baseline, timed once");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-22s %s\n",
                              variants[v].name, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "Every run checks n = 1, 2, 1000, 4097, 2^20+1 (those below --n) and --n itself, "
             "inclusive and exclusive,\nbefore timing at --n. --quick: n = 2^17+3.");
}

/* ---- checking ----------------------------------------------------------- */

/* The sizes every run checks below n (then n): not multiples of any tile. */
static const size_t check_sizes[] = {1, 2, 1000, 4097, (1u << 20) + 1};

/* Run variant v once on the first n elements and compare with the CPU.
 * The output and the tile sums are poisoned first (0xFF bytes: -1 as int,
 * NaN as float), with the guard zones after them: an output never written,
 * a tile sum read before it was written, a write past the end all fail. */
static int check_once(const variant *v, int type, int kind, const scan_ctx *ctx, size_t n,
                      const void *h_in, void *h_out)
{
    scan_ctx x = *ctx;
    x.n = n;
    poison_guarded(x.out, n * 4);
    poison_guarded(x.sums, x.sums_cap * 4);
    v->run[type][kind](&x, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_out, x.out, n * 4, cudaMemcpyDeviceToHost));
    char what[128];
    snprintf(what, sizeof what, "scan: %s (%s %s, n=%zu)", v->name, type_names[type],
             kind_names[kind], n);
    size_t bad = type == 0 ? scan_check_i32(what, (const int *)h_in, (const int *)h_out, n, kind)
                           : scan_check_f32(what, (const float *)h_in, (const float *)h_out, n, kind);
    bad += check_guard(what, x.out, n * 4);
    bad += check_guard(what, x.sums, x.sums_cap * 4);
    return bad == 0;
}

/* The look-back kernels' shared memory before L1 (the data streams through
 * once; step 09's 10 blocks need 169 KiB of shared memory per SM), and how
 * many of their blocks an SM holds (registers, threads, shared memory):
 * printed with every run, as steps 06 to 09 turn on it. */
template <typename T, bool EXCL>
static void lookback_prefer_shared(int *per_sm)
{
    void (*k5)(const T *, T *, size_t, unsigned long long *, unsigned *) = decoupled_lookback<T, EXCL>;
    void (*k6)(const T *, T *, size_t, unsigned long long *, unsigned *) = lookback_transposed<T, EXCL>;
    void (*k7)(const T *, T *, size_t, unsigned long long *) =
        lookback_in_order<T, EXCL, WS_BLOCK, WS_ITEMS, LB_MIN_BLOCKS, 0, 0>;
    void (*k8)(const T *, T *, size_t, unsigned long long *) =
        lookback_in_order<T, EXCL, WS_BLOCK, WS_ITEMS, LB_MIN_BLOCKS, PT_FIRST_WAIT_NS, PT_POLL_WAIT_NS>;
    void (*k9)(const T *, T *, size_t, unsigned long long *) =
        lookback_in_order<T, EXCL, SB_BLOCK, SB_ITEMS, SB_MIN_BLOCKS, PT_FIRST_WAIT_NS, PT_POLL_WAIT_NS>;
    const cudaFuncAttribute a = cudaFuncAttributePreferredSharedMemoryCarveout;
    CUDA_CHECK(cudaFuncSetAttribute(k5, a, (int)cudaSharedmemCarveoutMaxShared));
    CUDA_CHECK(cudaFuncSetAttribute(k6, a, (int)cudaSharedmemCarveoutMaxShared));
    CUDA_CHECK(cudaFuncSetAttribute(k7, a, (int)cudaSharedmemCarveoutMaxShared));
    CUDA_CHECK(cudaFuncSetAttribute(k8, a, (int)cudaSharedmemCarveoutMaxShared));
    CUDA_CHECK(cudaFuncSetAttribute(k9, a, (int)cudaSharedmemCarveoutMaxShared));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[0], k5, WS_BLOCK, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[1], k6, WS_BLOCK, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[2], k7, WS_BLOCK, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[3], k8, WS_BLOCK, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[4], k9, SB_BLOCK, 0));
}

static void fail_arg(const char *msg)
{
    fprintf(stderr, "scan: error: %s\n", msg);
    printf("scan: FAIL (bad argument)\n");
    exit(1);
}

int main(int argc, char **argv)
{
    common_opts o;
    build_help_from_table();
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int type = strcmp(opt_type, "float") == 0 ? 1 : 0;
    const size_t n = o.quick ? (1u << 17) + 3 : (size_t)opt_n;
    size_t bytes;
    char err[256];
    if (opts_checked_bytes("--n", (long long)n, 4, 2, 1ULL << 40, &bytes, err, sizeof err))
        fail_arg(err);
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    size_t sizes[8];
    int nsizes = 0;
    for (size_t k = 0; k < sizeof check_sizes / sizeof check_sizes[0]; k++)
        if (check_sizes[k] < n) sizes[nsizes++] = check_sizes[k];
    sizes[nsizes++] = n;

    report_init("scan", o.json);
    device_info dev;
    device_setup_or_exit("scan", o.device, o.json, &dev);

    /* Device memory: input, output (guarded), tile sums for the smallest
     * tile (guarded), look-back status words, CUB's temporary storage. */
    scan_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.sums_cap = tiles_of(n, HS_BLOCK);
    ctx.status_cap = tiles_of(n, SB_TILE < WS_TILE ? SB_TILE : WS_TILE) + 1;
    for (int k = 0; k < nsizes; k++) {
        size_t b = type == 0 ? cub_temp_bytes<int>(sizes[k]) : cub_temp_bytes<float>(sizes[k]);
        if (b > ctx.cub_bytes) ctx.cub_bytes = b;
    }
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const double need = (double)bytes + ctx.sums_cap * 4.0 + ctx.status_cap * 8.0 +
                        ctx.cub_bytes + 2.0 * CHECK_GUARD_BYTES + (64 << 20);
    if (need > (double)free_b) {
        report_fail("--n=%zu: needs %.2f GB of device memory, the device has %.2f GB free", n,
                    need / 1e9, free_b / 1e9);
        return report_finish();
    }
    void *d_in;
    CUDA_CHECK(cudaMalloc(&d_in, n * 4));
    ctx.in = d_in;
    ctx.out = guarded_malloc(n * 4);
    ctx.sums = guarded_malloc(ctx.sums_cap * 4);
    CUDA_CHECK(cudaMalloc(&ctx.status, ctx.status_cap * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc(&ctx.cub_temp, ctx.cub_bytes > 0 ? ctx.cub_bytes : 1));
    ctx.n = n;

    /* Inputs made on the device, copied to the host once for the checks. */
    void *h_in = malloc(n * 4), *h_out = malloc(n * 4);
    if (!h_in || !h_out) {
        report_fail("cannot allocate %.2f GB of host memory", 2.0 * n * 4 / 1e9);
        return report_finish();
    }
    if (type == 0) fill_inputs<int><<<dev.sm_count * 8, 256>>>((int *)d_in, n, o.seed);
    else fill_inputs<float><<<dev.sm_count * 8, 256>>>((float *)d_in, n, o.seed);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(h_in, d_in, n * 4, cudaMemcpyDeviceToHost));
    int per_sm[2][5];
    if (type == 0) {
        lookback_prefer_shared<int, false>(per_sm[0]);
        lookback_prefer_shared<int, true>(per_sm[1]);
    } else {
        lookback_prefer_shared<float, false>(per_sm[0]);
        lookback_prefer_shared<float, true>(per_sm[1]);
    }
    report_note("blocks per SM (inclusive/exclusive): decoupled_lookback %d/%d, lookback_transposed "
                "%d/%d, lookback_in_order %d/%d, lookback_patient %d/%d (256 threads each), "
                "lookback_small_blocks %d/%d (128 threads)", per_sm[0][0], per_sm[1][0],
                per_sm[0][1], per_sm[1][1], per_sm[0][2], per_sm[1][2], per_sm[0][3], per_sm[1][3],
                per_sm[0][4], per_sm[1][4]);
    report_note("type=%s n=%zu (%.1f MiB per array); checked at %d sizes up to n, inclusive "
                "and exclusive", type_names[type], n, n * 4 / 1048576.0, nsizes);

    /* Check every variant that runs, both kinds, every size. */
    int ok[N_VARIANTS][2];
    for (int v = 0; v < N_VARIANTS; v++)
        for (int k = 0; k < 2; k++) {
            ok[v][k] = 1;
            if (!opts_variant_runs(opt_variant, variants[v].name, variants[v].is_reference))
                continue;
            for (int s = 0; s < nsizes; s++)
                ok[v][k] &= check_once(&variants[v], type, k, &ctx, sizes[s], h_in, h_out);
        }

    result_rec r;
    /* The CPU baseline: one loop, timed once, checked like the others. */
    if (opts_variant_runs_cpu(opt_variant)) {
        for (int k = 0; k < 2; k++) {
            host_prefault(h_out, n * 4);
            double t0 = host_seconds();
            if (type == 0) scan_cpu_i32((const int *)h_in, (int *)h_out, n, k);
            else scan_cpu_f32((const float *)h_in, (float *)h_out, n, k);
            double ms = (host_seconds() - t0) * 1e3;
            size_t bad = type == 0
                ? scan_check_i32("scan: cpu", (const int *)h_in, (const int *)h_out, n, k)
                : scan_check_f32("scan: cpu", (const float *)h_in, (const float *)h_out, n, k);
            rec_begin(&r, "cpu");
            rec_int(&r, "n", (long long)n);
            rec_str(&r, "status", bad == 0 ? "PASS" : "FAIL");
            rec_perf(&r, ms, "gbps", 8.0 * n / (ms * 1e6), 0, NULL, 0);
            rec_str(&r, "type", type_names[type]);
            rec_str(&r, "kind", kind_names[k]);
            rec_emit(&r);
        }
    }

    /* L2: flushed before each timed run only when the data could live in it. */
    const int flush = (double)bytes < 4.0 * dev.l2_bytes;
    report_note("timing at n=%zu, median of %d runs after warm-ups; L2 %s", n, reps,
                flush ? "flushed before each run" : "not flushed (data is over 4x L2)");
    for (int k = 0; k < 2; k++) {
        /* This kind's variants that passed and cub, timed round robin
         * (common/timing.h): pct_ref is from this run, at the same clocks. */
        timed_variant group[N_VARIANTS];
        timing_stats times[N_VARIANTS];
        char ranges[N_VARIANTS][80];
        int slot[N_VARIANTS], n_timed = 0, ref = -1;
        ctx.n = n;
        for (int v = 0; v < N_VARIANTS; v++) {
            const variant *var = &variants[v];
            slot[v] = -1;
            if (!opts_variant_runs(opt_variant, var->name, var->is_reference)) continue;
            if (!ok[v][k]) continue;
            if (var->is_reference) ref = v;
            snprintf(ranges[v], sizeof ranges[v], "scan/%s/%s", var->name, kind_names[k]);
            group[n_timed] = (timed_variant){var->run[type][k], &ctx, ranges[v]};
            slot[v] = n_timed++;
        }
        if (n_timed > 0) {
            timing_cfg tc = timing_defaults(reps);
            tc.flush_l2 = flush;
            time_gpu_group(group, n_timed, &tc, times);
        }
        const double ref_gbps = ref >= 0 ? 8.0 * n / (times[slot[ref]].median_ms * 1e6) : 0;
        for (int v = 0; v < N_VARIANTS; v++) {   /* the reference is first in the table */
            const variant *var = &variants[v];
            if (!opts_variant_runs(opt_variant, var->name, var->is_reference)) continue;
            rec_begin(&r, var->name);
            rec_int(&r, "n", (long long)n);
            if (!ok[v][k]) {
                rec_str(&r, "status", "FAIL");
                rec_str(&r, "type", type_names[type]);
                rec_str(&r, "kind", kind_names[k]);
                rec_emit(&r);
                continue;
            }
            const timing_stats *ts = &times[slot[v]];
            double gbps = 8.0 * n / (ts->median_ms * 1e6);
            rec_str(&r, "status", "PASS");
            rec_perf(&r, ts->median_ms, "gbps", gbps, dev.peak_gbps, "cub", ref_gbps);
            rec_str(&r, "type", type_names[type]);
            rec_str(&r, "kind", kind_names[k]);
            rec_num(&r, "min_ms", ts->min_ms);
            timing_rec_clocks(&r, ts);
            rec_emit(&r);
        }
    }

    CUDA_CHECK(cudaFree(d_in));
    guarded_free(ctx.out);
    guarded_free(ctx.sums);
    CUDA_CHECK(cudaFree(ctx.status));
    CUDA_CHECK(cudaFree(ctx.cub_temp));
    free(h_in);
    free(h_out);
    return report_finish();
}
