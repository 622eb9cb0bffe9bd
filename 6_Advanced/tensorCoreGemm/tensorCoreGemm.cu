/* tensorCoreGemm: C = A * B on the tensor cores, BF16 inputs, FP32 accumulation
 * and output, row-major, any M, N, K, from WMMA fragments to a warp-specialized
 * TMA + wgmma pipeline, each step measured against cuBLAS in the same run.
 *
 * What it teaches, one step per variant:
 *   wmma          the tensor cores through nvcuda::wmma: 16x16x16 fragments loaded
 *                 from a padded shared-memory tile; the fragment layout is opaque
 *   mma_ldmatrix  the instruction underneath, mma.sync.m16n8k16, with its operands
 *                 loaded by ldmatrix from a tile stored under a 128-byte XOR swizzle
 *                 (no padding, no bank conflicts: tc_layout.h)
 *   mma_cpasync   the same compute fed by a 3-stage cp.async pipeline: loads of
 *                 step k+2 fly while step k is computed
 *   wgmma_tma     Hopper (sm_90a): TMA copies tiles with cp.async.bulk.tensor (the
 *                 hardware applies the same swizzle), completion is counted in bytes
 *                 on an mbarrier, and a warpgroup (4 warps) multiplies a 64x128 tile
 *                 from shared memory with one wgmma.mma_async per 16 of K
 *   wgmma_ws_*    warp specialization: one producer warpgroup issues TMA into a
 *                 ring of stages, two consumer warpgroups run wgmma; full/empty
 *                 mbarriers hand stages back and forth and setmaxnreg moves registers
 *                 from the producer to the consumers; 128x128 and 128x256 tiles, and
 *                 a persistent version (one block per SM looping over tiles)
 *
 * Build:  make -C 6_Advanced/tensorCoreGemm     (or `make tensorCoreGemm`); with SMS
 *         containing 90 the Hopper kernels are built for sm_90a (the build says so)
 * Run:    bin/tensorCoreGemm                    8192^3, every variant and cuBLAS
 *         bin/tensorCoreGemm --quick            small shapes: smoke tests, sanitizers
 *         bin/tensorCoreGemm --variant=wgmma_ws_128x256 --quick
 *                                               one variant's checks: mismatches print
 *                                               (row, col, expected, got, bound)
 *         bin/tensorCoreGemm --m=6000 --n=5000 --k=4000
 * Variants: see the table below (--help lists them).
 *
 * Sizes: any M, N, K from 1 to 32768. Tiles that stick out of the matrix load
 * zeros (predicated loads, cp.async's zero fill, TMA's out-of-bounds fill) and
 * store nothing outside C. The TMA variants need N and K to be multiples of 8:
 * a tensor map's row stride (K*2 bytes for A, N*2 for B) must be a multiple of
 * 16 bytes. Asking for one of them at another shape is refused before any CUDA
 * call; with --variant=all they report WAIVED at that shape and still run their
 * checks at the shapes that allow them.
 *
 * Checks (tc_host.h has the error bound): every variant, cuBLAS included, against
 * the CPU in double at small shapes that are not multiples of any tile, with
 * integer inputs (equality required), BF16 random inputs (|diff| <= gamma_K * S)
 * and identity x pattern inputs (a wrong value names the cell it came from);
 * then at the main shape against cuBLAS in full (equality with integer inputs,
 * 2 gamma_K S with random ones) and against the CPU at 4096 sampled elements.
 * A poisoned guard zone follows C. A kernel stuck at an mbarrier wait for more
 * than TC_WATCHDOG_NS traps, and the sample reports FAIL instead of hanging.
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

/* ---- kernels: shared helpers -------------------------------------------- */

/* What the code running on this device was built for: out[0] = 1 for sm_90a,
 * out[1] = the compute capability of the machine code (e.g. 900). */
__global__ void probe_arch(int *out)
{
#ifdef __CUDA_ARCH__
    out[0] = TC_SM90A;
    out[1] = __CUDA_ARCH__;
#endif
}

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* Eight consecutive BF16 of row `row` from column `col` (one 16-byte chunk),
 * zero where row >= rows or a column >= cols. VEC (cols % 8 == 0): the chunk
 * is all in or all out and 16-byte aligned, one vector load; otherwise each
 * element is loaded alone, and never past the end of its row. */
template <bool VEC>
__device__ __forceinline__ uint4 load_chunk(const uint16_t *__restrict__ X, int rows, int cols,
                                            int row, int col)
{
    uint4 v = make_uint4(0, 0, 0, 0);
    if (row >= rows || col >= cols) return v;
    const uint16_t *p = X + (size_t)row * cols + col;
    if constexpr (VEC) {
        return *(const uint4 *)p;
    } else {
        uint32_t e[8];
#pragma unroll
        for (int i = 0; i < 8; i++) e[i] = col + i < cols ? p[i] : 0u;
        v.x = e[0] | (e[1] << 16);
        v.y = e[2] | (e[3] << 16);
        v.z = e[4] | (e[5] << 16);
        v.w = e[6] | (e[7] << 16);
        return v;
    }
}

/* ---- kernel 1: WMMA ------------------------------------------------------ */

/* 128x128 block tile, 8 warps in 2 x 4, each warp 64x32 = 4 x 2 fragments of
 * 16x16. Tiles of A (128 x 32) and B (32 x 128) are staged in shared memory,
 * rows padded by 8 BF16 (16 bytes) so that the fragment loads of consecutive
 * rows start in different banks. The fragments' register layout is the
 * compiler's business: wmma::load_matrix_sync and mma_sync hide it, which is
 * also why the next step drops them. The epilogue goes through a 16x16 patch
 * of shared memory per warp so that the stores can be bounds-checked. */
enum { WM_BM = 128, WM_BN = 128, WM_BK = 32 };
enum { WM_LDA = WM_BK + 8, WM_LDB = WM_BN + 8 }; /* padded row lengths (elements) */

