/* histogram: count the bytes of an array into 256 or 64 bins, from one
 * global atomic per byte to the speed of HBM.
 *
 * What it teaches: privatization (each block counts into its own copy of
 * the bins in shared memory and merges once, instead of every byte
 * fighting over 256 global counters); why the cost of atomics depends on
 * the data (equal bytes collide on one counter, random bytes collide on
 * shared-memory banks); how many private copies shared memory can hold for
 * 256 and for 64 bins; and a layout that gives every lane of a warp its own
 * bank, so no input can make two lanes of an atomic instruction conflict.
 *
 * Build:  make -C 3_Imaging/histogram           (or `make histogram` at the top)
 * Run:    bin/histogram                         512 MiB of bytes, 256 bins, all three inputs
 *         bin/histogram --bins=64               the same with 64 bins
 *         bin/histogram --input=degenerate --variant=fast_r64
 *         bin/histogram --input=degenerate --variant=fast_r32_l1 --reps=50
 *         bin/histogram --n=2^32+1 --input=degenerate --reps=5   a bin over 2^32 (64-bit counts)
 *         bin/histogram --quick                 small sizes, every input, both bin counts
 *
 * The kernels: one file per step, kernels/NN_<variant>.cuh, in teaching
 * order; each opens with the one thing it changes from the step before, why,
 * and what the H200 measured (`diff kernels/04_*.cuh kernels/05_*.cuh` is
 * the lesson of step 05). This file keeps the launchers, the variant table
 * (it drives checks, timing and --help), the checks, the timing and main.
 *   cpu                      four sub-histograms on the host, timed once (common/cpu_ref.c)
 *   cub                      cub::DeviceHistogram::HistogramEven: the reference
 *   01 global_atomics        one thread per byte, one global atomicAdd per byte
 *   02 shared_private        a private copy of the bins per block in shared memory,
 *                            one global atomic per bin per block to merge
 *   03 shared_private_load16 + 16-byte loads (uint4)
 *   04 shared_private_prefetch + the next vector loaded while this one is counted
 *   05 shared_private_ptx    + red.shared on a 32-bit address, bytes taken with prmt
 *   06 shared_private_vec16  + all of the SM's shared memory asked for (carveout)
 *   07 warp_private          one copy per warp (32 copies per block)
 *   08 fast_r32              32 copies, counter of bin b for lane L at word 32 b + L:
 *                            every lane of a warp in its own bank, whatever the data
 *   09 fast_r64              64 copies (lanes x 2 groups of warps), 32-bit counters
 *   10 fast_r64p             64 copies of 16-bit counters, two bins per word,
 *                            flushed before they can overflow
 *   11 fast_r128p            128 copies (lanes x 4 groups of warps), 16-bit counters
 *   12 fast_r32_bmerge       fast_r32 merged through a shared row of totals: coalesced
 *                            global atomics, none for an empty bin
 *   13 fast_r32_l1           + shared-memory carveout sized to need (L1 keeps 156 KiB)
 *   14 fast_r32_nozero       + the output zeroed by block 0 instead of a memset
 *   15 fast_r32_l2pf         + an L2 prefetch of the vector 4 rounds ahead
 *   16 fast_r32_async        fast_r32_nozero with cp.async into a 4-slot ring per thread
 * Exercises (exercises/README.md): built with
 * -DEXERCISE='"exercises/exN_<name>.cuh"', they add the variant `exercise`.
 *
 * Inputs (hist_common.h): uniform random bytes; skewed (a bell curve: the
 * sum of 16 random 4-bit values, mean 120, sd 18.4); degenerate (every byte
 * equal). Bins: byte v falls in bin v * bins / 256, as HistogramEven with
 * levels 0..256 does. Counts are exact and compared exactly.
 * Bytes counted: n, read once (1e9 bytes per GB); the histogram written
 * (2 KiB) is left out, it is under 0.001% of a 512 MiB input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cub/device/device_histogram.cuh>

#include "check.h"
#include "cpu_ref.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "timing.h"

#include "hist_common.h"
#include "hist_host.h"


/* ---- CPU reference -------------------------------------------------------
 * common/cpu_ref.c's cpu_histogram_add_u64: 64-bit counts, bin v * bins / 256
 * written as a division, independent of the kernels' shift (bin_of). The cpu
 * variant times it over the whole input. */

/* ---- kernels: one file per step (tests/cpu_sim/run.sh includes the same) - */
#include "kernels/00_common.cuh"
#include "kernels/00_ptx.cuh"
#include "kernels/00_count.cuh"
#include "kernels/01_global_atomics.cuh"
#include "kernels/02_shared_private.cuh"
#include "kernels/03_shared_private_load16.cuh"
#include "kernels/04_shared_private_prefetch.cuh"
#include "kernels/05_shared_private_ptx.cuh"
#include "kernels/06_shared_private_vec16.cuh"
#include "kernels/07_warp_private.cuh"
#include "kernels/08_fast_r32.cuh"
#include "kernels/09_fast_r64.cuh"
#include "kernels/10_fast_r64p.cuh"
#include "kernels/11_fast_r128p.cuh"
#include "kernels/12_fast_r32_bmerge.cuh"
#include "kernels/13_fast_r32_l1.cuh"
#include "kernels/14_fast_r32_nozero.cuh"
#include "kernels/15_fast_r32_l2pf.cuh"
#include "kernels/16_fast_r32_async.cuh"
#ifdef EXERCISE
#include EXERCISE
#endif

