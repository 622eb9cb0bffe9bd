/* matrixMul: C = alpha*A*B + beta*C in FP32, climbing from one thread per
 * element to a warp-tiled, pipelined kernel, every step measured against
 * cuBLAS in the same run.
 *
 * What it teaches: why the thread-to-element mapping decides coalescing; how
 * shared-memory tiling turns K global loads per output into K/TILE, and why it
 * needs two __syncthreads per tile (one after the loads, one after the
 * compute); how register blocking raises the FMAs per shared-memory load; what
 * float4 loads, a transposed and a padded tile each buy; how warp tiling,
 * double buffering (registers or cp.async), copies without bounds tests and a
 * pipelined main loop get close to the library. Each step changes one thing
 * from the step it names. Every kernel takes any M, N, K (row-major), not
 * only multiples of its tile: out-of-range loads read zeros, stores are
 * guarded.
 *
 * This file is the harness: the launchers, the variant table, the options,
 * the checks, the timing and main. The kernels are in kernels/, one file per
 * step in teaching order, named after the first variant that uses it
 * (kernels/NN_<variant>.cuh; device helpers that several steps share in
 * kernels/00_*.cuh); each file's opening comment says what it changes from
 * the step before, why, and what it measured, and
 *     diff kernels/03_smem_tile32.cuh kernels/04_smem_tile32_prefetch.cuh
 * shows one step's change. exercises/ holds the exercises (`make try
 * SAMPLE=matrixMul EX=1`: built with -DEXERCISE='"exercises/ex1_...cuh"',
 * they become the variant `exercise`).
 *
 * Build:  make -C 0_Simple/matrixMul            (or `make matrixMul` at the top)
 * Run:    bin/matrixMul                         M = N = K = 4096, all variants
 *         bin/matrixMul --m=2048 --n=2048 --k=2048      (bench.args: the other
 *         bin/matrixMul --m=4096 --n=1024 --k=8192       shapes make bench runs)
 *         bin/matrixMul --quick                 small shapes (each kernel on 2x2 of its tiles), for compute-sanitizer
 *         bin/matrixMul --variant=smem_tile32 --m=2048 --n=1000 --k=333
 * Variants, in teaching order (one table below drives dispatch, --help,
 * checks and timing; "from X" when a step does not change the one above):
 *   cublas                 cuBLAS SGEMM, CUBLAS_PEDANTIC_MATH (true FP32): the reference
 *   cublas_tf32            cuBLAS with TF32 tensor cores: context only, looser tolerance
 *   naive                  01: one thread per output, threadIdx.x walks down a column (uncoalesced)
 *   coalesced              02: the same with threadIdx.x walking along a row
 *   smem_tile32            03: shared-memory tiles of 32x32, the classic kernel
 *   smem_tile16            03: tiles of 16x16
 *   smem_tile32_prefetch   04: from smem_tile32, the next tile's loads in flight during the FMAs
 *   blocktile_1d_32x32x32  05: from smem_tile32, each thread 8 outputs of one column
 *   blocktile_1d_64x64x32  05: a 64x64 block tile
 *   blocktile_1d           05: a K-step of 8 (64x64x8)
 *   blocktile_2d_64x64x8   06: each thread an 8x8 block of outputs
 *   blocktile_2d           06: a 128x128 block tile
 *   vec_global_loads       07: float4 global loads and stores
 *   transposed_a           08: A stored transposed in shared memory
 *   padded_a               08: its rows padded (conflict-free stores)
 *   warp_layout            09: 64x32 warp tiles (conflict-free shared loads)
 *   warptile_*             10: register-staged double buffering; then its block
 *                              tile, BK, register cap
 *   cpasync_*              11: the warp tiling fed by cp.async; then its stages,
 *                              BK, warp tile
 *   unchecked_*            12: blocks inside C copy without bounds tests
 *   pipe_*                 13: fragments loaded a k ahead (a pipelined loop);
 *                              then one parameter each
 *   steady_*               14: from pipe_*: a main loop without branches (the K
 *                              tail first, interior blocks copy through pointers)
 * (NN: the kernel file.) The CPU baseline (double accumulation) is reported
 * as variant=cpu.
 *
 * FLOPs counted: 2*M*N*K per GEMM (the beta*C term is not counted).
 * Without a GPU: tests/test_mm_host.c (cmocka) and tests/cpu_sim/run.sh (the
 * kernels run on CPU threads); ./ptxas_table.sh prints registers, shared
 * memory and spills per kernel; sass_loop.py reads a kernel's main loop from
 * `cuobjdump -sass` (instructions, FFMAs, issue cycles per K-step); `make
 * bench` fills the README's results table from a real run
 * (tools/results_table.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "check.h"
#include "cpu_ref.h"
#include "cuda_check.h"
#include "device.h"
#include "mm_host.h"
#include "options.h"
#include "report.h"
#include "rng.h"
#include "timing.h"

/* ---- kernels, one file per step, in teaching order --------------------- */

#include "kernels/01_naive.cuh"
#include "kernels/02_coalesced.cuh"
#include "kernels/03_smem_tile32.cuh"
#include "kernels/04_smem_tile32_prefetch.cuh"
#include "kernels/05_blocktile_1d_32x32x32.cuh"
#include "kernels/06_blocktile_2d_64x64x8.cuh"
#include "kernels/07_vec_global_loads.cuh"
#include "kernels/08_transposed_a.cuh"
#include "kernels/09_warp_layout.cuh"
#include "kernels/10_warptile_128x128x8.cuh"
#include "kernels/11_cpasync_128x128x8_s2.cuh"
#include "kernels/12_unchecked_128x128x8_w64x64_s3.cuh"
#include "kernels/13_pipe_128x128x8_w64x64_s3.cuh"
#include "kernels/14_steady_128x256x8_w64x64_s3.cuh"
/* An exercise (exercises/README.md): built with -DEXERCISE='"exercises/exN_<name>.cuh"',
 * its kernel mm_exercise becomes the variant `exercise`. */