template <bool VEC>
__global__ void __launch_bounds__(256, 1) gemm_wmma(const uint16_t *__restrict__ A,
                                                 const uint16_t *__restrict__ B,
                                                 float *__restrict__ C, int M, int N, int K)
{
#if TC_SM80
    namespace wm = nvcuda::wmma;
    __shared__ __align__(128) uint16_t As[WM_BM * WM_LDA];
    __shared__ __align__(128) uint16_t Bs[WM_BK * WM_LDB];
    __shared__ __align__(128) float Cs[8][16 * 16];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm_ = warp / 4, wn_ = warp % 4;
    const int m0 = blockIdx.y * WM_BM, n0 = blockIdx.x * WM_BN;

    wm::fragment<wm::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) wm::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += WM_BK) {
#pragma unroll
        for (int i = 0; i < 2; i++) { /* A: 128 rows x 4 chunks of 8 */
            int idx = tid + i * 256, r = idx / 4, c = idx % 4;
            *(uint4 *)&As[r * WM_LDA + c * 8] = load_chunk<VEC>(A, M, K, m0 + r, k0 + c * 8);
        }
#pragma unroll
        for (int i = 0; i < 2; i++) { /* B: 32 rows x 16 chunks of 8 */
            int idx = tid + i * 256, r = idx / 16, c = idx % 16;
            *(uint4 *)&Bs[r * WM_LDB + c * 8] = load_chunk<VEC>(B, K, N, k0 + r, n0 + c * 8);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < WM_BK; kk += 16) {
            wm::fragment<wm::matrix_a, 16, 16, 16, __nv_bfloat16, wm::row_major> af[4];
            wm::fragment<wm::matrix_b, 16, 16, 16, __nv_bfloat16, wm::row_major> bf[2];
#pragma unroll
            for (int i = 0; i < 4; i++)
                wm::load_matrix_sync(af[i], (const __nv_bfloat16 *)&As[(wm_ * 64 + i * 16) * WM_LDA + kk],
                                     WM_LDA);
#pragma unroll
            for (int j = 0; j < 2; j++)
                wm::load_matrix_sync(bf[j], (const __nv_bfloat16 *)&Bs[kk * WM_LDB + wn_ * 32 + j * 16],
                                     WM_LDB);
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 2; j++) wm::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
        }
        __syncthreads(); /* the next step's loads overwrite As and Bs */
    }

    float *cs = Cs[warp];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            wm::store_matrix_sync(cs, acc[i][j], 16, wm::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                int row = m0 + wm_ * 64 + i * 16 + e / 16, col = n0 + wn_ * 32 + j * 16 + e % 16;
                if (row < M && col < N) C[(size_t)row * N + col] = cs[e];
            }
            __syncwarp(); /* the patch is rewritten by the next fragment */
        }
#endif
}

/* ---- kernels 2 and 3: mma.sync with ldmatrix, then with cp.async ---------- */

/* 128x128x64 block tile, 8 warps in 2 x 4, each warp 64x32 = 4 x 4 tiles of
 * m16n8k16. A's tile is 128 rows of 64 BF16 (128 bytes), B's 64 rows of 128
 * BF16 (256 bytes), both stored under the 128-byte swizzle: chunk c of row r
 * lives at chunk c ^ (r % 8). An ldmatrix reads one 16-byte chunk from each of
 * eight consecutive rows: without the swizzle those eight chunks sit in the
 * same four banks (rows are 128 or 256 bytes apart) and the read takes eight
 * passes; with it, eight different bank groups and one pass. */
constexpr int MM_BM = 128, MM_BN = 128, MM_BK = 64, MM_THREADS = 256;
constexpr int MM_A_BYTES = MM_BM * MM_BK * 2, MM_B_BYTES = MM_BK * MM_BN * 2;
constexpr int MM_STAGE_BYTES = MM_A_BYTES + MM_B_BYTES; /* 32 KiB */
constexpr int MM_STAGES = 3;

__device__ __forceinline__ uint32_t mm_a_off(int r, int chunk)
{
    return (uint32_t)r * (MM_BK * 2) + tc_swz128(r, chunk) * 16u;
}
__device__ __forceinline__ uint32_t mm_b_off(int k, int chunk)
{
    return (uint32_t)k * (MM_BN * 2) + tc_swz128(k, chunk) * 16u;
}

#if TC_SM80
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
/* d += a * b for one m16n8k16 tile: a row-major 16x16, b "col" (k-pairs per
 * register) 16x8, d FP32. */
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* 16-byte cp.async, zero-filled when !ok (src-size 0; src then points at the
 * matrix base, a valid address). */
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, bool ok)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(ok ? 16 : 0)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

#endif /* TC_SM80 */

#if TC_SM80
/* One K-step of A (128 x 64) and B (64 x 128) into a stage, through registers:
 * 1024 chunks of 16 bytes each, 4 per thread; a warp's 32 chunks are 4 whole
 * rows of A (or 2 of B): coalesced loads, and conflict-free stores. */
template <bool VEC>
__device__ __forceinline__ void mm_load_stage(uint8_t *st, const uint16_t *__restrict__ A,
                                              const uint16_t *__restrict__ B, int M, int N,
                                              int K, int m0, int n0, int k0)
{
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int idx = threadIdx.x + i * MM_THREADS, r = idx / 8, c = idx % 8;
        *(uint4 *)(st + mm_a_off(r, c)) = load_chunk<VEC>(A, M, K, m0 + r, k0 + c * 8);
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int idx = threadIdx.x + i * MM_THREADS, k = idx / 16, c = idx % 16;
        *(uint4 *)(st + MM_A_BYTES + mm_b_off(k, c)) = load_chunk<VEC>(B, K, N, k0 + k, n0 + c * 8);
    }
}

