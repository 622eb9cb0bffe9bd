/* tensorCoreGemm: C = A * B on the tensor cores, BF16 inputs, FP32 accumulation
 * and output, row-major, any M, N, K, from WMMA fragments to a warp-specialized
 * TMA + wgmma pipeline in 16 steps, each changing one thing, each checked and
 * measured against cuBLAS in the same run.
 *
 * The steps' kernels are in kernels/NN_<variant>.cuh, in teaching order, each
 * opening with the one change from the step before, why it should help and
 * what it measured; `diff` two consecutive files to see a step. What several
 * steps share is in kernels/00_*.cuh. This file is the harness: options,
 * launchers, the variant table (names, order, --help, benchmarks), checks,
 * timing and main.
 *   1 wmma                 nvcuda::wmma fragments, padded shared-memory tiles
 *   2 mma_ldmatrix_pad32   ldmatrix + mma.sync in PTX, same tiles
 *   3 mma_ldmatrix_pad64   BK 64 instead of 32
 *   4 mma_ldmatrix         the 128-byte XOR swizzle instead of padding
 *   5 mma_cpasync_2stage   cp.async copies into a ring of 2 stages
 *   6 mma_cpasync          3 stages
 *   7 mma_tma              TMA copies counted on mbarriers (sm_90a)
 *   8 wgmma_tma_rows_s3    wgmma from shared memory instead of mma.sync
 *   9 wgmma_tma_s3         tiles in groups of 16 tile rows (L2 reuse)
 *  10 wgmma_tma            4 stages
 *  11 wgmma_tma_mbar       stages freed by empty mbarriers, not __syncthreads
 *  12 wgmma_ws_producer    a producer warpgroup: warp specialization
 *  13 wgmma_ws_setmaxnreg  registers moved from the producer to the consumers
 *  14 wgmma_ws_128x128     stages released one wgmma group later (wait_group 1)
 *  15 wgmma_ws_128x256     64x256 per consumer (m64n256k16)
 *  16 wgmma_ws_persistent  one block per SM looping over tiles
 *  17 wgmma_ws_streamk     the last, partial round of tiles split along K
 *  18 wgmma_ws_multicast   clusters of 2 blocks sharing each box of B (TMA multicast)
 *
 * Build:  make -C 6_Advanced/tensorCoreGemm     (or `make tensorCoreGemm`); with SMS
 *         containing 90 the Hopper kernels are built for sm_90a (the build says so)
 * Run:    bin/tensorCoreGemm                    8192^3, every variant and cuBLAS
 *         bin/tensorCoreGemm --quick            small shapes: smoke tests, sanitizers
 *         bin/tensorCoreGemm --variant=wgmma_ws_128x256 --quick
 *                                               one variant's checks: mismatches print
 *                                               (row, col, expected, got, bound)
 *         bin/tensorCoreGemm --m=6000 --n=5000 --k=4000
 * Exercises: exercises/README.md; a build with -DEXERCISE='"exercises/exN_....cuh"'
 *         adds the variant `exercise` (make try SAMPLE=tensorCoreGemm EX=N).
 *
 * Sizes: any M, N, K from 1 to 32768. Tiles that stick out of the matrix load
 * zeros (predicated loads, cp.async's zero fill, TMA's out-of-bounds fill) and
 * store nothing outside C. The TMA variants (steps 7 to 16) need N and K to be
 * multiples of 8: a tensor map's row stride (K*2 bytes for A, N*2 for B) must
 * be a multiple of 16 bytes. Asking for one of them at another shape is
 * refused before any CUDA call; with --variant=all they report WAIVED at that
 * shape and still run their checks at the shapes that allow them.
 *
 * Checks (tc_host.h has the error bounds): every variant, cuBLAS included,
 * against the CPU in double at small shapes that are not multiples of any
 * tile, with integer inputs (equality required), BF16 random inputs (within the
 * worst-case bound gamma_K * S and the statistical limit 128 sqrt(K) u rms(C))
 * and identity x pattern inputs (a wrong value names the cell it came from);
 * then at the main shape against cuBLAS in full and against the CPU at 4096
 * sampled elements; then the output of a run made after all the timed runs
 * (variants and cuBLAS timed round robin), against the same reference. A poisoned guard zone follows C. A kernel stuck at an mbarrier
 * wait for more than TC_WATCHDOG_NS traps, and the sample reports FAIL instead
 * of hanging.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h>          /* CUtensorMap and its enums only: nothing links libcuda */
#include <cudaTypedefs.h>  /* PFN_cuTensorMapEncodeTiled, found at run time */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <cublas_v2.h>

#include "check.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "rng.h"
#include "timing.h"

#include "tc_host.h"   /* CPU reference, bound, compares, tensor-map parameters */
#include "tc_layout.h" /* swizzle, wgmma descriptor, tile order (shared with the tests) */

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

/* The Hopper-only instructions (wgmma, setmaxnreg) exist for sm_90a alone;
 * the bulk tensor copies and mbarrier waits used with them are built for the
 * same target. Other passes (the compute_90 PTX, another SMS) compile those
 * kernels empty; probe_arch tells the host which one runs. */
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TC_SM90A 1
#else
#define TC_SM90A 0
#endif
/* BF16 mma.sync, WMMA in BF16 and cp.async need sm_80: below that (make
 * SMS=75) those kernels are empty too and their variants waive. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define TC_SM80 1
#else
#define TC_SM80 0
#endif

/* An mbarrier wait that lasts longer than this is a pipeline bug (a wrong
 * phase, a wrong expect-tx byte count, a missing arrive): the waiting thread
 * traps, the launch fails, and the sample says so instead of hanging. */
#ifndef TC_WATCHDOG_NS
#define TC_WATCHDOG_NS 10000000000ULL
#endif

/* ---- kernels ---------------------------------------------------------------- */

/* What the code running on this device was built for: out[0] = 1 for sm_90a,
 * out[1] = the compute capability of the machine code (e.g. 900). */
__global__ void probe_arch(int *out)
{
#ifdef __CUDA_ARCH__
    out[0] = TC_SM90A;
    out[1] = __CUDA_ARCH__;
#endif
}

#include "kernels/00_common.cuh"
#include "kernels/00_mma_sync.cuh"
#include "kernels/00_hopper.cuh"
#include "kernels/01_wmma.cuh"
#include "kernels/02_mma_ldmatrix_pad32.cuh"
#include "kernels/03_mma_ldmatrix_pad64.cuh"
#include "kernels/04_mma_ldmatrix.cuh"
#include "kernels/05_mma_cpasync_2stage.cuh"
#include "kernels/06_mma_cpasync.cuh"
#include "kernels/07_mma_tma.cuh"
#include "kernels/08_wgmma_tma_rows_s3.cuh"
#include "kernels/09_wgmma_tma_s3.cuh"
#include "kernels/10_wgmma_tma.cuh"
#include "kernels/11_wgmma_tma_mbar.cuh"
#include "kernels/12_wgmma_ws_producer.cuh"
#include "kernels/13_wgmma_ws_setmaxnreg.cuh"
#include "kernels/14_wgmma_ws_128x128.cuh"
#include "kernels/15_wgmma_ws_128x256.cuh"
#include "kernels/16_wgmma_ws_persistent.cuh"
#include "kernels/17_wgmma_ws_streamk.cuh"
#include "kernels/18_wgmma_ws_multicast.cuh"
/* An exercise (exercises/README.md) brings its kernel's pieces and the
 * launcher its variant row runs: EXERCISE_BASE (the step it modifies),
 * EXERCISE_RUN, EXERCISE_HOPPER, EXERCISE_WHAT. */