/* Input i = hist_input_byte(kind, seed, i); 8 bytes per store. `words` 8-byte
 * words (the allocation is a multiple of 8 bytes, cudaMalloc aligns it). */
__global__ void fill_input(unsigned char *d, size_t words, int kind, uint64_t seed)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += stride) {
        u64 v = 0;
        for (int k = 0; k < 8; k++) v |= (u64)hist_input_byte(kind, seed, 8 * w + k) << (8 * k);
        ((u64 *)d)[w] = v;
    }
}

/* ---- launchers ----------------------------------------------------------- */

typedef struct {
    const unsigned char *data;   /* the bytes to count: any alignment */
    size_t n;
    u64 *hist;                   /* 64-bit bins: every variant's output (cub's beyond 2^32 - 1 bytes) */
    unsigned *hist32;            /* cub's 32-bit bins */
    void *cub_temp;
    size_t cub_bytes;
    int sm_count;
    int smem_per_sm, smem_reserved, blocks_per_sm;   /* run_lanes FIT: the carveout's inputs */
    unsigned force_grid, force_block;   /* a checked launch's own grid and block; 0 = the launcher's */
    int one_per_sm;              /* the waves check: so much shared memory that one block fills an SM */
    int smem_optin;              /* the most shared memory one block may have (static + dynamic) */
    unsigned *zeroed;            /* NOZERO kernels: the flag block 0 sets once the output is zero */
    const char *name;            /* the variant being run, for the launchers' notes */
} hist_ctx;

/* The kernels' two signatures: steps 01 to 11 (and the exercises), and
 * steps 12 to 16, which also take the launch number and the flag. */
typedef void (*hist_kernel)(const unsigned char *, size_t, u64 *);
typedef void (*lanes_kernel)(const unsigned char *, size_t, u64 *, unsigned, unsigned *);

/* Every variant but cub and the NOZERO ones adds into its output, so the
 * output starts at zero (in the timed region: the zeroing is part of
 * computing a histogram). */
static void zero_output(const hist_ctx *x, int bins, cudaStream_t s)
{
    CUDA_CHECK(cudaMemsetAsync(x->hist, 0, (size_t)bins * sizeof(u64), s));
}

/* The waves check (check_variant): dynamic shared memory for one launch of
 * `kernel` that leaves no room for a second block on an SM: the most a
 * block may have (smem_optin, 227 KiB on an H200) less the kernel's static
 * shared memory, and never less than the `need` of the kernel itself. The
 * kernel uses its first `need` bytes as always; the rest only keeps other
 * blocks off the SM. Raises the kernel's dynamic shared-memory limit to it. */
template <typename K>
static size_t one_per_sm_smem(K kernel, const hist_ctx *x, size_t need)
{
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
    size_t dyn = (size_t)x->smem_optin > fa.sharedSizeBytes ? (size_t)x->smem_optin - fa.sharedSizeBytes : 0;
    if (dyn < need) dyn = need;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
    return dyn;
}

/* Blocks of `kernel` that fit on the whole GPU at once, asked once per kernel. */
template <typename K>
static unsigned long long resident_blocks(K kernel, int threads, size_t smem, int sm_count,
                                          int *cache)
{
    if (*cache == 0) {
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
        *cache = per_sm > 0 ? per_sm : 1;
    }
    return (unsigned long long)*cache * (unsigned long long)sm_count;
}

/* Step 01: one thread per byte. */
template <int BINS, hist_kernel K>
static void run_global_atomics(void *p, cudaStream_t s)
{
    const hist_ctx *x = (const hist_ctx *)p;
    const unsigned long long blocks = (x->n + ATOMIC_THREADS - 1) / ATOMIC_THREADS;
    zero_output(x, BINS, s);
    K<<<(unsigned)blocks, ATOMIC_THREADS, 0, s>>>(x->data, x->n, x->hist);
    CHECK_LAUNCH();
}

/* Step 02 (and exercise 1): a grid that fills the GPU once, one byte per
 * thread per round, static shared memory. */
template <int BINS, hist_kernel K>
static void run_shared_private(void *p, cudaStream_t s)
{
    const hist_ctx *x = (const hist_ctx *)p;
    static int per_sm = 0;
    const unsigned long long max_blocks = resident_blocks(K, PRIV_THREADS, 0, x->sm_count, &per_sm);
    const unsigned block = x->force_block ? x->force_block : PRIV_THREADS;
    const unsigned long long grid =
        x->force_grid ? x->force_grid : hist_grid_blocks(x->n, 1, block, max_blocks);
    const size_t smem = x->one_per_sm ? one_per_sm_smem(K, x, 0) : 0;
    zero_output(x, BINS, s);
    K<<<(unsigned)grid, block, smem, s>>>(x->data, x->n, x->hist);
    CHECK_LAUNCH();
}