/* The same with cp.async (N % 8 == 0 and K % 8 == 0: a chunk is all in or all out). */
__device__ __forceinline__ void mm_load_stage_async(uint32_t st, const uint16_t *__restrict__ A,
                                                    const uint16_t *__restrict__ B, int M, int N,
                                                    int K, int m0, int n0, int k0)
{
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int idx = threadIdx.x + i * MM_THREADS, r = idx / 8, c = idx % 8;
        int row = m0 + r, col = k0 + c * 8;
        bool ok = row < M && col < K;
        cp_async16(st + mm_a_off(r, c), ok ? A + (size_t)row * K + col : A, ok);
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int idx = threadIdx.x + i * MM_THREADS, k = idx / 16, c = idx % 16;
        int row = k0 + k, col = n0 + c * 8;
        bool ok = row < K && col < N;
        cp_async16(st + MM_A_BYTES + mm_b_off(k, c), ok ? B + (size_t)row * N + col : B, ok);
    }
}

/* Multiply one stage into the warp's 64x32 accumulators: per 16 of K, four
 * ldmatrix.x4 give A's four 16x16 fragments (lanes 0-15 address rows 0-15 at
 * k 0-7, lanes 16-31 the same rows at k 8-15: the order of a0..a3), two
 * ldmatrix.x4.trans give B's four 16x8 fragments (B is stored k-major, the
 * .trans hands each thread two consecutive k of one column), then 16 mma. */
__device__ __forceinline__ void mm_compute_stage(uint32_t st, int wm_, int wn_, int lane,
                                                 float (&acc)[4][4][4])
{
#pragma unroll
    for (int ks = 0; ks < MM_BK / 16; ks++) {
        uint32_t af[4][4], bfr[4][2];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int r = wm_ * 64 + i * 16 + lane % 16, chunk = ks * 2 + lane / 16;
            ldmatrix_x4(af[i], st + mm_a_off(r, chunk));
        }
#pragma unroll
        for (int jj = 0; jj < 2; jj++) {
            int k = ks * 16 + lane % 16, chunk = (wn_ * 32 + jj * 16) / 8 + lane / 16;
            uint32_t t[4];
            ldmatrix_x4_trans(t, st + MM_A_BYTES + mm_b_off(k, chunk));
            bfr[2 * jj][0] = t[0];     /* k 0-7,  n 0-7  */
            bfr[2 * jj][1] = t[1];     /* k 8-15, n 0-7  */
            bfr[2 * jj + 1][0] = t[2]; /* k 0-7,  n 8-15 */
            bfr[2 * jj + 1][1] = t[3]; /* k 8-15, n 8-15 */
        }
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 4; j++) mma_16816(acc[i][j], af[i], bfr[j]);
    }
}

/* m16n8 accumulators: c0, c1 at (row lane/4, columns 2*(lane%4) + 0, 1), c2, c3
 * eight rows below. VEC (N % 8 == 0): the pair is 8-byte aligned and both or
 * neither are in range, one float2 store. */
template <bool VEC>
__device__ __forceinline__ void mm_store(float *__restrict__ C, int M, int N, int m0, int n0,
                                         int wm_, int wn_, int lane, const float (&acc)[4][4][4])
{
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int col = n0 + wn_ * 32 + j * 8 + (lane % 4) * 2;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int row = m0 + wm_ * 64 + i * 16 + lane / 4 + h * 8;
                if (row >= M || col >= N) continue;
                float *p = C + (size_t)row * N + col;
                if (VEC) {
                    *(float2 *)p = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                } else {
                    p[0] = acc[i][j][2 * h];
                    if (col + 1 < N) p[1] = acc[i][j][2 * h + 1];
                }
            }
        }
}

#endif /* TC_SM80 */

/* Step 2: load a stage, barrier, compute, barrier. The loads and the math take
 * turns; only other resident blocks (32 KiB each, several per SM) hide the
 * memory latency. */
template <bool VEC>
__global__ void __launch_bounds__(MM_THREADS) gemm_mma_ldmatrix(const uint16_t *__restrict__ A,
                                                                const uint16_t *__restrict__ B,
                                                                float *__restrict__ C, int M,
                                                                int N, int K)
{
#if TC_SM80
    __shared__ __align__(128) uint8_t smem[MM_STAGE_BYTES];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm_ = warp / 4, wn_ = warp % 4;
    const int m0 = blockIdx.y * MM_BM, n0 = blockIdx.x * MM_BN;
    float acc[4][4][4] = {};
    for (int k0 = 0; k0 < K; k0 += MM_BK) {
        mm_load_stage<VEC>(smem, A, B, M, N, K, m0, n0, k0);
        __syncthreads();
        mm_compute_stage(smem_u32(smem), wm_, wn_, lane, acc);
        __syncthreads();
    }
    mm_store<VEC>(C, M, N, m0, n0, wm_, wn_, lane, acc);
#endif
}

/* Step 3: a ring of MM_STAGES stages. STAGES-1 K-steps are requested before
 * the loop; in step kt a thread waits until its copies for step kt have
 * landed (at most STAGES-2 groups still pending), the barrier makes everyone's
 * copies visible and guarantees step kt-1's stage is no longer read, then the
 * copies of step kt+STAGES-1 go into that stage and step kt is computed. A
 * group is committed every step, even an empty one, so the count stays exact.
 * Without VEC the stage is filled through registers instead (same ring, same
 * barriers: correct, not asynchronous). 96 KiB per block: two blocks per SM. */
