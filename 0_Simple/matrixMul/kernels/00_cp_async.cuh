/* kernels/00_cp_async.cuh: cp.async (sm_80+), global -> shared copies that
 * bypass registers, for cpasync_*, unchecked_* and pipe_*; the stage layout
 * of their shared-memory ring; and the checked tile copies of cpasync_*.
 *
 * B goes in 16-byte copies (zero-filled past the edge through the src-size
 * operand); A is copied element by element (4 bytes) into its transposed
 * place, because cp.async cannot transpose a 16-byte vector. On older
 * architectures the helpers fall back to ordinary loads, which keeps the
 * kernels correct everywhere.
 */
#pragma once
#include "00_load_store.cuh"

__device__ __forceinline__ void cp_async4(float *smem, const float *gmem, bool valid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(valid ? 4 : 0));
#else
    *smem = valid ? *gmem : 0.f;
#endif
}

__device__ __forceinline__ void cp_async16(float *smem, const float *gmem, bool valid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(valid ? 16 : 0));
#else
    *reinterpret_cast<float4 *>(smem) =
        valid ? *reinterpret_cast<const float4 *>(gmem) : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}

__device__ __forceinline__ void cp_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

template <int N_PENDING>
__device__ __forceinline__ void cp_async_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N_PENDING));
#endif
}

/* Issue the copies of K-step k0 into one stage. Out-of-range elements are
 * zero-filled (src-size 0) and point at the matrix base, a valid address. */
template <int BM, int BN, int BK, int NT, int LDA, int LDB>
__device__ __forceinline__ void cp_async_tile(float *As, float *Bs, const float *__restrict__ A,
                                              const float *__restrict__ B, int M, int N, int K,
                                              int row0, int col0, int k0, bool b_vec)
{
#pragma unroll
    for (int i = 0; i < BM * BK / NT; i++) {
        int idx = threadIdx.x + i * NT;
        int r = idx / BK, k = idx % BK; /* a warp reads 32 consecutive k: coalesced */
        bool ok = row0 + r < M && k0 + k < K;
        cp_async4(&As[k * LDA + r], ok ? A + (size_t)(row0 + r) * K + k0 + k : A, ok);
    }
#pragma unroll
    for (int i = 0; i < BN * BK / 4 / NT; i++) {
        int idx = threadIdx.x + i * NT;
        int r = idx / (BN / 4), nq = (idx % (BN / 4)) * 4;
        int kr = k0 + r, n = col0 + nq;
        if (b_vec) { /* N % 4 == 0: a float4 is all in range or all out */
            bool ok = kr < K && n < N;
            cp_async16(&Bs[r * LDB + nq], ok ? B + (size_t)kr * N + n : B, ok);
        } else {
#pragma unroll
            for (int c = 0; c < 4; c++) {
                bool ok = kr < K && n + c < N;
                cp_async4(&Bs[r * LDB + nq + c], ok ? B + (size_t)kr * N + n + c : B, ok);
            }
        }
    }
}

/* Sizes of a warp-tiled kernel with a STAGES-deep shared-memory pipeline
 * (cpasync_*, unchecked_*, pipe_*): threads, sub-blocks per lane, stage
 * layout. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES>
struct wt_cfg {
    static constexpr int WARPS_N = BN / WN;
    static constexpr int NT = (BM / WM) * WARPS_N * 32;
    static constexpr int SUB_M = WM / 32, SUB_N = WN / 16;
    static constexpr int LDA = BM + 4, LDB = BN;
    static constexpr int A_FLOATS = BK * LDA; /* a stage: As[BK][LDA], then Bs[BK][LDB] */
    static constexpr int STAGE_FLOATS = BK * LDA + BK * LDB;
    static constexpr size_t SMEM_BYTES = (size_t)STAGES * STAGE_FLOATS * sizeof(float);
};