/* Steps 03 to 11: 16 bytes per thread per round. The grid fills the GPU
 * once (2 blocks of 1024 per SM when registers and shared memory allow),
 * fewer blocks when n is small. Shared memory is dynamic, sized by
 * hist_smem_words for the LAYOUT (hist_common.h) and the block actually
 * launched, and may be more than the default 48 KiB per block. ALL_SHARED
 * (step 06 on) asks for all of an SM's shared memory as the carveout;
 * otherwise the driver chooses. */
template <int BINS, hist_kernel K, int LAYOUT, int GROUPS, int PACK16, int ALL_SHARED>
static void run_privatized(void *p, cudaStream_t s)
{
    const hist_ctx *x = (const hist_ctx *)p;
    static int per_sm = 0;
    const size_t smem_full =
        hist_smem_words(LAYOUT, BINS, GROUPS, PACK16, PRIV_THREADS / 32) * sizeof(unsigned);
    if (per_sm == 0) {
        CUDA_CHECK(cudaFuncSetAttribute(K, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_full));
        if (ALL_SHARED)
            CUDA_CHECK(cudaFuncSetAttribute(K, cudaFuncAttributePreferredSharedMemoryCarveout,
                                            (int)cudaSharedmemCarveoutMaxShared));
    }
    const unsigned long long max_blocks = resident_blocks(K, PRIV_THREADS, smem_full, x->sm_count, &per_sm);
    const unsigned block = x->force_block ? x->force_block : PRIV_THREADS;
    size_t smem = hist_smem_words(LAYOUT, BINS, GROUPS, PACK16, block / 32) * sizeof(unsigned);
    if (x->one_per_sm) smem = one_per_sm_smem(K, x, smem);
    const unsigned long long grid =
        x->force_grid ? x->force_grid : hist_grid_blocks(x->n, 16, block, max_blocks);
    zero_output(x, BINS, s);
    K<<<(unsigned)grid, block, smem, s>>>(x->data, x->n, x->hist);
    CHECK_LAUNCH();
}

/* Every NOZERO launch gets a number no launch before it had (0 is the
 * flag's value at the start), so a flag left by an earlier launch is never
 * taken for this one's. One counter for all of them: they share the flag. */
static unsigned nozero_epoch = 0;

/* Steps 12 to 16: the grid and block of run_privatized, shared memory from
 * hist_lanes_smem_bytes (STAGES ring slots per thread: step 16). The
 * carveout (how much of the SM's 256 KiB of L1 + shared memory is shared):
 * all of it (228 KiB, leaving 28 KiB of L1), as run_privatized asks, or with
 * FIT (step 13 on) just what blocks_per_sm blocks need
 * (hist_carveout_percent), the rest staying L1. NOZERO (step 14 on): no
 * memset, and a cooperative launch (every block resident at once, or the
 * launch fails: the kernel's blocks wait for block 0). */
template <int BINS, lanes_kernel K, unsigned STAGES, int NOZERO, int FIT>
static void run_lanes(void *p, cudaStream_t s)
{
    const hist_ctx *x = (const hist_ctx *)p;
    static int per_sm = 0;
    const size_t smem_full = hist_lanes_smem_bytes(BINS, PRIV_THREADS, STAGES);
    const int first = per_sm == 0;
    const int carveout = FIT ? hist_carveout_percent(smem_full, (size_t)x->smem_reserved,
                                                     (unsigned)x->blocks_per_sm, (size_t)x->smem_per_sm)
                             : (int)cudaSharedmemCarveoutMaxShared;
    if (first) {
        CUDA_CHECK(cudaFuncSetAttribute(K, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_full));
        CUDA_CHECK(cudaFuncSetAttribute(K, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
    }
    const unsigned long long max_blocks = resident_blocks(K, PRIV_THREADS, smem_full, x->sm_count, &per_sm);
    if (first)   /* what the comparisons of steps 12 to 16 rest on: two blocks per SM in each */
        report_note("%s, %d bins: %d blocks of %zu bytes of shared memory per SM, carveout %d%%%s",
                    x->name ? x->name : "?", BINS, per_sm, smem_full, carveout,
                    FIT ? " (fit to need)" : " (all)");
    const unsigned block = x->force_block ? x->force_block : PRIV_THREADS;
    size_t smem = hist_lanes_smem_bytes(BINS, block, STAGES);
    /* (never with NOZERO: its cooperative launch needs every block resident) */
    if (x->one_per_sm && !NOZERO) smem = one_per_sm_smem(K, x, smem);
    const unsigned long long grid =
        x->force_grid ? x->force_grid : hist_grid_blocks(x->n, 16, block, max_blocks);
    if (!NOZERO) {
        zero_output(x, BINS, s);
        K<<<(unsigned)grid, block, smem, s>>>(x->data, x->n, x->hist, 0u, x->zeroed);
        CHECK_LAUNCH();
        return;
    }
    if (++nozero_epoch == 0) ++nozero_epoch;
    const unsigned char *data = x->data;
    size_t n = x->n;
    u64 *hist = x->hist;
    unsigned epoch = nozero_epoch;
    unsigned *zeroed = x->zeroed;
    void *args[] = {&data, &n, &hist, &epoch, &zeroed};
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)K, dim3((unsigned)grid), dim3(block), args, smem, s));
}