template <bool VEC>
__global__ void __launch_bounds__(MM_THREADS, 2) gemm_mma_cpasync(const uint16_t *__restrict__ A,
                                                                  const uint16_t *__restrict__ B,
                                                                  float *__restrict__ C, int M,
                                                                  int N, int K)
{
#if TC_SM80
    extern __shared__ __align__(128) uint8_t smem_dyn[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm_ = warp / 4, wn_ = warp % 4;
    const int m0 = blockIdx.y * MM_BM, n0 = blockIdx.x * MM_BN;
    const int nk = CEIL_DIV(K, MM_BK);
    const uint32_t base = smem_u32(smem_dyn);
    float acc[4][4][4] = {};

#pragma unroll
    for (int s = 0; s < MM_STAGES - 1; s++) {
        if (s < nk) {
            if constexpr (VEC)
                mm_load_stage_async(base + s * MM_STAGE_BYTES, A, B, M, N, K, m0, n0, s * MM_BK);
            else
                mm_load_stage<false>(smem_dyn + s * MM_STAGE_BYTES, A, B, M, N, K, m0, n0, s * MM_BK);
        }
        cp_async_commit();
    }
    for (int kt = 0; kt < nk; kt++) {
        cp_async_wait<MM_STAGES - 2>();
        __syncthreads();
        int next = kt + MM_STAGES - 1;
        if (next < nk) {
            int s = next % MM_STAGES;
            if constexpr (VEC)
                mm_load_stage_async(base + s * MM_STAGE_BYTES, A, B, M, N, K, m0, n0, next * MM_BK);
            else
                mm_load_stage<false>(smem_dyn + s * MM_STAGE_BYTES, A, B, M, N, K, m0, n0, next * MM_BK);
        }
        cp_async_commit();
        mm_compute_stage(base + (kt % MM_STAGES) * MM_STAGE_BYTES, wm_, wn_, lane, acc);
    }
    cp_async_wait<0>(); /* nothing may be in flight when the block exits */
    mm_store<VEC>(C, M, N, m0, n0, wm_, wn_, lane, acc);
#endif
}

/* ---- kernels 4 and 5: Hopper, TMA + mbarrier + wgmma ---------------------- */

/* Tiles: BM = 128 rows of A (two warpgroups of 64 rows each), BK = 64 (one
 * 128-byte swizzle row of BF16), BN = 128 or 256. A stage holds A as one TMA
 * box of 128 rows x 64 (16 KiB, K-major) and B as BN/64 boxes of 64 rows (k)
 * x 64 columns (8 KiB each, N-major), every box 1024-byte aligned so that the
 * swizzle pattern TMA writes is the one wgmma reads. */
template <int BN>
struct wg_cfg {
    static constexpr int A_BYTES = TC_BM * TC_BK * 2;                /* 16 KiB */
    static constexpr int B_BOX_BYTES = TC_BK * TC_BOX_COLS * 2;      /* 8 KiB: LBO of B */
    static constexpr int B_BYTES = (BN / TC_BOX_COLS) * B_BOX_BYTES;
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;            /* the expect-tx count */
    static_assert(BN % TC_BOX_COLS == 0, "B is loaded in boxes 64 columns wide");
    static_assert(A_BYTES % 1024 == 0 && B_BOX_BYTES % 1024 == 0, "1024-byte aligned boxes");
};

#if TC_SM90A
/* descriptor strides (bytes): rows of 128 bytes, 8-row groups 1024 apart */
constexpr uint32_t WG_SBO = 1024;
constexpr uint32_t WG_A_LBO = 16; /* unused for a swizzled K-major operand (PTX: "assumed 1") */

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
/* arrive (count 1) and raise the phase's expected transaction bytes: the
 * phase completes when every arrival is in and the TMA copies signalling this
 * barrier have delivered exactly that many bytes */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n.reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return done != 0;
}
__device__ __forceinline__ uint64_t globaltimer_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
/* Wait until the phase with this parity has completed (acquire: the data the
 * phase stands for is visible afterwards). try_wait suspends the thread for a
 * while in hardware; the loop only runs again if the phase is late. */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
    if (mbar_try_wait(bar, parity)) return;
    uint64_t t0 = globaltimer_ns();
    while (!mbar_try_wait(bar, parity))
        if (globaltimer_ns() - t0 > TC_WATCHDOG_NS) __trap();
}
/* make the initialized barriers visible to the other threads and to the
 * async proxy (the TMA unit) before anyone uses them */
__device__ __forceinline__ void fence_barrier_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void tma_prefetch_map(const CUtensorMap *map)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
}
/* One TMA box: the box at element coordinates (c0 = column, c1 = row) of the
 * tensor into shared memory at dst; its bytes are counted on bar. Elements
 * outside the tensor arrive as zeros (and still count). */
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *map, uint32_t bar,
                                            int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
/* After wgmma_wait, tell the compiler the accumulators changed here, so no
 * read of them is moved above the wait (the asm of the wgmma itself is where
 * the compiler believes they were written). */
template <int R>
__device__ __forceinline__ void fence_acc(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}
template <int R>
__device__ __forceinline__ void setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R)); }
template <int R>
__device__ __forceinline__ void setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R)); }

/* wgmma.mma_async m64n128k16, FP32 += BF16 x BF16, both operands from shared memory:
 * d (the 64 accumulators of this thread), A K-major (imm-trans-a 0), B N-major
 * (imm-trans-b 1: B is row-major K x N). scale_d = 0 overwrites d (D = A*B). */
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b, int scale_d)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1, 0, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

/* wgmma.mma_async m64n256k16, FP32 += BF16 x BF16, both operands from shared memory:
 * d (the 128 accumulators of this thread), A K-major (imm-trans-a 0), B N-major
 * (imm-trans-b 1: B is row-major K x N). scale_d = 0 overwrites d (D = A*B). */
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b, int scale_d)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,"
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

template <int BN>
__device__ __forceinline__ void wgmma_tile(float (&d)[BN / 2], uint64_t da, uint64_t db, int scale_d)
{
    if constexpr (BN == 256)
        wgmma_m64n256k16(d, da, db, scale_d);
    else
        wgmma_m64n128k16(d, da, db, scale_d);
}

/* The 4 wgmma of one stage (K = 64 = 4 x 16) for the warpgroup's 64 rows.
 * Moving along K inside the 128-byte rows of A is a start address 32 bytes
 * further (the swizzle is a function of the address, and the box is 1024-byte
 * aligned, so the hardware finds the chunks where TMA put them); 16 rows
 * further down B's k-rows is 2048 bytes. */