#ifdef EXERCISE
#include EXERCISE
#endif

/* ---- launchers --------------------------------------------------------- */

typedef struct {
    int M, N, K;
    float alpha, beta;
    const float *A, *B;
    float *C;
    cublasHandle_t h_fp32, h_tf32;
} mm_ctx;

/* Row-major C = A*B is column-major C^T = B^T * A^T: cuBLAS gets (N, M, K)
 * with B first, and every leading dimension is a row length. */
static void run_cublas_with(cublasHandle_t h, mm_ctx *x, cudaStream_t s)
{
    CUBLAS_CHECK(cublasSetStream(h, s));
    CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, x->N, x->M, x->K, &x->alpha, x->B,
                             x->N, x->A, x->K, &x->beta, x->C, x->N));
}
static void run_cublas(void *p, cudaStream_t s) { run_cublas_with(((mm_ctx *)p)->h_fp32, (mm_ctx *)p, s); }
static void run_cublas_tf32(void *p, cudaStream_t s) { run_cublas_with(((mm_ctx *)p)->h_tf32, (mm_ctx *)p, s); }

static void run_naive(void *p, cudaStream_t s)
{
    mm_ctx *x = (mm_ctx *)p;
    dim3 block(32, 32), grid(CEIL_DIV(x->M, 32), CEIL_DIV(x->N, 32));
    mm_naive<<<grid, block, 0, s>>>(x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

static void run_coalesced(void *p, cudaStream_t s)
{
    mm_ctx *x = (mm_ctx *)p;
    dim3 block(32, 32), grid(CEIL_DIV(x->N, 32), CEIL_DIV(x->M, 32));
    mm_coalesced<<<grid, block, 0, s>>>(x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

template <int TILE>
static void run_smem(void *p, cudaStream_t s)
{
    mm_ctx *x = (mm_ctx *)p;
    dim3 block(TILE, TILE), grid(CEIL_DIV(x->N, TILE), CEIL_DIV(x->M, TILE));
    mm_smem<TILE><<<grid, block, 0, s>>>(x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

template <int TILE>
static void run_smem_prefetch(void *p, cudaStream_t s)
{
    mm_ctx *x = (mm_ctx *)p;
    dim3 block(TILE, TILE), grid(CEIL_DIV(x->N, TILE), CEIL_DIV(x->M, TILE));
    mm_smem_prefetch<TILE><<<grid, block, 0, s>>>(x->M, x->N, x->K, x->alpha, x->A, x->B,
                                                  x->beta, x->C);
    CHECK_LAUNCH();
}

template <int BM, int BN, int BK, int TM>
static void run_blocktile_1d(void *p, cudaStream_t s)
{
    static_assert(BM % TM == 0, "each thread owns TM whole rows");
    static_assert(BM * BN / TM <= 1024, "at most 1024 threads per block");
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_blocktile_1d<BM, BN, BK, TM><<<grid, BM * BN / TM, 0, s>>>(x->M, x->N, x->K, x->alpha,
                                                                  x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

template <int BM, int BN, int BK>
static void run_blocktile_2d(void *p, cudaStream_t s)
{
    constexpr int TM = 8, TN = 8;
    static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles cover the block tile");
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_blocktile_2d<BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN), 0, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

static void run_vec_global(void *p, cudaStream_t s)
{
    constexpr int BM = 128, BN = 128, BK = 8;
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_vec_global<BM, BN, BK><<<grid, (BM / 8) * (BN / 8), 0, s>>>(x->M, x->N, x->K, x->alpha,
                                                                   x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

template <int PAD>
static void run_transposed(void *p, cudaStream_t s)
{
    constexpr int BM = 128, BN = 128, BK = 8;
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_transposed<BM, BN, BK, PAD><<<grid, (BM / 8) * (BN / 8), 0, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

static void run_warp_layout(void *p, cudaStream_t s)
{
    constexpr int BM = 128, BN = 128, BK = 8;
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_warp_layout<BM, BN, BK><<<grid, (BM / WT_M) * (BN / WT_N) * 32, 0, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

template <int BM, int BN, int BK, int MINB>
static void run_warptile(void *p, cudaStream_t s)
{
    constexpr int NT = (BM / WT_M) * (BN / WT_N) * 32;
    static_assert(NT * MINB <= 512, "MINB blocks of NT threads: at most 512 threads per SM at 128 registers");
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_warptile<BM, BN, BK, MINB><<<grid, NT, 0, s>>>(x->M, x->N, x->K, x->alpha, x->A, x->B,
                                                x->beta, x->C);
    CHECK_LAUNCH();
}

/* MINB blocks of NT threads per SM leave 65536 / (NT * MINB) registers per
 * thread, of which ptxas may use at most 255. */
template <int NT, int MINB>
static constexpr bool fits_registers()
{
    return NT % 32 == 0 && NT * MINB <= 2048 && 65536 / (NT * MINB) >= 64;
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
static void run_cpasync(void *p, cudaStream_t s)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    static_assert(fits_registers<cfg::NT, MINB>(), "launch bounds");
    mm_ctx *x = (mm_ctx *)p;
    /* Over 48 KiB of dynamic shared memory needs an explicit opt-in (once). */
    static int opted_in = 0;
    if (!opted_in) {
        CUDA_CHECK(cudaFuncSetAttribute(mm_cpasync<BM, BN, BK, WM, WN, STAGES, MINB>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)cfg::SMEM_BYTES));
        opted_in = 1;
    }
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_cpasync<BM, BN, BK, WM, WN, STAGES, MINB><<<grid, cfg::NT, cfg::SMEM_BYTES, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

/* unchecked_*: the same launch as cpasync_*. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
static void run_unchecked(void *p, cudaStream_t s)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    static_assert(fits_registers<cfg::NT, MINB>(), "launch bounds");
    mm_ctx *x = (mm_ctx *)p;
    static int opted_in = 0;
    if (!opted_in) {
        CUDA_CHECK(cudaFuncSetAttribute(mm_unchecked<BM, BN, BK, WM, WN, STAGES, MINB>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)cfg::SMEM_BYTES));
        opted_in = 1;
    }
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_unchecked<BM, BN, BK, WM, WN, STAGES, MINB><<<grid, cfg::NT, cfg::SMEM_BYTES, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

/* The pipelined kernel runs on a 1D grid: mm_tile_of maps the block index to its tile. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB, int GROUP_M>
static void run_pipe(void *p, cudaStream_t s)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    static_assert(fits_registers<cfg::NT, MINB>(), "launch bounds");
    static_assert(cfg::SMEM_BYTES * MINB <= 227 * 1024, "MINB blocks' stages fit in shared memory");
    mm_ctx *x = (mm_ctx *)p;
    static int opted_in = 0;
    if (!opted_in) {
        CUDA_CHECK(cudaFuncSetAttribute(mm_pipelined<BM, BN, BK, WM, WN, STAGES, MINB, GROUP_M>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)cfg::SMEM_BYTES));
        opted_in = 1;
    }
    const int blocks = CEIL_DIV(x->M, BM) * CEIL_DIV(x->N, BN); /* <= 256 * 256 */
    mm_pipelined<BM, BN, BK, WM, WN, STAGES, MINB, GROUP_M><<<blocks, cfg::NT, cfg::SMEM_BYTES, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

/* steady_*: the launch of pipe_* (a 1D grid, row by row). */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB, bool PF>
static void run_steady(void *p, cudaStream_t s)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    static_assert(fits_registers<cfg::NT, MINB>(), "launch bounds");
    static_assert(cfg::SMEM_BYTES * MINB <= 227 * 1024, "MINB blocks' stages fit in shared memory");
    mm_ctx *x = (mm_ctx *)p;
    static int opted_in = 0;
    if (!opted_in) {
        CUDA_CHECK(cudaFuncSetAttribute(mm_steady<BM, BN, BK, WM, WN, STAGES, MINB, PF>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)cfg::SMEM_BYTES));
        opted_in = 1;
    }
    const int blocks = CEIL_DIV(x->M, BM) * CEIL_DIV(x->N, BN); /* <= 256 * 256 */
    mm_steady<BM, BN, BK, WM, WN, STAGES, MINB, PF><<<blocks, cfg::NT, cfg::SMEM_BYTES, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

#ifdef EXERCISE
/* The exercise's kernel, on the grid and block its file chooses. */
static void run_exercise(void *p, cudaStream_t s)
{
    mm_ctx *x = (mm_ctx *)p;
    mm_exercise<<<exercise_grid(x->M, x->N), exercise_block(), 0, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}
#endif

/* ---- variant table ----------------------------------------------------- */

typedef enum { VK_REF, VK_TF32, VK_KERNEL } variant_kind;

/* One row per step, in teaching order; `what` says what changed from the
 * step it names (or the one above). */
typedef struct {
    const char *name;
    timed_fn run;
    variant_kind kind;
    int bm, bn;         /* the block's tile of C (rows x columns); 0 for the library */
    const char *tile;   /* block tile / threads, for --help and the notes */
    const char *what;
} variant;

static const variant variants[] = {
    {"cublas", run_cublas, VK_REF, 0, 0, "library", "cuBLAS SGEMM, CUBLAS_PEDANTIC_MATH (true FP32): the reference"},
    {"cublas_tf32", run_cublas_tf32, VK_TF32, 0, 0, "library", "cuBLAS SGEMM on TF32 tensor cores (context only)"},
    {"naive", run_naive, VK_KERNEL, 32, 32, "32x32 threads, 1 output each", "one thread per output, lanes walk down a column of C"},
    {"coalesced", run_coalesced, VK_KERNEL, 32, 32, "32x32 threads, 1 output each", "one thread per output, lanes walk along a row of C"},
    {"smem_tile32", run_smem<32>, VK_KERNEL, 32, 32, "32x32 tile, 1024 threads", "from coalesced: shared-memory tiles of 32x32, two barriers per K-step: the classic kernel"},
    {"smem_tile16", run_smem<16>, VK_KERNEL, 16, 16, "16x16 tile, 256 threads", "smem_tile32 with 16x16 tiles"},
    {"smem_tile32_prefetch", run_smem_prefetch<32>, VK_KERNEL, 32, 32, "32x32 tile, 1024 threads", "smem_tile32 with the next K-step's loads in flight during the FMAs"},
    {"blocktile_1d_32x32x32", run_blocktile_1d<32, 32, 32, 8>, VK_KERNEL, 32, 32, "32x32x32, 128 threads, 8x1 each", "from smem_tile32: 1D register blocking, 8 outputs of a column per thread"},
    {"blocktile_1d_64x64x32", run_blocktile_1d<64, 64, 32, 8>, VK_KERNEL, 64, 64, "64x64x32, 512 threads, 8x1 each", "the same with a 64x64 block tile"},
    {"blocktile_1d", run_blocktile_1d<64, 64, 8, 8>, VK_KERNEL, 64, 64, "64x64x8, 512 threads, 8x1 each", "the same with a K-step of 8"},
    {"blocktile_2d_64x64x8", run_blocktile_2d<64, 64, 8>, VK_KERNEL, 64, 64, "64x64x8, 64 threads, 8x8 each", "2D register blocking: an 8x8 block per thread, outer products from registers"},
    {"blocktile_2d", run_blocktile_2d<128, 128, 8>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, 8x8 each", "the same with a 128x128 block tile"},
    {"vec_global_loads", run_vec_global, VK_KERNEL, 128, 128, "128x128x8, 256 threads, 8x8 each", "blocktile_2d reading and writing global memory in float4s"},
    {"transposed_a", run_transposed<0>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, 8x8 each", "vec_global_loads with A transposed in shared memory (float4 fragments)"},
    {"padded_a", run_transposed<4>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, 8x8 each", "transposed_a with rows padded to BM+4: conflict-free stores"},
    {"warp_layout", run_warp_layout, VK_KERNEL, 128, 128, "128x128x8, 256 threads, warp 64x32", "padded_a with 64x32 warp tiles: conflict-free shared loads"},
    {"warptile_128x128x8", run_warptile<128, 128, 8, 2>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, warp 64x32, 2 blocks/SM", "warp_layout + register-staged double buffering, one barrier"},
    {"warptile_128x64x8", run_warptile<128, 64, 8, 3>, VK_KERNEL, 128, 64, "128x64x8, 128 threads, warp 64x32, 3 blocks/SM", "warptile_128x128x8 with a 128x64 block tile"},
    {"warptile_128x128x16", run_warptile<128, 128, 16, 2>, VK_KERNEL, 128, 128, "128x128x16, 256 threads, warp 64x32, 2 blocks/SM (spills)", "warptile_128x128x8 with BK=16, still capped at 128 registers"},
    {"warptile_128x128x16_1blk", run_warptile<128, 128, 16, 1>, VK_KERNEL, 128, 128, "128x128x16, 256 threads, warp 64x32, 1 block/SM", "warptile_128x128x16 without the cap: one block per SM"},
    {"cpasync_128x128x8_s2", run_cpasync<128, 128, 8, 64, 32, 2, 2>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, warp 64x32, 2 stages", "warptile_128x128x8 fed by cp.async: 2 stages"},
    {"cpasync_128x128x8_s3", run_cpasync<128, 128, 8, 64, 32, 3, 2>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, warp 64x32, 3 stages", "3 stages"},
    {"cpasync_128x128x16_s2", run_cpasync<128, 128, 16, 64, 32, 2, 2>, VK_KERNEL, 128, 128, "128x128x16, 256 threads, warp 64x32, 2 stages", "cpasync_128x128x8_s2 with BK=16"},
    {"cpasync_128x128x16_s3", run_cpasync<128, 128, 16, 64, 32, 3, 2>, VK_KERNEL, 128, 128, "128x128x16, 256 threads, warp 64x32, 3 stages", "3 stages"},
    {"cpasync_128x128x8_w64x64_s3", run_cpasync<128, 128, 8, 64, 64, 3, 2>, VK_KERNEL, 128, 128, "128x128x8, 128 threads, warp 64x64 (8x16 each), 3 stages", "cpasync_128x128x8_s3 with 64x64 warp tiles"},
    {"unchecked_128x128x8_w64x64_s3", run_unchecked<128, 128, 8, 64, 64, 3, 2>, VK_KERNEL, 128, 128, "128x128x8, 128 threads, warp 64x64, 3 stages", "blocks inside C copy without bounds tests"},
    {"pipe_128x128x8_w64x64_s3", run_pipe<128, 128, 8, 64, 64, 3, 2, 1>, VK_KERNEL, 128, 128, "128x128x8, 128 threads, warp 64x64 (8x16 each), 3 stages", "fragments of k+1 loaded during the FMAs of k: the pipelined loop"},
    {"pipe_128x128x8_w64x32_s3", run_pipe<128, 128, 8, 64, 32, 3, 2, 1>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, warp 64x32, 3 stages", "pipe_128x128x8_w64x64_s3 with 64x32 warp tiles"},
    {"pipe_128x128x8_w64x64_s4", run_pipe<128, 128, 8, 64, 64, 4, 2, 1>, VK_KERNEL, 128, 128, "128x128x8, 128 threads, warp 64x64, 4 stages", "pipe_128x128x8_w64x64_s3 with 4 stages"},
    {"pipe_128x128x16_w64x64_s3", run_pipe<128, 128, 16, 64, 64, 3, 2, 1>, VK_KERNEL, 128, 128, "128x128x16, 128 threads, warp 64x64, 3 stages", "pipe_128x128x8_w64x64_s3 with BK=16"},
    {"pipe_128x128x16_w64x64_s4", run_pipe<128, 128, 16, 64, 64, 4, 2, 1>, VK_KERNEL, 128, 128, "128x128x16, 128 threads, warp 64x64, 4 stages", "pipe_128x128x16_w64x64_s3 with 4 stages"},
    {"pipe_128x256x8_w64x64_s3", run_pipe<128, 256, 8, 64, 64, 3, 1, 1>, VK_KERNEL, 128, 256, "128x256x8, 256 threads, warp 64x64, 3 stages, 1 block/SM", "pipe_128x128x8_w64x64_s3 with a 128x256 block tile"},
    {"pipe_128x256x16_w64x64_s3", run_pipe<128, 256, 16, 64, 64, 3, 1, 1>, VK_KERNEL, 128, 256, "128x256x16, 256 threads, warp 64x64, 3 stages, 1 block/SM", "pipe_128x256x8_w64x64_s3 with BK=16"},
    {"pipe_256x128x8_w64x64_s3", run_pipe<256, 128, 8, 64, 64, 3, 1, 1>, VK_KERNEL, 256, 128, "256x128x8, 256 threads, warp 64x64, 3 stages, 1 block/SM", "pipe_128x128x8_w64x64_s3 with a 256x128 block tile"},
    {"pipe_128x128x8_w64x64_s3_g8", run_pipe<128, 128, 8, 64, 64, 3, 2, 8>, VK_KERNEL, 128, 128, "128x128x8, 128 threads, warp 64x64, 3 stages, bands of 8", "pipe_128x128x8_w64x64_s3 with blocks in bands of 8 tile rows"},
    {"pipe_128x128x16_w64x64_s3_g8", run_pipe<128, 128, 16, 64, 64, 3, 2, 8>, VK_KERNEL, 128, 128, "128x128x16, 128 threads, warp 64x64, 3 stages, bands of 8", "pipe_128x128x16_w64x64_s3 with blocks in bands of 8 tile rows"},
    {"steady_128x256x8_w64x64_s3", run_steady<128, 256, 8, 64, 64, 3, 1, false>, VK_KERNEL, 128, 256, "128x256x8, 256 threads, warp 64x64, 3 stages, 1 block/SM", "pipe_128x256x8_w64x64_s3 with a main loop without branches: K tail first, pointer copies"},
    {"steady_128x128x8_w64x64_s3", run_steady<128, 128, 8, 64, 64, 3, 2, false>, VK_KERNEL, 128, 128, "128x128x8, 128 threads, warp 64x64, 3 stages", "the same change from pipe_128x128x8_w64x64_s3"},
    {"steady_128x256x8_w64x64_s3_pf", run_steady<128, 256, 8, 64, 64, 3, 1, true>, VK_KERNEL, 128, 256, "128x256x8, 256 threads, warp 64x64, 3 stages, 1 block/SM", "steady_128x256x8_w64x64_s3 with the L2 fetching whole 128-byte lines for its copies"},
#ifdef EXERCISE
#define MM_STR_(x) #x
#define MM_STR(x) MM_STR_(x)
    {"exercise", run_exercise, VK_KERNEL, EXERCISE_BM, EXERCISE_BN,
     MM_STR(EXERCISE_BM) "x" MM_STR(EXERCISE_BN) " block tile",
     "your kernel, " EXERCISE ", changing " EXERCISE_BASE},
#endif
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ----------------------------------------------------------- */

static long long opt_m = 4096, opt_n = 4096, opt_k = 4096;
static const char *opt_variant = "all";
static char variant_choices[2048];
static char help_notes[8192];

static opt_spec sample_opts[] = {
    OPT_INT_SPEC("m", "M", "rows of A and C", &opt_m, 1, MM_MAX_DIM),
    OPT_INT_SPEC("n", "N", "columns of B and C", &opt_n, 1, MM_MAX_DIM),
    OPT_INT_SPEC("k", "K", "columns of A, rows of B", &opt_k, 1, MM_MAX_DIM),
    OPT_STRING_SPEC("variant", "NAME", "run one variant (cublas is always run: it is the reference)",
                    &opt_variant, variant_choices),
};

/* The --variant choices and the --help notes come from the variant table. */
static void build_help_from_table(void)
{
    const char *names[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) names[v] = variants[v].name;
    if (mm_join_names("all|cpu", names, N_VARIANTS, variant_choices, sizeof variant_choices) < 0) {
        fprintf(stderr, "matrixMul: internal error: variant names do not fit\n");
        exit(1);
    }
    size_t used = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-25s %s\n", "cpu",
                                   "the CPU baseline (double accumulation), timed once");
    for (int v = 0; v < N_VARIANTS && used < sizeof help_notes; v++)
        used += (size_t)snprintf(help_notes + used, sizeof help_notes - used,
                                 "  %-29s %s [%s]\n", variants[v].name, variants[v].what,
                                 variants[v].tile);
    if (used < sizeof help_notes)
        snprintf(help_notes + used, sizeof help_notes - used,
                 "Checks: CPU (double) reference at 1^3, 17^3, 33x65x129, 36x68x20, 260x136x68,\n"
                 "260x264x44, 128^3, 257x263x271 and each kernel's tile shape (BM+4)x(BN+8)x67;\n"
                 "cuBLAS (pedantic FP32) at 1000x1003x997, 1024x1028x1020 and MxNxK; each with\n"
                 "beta=0 (C poisoned) and beta=-0.5, poisoned guard zones after A, B and C.\n"
                 "--quick checks 1^3, 17^3, 36x68x20 and the tile shapes, and times 36x68x20.\n");
}

/* ---- checking ---------------------------------------------------------- */

typedef struct {
    int M, N, K;
} shape;

/* A kernel's own check shape: one whole block tile and a partial one in each
 * direction, (BM+4) x (BN+8), so a dropped last row or column of tiles shows
 * and the interior tile of unchecked_* and pipe_* takes its unchecked copies
 * next to partial ones; K = 67, a tail at every BK (8, 16, 32), A's rows not a multiple of 4
 * (element-wise loads of A on a grid of several blocks: the float4 path of A
 * is 36x68x20's), and 5 K-steps at BK = 16 or more, so every ring of stages
 * (4 at most) wraps. The library's is the 128x128 kernels'. */
static shape tile_shape(const variant *v)
{
    const int bm = v->bm > 0 ? v->bm : 128, bn = v->bn > 0 ? v->bn : 128;
    const shape t = {bm + 4, bn + 8, 67};
    return t;
}

static int same_shape(const shape *a, const shape *b)
{
    return a->M == b->M && a->N == b->N && a->K == b->K;
}

/* Device buffers sized for the largest shape (A, B and C each followed by a
 * guard zone, common/check.h), and host scratch. */
typedef struct {
    float *d_A, *d_B, *d_C, *d_C0;
    float *h_A, *h_B, *h_C0, *h_out;
    double *h_ref;
    cublasHandle_t h_fp32, h_tf32;
    unsigned long long seed;
} mm_bufs;

static const float CHECK_ALPHA = 1.5f, CHECK_BETA = -0.5f;

/* Put C in its pre-run state: poison for beta == 0 (an unwritten element is
 * NaN and fails), the saved random C for beta != 0. Either way the guard
 * zone right after the M x N elements is poisoned too, so a store to a row
 * past M (or a column past N wrapping beyond the last row) fails check_guard. */
static void prepare_c(const mm_bufs *b, const shape *s, float beta)
{
    size_t bytes = (size_t)s->M * s->N * sizeof(float);
    poison_guarded(b->d_C, bytes);
    if (beta != 0.0f)
        CUDA_CHECK(cudaMemcpy(b->d_C, b->d_C0, bytes, cudaMemcpyDeviceToDevice));
}

static void run_one(const variant *v, const mm_bufs *b, const shape *s, float alpha, float beta)
{
    mm_ctx x = {s->M, s->N, s->K, alpha, beta, b->d_A, b->d_B, b->d_C, b->h_fp32, b->h_tf32};
    prepare_c(b, s, beta);
    v->run(&x, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* Check every wanted variant at one shape, twice (beta = 0 and beta != 0),
 * against the CPU in double (cpu_ref) or against cuBLAS pedantic FP32.
 * A and B are followed by their poisoned guard zones (NaN): a kernel that
 * reads past the end of either (B's rows past K in a K tail copied without
 * its checks) gets NaN into C, whatever an earlier shape left there. */
static void check_shape(const shape *s, int cpu_ref, const int *wanted, int *ok, mm_bufs *b)
{
    size_t na = (size_t)s->M * s->K, nb = (size_t)s->K * s->N, nc = (size_t)s->M * s->N;
    rng_fill_uniform(b->h_A, na, b->seed, RNG_STREAM_A, -1.0f, 1.0f);
    rng_fill_uniform(b->h_B, nb, b->seed, RNG_STREAM_B, -1.0f, 1.0f);
    rng_fill_uniform(b->h_C0, nc, b->seed, RNG_STREAM_C, -1.0f, 1.0f);
    poison_guarded(b->d_A, na * sizeof(float));
    poison_guarded(b->d_B, nb * sizeof(float));
    CUDA_CHECK(cudaMemcpy(b->d_A, b->h_A, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b->d_B, b->h_B, nb * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b->d_C0, b->h_C0, nc * sizeof(float), cudaMemcpyHostToDevice));
    const float betas[2] = {0.0f, CHECK_BETA};
    for (int c = 0; c < 2; c++) {
        float beta = betas[c];
        if (cpu_ref) {
            cpu_sgemm_f64(s->M, s->N, s->K, CHECK_ALPHA, b->h_A, s->K, b->h_B, s->N, beta,
                          b->h_C0, b->h_ref, s->N);
        } else {
            run_one(&variants[0], b, s, CHECK_ALPHA, beta); /* cuBLAS pedantic */
            CUDA_CHECK(cudaMemcpy(b->h_out, b->d_C, nc * sizeof(float), cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < nc; i++) b->h_ref[i] = b->h_out[i];
            if (check_guard("cublas (reference) C", b->d_C, nc * sizeof(float)) != 0) ok[0] = 0;
        }
        for (int v = 0; v < N_VARIANTS; v++) {
            if (!wanted[v] || (!cpu_ref && variants[v].kind == VK_REF)) continue;
            run_one(&variants[v], b, s, CHECK_ALPHA, beta);
            CUDA_CHECK(cudaMemcpy(b->h_out, b->d_C, nc * sizeof(float), cudaMemcpyDeviceToHost));
            int tf32 = variants[v].kind == VK_TF32;
            double abs_tol = tf32 ? mm_tol_tf32_abs(s->K) : mm_tol_fp32(s->K);
            double rel_tol = tf32 ? mm_tol_tf32_rel() : mm_tol_fp32(s->K);
            char what[128];
            snprintf(what, sizeof what, "%s(%dx%dx%d, beta=%g, ref=%s) C", variants[v].name,
                     s->M, s->N, s->K, beta, cpu_ref ? "cpu" : "cublas");
            if (check_close_f32_f64(what, b->h_out, b->h_ref, nc, abs_tol, rel_tol) != 0)
                ok[v] = 0;
            if (check_guard(what, b->d_C, nc * sizeof(float)) != 0) ok[v] = 0;
        }
    }
}

int main(int argc, char **argv)
{
    if (variants[0].kind != VK_REF) { /* check_shape() uses variants[0] as the reference */
        fprintf(stderr, "matrixMul: internal error: variants[0] must be cublas\n");
        return 1;
    }
#ifdef EXERCISE
    int base_found = 0; /* the exercise names the step it changes: a row of the table */
    for (int v = 0; v < N_VARIANTS; v++) base_found |= !strcmp(variants[v].name, EXERCISE_BASE);
    if (!base_found) {
        fprintf(stderr, "matrixMul: error: EXERCISE_BASE \"%s\" in %s is not a variant\n",
                EXERCISE_BASE, EXERCISE);
        printf("matrixMul: FAIL (bad exercise)\n");
        return 1;
    }
#endif
    build_help_from_table();
    const opts_config cfg = {
        "matrixMul", "C = alpha*A*B + beta*C in FP32: naive to warp tiling, against cuBLAS",
        sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);

    shape main_s = {(int)opt_m, (int)opt_n, (int)opt_k};
    if (o.quick) {
        main_s.M = 36;
        main_s.N = 68;
        main_s.K = 20;
    }
    /* Every variant at every shape of cpu_shapes, then at its own tile
     * shape (tile_shape). 260x136x68 is the smallest that spans more than
     * one 128x128 block tile in both M and N (a dropped last tile row or
     * column shows), with the tail of a 16-deep K step; 260x264x44 gives
     * every block tile (up to 256x128 and 128x256) whole tiles inside C,
     * which take the unchecked copies (unchecked_*, pipe_*), next to partial ones, and
     * a K tail for BK = 8 and 16. --quick checks quick_shapes and the tile
     * shapes: each variant then runs on a grid of 2x2 of its own block tiles
     * (the big kernels on 2x2 instead of up to 4x3 of them, the small ones
     * on 4 blocks instead of dozens), which is what makes it fit under
     * compute-sanitizer: memcheck's time grows with the accesses, and at the
     * six shapes of earlier versions one --quick run took over 280 s. */
    static const shape cpu_shapes[] = {{1, 1, 1},      {17, 17, 17},    {33, 65, 129},
                                       {36, 68, 20},   {260, 136, 68},  {260, 264, 44},
                                       {128, 128, 128}, {257, 263, 271}};
    static const shape quick_shapes[] = {{1, 1, 1}, {17, 17, 17}, {36, 68, 20}};
    static const shape gpu_shapes[] = {{1000, 1003, 997}, {1024, 1028, 1020}};
    const shape *fixed = o.quick ? quick_shapes : cpu_shapes;
    const int n_cpu = o.quick ? (int)(sizeof quick_shapes / sizeof quick_shapes[0])
                              : (int)(sizeof cpu_shapes / sizeof cpu_shapes[0]);
    const int n_gpu = o.quick ? 0 : (int)(sizeof gpu_shapes / sizeof gpu_shapes[0]);

    /* Buffers hold the largest of every shape used. */
    long long maxA = (long long)main_s.M * main_s.K, maxB = (long long)main_s.K * main_s.N,
              maxC = (long long)main_s.M * main_s.N;
    for (int i = 0; i < n_cpu + n_gpu + N_VARIANTS; i++) {
        const shape s = i < n_cpu           ? fixed[i]
                        : i < n_cpu + n_gpu ? gpu_shapes[i - n_cpu]
                                            : tile_shape(&variants[i - n_cpu - n_gpu]);
        if ((long long)s.M * s.K > maxA) maxA = (long long)s.M * s.K;
        if ((long long)s.K * s.N > maxB) maxB = (long long)s.K * s.N;
        if ((long long)s.M * s.N > maxC) maxC = (long long)s.M * s.N;
    }
    char err[200];
    if (mm_device_bytes(main_s.M, main_s.N, main_s.K, 1ULL << 40, err, sizeof err) == 0) {
        fprintf(stderr, "matrixMul: error: %s\n", err);
        printf("matrixMul: FAIL (bad argument)\n");
        return 1;
    }
    int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;
    int wanted[N_VARIANTS], ok[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) {
        wanted[v] = variants[v].kind == VK_REF || !strcmp(opt_variant, "all") ||
                    !strcmp(opt_variant, variants[v].name);
        ok[v] = 1;
    }

    report_init("matrixMul", o.json);
    device_info dev;
    device_setup_or_exit("matrixMul", o.device, o.json, &dev);

    mm_bufs b;
    memset(&b, 0, sizeof b);
    b.seed = o.seed;
    b.h_A = (float *)malloc((size_t)maxA * sizeof(float));
    b.h_B = (float *)malloc((size_t)maxB * sizeof(float));
    b.h_C0 = (float *)malloc((size_t)maxC * sizeof(float));
    b.h_out = (float *)malloc((size_t)maxC * sizeof(float));
    b.h_ref = (double *)malloc((size_t)maxC * sizeof(double));
    if (!b.h_A || !b.h_B || !b.h_C0 || !b.h_out || !b.h_ref) {
        report_fail("cannot allocate host memory for %lldx%lldx%lld", (long long)main_s.M,
                    (long long)main_s.N, (long long)main_s.K);
        return report_finish();
    }
    b.d_A = (float *)guarded_malloc((size_t)maxA * sizeof(float));   /* inputs: NaN after them */
    b.d_B = (float *)guarded_malloc((size_t)maxB * sizeof(float));
    b.d_C = (float *)guarded_malloc((size_t)maxC * sizeof(float));   /* the output: guard after it */
    CUDA_CHECK(cudaMalloc(&b.d_C0, (size_t)maxC * sizeof(float)));
    CUBLAS_CHECK(cublasCreate(&b.h_fp32));
    CUBLAS_CHECK(cublasCreate(&b.h_tf32));
    CUBLAS_CHECK(cublasSetMathMode(b.h_fp32, CUBLAS_PEDANTIC_MATH));
    CUBLAS_CHECK(cublasSetMathMode(b.h_tf32, CUBLAS_TF32_TENSOR_OP_MATH));

    report_note("M=%d N=%d K=%d, inputs uniform in [-1,1) (seed %llu); timed with alpha=1, "
                "beta=0; L2 not flushed (compute-bound)",
                main_s.M, main_s.N, main_s.K, (unsigned long long)o.seed);
    report_note("FP32 tolerance abs = rel = (K+16)*2^-22 (%.3g at K=%d); TF32 abs = "
                "sqrt(K)*2^-8, rel = 2^-8", mm_tol_fp32(main_s.K), main_s.K);

    /* 1. Every wanted variant, cuBLAS included, against the CPU at small
     * shapes that are not multiples of any tile (and a few that are), then
     * each at its own tile shape (the variants that share one, together;
     * none again at a shape already checked). */
    for (int i = 0; i < n_cpu; i++) check_shape(&fixed[i], 1, wanted, ok, &b);
    for (int v = 0; v < N_VARIANTS; v++) {
        const shape ts = tile_shape(&variants[v]);
        int seen = 0, these[N_VARIANTS];
        for (int i = 0; i < n_cpu; i++) seen |= same_shape(&fixed[i], &ts);
        for (int u = 0; u < v; u++) {
            const shape tu = tile_shape(&variants[u]);
            seen |= wanted[u] && same_shape(&tu, &ts);
        }
        if (!wanted[v] || seen) continue;
        for (int u = 0; u < N_VARIANTS; u++) {
            const shape tu = tile_shape(&variants[u]);
            these[u] = wanted[u] && same_shape(&tu, &ts);
        }
        check_shape(&ts, 1, these, ok, &b);
    }
    /* 2. Large shapes against cuBLAS pedantic, once it has passed the CPU. */
    int main_is_cpu_checked = 0;
    for (int i = 0; i < n_cpu; i++)
        if (same_shape(&fixed[i], &main_s)) main_is_cpu_checked = 1;
    if (!ok[0]) {
        report_fail("cublas (the reference) failed its CPU checks: large shapes not checked");
        for (int v = 0; v < N_VARIANTS; v++) ok[v] = 0;
    } else {
        for (int i = 0; i < n_gpu; i++) check_shape(&gpu_shapes[i], 0, wanted, ok, &b);
        if (!main_is_cpu_checked) check_shape(&main_s, 0, wanted, ok, &b);
    }

    /* 3. The CPU baseline, timed once at the largest CPU-checked shape. */
    result_rec r;
    if (opts_variant_runs_cpu(opt_variant)) {
        const shape *s = &fixed[0];
        for (int i = 1; i < n_cpu; i++)
            if ((double)fixed[i].M * fixed[i].N * fixed[i].K > (double)s->M * s->N * s->K)
                s = &fixed[i];
        /* the output's pages are touched first: the loop is timed, not page faults */
        host_prefault(b.h_ref, (size_t)s->M * s->N * sizeof(double));
        double t0 = host_seconds();
        cpu_sgemm_f64(s->M, s->N, s->K, 1.0, b.h_A, s->K, b.h_B, s->N, 0.0, b.h_C0, b.h_ref,
                      s->N);
        double ms = (host_seconds() - t0) * 1e3;
        rec_begin(&r, "cpu");
        rec_int(&r, "m", s->M);
        rec_int(&r, "n", s->N);
        rec_int(&r, "k", s->K);
        rec_str(&r, "status", "PASS");
        rec_perf(&r, ms, "gflops", mm_gflops(s->M, s->N, s->K, ms), 0, NULL, 0);
        rec_emit(&r);
    }

    /* 4. Time at the main shape, every variant that passed and cuBLAS round
     * robin (common/timing.h), so pct_ref is from this run and at the same
     * clocks. Inputs are the main shape's (regenerated: checks reused the
     * buffers). */
    {
        size_t na = (size_t)main_s.M * main_s.K, nb = (size_t)main_s.K * main_s.N;
        rng_fill_uniform(b.h_A, na, b.seed, RNG_STREAM_A, -1.0f, 1.0f);
        rng_fill_uniform(b.h_B, nb, b.seed, RNG_STREAM_B, -1.0f, 1.0f);
        CUDA_CHECK(cudaMemcpy(b.d_A, b.h_A, na * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(b.d_B, b.h_B, nb * sizeof(float), cudaMemcpyHostToDevice));
    }
    mm_ctx ctx = {main_s.M, main_s.N, main_s.K, 1.0f, 0.0f, b.d_A, b.d_B, b.d_C, b.h_fp32,
                  b.h_tf32};
    timed_variant group[N_VARIANTS];
    timing_stats times[N_VARIANTS];
    char ranges[N_VARIANTS][64];
    int slot[N_VARIANTS], n_timed = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        slot[v] = -1;
        if (!wanted[v] || !ok[v]) continue;
        snprintf(ranges[v], sizeof ranges[v], "matrixMul/%s", variants[v].name);
        group[n_timed] = (timed_variant){variants[v].run, &ctx, ranges[v]};
        slot[v] = n_timed++;
    }
    if (n_timed > 0) {
        timing_cfg tc = timing_defaults(reps);
        time_gpu_group(group, n_timed, &tc, times);
    }
    const double ref_gflops =
        slot[0] >= 0 ? mm_gflops(main_s.M, main_s.N, main_s.K, times[slot[0]].median_ms) : 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        if (!wanted[v]) continue;
        rec_begin(&r, var->name);
        rec_int(&r, "m", main_s.M);
        rec_int(&r, "n", main_s.N);
        rec_int(&r, "k", main_s.K);
        if (!ok[v]) {
            rec_str(&r, "status", "FAIL");
            rec_emit(&r);
            continue;
        }
        const timing_stats *t = &times[slot[v]];
        double gflops = mm_gflops(main_s.M, main_s.N, main_s.K, t->median_ms);
        rec_str(&r, "status", "PASS");
        /* pct_peak against the units that did the work: the TF32 tensor
         * cores for cublas_tf32 (against the FP32 peak it read 608%), the
         * FP32 lanes for everything else; no pct_peak where that is unknown */
        double peak = var->kind == VK_TF32 ? dev.peak_tf32_gflops : dev.peak_gflops;
        rec_perf(&r, t->median_ms, "gflops", gflops, peak, "cublas", ref_gflops);
        if (var->kind == VK_TF32) rec_str(&r, "peak", "tf32_tensor");
        /* TF32 is another precision: context, never a headline or a target */
        if (var->kind == VK_TF32) rec_str(&r, "role", "context");
        rec_num(&r, "min_ms", t->min_ms);
        timing_rec_clocks(&r, t);
        rec_emit(&r);
    }

    CUBLAS_CHECK(cublasDestroy(b.h_fp32));
    CUBLAS_CHECK(cublasDestroy(b.h_tf32));
    guarded_free(b.d_A);
    guarded_free(b.d_B);
    guarded_free(b.d_C);
    CUDA_CHECK(cudaFree(b.d_C0));
    free(b.h_A);
    free(b.h_B);
    free(b.h_C0);
    free(b.h_out);
    free(b.h_ref);
    return report_finish();
}