/* The reference: HistogramEven with BINS + 1 levels 0, 256/BINS, ..., 256,
 * in one call at every size. CUB takes the number of samples as a template
 * type (OffsetT); with a 64-bit count, CCCL 3.0 (CUDA 13.0) counts with
 * 32-bit offsets when they suffice and 64-bit ones beyond 2^31 - 1 samples.
 * Its counters are the type of the output we give it: up to
 * HIST_CUB_32BIT_MAX bytes no bin can pass 2^32 - 1, so 32-bit bins
 * (hist32, the counters CUB's sm_90 tuning is for); beyond, the 64-bit
 * histogram (--n=2^32+1 of equal bytes puts 2^32 + 1 bytes in one bin), for
 * which CUB has no sm_90 tuning and uses its generic policy. CUB zeroes the
 * bins itself. The temporary storage is allocated once, outside the timing,
 * for the largest call. */
template <int BINS>
static void run_cub(void *p, cudaStream_t s)
{
    const hist_ctx *x = (const hist_ctx *)p;
    size_t bytes = x->cub_bytes;
    if (x->n <= HIST_CUB_32BIT_MAX)
        CUDA_CHECK(cub::DeviceHistogram::HistogramEven(x->cub_temp, bytes, x->data, x->hist32, BINS + 1,
                                                       0, 256, (long long)x->n, s));
    else
        CUDA_CHECK(cub::DeviceHistogram::HistogramEven(x->cub_temp, bytes, x->data, x->hist, BINS + 1, 0,
                                                       256, (long long)x->n, s));
}

template <int BINS>
static size_t cub_temp_bytes(size_t len)
{
    size_t bytes = 0;
    if (len <= HIST_CUB_32BIT_MAX)
        CUDA_CHECK(cub::DeviceHistogram::HistogramEven(NULL, bytes, (const unsigned char *)NULL,
                                                       (unsigned *)NULL, BINS + 1, 0, 256, (long long)len));
    else
        CUDA_CHECK(cub::DeviceHistogram::HistogramEven(NULL, bytes, (const unsigned char *)NULL,
                                                       (u64 *)NULL, BINS + 1, 0, 256, (long long)len));
    return bytes;
}

/* ---- variant table ------------------------------------------------------- */

#define GA_MAX_N ((size_t)1 << 24)   /* global_atomics: checked and timed on at most 16 MiB */

/* One variant at both bin counts: launcher L with kernel K, at 256 and at 64 bins. */
#define BY_BINS(L, K, ...) {L<256, K<256>, ##__VA_ARGS__>, L<64, K<64>, ##__VA_ARGS__>}

typedef struct {
    const char *name;
    timed_fn run[2];    /* [0] 256 bins, [1] 64 bins */
    int is_reference;   /* cub: every pct_ref is against it */
    int grid_stride;    /* takes a forced grid: the small-grid check applies */
    int pack16;         /* 16-bit counters: the overflow check applies */
    int waves;          /* may have more blocks than fit at once: the waves check applies */
    size_t max_n;       /* checked and timed on min(n, max_n) bytes; 0 = n */
    int block;          /* threads per block, for the RESULT line (0: the library's) */
    const char *what;
} variant;