template <int BN>
__device__ __forceinline__ void wg_mma_stage(float (&d)[BN / 2], uint32_t a_rows, uint32_t b_stage,
                                             int first)
{
#pragma unroll
    for (int kk = 0; kk < TC_BK / 16; kk++) {
        uint64_t da = tc_wgmma_desc(a_rows + kk * 32, WG_A_LBO, WG_SBO);
        uint64_t db = tc_wgmma_desc(b_stage + kk * 16 * 128, wg_cfg<BN>::B_BOX_BYTES, WG_SBO);
        wgmma_tile<BN>(d, da, db, (first && kk == 0) ? 0 : 1);
    }
}

/* The warpgroup's 64 x BN accumulators to C: element i of thread (warp w, lane
 * l) is row 16w + l/4 + 8*((i/2)%2), column 8*(i/4) + 2*(l%4) + i%2. N is a
 * multiple of 8 here, so each (even column) pair is in or out as a whole and
 * 8-byte aligned: float2 stores, each quad of lanes writing one full 32-byte
 * sector. */
template <int BN>
__device__ __forceinline__ void wg_store(float *__restrict__ C, int M, int N, int row0, int n0,
                                         int warp, int lane, const float (&d)[BN / 2])
{
    const int r = row0 + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < BN / 8; j++) {
        int col = n0 + j * 8 + (lane % 4) * 2;
        if (col < N) {
            if (r < M) *(float2 *)&C[(size_t)r * N + col] = make_float2(d[4 * j], d[4 * j + 1]);
            if (r + 8 < M)
                *(float2 *)&C[(size_t)(r + 8) * N + col] = make_float2(d[4 * j + 2], d[4 * j + 3]);
        }
    }
}

/* Tile order: group this many tile rows together (tc_tile_of). */
constexpr int WG_GROUP_M = 16;
#endif /* TC_SM90A */

/* Step 4: TMA + mbarrier + wgmma, no specialization. Two warpgroups, each
 * 64 x 128 of a 128x128 tile; thread 0 also issues the TMA copies, STAGES-1
 * K-steps ahead. full[s] completes when stage s has its bytes. A
 * __syncthreads after each step is the only way the issuing thread learns
 * that both warpgroups are done with a stage before refilling it. */
template <int STAGES>
__global__ void __launch_bounds__(256, 1) gemm_wgmma_tma(const __grid_constant__ CUtensorMap tmA,
                                                         const __grid_constant__ CUtensorMap tmB,
                                                         float *__restrict__ C, int M, int N, int K)
{
#if TC_SM90A
    constexpr int BN = 128;
    typedef wg_cfg<BN> cfg;
    extern __shared__ uint8_t smem_dyn[];
    __shared__ __align__(8) uint64_t full_bar[STAGES];
    const uint32_t base = (smem_u32(smem_dyn) + 1023u) & ~1023u; /* the launch adds 1 KiB */
    const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
    int tm, tn;
    tc_tile_of(blockIdx.x, CEIL_DIV(M, TC_BM), CEIL_DIV(N, BN), WG_GROUP_M, &tm, &tn);
    const int m0 = tm * TC_BM, n0 = tn * BN, nk = CEIL_DIV(K, TC_BK);
    auto sA = [&](int s) { return base + (uint32_t)s * cfg::A_BYTES; };
    auto sB = [&](int s) { return base + (uint32_t)STAGES * cfg::A_BYTES + (uint32_t)s * cfg::B_BYTES; };
    auto full = [&](int s) { return smem_u32(&full_bar[s]); };
    auto issue = [&](int t) { /* K-step t into stage t % STAGES */
        int s = t % STAGES;
        mbar_arrive_expect_tx(full(s), cfg::STAGE_BYTES);
        tma_load_2d(sA(s), &tmA, full(s), t * TC_BK, m0);
#pragma unroll
        for (int j = 0; j < BN / TC_BOX_COLS; j++)
            tma_load_2d(sB(s) + j * cfg::B_BOX_BYTES, &tmB, full(s), n0 + j * TC_BOX_COLS, t * TC_BK);
    };

    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) mbar_init(full(s), 1);
        fence_barrier_init();
    }
    __syncthreads();
    if (tid == 0) {
        tma_prefetch_map(&tmA);
        tma_prefetch_map(&tmB);
        for (int t = 0; t < STAGES - 1 && t < nk; t++) issue(t);
    }
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++) d[i] = 0.0f; /* scale-d 0 ignores them; no uninitialized reads */
    for (int kt = 0; kt < nk; kt++) {
        /* stage (kt-1) % STAGES was released by the barrier that ended step kt-1 */
        if (tid == 0 && kt + STAGES - 1 < nk) issue(kt + STAGES - 1);
        const int s = kt % STAGES;
        mbar_wait(full(s), (kt / STAGES) & 1);
        __syncwarp();
        wgmma_fence();
        wg_mma_stage<BN>(d, sA(s) + wg * 64 * 128, sB(s), kt == 0);
        wgmma_commit();
        wgmma_wait<0>();
        __syncthreads();
    }
    fence_acc(d);
    wg_store<BN>(C, M, N, m0 + wg * 64, n0, warp, lane, d);
#endif
}

/* Step 5: warp specialization. Warpgroup 0 is the producer: it gives most of
 * its registers away (setmaxnreg.dec to 40) and one of its threads runs ahead
 * issuing TMA copies into a ring of STAGES stages, waiting only for a stage's
 * empty barrier. Warpgroups 1 and 2 are consumers (setmaxnreg.inc to 232:
 * 64 x 256 FP32 accumulators are 128 registers a thread): each waits for a
 * stage's full barrier, issues its 4 wgmma, and releases the stage it used one
 * step earlier once wgmma.wait_group(1) says those wgmma are done, so the
 * tensor cores always have the next group queued. Register budget of a block:
 * 384 threads x 168 at launch = 128 x 40 + 256 x 232.
 *
 * Barriers, per stage s and use n = g / STAGES of it (g counts K-steps across
 * tiles): full[s] (count 1: the producer's arrive.expect_tx, plus the bytes)
 * completes phase n when the data of K-step g is in; consumers wait on parity
 * n & 1. empty[s] (count 8: lane 0 of each of the 8 consumer warps) completes
 * phase n when use n is read; the producer waits on it (parity n & 1) before
 * use n + 1. Neither barrier can run two phases ahead of a waiter: each phase
 * needs the waiter's own arrive on the other barrier first.
 *
 * PERSISTENT: a grid of one block per SM (or grid_limit, in the checks) loops
 * over tiles t = blockIdx.x, + gridDim.x, ...; the producer fills the next
 * tile's stages while the consumers store this tile's results. */