#ifdef EXERCISE
#include EXERCISE
#endif

/* ---- launchers ------------------------------------------------------------ */

typedef struct {
    int M, N, K;
    const uint16_t *A, *B; /* BF16 bits, row-major */
    float *C;
    cublasHandle_t blas;
    CUtensorMap tmA, tmB;  /* over A and B, built when the TMA variants can run */
    int sm_count;
    int grid_limit;        /* persistent kernels: 0 = one block per SM */
    float *work;           /* step 17's partial tiles: work_slots of TC_BM x 256 floats */
    int work_slots;
} gemm_ctx;

/* Row-major C = A*B is column-major C^T = B^T A^T: cuBLAS gets (N, M, K) with B
 * first, every leading dimension a row length. */
static void run_cublas(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSetStream(x->blas, s));
    CUBLAS_CHECK(cublasGemmEx(x->blas, CUBLAS_OP_N, CUBLAS_OP_N, x->N, x->M, x->K, &one, x->B,
                              CUDA_R_16BF, x->N, x->A, CUDA_R_16BF, x->K, &zero, x->C, CUDA_R_32F,
                              x->N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/* 16-byte global loads need every row to start 16-byte aligned. */
static int vec_ok(const gemm_ctx *x) { return x->K % 8 == 0 && x->N % 8 == 0; }

/* Step 1. */
static void run_wmma(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, WM_BN), CEIL_DIV(x->M, WM_BM));
    if (vec_ok(x))
        gemm_wmma<true><<<grid, 256, 0, s>>>(x->A, x->B, x->C, x->M, x->N, x->K);
    else
        gemm_wmma<false><<<grid, 256, 0, s>>>(x->A, x->B, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

/* Steps 2 to 4: L is the shared-memory layout. */
template <class L>
static void run_mma_ldmatrix(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    static_assert(L::A_BYTES + L::B_BYTES <= 48 * 1024, "static shared memory: at most 48 KiB");
    dim3 grid(CEIL_DIV(x->N, MM_BN), CEIL_DIV(x->M, MM_BM));
    if (vec_ok(x))
        gemm_mma_ldmatrix<L, true><<<grid, MM_THREADS, 0, s>>>(x->A, x->B, x->C, x->M, x->N, x->K);
    else
        gemm_mma_ldmatrix<L, false><<<grid, MM_THREADS, 0, s>>>(x->A, x->B, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

/* Over 48 KiB of dynamic shared memory needs an opt-in per kernel. */
static void allow_smem(const void *kernel, size_t bytes)
{
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
}

/* Steps 5 and 6: CFG gives the layout and the number of stages. */
template <class CFG>
static void run_mma_cpasync(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    typedef typename CFG::layout L;
    const size_t smem = (size_t)CFG::STAGES * (L::A_BYTES + L::B_BYTES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_mma_cpasync<CFG, true>, smem);
        allow_smem((const void *)gemm_mma_cpasync<CFG, false>, smem);
        opted_in = 1;
    }
    dim3 grid(CEIL_DIV(x->N, MM_BN), CEIL_DIV(x->M, MM_BM));
    if (vec_ok(x))
        gemm_mma_cpasync<CFG, true><<<grid, MM_THREADS, smem, s>>>(x->A, x->B, x->C, x->M, x->N, x->K);
    else
        gemm_mma_cpasync<CFG, false><<<grid, MM_THREADS, smem, s>>>(x->A, x->B, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

/* Dynamic shared memory of a TMA kernel: the stages plus 1 KiB, so the kernel
 * can round its base up to the 1024-byte alignment the swizzle needs. */
template <int BN>
static size_t wg_smem_bytes(int stages)
{
    return (size_t)stages * wg_cfg<BN>::STAGE_BYTES + 1024;
}

/* The TMA kernels' grids: one block per tile of 128 x BN. */
static int tma_tiles(const gemm_ctx *x, int bn) { return CEIL_DIV(x->M, TC_BM) * CEIL_DIV(x->N, bn); }

/* Step 7. */
template <class CFG>
static void run_mma_tma(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    static_assert(mm_tma_boxes::A_BYTES + mm_tma_boxes::B_BYTES == wg_cfg<MM_BN>::STAGE_BYTES,
                  "a stage of step 7 is a stage of the wgmma kernels");
    const size_t smem = wg_smem_bytes<MM_BN>(CFG::STAGES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_mma_tma<CFG>, smem);
        opted_in = 1;
    }
    gemm_mma_tma<CFG><<<tma_tiles(x, MM_BN), MM_THREADS, smem, s>>>(x->tmA, x->tmB, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

/* Steps 8 to 10: CFG gives the stages and the tile order, DESC the wgmma
 * descriptors. */
template <class CFG, class DESC = wg_desc_swz128>
static void run_wgmma_tma(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    const size_t smem = wg_smem_bytes<128>(CFG::STAGES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_wgmma_tma<CFG, DESC>, smem);
        opted_in = 1;
    }
    gemm_wgmma_tma<CFG, DESC><<<tma_tiles(x, 128), 256, smem, s>>>(x->tmA, x->tmB, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

/* Step 11. */
template <class CFG>
static void run_wgmma_tma_mbar(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    const size_t smem = wg_smem_bytes<128>(CFG::STAGES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_wgmma_tma_mbar<CFG>, smem);
        opted_in = 1;
    }
    gemm_wgmma_tma_mbar<CFG><<<tma_tiles(x, 128), 256, smem, s>>>(x->tmA, x->tmB, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

/* Steps 12 to 16, warp-specialized: 384 threads, one block per tile, or one
 * per SM (grid_limit in the checks) when CFG::PERSISTENT. */
template <class CFG>
static int ws_grid(const gemm_ctx *x)
{
    int tiles = tma_tiles(x, CFG::BN);
    if (!CFG::PERSISTENT) return tiles;
    int limit = x->grid_limit > 0 ? x->grid_limit : x->sm_count;
    return tiles < limit ? tiles : limit;
}

template <class CFG>
static void run_wgmma_ws_producer(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    const size_t smem = wg_smem_bytes<CFG::BN>(CFG::STAGES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_wgmma_ws_producer<CFG::BN, CFG::STAGES, CFG::PERSISTENT>, smem);
        opted_in = 1;
    }
    gemm_wgmma_ws_producer<CFG::BN, CFG::STAGES, CFG::PERSISTENT>
        <<<ws_grid<CFG>(x), 384, smem, s>>>(x->tmA, x->tmB, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

template <class CFG>
static void run_wgmma_ws_setmaxnreg(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    const size_t smem = wg_smem_bytes<CFG::BN>(CFG::STAGES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_wgmma_ws_setmaxnreg<CFG::BN, CFG::STAGES, CFG::PERSISTENT>, smem);
        opted_in = 1;
    }
    gemm_wgmma_ws_setmaxnreg<CFG::BN, CFG::STAGES, CFG::PERSISTENT>
        <<<ws_grid<CFG>(x), 384, smem, s>>>(x->tmA, x->tmB, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

template <class CFG>
static void run_wgmma_ws(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    const size_t smem = wg_smem_bytes<CFG::BN>(CFG::STAGES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_wgmma_ws<CFG::BN, CFG::STAGES, CFG::PERSISTENT>, smem);
        opted_in = 1;
    }
    gemm_wgmma_ws<CFG::BN, CFG::STAGES, CFG::PERSISTENT>
        <<<ws_grid<CFG>(x), 384, smem, s>>>(x->tmA, x->tmB, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

/* Step 17: one block per SM (or grid_limit), the last round's tiles cut along
 * K (tc_tail_split), then the kernel that adds their pieces, on the same
 * stream: it starts when every piece is in the workspace. */
template <class CFG>
static void launch_streamk(gemm_ctx *x, const CUtensorMap *tmA, const CUtensorMap *tmB, cudaStream_t s)
{
    static_assert(CFG::BN == 256, "a workspace slot holds TC_BM x 256 floats");
    const size_t smem = wg_smem_bytes<CFG::BN>(CFG::STAGES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_wgmma_ws_streamk<CFG::BN, CFG::STAGES>, smem);
        opted_in = 1;
    }
    const int grid = x->grid_limit > 0 ? x->grid_limit : x->sm_count;
    const tc_tail_plan plan = tc_tail_split(tma_tiles(x, CFG::BN), grid, CEIL_DIV(x->K, TC_BK));
    if (plan.split_tiles * plan.pieces > x->work_slots) {
        fprintf(stderr, "tensorCoreGemm: internal error: %d pieces need more than the %d workspace "
                        "slots\n", plan.split_tiles * plan.pieces, x->work_slots);
        exit(1);
    }
    gemm_wgmma_ws_streamk<CFG::BN, CFG::STAGES>
        <<<grid, 384, smem, s>>>(*tmA, *tmB, x->C, x->work, x->M, x->N, x->K, plan);
    CHECK_LAUNCH();
    if (plan.split_tiles > 0) {
        gemm_streamk_fixup<CFG::BN, 1><<<dim3(plan.split_tiles, SK_FIXUP_Y), 256, 0, s>>>(
            x->work, x->C, x->M, x->N, plan);
        CHECK_LAUNCH();
    }
}
template <class CFG>
static void run_wgmma_ws_streamk(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    launch_streamk<CFG>(x, &x->tmA, &x->tmB, s);
}

/* Step 18: clusters of 2 blocks, as many as fit on the GPU at once (asked
 * once: an SM left over in a GPC cannot hold half a cluster), or grid_limit
 * blocks; the plan is over pairs of tiles, one unit per cluster. */
template <class CFG>
static void launch_multicast(gemm_ctx *x, const CUtensorMap *tmA, const CUtensorMap *tmB, cudaStream_t s)
{
    static_assert(CFG::BN == 256, "a workspace slot holds TC_BM x 256 floats");
    const void *kernel = (const void *)gemm_wgmma_ws_multicast<CFG::BN, CFG::STAGES>;
    const size_t smem = wg_smem_bytes<CFG::BN>(CFG::STAGES);
    cudaLaunchAttribute cluster2;
    cluster2.id = cudaLaunchAttributeClusterDimension;
    cluster2.val.clusterDim.x = 2;
    cluster2.val.clusterDim.y = 1;
    cluster2.val.clusterDim.z = 1;
    cudaLaunchConfig_t lc = {};
    lc.blockDim = dim3(384);
    lc.dynamicSmemBytes = smem;
    lc.stream = s;
    lc.attrs = &cluster2;
    lc.numAttrs = 1;
    static int max_clusters = 0;
    if (!max_clusters) {
        allow_smem(kernel, smem);
        lc.gridDim = dim3(x->sm_count / 2 * 2);
        int n = 0;
        if (cudaOccupancyMaxActiveClusters(&n, kernel, &lc) != cudaSuccess || n < 1) {
            (void)cudaGetLastError(); /* not fatal: assume every pair of SMs holds one */
            n = x->sm_count / 2;
        }
        max_clusters = n < x->sm_count / 2 ? n : x->sm_count / 2;
    }
    const int clusters = x->grid_limit > 0 ? x->grid_limit / 2 : max_clusters;
    const int pairs = CEIL_DIV(CEIL_DIV(x->M, TC_BM), 2) * CEIL_DIV(x->N, CFG::BN);
    const tc_tail_plan plan = tc_tail_split(pairs, clusters, CEIL_DIV(x->K, TC_BK));
    if (2 * plan.split_tiles * plan.pieces > x->work_slots) {
        fprintf(stderr, "tensorCoreGemm: internal error: %d half pieces need more than the %d "
                        "workspace slots\n", 2 * plan.split_tiles * plan.pieces, x->work_slots);
        exit(1);
    }
    lc.gridDim = dim3(2 * clusters);
    CUDA_CHECK(cudaLaunchKernelEx(&lc, gemm_wgmma_ws_multicast<CFG::BN, CFG::STAGES>, *tmA, *tmB, x->C,
                                  x->work, x->M, x->N, x->K, plan));
    CHECK_LAUNCH();
    if (plan.split_tiles > 0) {
        gemm_streamk_fixup<CFG::BN, 2><<<dim3(2 * plan.split_tiles, SK_FIXUP_Y), 256, 0, s>>>(
            x->work, x->C, x->M, x->N, plan);
        CHECK_LAUNCH();
    }
}
template <class CFG>
static void run_wgmma_ws_multicast(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    launch_multicast<CFG>(x, &x->tmA, &x->tmB, s);
}

/* ---- variant table -------------------------------------------------------- */

typedef struct {
    const char *name;
    timed_fn run;
    int is_ref;     /* cuBLAS: the reference, always run */
    int hopper;     /* needs sm_90a and a TMA shape (N, K multiples of 8) */
    int small_grid; /* persistent: also checked on a grid of this many blocks (0: not) */
    const char *tile;
    const char *what; /* the one change from the row before */
} variant;

/* In teaching order: each row changes one thing from the row before it. */
static const variant variants[] = {
    {"cublas", run_cublas, 1, 0, 0, "library",
     "cublasGemmEx, BF16 in, CUBLAS_COMPUTE_32F, FP32 out: the reference"},
    {"wmma", run_wmma, 0, 0, 0, "128x128x32, 8 warps of 64x32",
     "WMMA 16x16x16 fragments from padded shared memory"},
    {"mma_ldmatrix_pad32", run_mma_ldmatrix<mma_ldmatrix_pad32_layout>, 0, 0, 0,
     "128x128x32, 8 warps of 64x32", "ldmatrix + mma.sync m16n8k16 in PTX, the same padded tiles"},
    {"mma_ldmatrix_pad64", run_mma_ldmatrix<mma_ldmatrix_pad64_layout>, 0, 0, 0,
     "128x128x64, 8 warps of 64x32", "BK 64 instead of 32"},
    {"mma_ldmatrix", run_mma_ldmatrix<mma_ldmatrix_layout>, 0, 0, 0, "128x128x64, 8 warps of 64x32",
     "the 128-byte XOR swizzle instead of padding"},
    {"mma_cpasync_2stage", run_mma_cpasync<mma_cpasync_2stage_cfg>, 0, 0, 0,
     "128x128x64, 2 stages, 2 blocks/SM", "cp.async copies into a ring of 2 stages"},
    {"mma_cpasync", run_mma_cpasync<mma_cpasync_cfg>, 0, 0, 0, "128x128x64, 3 stages, 2 blocks/SM",
     "3 stages instead of 2"},
    {"mma_tma", run_mma_tma<mma_tma_cfg>, 0, 1, 0, "128x128x64, 3 stages, 8 warps of 64x32",
     "TMA copies counted on mbarriers instead of cp.async (sm_90a)"},
    {"wgmma_tma_rows_s3", run_wgmma_tma<wgmma_tma_rows_s3_cfg>, 0, 1, 0,
     "128x128x64, 3 stages, 2 warpgroups", "wgmma m64n128k16 from shared memory instead of mma.sync"},
    {"wgmma_tma_s3", run_wgmma_tma<wgmma_tma_s3_cfg>, 0, 1, 0, "128x128x64, 3 stages, 2 warpgroups",
     "tiles in groups of 16 tile rows instead of row by row"},
    {"wgmma_tma", run_wgmma_tma<wgmma_tma_cfg>, 0, 1, 0, "128x128x64, 4 stages, 2 warpgroups",
     "4 stages instead of 3"},
    {"wgmma_tma_mbar", run_wgmma_tma_mbar<wgmma_tma_mbar_cfg>, 0, 1, 0,
     "128x128x64, 4 stages, 2 warpgroups", "stages freed by empty mbarriers instead of __syncthreads"},
    {"wgmma_ws_producer", run_wgmma_ws_producer<wgmma_ws_producer_cfg>, 0, 1, 0,
     "128x128x64, 4 stages, 1 producer + 2 consumer warpgroups",
     "a producer warpgroup issues the copies (warp specialization)"},
    {"wgmma_ws_setmaxnreg", run_wgmma_ws_setmaxnreg<wgmma_ws_setmaxnreg_cfg>, 0, 1, 0,
     "128x128x64, 4 stages, 1 producer + 2 consumer warpgroups",
     "setmaxnreg: 40 registers for the producer, 232 for the consumers"},
    {"wgmma_ws_128x128", run_wgmma_ws<wgmma_ws_128x128_cfg>, 0, 1, 0,
     "128x128x64, 4 stages, 1 producer + 2 consumer warpgroups",
     "a stage released one wgmma group later (wait_group 1)"},
    {"wgmma_ws_128x256", run_wgmma_ws<wgmma_ws_128x256_cfg>, 0, 1, 0,
     "128x256x64, 4 stages, 1 producer + 2 consumer warpgroups", "64x256 per consumer (m64n256k16)"},
    {"wgmma_ws_persistent", run_wgmma_ws<wgmma_ws_persistent_cfg>, 0, 1, 2,
     "128x256x64, 4 stages, one block per SM", "one block per SM, looping over tiles"},
    {"wgmma_ws_streamk", run_wgmma_ws_streamk<wgmma_ws_streamk_cfg>, 0, 1, 2,
     "128x256x64, 4 stages, one block per SM, last round split along K",
     "the last, partial round of tiles split along K, pieces added in a fixed order"},
    {"wgmma_ws_multicast", run_wgmma_ws_multicast<wgmma_ws_multicast_cfg>, 0, 1, 6,
     "128x256x64 per block, clusters of 2 over 256x256, last round split along K",
     "clusters of 2 blocks: each loads half of B's boxes for both (TMA multicast)"},
#ifdef EXERCISE
    {"exercise", EXERCISE_RUN, 0, EXERCISE_HOPPER, 0, "as " EXERCISE_BASE, EXERCISE_WHAT},
#endif
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options -------------------------------------------------------------- */

static long long opt_m = 8192, opt_n = 8192, opt_k = 8192;
static const char *opt_variant = "all";
static char variant_choices[1024];
static char help_notes[8192];

static opt_spec sample_opts[] = {
    OPT_INT_SPEC("m", "M", "rows of A and C", &opt_m, 1, TC_MAX_DIM),
    OPT_INT_SPEC("n", "N", "columns of B and C", &opt_n, 1, TC_MAX_DIM),
    OPT_INT_SPEC("k", "K", "columns of A, rows of B", &opt_k, 1, TC_MAX_DIM),
    OPT_STRING_SPEC("variant", "NAME", "run one variant (cublas always runs: it is the reference)",
                    &opt_variant, variant_choices),
};

/* --variant's choices and the --help notes come from the variant table. */
static void build_help_from_table(void)
{
    const char *names[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) names[v] = variants[v].name;
    if (tc_join_names("all|cpu", names, N_VARIANTS, variant_choices, sizeof variant_choices) < 0) {
        fprintf(stderr, "tensorCoreGemm: internal error: variant names do not fit\n");
        exit(1);
    }
    size_t used = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-20s %s\n", "cpu",
                                   "the CPU baseline (double), timed once at the largest checked shape");
    for (int v = 0; v < N_VARIANTS && used < sizeof help_notes; v++)
        used += (size_t)snprintf(help_notes + used, sizeof help_notes - used, "  %-20s %s\n  %-20s [%s]\n",
                                 variants[v].name, variants[v].what, "", variants[v].tile);
    if (used < sizeof help_notes)
        snprintf(help_notes + used, sizeof help_notes - used,
                 "Each variant changes one thing from the one above it (its kernel:\n"
                 "kernels/NN_<variant>.cuh). The TMA variants (mma_tma and below) need an sm_90a\n"
                 "build and a Hopper GPU (else WAIVED), and N, K multiples of 8 (TMA row strides\n"
                 "are multiples of 16 bytes).\n"
                 "Checks: CPU (double) at small odd shapes with integer inputs (exact), random\n"
                 "BF16 inputs (|diff| <= gamma_K * sum|a||b| and <= 128 sqrt(K) u rms(C)) and\n"
                 "identity x pattern inputs; then at MxNxK against cuBLAS in full and the CPU at\n"
                 "4096 sampled elements; then the output of a run after the timing. err_z in a RESULT\n"
                 "line: the largest |diff| of that output in units of sqrt(K) u rms(C).\n"
                 "--quick checks the small shapes only and times 257x264x200.\n");
}

/* ---- checks ----------------------------------------------------------------- */

/* Built with -DTC_NO_INTEGER_PASS (or with it defined anywhere above, as a
 * mutant in a kernel file may do), the checks on integer inputs are skipped,
 * so that the checks on random inputs stand alone: the mutants use it to show
 * that those catch a lost or doubled product by themselves. */
#ifdef TC_NO_INTEGER_PASS
#define TC_INTEGER_PASS 0
#else
#define TC_INTEGER_PASS 1
#endif

typedef struct {
    int M, N, K;
    tc_data a_kind, b_kind;
} problem;

/* Device buffers for the largest problem, host scratch, and what the checks share. */
typedef struct {
    uint16_t *d_A, *d_B, *d_A2, *d_B2; /* inputs; |A|, |B| for the bound at the main shape */
    float *d_C, *d_Cref, *d_S;
    uint16_t *h_A, *h_B;
    float *h_out, *h_ref, *h_S;
    double *h_ref64, *h_S64;
    size_t cap_c;                      /* elements of C the buffers hold */
    int hopper;                        /* the sm_90a kernels can run here */
    int arch;                          /* __CUDA_ARCH__ of the code that runs (e.g. 900) */
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    gemm_ctx ctx;
    unsigned long long seed;
} gemm_bufs;

static int wanted[N_VARIANTS], ok_v[N_VARIANTS];

/* A failed launch leaves the context unusable: report which variant and why,
 * and finish with FAIL (exit 1) rather than let the next call die. */
static void sync_or_fail(const char *what)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) return;
    report_fail("%s: the kernel failed: %s (%s). The wgmma kernels trap after %.0f s stuck at "
                "an mbarrier wait: a pipeline bug (a phase, an expect-tx byte count, a missing "
                "arrive) shows up this way.",
                what, cudaGetErrorString(e), cudaGetErrorName(e), TC_WATCHDOG_NS / 1e9);
    exit(report_finish());
}

/* Build A's and B's tensor maps for the current problem (boxes of 128 x 64 for
 * A, 64 x 64 for B, 128-byte swizzle, zeros outside the matrix). */
static void make_tmap(gemm_bufs *b, CUtensorMap *map, const uint16_t *ptr, int rows, int cols,
                      int box_rows, int pitch)
{
    tc_tmap t;
    char err[256];
    if (tc_tmap_rowmajor(rows, cols, box_rows, TC_BOX_COLS, &t, err, sizeof err) != 0) {
        report_fail("tensor map: %s", err);
        exit(report_finish());
    }
    cuuint64_t dims[2] = {t.dim[0], t.dim[1]};
    cuuint64_t strides[1] = {(cuuint64_t)pitch * 2}; /* cols * 2 = t.stride_bytes, or a copy's */
    cuuint32_t box[2] = {t.box[0], t.box[1]};
    cuuint32_t elem_strides[2] = {1, 1};
    CUresult r = b->encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)ptr, dims, strides, box,
                           elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                           CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        report_fail("cuTensorMapEncodeTiled(%d x %d, box %d x %d) failed: CUresult %d", rows, cols,
                    box_rows, TC_BOX_COLS, (int)r);
        exit(report_finish());
    }
}

/* Point the context at a problem (inputs already on the device). */
static void set_problem(gemm_bufs *b, gemm_ctx *x, int M, int N, int K, const uint16_t *A,
                        const uint16_t *B, float *C)
{
    x->M = M;
    x->N = N;
    x->K = K;
    x->A = A;
    x->B = B;
    x->C = C;
    x->grid_limit = 0;
    char why[256];
    if (b->hopper && tc_tma_shape_ok(N, K, why, sizeof why)) {
        make_tmap(b, &x->tmA, A, M, K, TC_BM, K);
        make_tmap(b, &x->tmB, B, K, N, TC_BK, N);
    }
}

/* Can variant v run on this device and build (cuBLAS always; the others
 * need sm_80 code, the wgmma ones sm_90a and a TMA shape)? */
static int device_ok(const gemm_bufs *b, const variant *v)
{
    return v->is_ref || (v->hopper ? b->hopper : b->arch >= 800);
}
static int runnable(const gemm_bufs *b, const variant *v, int N, int K)
{
    char why[256];
    return device_ok(b, v) && (!v->hopper || tc_tma_shape_ok(N, K, why, sizeof why));
}

static void upload_problem(gemm_bufs *b, const problem *p)
{
    size_t na = (size_t)p->M * p->K, nb = (size_t)p->K * p->N;
    tc_fill(b->h_A, p->M, p->K, p->a_kind, b->seed, RNG_STREAM_A);
    tc_fill(b->h_B, p->K, p->N, p->b_kind, b->seed, RNG_STREAM_B);
    CUDA_CHECK(cudaMemcpy(b->d_A, b->h_A, na * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b->d_B, b->h_B, nb * 2, cudaMemcpyHostToDevice));
}

/* Run variant v on the context's problem into the poisoned, guarded C and copy
 * C back into h_out. Returns the number of guard-zone bytes it overwrote. */
static size_t run_into_host(gemm_bufs *b, const variant *v, gemm_ctx *x, float *h_out,
                            const char *what)
{
    size_t bytes = (size_t)x->M * x->N * sizeof(float);
    poison_guarded(x->C, bytes);
    v->run(x, 0);
    sync_or_fail(what);
    CUDA_CHECK(cudaMemcpy(h_out, x->C, bytes, cudaMemcpyDeviceToHost));
    return check_guard(what, x->C, bytes);
}

/* Every wanted variant at one small problem against the CPU in double. */
static void check_against_cpu(gemm_bufs *b, const problem *p)
{
    upload_problem(b, p);
    const int exact = p->a_kind != TC_DATA_REAL;
    tc_gemm_ref(p->M, p->N, p->K, b->h_A, b->h_B, b->h_ref64, exact ? NULL : b->h_S64);
    tc_ref ref = {b->h_ref64, NULL, exact ? NULL : b->h_S64, NULL, tc_bound_factor(p->K),
                  p->a_kind == TC_DATA_IDENT || p->b_kind == TC_DATA_IDENT,
                  exact ? 0.0 : tc_stat_unit(p->K, tc_rms_f64(b->h_ref64, (size_t)p->M * p->N))};
    gemm_ctx *x = &b->ctx;
    set_problem(b, x, p->M, p->N, p->K, b->d_A, b->d_B, b->d_C);
    for (int v = 0; v < N_VARIANTS; v++) {
        if (!wanted[v] || !runnable(b, &variants[v], p->N, p->K)) continue;
        for (int tiny = 0; tiny <= (variants[v].small_grid > 0); tiny++) {
            char what[160], grid[40] = "";
            if (tiny) snprintf(grid, sizeof grid, ", %d-block grid", variants[v].small_grid);
            snprintf(what, sizeof what, "%s(%dx%dx%d, %s x %s%s, ref=cpu)", variants[v].name, p->M,
                     p->N, p->K, tc_data_name(p->a_kind), tc_data_name(p->b_kind), grid);
            x->grid_limit = tiny ? variants[v].small_grid : 0;
            size_t bad = run_into_host(b, &variants[v], x, b->h_out, what);
            bad += tc_compare(what, b->h_out, p->M, p->N, &ref, NULL);
            if (bad) ok_v[v] = 0;
        }
        x->grid_limit = 0;
    }
}

/* Every wanted variant at the main shape: integer inputs first (cuBLAS must
 * agree with the CPU exactly at 4096 sampled elements; every variant must
 * equal cuBLAS everywhere), then the random BF16 inputs that are timed
 * (cuBLAS and every variant within the bound of the CPU at the samples, every
 * variant within 2 gamma_K S of cuBLAS everywhere, S = |A||B| from cuBLAS,
 * and all of them within the statistical limit). Leaves cuBLAS's result on
 * the timed data in h_ref and its S in h_S: the runs after the timing are
 * checked against them. */
static void check_main_shape(gemm_bufs *b, int M, int N, int K)
{
    const int nsamples = 4096;
    const tc_data kinds[2] = {TC_DATA_INT, TC_DATA_REAL};
    gemm_ctx *x = &b->ctx;
    const size_t nc = (size_t)M * N;
    for (int d = TC_INTEGER_PASS ? 0 : 1; d < 2; d++) {
        problem p = {M, N, K, kinds[d], kinds[d]};
        const int exact = kinds[d] == TC_DATA_INT;
        upload_problem(b, &p);
        set_problem(b, x, M, N, K, b->d_A, b->d_B, b->d_Cref);
        char what[160];
        snprintf(what, sizeof what, "cublas(%dx%dx%d, %s, ref=cpu samples)", M, N, K,
                 tc_data_name(kinds[d]));
        run_cublas(x, 0);
        sync_or_fail(what);
        CUDA_CHECK(cudaMemcpy(b->h_ref, b->d_Cref, nc * sizeof(float), cudaMemcpyDeviceToHost));
        if (tc_check_samples(what, b->h_ref, M, N, K, b->h_A, b->h_B, nsamples, b->seed, exact)) {
            ok_v[0] = 0;
            report_fail("cublas (the reference) disagrees with the CPU at %dx%dx%d: the full "
                        "comparisons against it mean nothing", M, N, K);
            for (int v = 0; v < N_VARIANTS; v++) ok_v[v] = 0;
            return;
        }
        tc_ref ref = {NULL, b->h_ref, NULL, NULL, 0.0, 0, 0.0};
        if (!exact) { /* S = |A| |B|, by cuBLAS */
            for (size_t i = 0; i < (size_t)M * K; i++) b->h_A[i] &= 0x7FFF;
            for (size_t i = 0; i < (size_t)K * N; i++) b->h_B[i] &= 0x7FFF;
            CUDA_CHECK(cudaMemcpy(b->d_A2, b->h_A, (size_t)M * K * 2, cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(b->d_B2, b->h_B, (size_t)K * N * 2, cudaMemcpyHostToDevice));
            gemm_ctx xs = *x;
            xs.A = b->d_A2;
            xs.B = b->d_B2;
            xs.C = b->d_S;
            run_cublas(&xs, 0);
            sync_or_fail("cublas(|A| |B|)");
            CUDA_CHECK(cudaMemcpy(b->h_S, b->d_S, nc * sizeof(float), cudaMemcpyDeviceToHost));
            ref.s32 = b->h_S;
            ref.factor = tc_bound_factor_vs_ref(K);
            ref.stat_unit = tc_stat_unit(K, tc_rms_f32(b->h_ref, nc));
            upload_problem(b, &p); /* h_A, h_B back to the signed values for the samples */
        }
        set_problem(b, x, M, N, K, b->d_A, b->d_B, b->d_C);
        for (int v = 1; v < N_VARIANTS; v++) {
            if (!wanted[v] || !runnable(b, &variants[v], N, K)) continue;
            snprintf(what, sizeof what, "%s(%dx%dx%d, %s, ref=cublas)", variants[v].name, M, N, K,
                     tc_data_name(kinds[d]));
            size_t bad = run_into_host(b, &variants[v], x, b->h_out, what);
            bad += tc_compare(what, b->h_out, M, N, &ref, NULL);
            snprintf(what, sizeof what, "%s(%dx%dx%d, %s, ref=cpu samples)", variants[v].name, M,
                     N, K, tc_data_name(kinds[d]));
            bad += tc_check_samples(what, b->h_out, M, N, K, b->h_A, b->h_B, nsamples, b->seed,
                                    exact);
            if (bad) ok_v[v] = 0;
        }
    }
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    if (!variants[0].is_ref) { /* the checks use variants[0] as the reference */
        fprintf(stderr, "tensorCoreGemm: internal error: variants[0] must be cublas\n");
        return 1;
    }
    build_help_from_table();
    const opts_config cfg = {
        "tensorCoreGemm",
        "C = A*B, BF16 in, FP32 accumulate and out: WMMA to warp-specialized wgmma, against cuBLAS",
        sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);

    int M = (int)opt_m, N = (int)opt_n, K = (int)opt_k;
    if (o.quick) {
        M = 257;
        N = 264;
        K = 200;
    }
    char err[300];
    if (tc_device_bytes(M, N, K, 1ULL << 40, err, sizeof err) == 0) {
        fprintf(stderr, "tensorCoreGemm: error: %s\n", err);
        printf("tensorCoreGemm: FAIL (bad argument)\n");
        return 1;
    }
    int explicit_v = -1;
    for (int v = 0; v < N_VARIANTS; v++)
        if (!strcmp(opt_variant, variants[v].name)) explicit_v = v;
    char tma_why[300] = "";
    const int main_tma_ok = tc_tma_shape_ok(N, K, tma_why, sizeof tma_why);
    if (explicit_v >= 0 && variants[explicit_v].hopper && !main_tma_ok) {
        fprintf(stderr, "tensorCoreGemm: error: --variant=%s %s\n", opt_variant, tma_why);
        printf("tensorCoreGemm: FAIL (bad argument)\n");
        return 1;
    }
    int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    /* Problems checked against the CPU: odd shapes that are not multiples of
     * any tile, each with integer and with random inputs; the general ones
     * (N or K not a multiple of 8) skip the TMA variants. The identity x
     * pattern problems make a misplaced value name its source. --quick: the
     * first ones, all tiny. */
    static const problem shapes[] = {
        {1, 1, 1, TC_DATA_INT, TC_DATA_INT},         {33, 65, 129, TC_DATA_INT, TC_DATA_INT},
        {130, 257, 67, TC_DATA_INT, TC_DATA_INT},    {1, 8, 8, TC_DATA_INT, TC_DATA_INT},
        {129, 264, 72, TC_DATA_INT, TC_DATA_INT},    {257, 136, 200, TC_DATA_INT, TC_DATA_INT},
        {136, 264, 520, TC_DATA_INT, TC_DATA_INT},   /* 9 K-steps: each stage of a 4-stage ring reused */
        {257, 264, 200, TC_DATA_INT, TC_DATA_INT},   /* --quick stops here (8): its main shape */
        {555, 777, 333, TC_DATA_INT, TC_DATA_INT},   {1000, 1000, 1000, TC_DATA_INT, TC_DATA_INT},
        {2100, 2200, 136, TC_DATA_INT, TC_DATA_INT}, /* 17 x 9 tiles of 128x256: more than one wave */
    };
    static const problem patterns[] = {
        {192, 264, 192, TC_DATA_IDENT, TC_DATA_PATTERN}, /* C = B: every B value in place */
        {192, 264, 264, TC_DATA_PATTERN, TC_DATA_IDENT}, /* C = A */
    };
    const int n_shapes = o.quick ? 8 : (int)(sizeof shapes / sizeof shapes[0]);
    const int n_patterns = (int)(sizeof patterns / sizeof patterns[0]);

    long long maxA = (long long)M * K, maxB = (long long)K * N, maxC = (long long)M * N;
    for (int i = 0; i < n_shapes + n_patterns; i++) {
        const problem *p = i < n_shapes ? &shapes[i] : &patterns[i - n_shapes];
        if ((long long)p->M * p->K > maxA) maxA = (long long)p->M * p->K;
        if ((long long)p->K * p->N > maxB) maxB = (long long)p->K * p->N;
        if ((long long)p->M * p->N > maxC) maxC = (long long)p->M * p->N;
    }
    for (int v = 0; v < N_VARIANTS; v++) {
        wanted[v] = variants[v].is_ref || !strcmp(opt_variant, "all") ||
                    !strcmp(opt_variant, variants[v].name);
        ok_v[v] = 1;
    }

    report_init("tensorCoreGemm", o.json);
    device_info dev;
    device_setup_or_exit("tensorCoreGemm", o.device, o.json, &dev);

    gemm_bufs b;
    memset(&b, 0, sizeof b);
    b.seed = o.seed;
    b.cap_c = (size_t)maxC;
    {
        int *d_probe, probe[2] = {0, 0};
        CUDA_CHECK(cudaMalloc(&d_probe, sizeof probe));
        CUDA_CHECK(cudaMemset(d_probe, 0, sizeof probe));
        probe_arch<<<1, 1>>>(d_probe);
        CHECK_LAUNCH();
        CUDA_CHECK(cudaMemcpy(probe, d_probe, sizeof probe, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(d_probe));
        b.hopper = probe[0] == 1 && dev.cc_major == 9 && dev.cc_minor == 0;
        b.arch = probe[1];
    }
    if (b.hopper) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult q;
        CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                    cudaEnableDefault, &q));
        if (q != cudaDriverEntryPointSuccess || !fn) {
            report_fail("cuTensorMapEncodeTiled not found in the driver (query result %d)", (int)q);
            return report_finish();
        }
        b.encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    }
    report_note("M=%d N=%d K=%d; A, B BF16, C FP32, row-major; seed %llu; timed with random BF16 "
                "inputs in [-1,1), L2 not flushed (compute-bound)",
                M, N, K, (unsigned long long)o.seed);
    report_note("sm_90a kernels (wgmma, TMA): %s",
                b.hopper ? "built and running"
                         : (dev.cc_major == 9 && dev.cc_minor == 0
                                ? "NOT in this build (SMS without 90): the wgmma variants waive"
                                : "need a CC 9.0 GPU: the wgmma variants waive"));
    report_note("bound: |C - C_exact| <= gamma_K * sum_k |a||b|, gamma_K = K*2^-23/(1-K*2^-23) "
                "= %.3g at K=%d (2x against cuBLAS), and on random inputs |C - C_ref| <= %g "
                "sqrt(K) u rms(C_ref), u = 2^-24; integer inputs: exact",
                tc_bound_factor(K), K, TC_STAT_C);
    if (!TC_INTEGER_PASS)
        report_note("built with TC_NO_INTEGER_PASS: the checks on integer inputs are skipped");
    if (!main_tma_ok) report_note("%s: they are WAIVED at this shape", tma_why);

    size_t bytes_a = (size_t)maxA * 2, bytes_b = (size_t)maxB * 2, bytes_c = (size_t)maxC * 4;
    b.h_A = (uint16_t *)malloc(bytes_a);
    b.h_B = (uint16_t *)malloc(bytes_b);
    b.h_out = (float *)malloc(bytes_c);
    b.h_ref = (float *)malloc(bytes_c);
    b.h_S = (float *)malloc(bytes_c);
    /* the CPU reference only runs on the small problems */
    size_t small_c = 0;
    for (int i = 0; i < n_shapes + n_patterns; i++) {
        const problem *p = i < n_shapes ? &shapes[i] : &patterns[i - n_shapes];
        if ((size_t)p->M * p->N > small_c) small_c = (size_t)p->M * p->N;
    }
    b.h_ref64 = (double *)malloc(small_c * sizeof(double));
    b.h_S64 = (double *)malloc(small_c * sizeof(double));
    if (!b.h_A || !b.h_B || !b.h_out || !b.h_ref || !b.h_S || !b.h_ref64 || !b.h_S64) {
        report_fail("cannot allocate host memory for %dx%dx%d", M, N, K);
        return report_finish();
    }
    CUDA_CHECK(cudaMalloc(&b.d_A, bytes_a));
    CUDA_CHECK(cudaMalloc(&b.d_B, bytes_b));
    CUDA_CHECK(cudaMalloc(&b.d_Cref, bytes_c));
    b.d_C = (float *)guarded_malloc(bytes_c); /* the output: a guard zone follows it */
    if (!o.quick) {
        CUDA_CHECK(cudaMalloc(&b.d_A2, bytes_a));
        CUDA_CHECK(cudaMalloc(&b.d_B2, bytes_b));
        CUDA_CHECK(cudaMalloc(&b.d_S, bytes_c));
    }
    CUBLAS_CHECK(cublasCreate(&b.ctx.blas));
    b.ctx.sm_count = dev.sm_count;
    if (b.hopper) { /* steps 17 and 18's workspace: at most one partial tile per block, one block per SM */
        b.ctx.work_slots = dev.sm_count;
        CUDA_CHECK(cudaMalloc(&b.ctx.work, (size_t)dev.sm_count * TC_BM * 256 * sizeof(float)));
    }

    /* 1. Small problems against the CPU. */
    for (int i = 0; i < n_shapes; i++) {
        problem p = shapes[i];
        if (TC_INTEGER_PASS) check_against_cpu(&b, &p);
        p.a_kind = p.b_kind = TC_DATA_REAL;
        check_against_cpu(&b, &p);
    }
    for (int i = 0; i < n_patterns; i++) check_against_cpu(&b, &patterns[i]);
    if (!ok_v[0]) {
        report_fail("cublas (the reference) failed its CPU checks");
        for (int v = 0; v < N_VARIANTS; v++) ok_v[v] = 0;
    }
    /* 2. The main shape against cuBLAS (--quick: it is one of the small ones). */
    if (!o.quick && ok_v[0]) check_main_shape(&b, M, N, K);

    /* 3. The CPU baseline, timed once at the largest problem it checked
     * (--variant=all or cpu; the checks above ran whatever was chosen). */
    result_rec r;
    if (opts_variant_runs_cpu(opt_variant)) {
        const problem *s = &shapes[0];
        for (int i = 1; i < n_shapes; i++)
            if ((double)shapes[i].M * shapes[i].N * shapes[i].K > (double)s->M * s->N * s->K)
                s = &shapes[i];
        problem p = *s;
        p.a_kind = p.b_kind = TC_DATA_REAL;
        tc_fill(b.h_A, p.M, p.K, p.a_kind, b.seed, RNG_STREAM_A);
        tc_fill(b.h_B, p.K, p.N, p.b_kind, b.seed, RNG_STREAM_B);
        host_prefault(b.h_ref64, (size_t)p.M * p.N * sizeof(double));
        double t0 = host_seconds();
        tc_gemm_ref(p.M, p.N, p.K, b.h_A, b.h_B, b.h_ref64, NULL);
        double ms = (host_seconds() - t0) * 1e3;
        rec_begin(&r, "cpu");
        rec_int(&r, "m", p.M);
        rec_int(&r, "n", p.N);
        rec_int(&r, "k", p.K);
        rec_str(&r, "status", "PASS");
        rec_perf(&r, ms, "gflops", tc_gflops(p.M, p.N, p.K, ms), 0, NULL, 0);
        rec_emit(&r);
    }

    /* 4. Time at the main shape on random BF16 inputs, every variant that
     * passed and cuBLAS round robin (common/timing.h), so every pct_ref is
     * from this run and at the same clocks; then run each once more on a
     * poisoned C (what it did not write fails) and check that output against
     * the reference on the same data: cuBLAS's result from step 2, or the CPU
     * with --quick. */
    problem mainp = {M, N, K, TC_DATA_REAL, TC_DATA_REAL};
    upload_problem(&b, &mainp);
    set_problem(&b, &b.ctx, M, N, K, b.d_A, b.d_B, b.d_C);
    const size_t main_bytes = (size_t)M * N * sizeof(float);
    tc_ref timed_ref;
    memset(&timed_ref, 0, sizeof timed_ref);
    if (o.quick) { /* the main shape is a small one: the CPU in double, on the data the timed
                    * runs are meant to multiply (not on what was uploaded) */
        tc_fill(b.h_A, M, K, TC_DATA_REAL, b.seed, RNG_STREAM_A);
        tc_fill(b.h_B, K, N, TC_DATA_REAL, b.seed, RNG_STREAM_B);
        tc_gemm_ref(M, N, K, b.h_A, b.h_B, b.h_ref64, b.h_S64);
        timed_ref.ref64 = b.h_ref64;
        timed_ref.s64 = b.h_S64;
        timed_ref.factor = tc_bound_factor(K);
        timed_ref.stat_unit = tc_stat_unit(K, tc_rms_f64(b.h_ref64, (size_t)M * N));
    } else {
        timed_ref.ref32 = b.h_ref;
        timed_ref.s32 = b.h_S;
        timed_ref.factor = tc_bound_factor_vs_ref(K);
        timed_ref.stat_unit = tc_stat_unit(K, tc_rms_f32(b.h_ref, (size_t)M * N));
    }
    /* Who is timed: the wanted variants this device runs that passed. */
    const char *waived[N_VARIANTS];
    timed_variant group[N_VARIANTS];
    timing_stats times[N_VARIANTS];
    char ranges[N_VARIANTS][64];
    int slot[N_VARIANTS], n_timed = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        slot[v] = -1;
        waived[v] = !device_ok(&b, var)             ? (var->hopper ? "needs_sm90a" : "needs_sm80")
                    : var->hopper && !main_tma_ok ? "tma_needs_n_k_multiple_of_8"
                                                  : NULL;
        if (!wanted[v] || waived[v] || !ok_v[v]) continue;
        snprintf(ranges[v], sizeof ranges[v], "tensorCoreGemm/%s", var->name);
        group[n_timed] = (timed_variant){var->run, &b.ctx, ranges[v]};
        slot[v] = n_timed++;
    }
    if (n_timed > 0) {
        timing_cfg tc = timing_defaults(reps);
        time_gpu_group(group, n_timed, &tc, times);
        sync_or_fail("the timed runs");
    }
    const double ref_gflops = slot[0] >= 0 ? tc_gflops(M, N, K, times[slot[0]].median_ms) : 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        if (!wanted[v]) continue;
        rec_begin(&r, var->name);
        rec_int(&r, "m", M);
        rec_int(&r, "n", N);
        rec_int(&r, "k", K);
        if (waived[v]) {
            rec_str(&r, "status", "WAIVED");
            rec_str(&r, "reason", waived[v]);
            rec_emit(&r);
            continue;
        }
        if (!ok_v[v]) {
            rec_str(&r, "status", "FAIL");
            rec_emit(&r);
            continue;
        }
        /* one more run, after all its timed ones, on a poisoned C, checked */
        char what[160];
        snprintf(what, sizeof what, "%s(%dx%dx%d, real, after timing, ref=%s)", var->name, M, N,
                 K, o.quick ? "cpu" : "cublas");
        poison_guarded(b.d_C, main_bytes);
        var->run(&b.ctx, 0);
        sync_or_fail(what);
        CUDA_CHECK(cudaMemcpy(b.h_out, b.d_C, main_bytes, cudaMemcpyDeviceToHost));
        tc_err e;
        size_t bad = tc_compare(what, b.h_out, M, N, &timed_ref, &e);
        bad += check_guard(what, b.d_C, main_bytes);
        if (bad) {
            ok_v[v] = 0;
            rec_str(&r, "status", "FAIL");
            rec_emit(&r);
            continue;
        }
        const timing_stats *t = &times[slot[v]];
        double gflops = tc_gflops(M, N, K, t->median_ms);
        rec_str(&r, "status", "PASS");
        /* pct_peak against the dense BF16 tensor-core rate (0: unknown architecture) */
        rec_perf(&r, t->median_ms, "gflops", gflops, dev.peak_bf16_gflops, "cublas", ref_gflops);
        rec_num(&r, "min_ms", t->min_ms);
        rec_num(&r, "err_z", e.max_z); /* the run after timing, in units of sqrt(K) u rms(C) */
        timing_rec_clocks(&r, t);
        rec_emit(&r);
    }

    CUBLAS_CHECK(cublasDestroy(b.ctx.blas));
    if (b.ctx.work) CUDA_CHECK(cudaFree(b.ctx.work));
    CUDA_CHECK(cudaFree(b.d_A));
    CUDA_CHECK(cudaFree(b.d_B));
    CUDA_CHECK(cudaFree(b.d_Cref));
    guarded_free(b.d_C);
    if (b.d_A2) CUDA_CHECK(cudaFree(b.d_A2));
    if (b.d_B2) CUDA_CHECK(cudaFree(b.d_B2));
    if (b.d_S) CUDA_CHECK(cudaFree(b.d_S));
    free(b.h_A);
    free(b.h_B);
    free(b.h_out);
    free(b.h_ref);
    free(b.h_S);
    free(b.h_ref64);
    free(b.h_S64);
    return report_finish();
}