static const variant variants[] = {
    {"cub", {run_cub<256>, run_cub<64>}, 1, 0, 0, 0, 0, 0,
     "cub::DeviceHistogram::HistogramEven (reference)"},
    {"global_atomics", BY_BINS(run_global_atomics, hist_global_atomics), 0, 0, 0, 0, GA_MAX_N,
     ATOMIC_THREADS, "01: one global atomicAdd per byte (at most 2^24 bytes)"},
    {"shared_private", BY_BINS(run_shared_private, hist_shared_private), 0, 1, 0, 1, 0, PRIV_THREADS,
     "02: per-block shared-memory bins, 1-byte loads"},
    {"shared_private_load16",
     BY_BINS(run_privatized, hist_shared_private_load16, HIST_PER_BLOCK, 1, 0, 0), 0, 1, 0, 1, 0,
     PRIV_THREADS, "03: + 16-byte loads"},
    {"shared_private_prefetch",
     BY_BINS(run_privatized, hist_shared_private_prefetch, HIST_PER_BLOCK, 1, 0, 0), 0, 1, 0, 1, 0,
     PRIV_THREADS, "04: + the next vector loaded while one is counted"},
    {"shared_private_ptx", BY_BINS(run_privatized, hist_shared_private_ptx, HIST_PER_BLOCK, 1, 0, 0),
     0, 1, 0, 1, 0, PRIV_THREADS, "05: + red.shared and prmt"},
    {"shared_private_vec16",
     BY_BINS(run_privatized, hist_shared_private_vec16, HIST_PER_BLOCK, 1, 0, 1), 0, 1, 0, 1, 0,
     PRIV_THREADS, "06: + all shared memory as carveout"},
    {"warp_private", BY_BINS(run_privatized, hist_warp_private, HIST_PER_WARP, 1, 0, 1), 0, 1, 0, 1,
     0, PRIV_THREADS, "07: one copy of the bins per warp"},
    {"fast_r32", BY_BINS(run_privatized, hist_fast_r32, HIST_PER_LANE, 1, 0, 1), 0, 1, 0, 1, 0,
     PRIV_THREADS, "08: 32 copies, lane L in bank L, 32-bit counters"},
    {"fast_r64", BY_BINS(run_privatized, hist_fast_r64, HIST_PER_LANE, 2, 0, 1), 0, 1, 0, 1, 0,
     PRIV_THREADS, "09: 64 copies (2 warp groups), 32-bit counters"},
    {"fast_r64p", BY_BINS(run_privatized, hist_fast_r64p, HIST_PER_LANE, 2, 1, 1), 0, 1, 1, 1, 0,
     PRIV_THREADS, "10: 64 copies, packed 16-bit counters"},
    {"fast_r128p", BY_BINS(run_privatized, hist_fast_r128p, HIST_PER_LANE, 4, 1, 1), 0, 1, 1, 1, 0,
     PRIV_THREADS, "11: 128 copies (4 warp groups), packed 16-bit counters"},
    {"fast_r32_bmerge", BY_BINS(run_lanes, hist_fast_r32_bmerge, 0u, 0, 0), 0, 1, 0, 1, 0, PRIV_THREADS,
     "12: fast_r32, merged through a shared row (coalesced atomics)"},
    {"fast_r32_l1", BY_BINS(run_lanes, hist_fast_r32_l1, 0u, 0, 1), 0, 1, 0, 1, 0, PRIV_THREADS,
     "13: + carveout sized to need: L1 stays large"},
    {"fast_r32_nozero", BY_BINS(run_lanes, hist_fast_r32_nozero, 0u, 1, 1), 0, 1, 0, 0, 0, PRIV_THREADS,
     "14: + output zeroed by block 0 (no memset)"},
    {"fast_r32_l2pf", BY_BINS(run_lanes, hist_fast_r32_l2pf, 0u, 1, 1), 0, 1, 0, 0, 0, PRIV_THREADS,
     "15: + L2 prefetch 4 vectors ahead"},
    {"fast_r32_async", BY_BINS(run_lanes, hist_fast_r32_async, (unsigned)ASYNC_STAGES, 1, 1), 0, 1, 0,
     0, 0, PRIV_THREADS, "16: fast_r32_nozero, cp.async into a 4-slot ring"},
#ifdef EXERCISE
    /* The exercise's file defines hist_exercise, EXERCISE_RUN (its launcher,
     * as BY_BINS(...)), EXERCISE_BASE (the step it modifies) and, when that
     * step runs on fewer bytes, EXERCISE_MAX_N (the same limit, so the two
     * are timed on the same bytes). */
#ifndef EXERCISE_MAX_N
#define EXERCISE_MAX_N 0
#endif
    {"exercise", EXERCISE_RUN, 0, 1, 0, 1, EXERCISE_MAX_N, PRIV_THREADS, "your exercise: " EXERCISE},
#endif
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ------------------------------------------------------------- */

#define QUICK_N (((size_t)1 << 16) + 5)
#define STRESS_N ((size_t)HIST_STRESS_N)
#define SMALL_GRID_N (((size_t)1 << 20) + 5)   /* the small-grid check's most bytes */

static long long opt_n = 512LL << 20;
static const char *opt_input = "all";
static const char default_bins[] = "256";
static const char *opt_bins = default_bins;   /* compared by address: was --bins given? */
static const char *opt_variant = "all";
static char variant_choices[512];   /* "all|cpu|cub|...", from the table */
static char help_notes[4096];       /* the variant list of --help, from the table */

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("n", "BYTES", "bytes to count (4 GiB + 1 is --n=2^32+1)", &opt_n, 1, 1LL << 35),
    OPT_STRING_SPEC("input", "KIND", "the bytes: uniform random, a bell curve, all equal",
                    &opt_input, "all|uniform|skewed|degenerate"),
    OPT_STRING_SPEC("bins", "B", "bins over [0, 256)", &opt_bins, "256|64|both"),
    OPT_STRING_SPEC("variant", "NAME", "check and time one variant (cub, the reference, always runs)",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "histogram", "a histogram of bytes: global atomics, privatized copies, CUB",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

static void build_help_from_table(void)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-24s %s\n", "cpu",
                                "the CPU baseline (four sub-histograms), timed once");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-24s %s\n",
                              variants[v].name, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "Every variant is checked exactly against the CPU before it is timed, at n = 1 3 15 "
             "16 17 1000 4097 2^20+5\n(those below --n), at input offsets 1..15, at --n, on a "
             "grid of 3 x 64 threads, on a\ngrid of more blocks than fit at once (one block per "
             "SM: later blocks start where others\nfinished), and (packed counters) for 16-bit "
             "overflow.\n"
             "--quick: n = 2^16+5, every input and both bin counts (unless --input/--bins say "
             "otherwise).");
}