template <int BN, int STAGES, bool PERSISTENT>
__global__ void __launch_bounds__(384, 1) gemm_wgmma_ws(const __grid_constant__ CUtensorMap tmA,
                                                        const __grid_constant__ CUtensorMap tmB,
                                                        float *__restrict__ C, int M, int N, int K)
{
#if TC_SM90A
    typedef wg_cfg<BN> cfg;
    extern __shared__ uint8_t smem_dyn[];
    __shared__ __align__(8) uint64_t full_bar[STAGES], empty_bar[STAGES];
    const uint32_t base = (smem_u32(smem_dyn) + 1023u) & ~1023u;
    const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
    const int tiles_m = CEIL_DIV(M, TC_BM), tiles_n = CEIL_DIV(N, BN);
    const int ntiles = tiles_m * tiles_n, nk = CEIL_DIV(K, TC_BK);
    const int step = PERSISTENT ? (int)gridDim.x : ntiles;
    auto sA = [&](int s) { return base + (uint32_t)s * cfg::A_BYTES; };
    auto sB = [&](int s) { return base + (uint32_t)STAGES * cfg::A_BYTES + (uint32_t)s * cfg::B_BYTES; };
    auto full = [&](int s) { return smem_u32(&full_bar[s]); };
    auto empty = [&](int s) { return smem_u32(&empty_bar[s]); };

    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(full(s), 1);
            mbar_init(empty(s), 8);
        }
        fence_barrier_init();
    }
    __syncthreads();

    if (wg == 0) { /* producer */
        setmaxnreg_dec<40>();
        if (tid == 0) {
            tma_prefetch_map(&tmA);
            tma_prefetch_map(&tmB);
            int g = 0;
            for (int t = blockIdx.x; t < ntiles; t += step) {
                int tm, tn;
                tc_tile_of(t, tiles_m, tiles_n, WG_GROUP_M, &tm, &tn);
                const int m0 = tm * TC_BM, n0 = tn * BN;
                for (int kt = 0; kt < nk; kt++, g++) {
                    const int s = g % STAGES, n = g / STAGES;
                    if (n > 0) mbar_wait(empty(s), (n - 1) & 1); /* use n-1 read by all */
                    mbar_arrive_expect_tx(full(s), cfg::STAGE_BYTES);
                    tma_load_2d(sA(s), &tmA, full(s), kt * TC_BK, m0);
#pragma unroll
                    for (int j = 0; j < BN / TC_BOX_COLS; j++)
                        tma_load_2d(sB(s) + j * cfg::B_BOX_BYTES, &tmB, full(s), n0 + j * TC_BOX_COLS,
                                    kt * TC_BK);
                }
            }
        }
    } else { /* consumers: warpgroup c = wg - 1 owns rows 64c .. 64c+63 of each tile */
        setmaxnreg_inc<232>();
        const int c = wg - 1;
        float d[BN / 2];
#pragma unroll
        for (int i = 0; i < BN / 2; i++) d[i] = 0.0f;
        int g = 0;
        for (int t = blockIdx.x; t < ntiles; t += step) {
            int tm, tn;
            tc_tile_of(t, tiles_m, tiles_n, WG_GROUP_M, &tm, &tn);
            const int m0 = tm * TC_BM, n0 = tn * BN;
            for (int kt = 0; kt < nk; kt++, g++) {
                const int s = g % STAGES;
                mbar_wait(full(s), (g / STAGES) & 1);
                __syncwarp();
                wgmma_fence();
                wg_mma_stage<BN>(d, sA(s) + c * 64 * 128, sB(s), kt == 0);
                wgmma_commit();
                wgmma_wait<1>(); /* K-step g-1's wgmma are done: its stage is free */
                if (kt > 0 && lane == 0) mbar_arrive(empty((g - 1) % STAGES));
            }
            wgmma_wait<0>();
            if (lane == 0) mbar_arrive(empty((g - 1) % STAGES));
            fence_acc(d);
            wg_store<BN>(C, M, N, m0 + c * 64, n0, warp, lane, d);
        }
    }
#endif
}

/* ---- launchers ------------------------------------------------------------ */

typedef struct {
    int M, N, K;
    const uint16_t *A, *B; /* BF16 bits, row-major */
    float *C;
    cublasHandle_t blas;
    CUtensorMap tmA, tmB;  /* over A and B, built when the TMA variants can run */
    int sm_count;
    int grid_limit;        /* persistent kernels: 0 = one block per SM */
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

static void run_mma_ldmatrix(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, MM_BN), CEIL_DIV(x->M, MM_BM));
    if (vec_ok(x))
        gemm_mma_ldmatrix<true><<<grid, MM_THREADS, 0, s>>>(x->A, x->B, x->C, x->M, x->N, x->K);
    else
        gemm_mma_ldmatrix<false><<<grid, MM_THREADS, 0, s>>>(x->A, x->B, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

/* Over 48 KiB of dynamic shared memory needs an opt-in per kernel. */
static void allow_smem(const void *kernel, size_t bytes)
{
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
}

static void run_mma_cpasync(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    const size_t smem = (size_t)MM_STAGES * MM_STAGE_BYTES;
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_mma_cpasync<true>, smem);
        allow_smem((const void *)gemm_mma_cpasync<false>, smem);
        opted_in = 1;
    }
    dim3 grid(CEIL_DIV(x->N, MM_BN), CEIL_DIV(x->M, MM_BM));
    if (vec_ok(x))
        gemm_mma_cpasync<true><<<grid, MM_THREADS, smem, s>>>(x->A, x->B, x->C, x->M, x->N, x->K);
    else
        gemm_mma_cpasync<false><<<grid, MM_THREADS, smem, s>>>(x->A, x->B, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

/* Dynamic shared memory of a TMA kernel: the stages plus 1 KiB, so the kernel
 * can round its base up to the 1024-byte alignment the swizzle needs. */
template <int BN>
static size_t wg_smem_bytes(int stages)
{
    return (size_t)stages * wg_cfg<BN>::STAGE_BYTES + 1024;
}

constexpr int WGT_STAGES = 4; /* wgmma_tma: 4 x 32 KiB */
constexpr int WS_STAGES = 4;  /* wgmma_ws: 4 x 32 or 4 x 48 KiB */

static void run_wgmma_tma(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    const size_t smem = wg_smem_bytes<128>(WGT_STAGES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_wgmma_tma<WGT_STAGES>, smem);
        opted_in = 1;
    }
    int tiles = CEIL_DIV(x->M, TC_BM) * CEIL_DIV(x->N, 128);
    gemm_wgmma_tma<WGT_STAGES><<<tiles, 256, smem, s>>>(x->tmA, x->tmB, x->C, x->M, x->N, x->K);
    CHECK_LAUNCH();
}

template <int BN, bool PERSISTENT>
static void run_wgmma_ws(void *p, cudaStream_t s)
{
    gemm_ctx *x = (gemm_ctx *)p;
    const size_t smem = wg_smem_bytes<BN>(WS_STAGES);
    static int opted_in = 0;
    if (!opted_in) {
        allow_smem((const void *)gemm_wgmma_ws<BN, WS_STAGES, PERSISTENT>, smem);
        opted_in = 1;
    }
    int tiles = CEIL_DIV(x->M, TC_BM) * CEIL_DIV(x->N, BN);
    int grid = tiles;
    if (PERSISTENT) {
        int limit = x->grid_limit > 0 ? x->grid_limit : x->sm_count;
        grid = tiles < limit ? tiles : limit;
    }
    gemm_wgmma_ws<BN, WS_STAGES, PERSISTENT><<<grid, 384, smem, s>>>(x->tmA, x->tmB, x->C, x->M,
                                                                     x->N, x->K);
    CHECK_LAUNCH();
}

/* ---- variant table -------------------------------------------------------- */

typedef struct {
    const char *name;
    timed_fn run;
    int is_ref;     /* cuBLAS: the reference, always run */
    int hopper;     /* needs sm_90a and a TMA shape (N, K multiples of 8) */
    int persistent; /* also checked on a 2-block grid (every block loops) */
    const char *tile;
    const char *what;
} variant;

static const variant variants[] = {
    {"cublas", run_cublas, 1, 0, 0, "library",
     "cublasGemmEx, BF16 in, CUBLAS_COMPUTE_32F, FP32 out: the reference"},
    {"wmma", run_wmma, 0, 0, 0, "128x128x32, 8 warps of 64x32",
     "WMMA 16x16x16 fragments from padded shared memory"},
    {"mma_ldmatrix", run_mma_ldmatrix, 0, 0, 0, "128x128x64, 8 warps of 64x32",
     "mma.sync m16n8k16, operands by ldmatrix from 128B-swizzled tiles"},
    {"mma_cpasync", run_mma_cpasync, 0, 0, 0, "128x128x64, 3 stages, 2 blocks/SM",
     "the same fed by a 3-stage cp.async pipeline"},
    {"wgmma_tma", run_wgmma_tma, 0, 1, 0, "128x128x64, 4 stages, 2 warpgroups",
     "TMA + mbarrier, wgmma m64n128k16 from shared memory (sm_90a)"},
    {"wgmma_ws_128x128", run_wgmma_ws<128, false>, 0, 1, 0,
     "128x128x64, 4 stages, 1 producer + 2 consumer warpgroups",
     "warp-specialized: TMA producer, wgmma consumers, setmaxnreg (sm_90a)"},
    {"wgmma_ws_128x256", run_wgmma_ws<256, false>, 0, 1, 0,
     "128x256x64, 4 stages, 1 producer + 2 consumer warpgroups",
     "the same with 64x256 per consumer (m64n256k16) (sm_90a)"},
    {"wgmma_ws_persistent", run_wgmma_ws<256, true>, 0, 1, 1,
     "128x256x64, 4 stages, one block per SM",
     "persistent: next tile's loads overlap this tile's stores (sm_90a)"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options -------------------------------------------------------------- */

static long long opt_m = 8192, opt_n = 8192, opt_k = 8192;
static const char *opt_variant = "all";
static char variant_choices[512];
static char help_notes[4096];

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
                 "The wgmma variants need an sm_90a build and a Hopper GPU (else WAIVED), and N, K\n"
                 "multiples of 8 (TMA row strides are multiples of 16 bytes).\n"
                 "Checks: CPU (double) at small odd shapes with integer inputs (exact), random\n"
                 "BF16 inputs (|diff| <= gamma_K * sum|a||b|) and identity x pattern inputs; then\n"
                 "at MxNxK against cuBLAS in full and the CPU at 4096 sampled elements.\n"
                 "--quick checks the small shapes only and times 257x264x200.\n");
}