static int selected(const variant *v)
{
    return opts_variant_runs(opt_variant, v->name, v->is_reference);
}

/* ---- checking ------------------------------------------------------------ */

/* Count `size` bytes starting `offset` bytes into the input with variant v
 * and compare every bin exactly with the CPU. The output (and the guard
 * zone after it) is poisoned first: a bin left unwritten reads 2^64 - 1, a
 * write past the last bin fails check_guard. */
static int check_at(const variant *v, const hist_case *c, const hist_ctx *ctx, size_t size,
                    size_t offset, const unsigned char *h_data, const u64 *full_ref,
                    size_t full_n, unsigned force_grid, unsigned force_block, int one_per_sm)
{
    const int bins = c->bins;
    u64 ref[256], got[256];
    if (full_ref && size == full_n && offset == 0) {
        memcpy(ref, full_ref, bins * sizeof(u64));
    } else {
        memset(ref, 0, sizeof ref);
        cpu_histogram_add_u64(h_data + offset, size, bins, ref);
    }
    hist_ctx x = *ctx;
    x.data = ctx->data + offset;
    x.n = size;
    x.force_grid = force_grid;
    x.force_block = force_block;
    x.name = v->name;
    x.one_per_sm = one_per_sm;
    const int into32 = v->is_reference && size <= HIST_CUB_32BIT_MAX;
    poison_guarded(x.hist, bins * sizeof(u64));
    poison_guarded(x.hist32, bins * sizeof(unsigned));
    v->run[bins == 64](&x, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    if (into32) {
        unsigned g32[256];
        CUDA_CHECK(cudaMemcpy(g32, x.hist32, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
        for (int b = 0; b < bins; b++) got[b] = g32[b] == 0xFFFFFFFFu ? ~0ull : g32[b];
    } else {
        CUDA_CHECK(cudaMemcpy(got, x.hist, bins * sizeof(u64), cudaMemcpyDeviceToHost));
    }
    char what[160];
    char launch[64] = "";
    if (force_grid)
        snprintf(launch, sizeof launch, ", %u x %u threads%s", force_grid, force_block,
                 one_per_sm ? ", one block per SM" : "");
    snprintf(what, sizeof what, "%s(%s, %d bins, n=%zu, offset %zu%s) bin", v->name,
             hist_input_name(c->kind), bins, size, offset, launch);
    size_t bad = check_exact_i64(what, (const long long *)got, (const long long *)ref, bins);
    if (into32) bad += check_guard(what, x.hist32, bins * sizeof(unsigned));
    else bad += check_guard(what, x.hist, bins * sizeof(u64));
    return bad == 0;
}

/* The waves check's launch: blocks of WAVES_BLOCK threads, each given all
 * the shared memory a block may have, so one block fills an SM; a grid of
 * the SMs and a quarter more (hist_waves_grid), so a quarter of the blocks
 * start on an SM where a block of the same launch has just finished; and
 * hist_waves_n bytes, so every block counts 64 vectors (1 KiB), and the 5
 * bytes of the tail are counted too. */
#define WAVES_BLOCK 64u

/* Every check of variant v for this case:
 *  - the plan of hist_check_plan (on at most v->max_n bytes), launched as
 *    in the timing: at these sizes every thread does one round or none;
 *  - grid-stride kernels on a grid of 3 blocks of 64 threads, over
 *    min(n, 2^20+5) bytes at offset 3: 20 or more rounds per thread, and
 *    not the same number for every thread (a wrong stride, a prefetch of
 *    the wrong vector, or PACK16's block-wide round count shows here);
 *  - `waves` (the first input of each bin count): a grid with more blocks
 *    than fit at once. Shared memory is not cleared between the blocks of
 *    a launch by anything CUDA promises: a block that starts where another
 *    finished may find its counts. Every check above launches no more
 *    blocks than fit at once, and on the H200 every block of them found its
 *    shared memory zero (a kernel that forgot to zero its copies passed
 *    them all, run of 2026-11-30); here the later blocks start on memory a
 *    block of the same launch has just counted into, so a copy that is not
 *    zeroed adds those counts again. Not for the NOZERO variants: their
 *    cooperative launch must have every block resident;
 *  - packed counters on degenerate bytes: the one-warp overflow check
 *    (HIST_STRESS_N, hist_common.h). */
static int check_variant(const variant *v, const hist_case *c, const hist_ctx *ctx, size_t n,
                         const unsigned char *h_data, const u64 *full_ref, int waves)
{
    const size_t nv = v->max_n && n > v->max_n ? v->max_n : n;
    hist_check plan[HIST_MAX_CHECKS];
    const int np = hist_check_plan(nv, plan);
    int ok = 1;
    for (int k = 0; k < np; k++)
        ok &= check_at(v, c, ctx, plan[k].n, plan[k].offset, h_data, full_ref, n, 0, 0, 0);
    if (v->grid_stride)
        ok &= check_at(v, c, ctx, nv < SMALL_GRID_N ? nv : SMALL_GRID_N, 3, h_data, full_ref, n,
                       3, 64, 0);
    if (v->waves && waves)
        ok &= check_at(v, c, ctx, hist_waves_n(ctx->sm_count, WAVES_BLOCK), 0, h_data, full_ref,
                       n, hist_waves_grid(ctx->sm_count), WAVES_BLOCK, 1);
    if (v->pack16 && c->kind == HIST_DEGENERATE)
        ok &= check_at(v, c, ctx, STRESS_N, 0, h_data, full_ref, n, 1, 32, 0);
    return ok;
}

static void fail_arg(const char *msg)
{
    fprintf(stderr, "histogram: error: %s\n", msg);
    printf("histogram: FAIL (bad argument)\n");
    exit(1);
}

int main(int argc, char **argv)
{
    common_opts o;
    build_help_from_table();
    opts_parse_or_exit(&cfg, argc, argv, &o);

    /* Validate everything before the first CUDA call. */
    char err[256];
    const int bins_given = opt_bins != default_bins;
    hist_case cases[HIST_MAX_CASES];
    const int ncases = hist_cases(opt_input, o.quick && !bins_given ? "both" : opt_bins, cases,
                                  err, sizeof err);
    if (ncases < 0) fail_arg(err);
    const size_t n = o.quick ? QUICK_N : (size_t)opt_n;
    /* The input buffer: n bytes, the 15 an offset check may reach past them,
     * and at least STRESS_N; a multiple of 8 for the fill kernel. */
    const size_t want = (n > STRESS_N ? n : STRESS_N) + 16;
    size_t alloc;
    if (opts_checked_bytes("--n", (long long)want, 1, 1, 1ULL << 36, &alloc, err, sizeof err))
        fail_arg(err);
    alloc = (alloc + 7) & ~(size_t)7;
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    report_init("histogram", o.json);
    device_info dev;
    device_setup_or_exit("histogram", o.device, o.json, &dev);
    /* The waves check counts hist_waves_n bytes (about 1.3 KiB per SM): more
     * than the buffer only on a GPU of over a thousand SMs. */
    const size_t wn = hist_waves_n(dev.sm_count, WAVES_BLOCK);
    if (wn + 16 > alloc) alloc = (wn + 16 + 7) & ~(size_t)7;

    /* CUB's temporary storage: the most any checked or timed call needs. */
    size_t cub_bytes = 0;
    {
        hist_check plan[HIST_MAX_CHECKS];
        const int np = hist_check_plan(n, plan);
        for (int k = 0; k <= np; k++) {
            const size_t len = k < np ? plan[k].n : STRESS_N;
            size_t b256 = cub_temp_bytes<256>(len), b64 = cub_temp_bytes<64>(len);
            if (b256 > cub_bytes) cub_bytes = b256;
            if (b64 > cub_bytes) cub_bytes = b64;
        }
    }
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const double need = (double)alloc + (double)cub_bytes + (64 << 20);
    if (need > (double)free_b) {
        report_fail("--n=%zu: needs %.2f GB of device memory, the device has %.2f GB free", n,
                    need / 1e9, free_b / 1e9);
        return report_finish();
    }
    unsigned char *h_data = (unsigned char *)malloc(alloc);
    if (!h_data) {
        report_fail("--n=%zu: cannot allocate %zu bytes of host memory for the CPU reference", n,
                    alloc);
        return report_finish();
    }

    hist_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    unsigned char *d_data;
    CUDA_CHECK(cudaMalloc(&d_data, alloc));
    ctx.data = d_data;
    ctx.n = n;
    ctx.hist = (u64 *)guarded_malloc(256 * sizeof(u64));        /* outputs: a guard zone follows */
    ctx.hist32 = (unsigned *)guarded_malloc(256 * sizeof(unsigned));
    CUDA_CHECK(cudaMalloc(&ctx.cub_temp, cub_bytes > 0 ? cub_bytes : 1));
    ctx.cub_bytes = cub_bytes;
    ctx.sm_count = dev.sm_count;
    {
        int threads_per_sm = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&ctx.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                          dev.id));
        CUDA_CHECK(cudaDeviceGetAttribute(&ctx.smem_reserved, cudaDevAttrReservedSharedMemoryPerBlock,
                                          dev.id));
        CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev.id));
        CUDA_CHECK(cudaDeviceGetAttribute(&ctx.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                          dev.id));
        ctx.blocks_per_sm = threads_per_sm / PRIV_THREADS > 0 ? threads_per_sm / PRIV_THREADS : 1;
    }
    CUDA_CHECK(cudaMalloc(&ctx.zeroed, sizeof(unsigned)));   /* 0: no launch has set it yet */
    CUDA_CHECK(cudaMemset(ctx.zeroed, 0, sizeof(unsigned)));

    /* L2: flushed before each timed run only when the input could live in it. */
    const int flush = (double)n < 4.0 * dev.l2_bytes;
    report_note("n=%zu bytes (%.1f MiB), median of %d runs after 3 warm-ups, L2 %s; "
                "global_atomics on min(n, 2^24) bytes", n, n / 1048576.0, reps,
                flush ? "flushed before each run" : "not flushed (input is over 4x L2)");

    for (int ci = 0; ci < ncases; ci++) {
        const hist_case *c = &cases[ci];
        const char *input = hist_input_name(c->kind);
        fill_input<<<dev.sm_count * 8, 256>>>(d_data, alloc / 8, c->kind, o.seed);
        CHECK_LAUNCH();
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(h_data, d_data, alloc, cudaMemcpyDeviceToHost));

        /* The CPU reference of the whole input, which the cpu variant times. */
        u64 full_ref[256];
        host_prefault(full_ref, sizeof full_ref);
        memset(full_ref, 0, sizeof full_ref);
        double t0 = host_seconds();
        cpu_histogram_add_u64(h_data, n, c->bins, full_ref);
        const double cpu_ms = (host_seconds() - t0) * 1e3;
        u64 top = 0;
        int top_bin = 0;
        for (int b = 0; b < c->bins; b++)
            if (full_ref[b] > top) top = full_ref[b], top_bin = b;
        report_note("input=%s bins=%d: busiest bin %d holds %llu bytes (%.2f%%)%s", input,
                    c->bins, top_bin, top, 100.0 * top / n,
                    top > 0xFFFFFFFFull ? ": more than 2^32 - 1, a 32-bit counter would wrap" : "");

        int ok[N_VARIANTS];
        for (int v = 0; v < N_VARIANTS; v++)
            ok[v] = selected(&variants[v])
                        ? check_variant(&variants[v], c, &ctx, n, h_data, full_ref,
                                        ci == 0 || c->bins != cases[ci - 1].bins)
                        : 0;

        result_rec r;
        if (opts_variant_runs_cpu(opt_variant)) {
            rec_begin(&r, "cpu");
            rec_int(&r, "n", (long long)n);
            rec_str(&r, "input", input);
            rec_int(&r, "bins", c->bins);
            rec_str(&r, "status", "PASS");
            rec_perf(&r, cpu_ms, "gbps", n / (cpu_ms * 1e6), 0, NULL, 0);
            rec_emit(&r);
        }

        /* The chosen variants that passed and cub, timed round robin
         * (common/timing.h): every pct_ref is from this run, at the same
         * clocks. Each has its own context: its n, its name. */
        hist_ctx xs[N_VARIANTS];
        timed_variant group[N_VARIANTS];
        timing_stats times[N_VARIANTS];
        char ranges[N_VARIANTS][64];
        int slot[N_VARIANTS], n_timed = 0, ref = -1;
        for (int v = 0; v < N_VARIANTS; v++) {
            const variant *var = &variants[v];
            slot[v] = -1;
            if (var->is_reference) ref = v;
            if (!selected(var) || !ok[v]) continue;
            xs[v] = ctx;
            xs[v].n = var->max_n && n > var->max_n ? var->max_n : n;
            xs[v].name = var->name;
            snprintf(ranges[v], sizeof ranges[v], "histogram/%s", var->name);
            /* the L2 flushed only for a variant whose bytes could live in it */
            group[n_timed] = (timed_variant){var->run[c->bins == 64], &xs[v], ranges[v],
                                             (double)xs[v].n < 4.0 * dev.l2_bytes};
            slot[v] = n_timed++;
        }
        if (n_timed > 0) {
            timing_cfg tc = timing_defaults(reps);
            time_gpu_group(group, n_timed, &tc, times);
        }
        const double ref_gbps =
            ref >= 0 && slot[ref] >= 0 ? xs[ref].n / (times[slot[ref]].median_ms * 1e6) : 0;
        for (int v = 0; v < N_VARIANTS; v++) {   /* the reference is first in the table */
            const variant *var = &variants[v];
            if (!selected(var)) continue;
            const size_t nv = var->max_n && n > var->max_n ? var->max_n : n;
            rec_begin(&r, var->name);
            rec_int(&r, "n", (long long)nv);
            rec_str(&r, "input", input);
            rec_int(&r, "bins", c->bins);
            if (!ok[v]) {
                rec_str(&r, "status", "FAIL");
                rec_emit(&r);
                continue;
            }
            const timing_stats *t = &times[slot[v]];
            const double gbps = nv / (t->median_ms * 1e6);
            rec_str(&r, "status", "PASS");
            rec_perf(&r, t->median_ms, "gbps", gbps, dev.peak_gbps, "cub", ref_gbps);
            if (var->block) rec_int(&r, "block", var->block);
            rec_num(&r, "min_ms", t->min_ms);
            timing_rec_clocks(&r, t);
            rec_emit(&r);
        }
    }

    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFree(ctx.cub_temp));
    CUDA_CHECK(cudaFree(ctx.zeroed));
    guarded_free(ctx.hist);
    guarded_free(ctx.hist32);
    free(h_data);
    return report_finish();
}