/* ---- checks ----------------------------------------------------------------- */

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
                      int box_rows)
{
    tc_tmap t;
    char err[256];
    if (tc_tmap_rowmajor(rows, cols, box_rows, TC_BOX_COLS, &t, err, sizeof err) != 0) {
        report_fail("tensor map: %s", err);
        exit(report_finish());
    }
    cuuint64_t dims[2] = {t.dim[0], t.dim[1]};
    cuuint64_t strides[1] = {t.stride_bytes};
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
        make_tmap(b, &x->tmA, A, M, K, TC_BM);
        make_tmap(b, &x->tmB, B, K, N, TC_BK);
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
                  p->a_kind == TC_DATA_IDENT || p->b_kind == TC_DATA_IDENT};
    gemm_ctx *x = &b->ctx;
    set_problem(b, x, p->M, p->N, p->K, b->d_A, b->d_B, b->d_C);
    for (int v = 0; v < N_VARIANTS; v++) {
        if (!wanted[v] || !runnable(b, &variants[v], p->N, p->K)) continue;
        for (int tiny = 0; tiny <= variants[v].persistent; tiny++) {
            char what[160];
            snprintf(what, sizeof what, "%s(%dx%dx%d, %s x %s%s, ref=cpu)", variants[v].name, p->M,
                     p->N, p->K, tc_data_name(p->a_kind), tc_data_name(p->b_kind),
                     tiny ? ", 2-block grid" : "");
            x->grid_limit = tiny ? 2 : 0;
            size_t bad = run_into_host(b, &variants[v], x, b->h_out, what);
            bad += tc_compare(what, b->h_out, p->M, p->N, &ref);
            if (bad) ok_v[v] = 0;
        }
        x->grid_limit = 0;
    }
}

/* Every wanted variant at the main shape: integer inputs first (cuBLAS must
 * agree with the CPU exactly at 4096 sampled elements; every variant must
 * equal cuBLAS everywhere), then the random BF16 inputs that are timed
 * (cuBLAS and every variant within the bound of the CPU at the samples, every
 * variant within 2 gamma_K S of cuBLAS everywhere, S = |A||B| from cuBLAS). */
static void check_main_shape(gemm_bufs *b, int M, int N, int K)
{
    const int nsamples = 4096;
    const tc_data kinds[2] = {TC_DATA_INT, TC_DATA_REAL};
    gemm_ctx *x = &b->ctx;
    const size_t nc = (size_t)M * N;
    for (int d = 0; d < 2; d++) {
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
        tc_ref ref = {NULL, b->h_ref, NULL, NULL, 0.0, 0};
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
            upload_problem(b, &p); /* h_A, h_B back to the signed values for the samples */
        }
        set_problem(b, x, M, N, K, b->d_A, b->d_B, b->d_C);
        for (int v = 1; v < N_VARIANTS; v++) {
            if (!wanted[v] || !runnable(b, &variants[v], N, K)) continue;
            snprintf(what, sizeof what, "%s(%dx%dx%d, %s, ref=cublas)", variants[v].name, M, N, K,
                     tc_data_name(kinds[d]));
            size_t bad = run_into_host(b, &variants[v], x, b->h_out, what);
            bad += tc_compare(what, b->h_out, M, N, &ref);
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
        {257, 264, 200, TC_DATA_INT, TC_DATA_INT},   /* --quick stops here (7) */
        {555, 777, 333, TC_DATA_INT, TC_DATA_INT},   {1000, 1000, 1000, TC_DATA_INT, TC_DATA_INT},
        {2100, 2200, 136, TC_DATA_INT, TC_DATA_INT}, /* 17 x 9 tiles of 128x256: more than one wave */
    };
    static const problem patterns[] = {
        {192, 264, 192, TC_DATA_IDENT, TC_DATA_PATTERN}, /* C = B: every B value in place */
        {192, 264, 264, TC_DATA_PATTERN, TC_DATA_IDENT}, /* C = A */
    };
    const int n_shapes = o.quick ? 7 : (int)(sizeof shapes / sizeof shapes[0]);
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
                "= %.3g at K=%d (2x against cuBLAS); integer inputs: exact",
                tc_bound_factor(K), K);
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

    /* 1. Small problems against the CPU. */
    for (int i = 0; i < n_shapes; i++) {
        problem p = shapes[i];
        check_against_cpu(&b, &p);
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

    /* 4. Time at the main shape on random BF16 inputs, the reference first so
     * every pct_ref is from this run. */
    problem mainp = {M, N, K, TC_DATA_REAL, TC_DATA_REAL};
    upload_problem(&b, &mainp);
    set_problem(&b, &b.ctx, M, N, K, b.d_A, b.d_B, b.d_C);
    double ref_gflops = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        if (!wanted[v]) continue;
        rec_begin(&r, var->name);
        rec_int(&r, "m", M);
        rec_int(&r, "n", N);
        rec_int(&r, "k", K);
        if (!device_ok(&b, var)) {
            rec_str(&r, "status", "WAIVED");
            rec_str(&r, "reason", var->hopper ? "needs_sm90a" : "needs_sm80");
            rec_emit(&r);
            continue;
        }
        if (var->hopper && !main_tma_ok) {
            rec_str(&r, "status", "WAIVED");
            rec_str(&r, "reason", "tma_needs_n_k_multiple_of_8");
            rec_emit(&r);
            continue;
        }
        if (!ok_v[v]) {
            rec_str(&r, "status", "FAIL");
            rec_emit(&r);
            continue;
        }
        char range[64];
        snprintf(range, sizeof range, "tensorCoreGemm/%s", var->name);
        timing_cfg tc = timing_defaults(reps);
        tc.nvtx_name = range;
        timing_stats t;
        time_gpu(var->run, &b.ctx, &tc, &t);
        sync_or_fail(var->name);
        double gflops = tc_gflops(M, N, K, t.median_ms);
        if (var->is_ref) ref_gflops = gflops;
        rec_str(&r, "status", "PASS");
        /* pct_peak against the dense BF16 tensor-core rate (0: unknown architecture) */
        rec_perf(&r, t.median_ms, "gflops", gflops, dev.peak_bf16_gflops, "cublas", ref_gflops);
        rec_num(&r, "min_ms", t.min_ms);
        rec_emit(&r);
    }

    CUBLAS_CHECK(cublasDestroy(b.ctx.blas));
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
