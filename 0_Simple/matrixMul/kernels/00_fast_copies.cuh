/* kernels/00_fast_copies.cuh: the tile copies of unchecked_* and pipe_*.
 *
 * Every copy of cp_async_tile (00_cp_async.cuh) tests its row, column and k
 * against M, N and K and computes its own 64-bit address (about 15
 * instructions per copy). A block whose tile lies wholly inside C (all but
 * the last row and column of blocks) and whose N % 4 == 0 needs no test at
 * all except in the last K-step when K % BK != 0: such blocks copy through
 * pipe_copy_fast (one address computed, the others a fixed stride away), the
 * others (and that last K-step) through pipe_copy_checked; pipe_issue picks
 * one, a choice uniform across the block, so it costs one branch per K-step.
 *
 * The copies of A take four rows by eight consecutive k per warp instruction
 * (one 32-byte sector per row), which with rows of BM + 4 floats puts a
 * warp's 32 transposing stores in 32 different banks at any BK. At BK = 8
 * this is the map cp_async_tile uses too; at BK = 16 cp_async_tile takes two
 * rows by 16 k (k and k+8 share a bank: 2-way conflicts).
 */
#pragma once
#include "00_cp_async.cuh"

/* The copies of one K-step into one stage. A: chunk c (a warp instruction)
 * is 4 rows x 8 consecutive k, one 32-byte sector per row; thread t copies
 * chunks warp, warp + NW, ... which lie ROWS_APART rows apart in the same 8
 * k. Stores: the 32 lanes write As[k][r] for 8 k x 4 r, banks (4k + r) % 32
 * (LDA % 32 == 4): all different. B: float4s along rows, as in
 * cp_async_tile. */
template <int BM, int BN, int BK, int NT>
struct pipe_copy_map {
    static constexpr int NW = NT / 32, KO = BK / 8;
    static constexpr int ROWS_APART = 4 * NW / KO, B_ROWS_APART = NT / (BN / 4);
    static_assert(NW % KO == 0 && NT % (BN / 4) == 0, "a thread's copies lie a fixed stride apart");
};

/* Every element exists and N % 4 == 0: one address is computed, the others
 * are a fixed stride away (no tests, no multiplies). */
template <int BM, int BN, int BK, int NT, int LDA, int LDB>
__device__ __forceinline__ void pipe_copy_fast(float *As, float *Bs, const float *__restrict__ A,
                                               const float *__restrict__ B, int N, int K,
                                               int row0, int col0, int k0)
{
    typedef pipe_copy_map<BM, BN, BK, NT> map;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int ra = (warp / map::KO) * 4 + lane / 8, ka = (warp % map::KO) * 8 + lane % 8;
    const int rb = threadIdx.x / (BN / 4), nq = (threadIdx.x % (BN / 4)) * 4;
    const float *a = A + (size_t)(row0 + ra) * K + (k0 + ka);
    const size_t a_step = (size_t)map::ROWS_APART * K;
#pragma unroll
    for (int i = 0; i < BM * BK / NT; i++, a += a_step)
        cp_async4(&As[ka * LDA + ra + i * map::ROWS_APART], a, true);
    const float *b = B + (size_t)(k0 + rb) * N + (col0 + nq);
    const size_t b_step = (size_t)map::B_ROWS_APART * N;
#pragma unroll
    for (int i = 0; i < BN * BK / 4 / NT; i++, b += b_step)
        cp_async16(&Bs[(rb + i * map::B_ROWS_APART) * LDB + nq], b, true);
}

/* The same copies with each element tested and zero-filled when outside. */
template <int BM, int BN, int BK, int NT, int LDA, int LDB>
__device__ __forceinline__ void pipe_copy_checked(float *As, float *Bs,
                                                  const float *__restrict__ A,
                                                  const float *__restrict__ B, int M, int N,
                                                  int K, int row0, int col0, int k0, bool b_vec)
{
    typedef pipe_copy_map<BM, BN, BK, NT> map;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int ra = (warp / map::KO) * 4 + lane / 8, ka = (warp % map::KO) * 8 + lane % 8;
    const int rb = threadIdx.x / (BN / 4), nq = (threadIdx.x % (BN / 4)) * 4;
#pragma unroll
    for (int i = 0; i < BM * BK / NT; i++) {
        const int r = ra + i * map::ROWS_APART;
        const bool ok = row0 + r < M && k0 + ka < K;
        cp_async4(&As[ka * LDA + r], ok ? A + (size_t)(row0 + r) * K + k0 + ka : A, ok);
    }
#pragma unroll
    for (int i = 0; i < BN * BK / 4 / NT; i++) {
        const int r = rb + i * map::B_ROWS_APART;
        const int kr = k0 + r, n = col0 + nq;
        if (b_vec) { /* N % 4 == 0: a float4 is all in range or all out */
            const bool ok = kr < K && n < N;
            cp_async16(&Bs[r * LDB + nq], ok ? B + (size_t)kr * N + n : B, ok);
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const bool ok = kr < K && n + e < N;
                cp_async4(&Bs[r * LDB + nq + e], ok ? B + (size_t)kr * N + n + e : B, ok);
            }
        }
    }
}

/* K-step `tile` into one stage, through the unchecked path where it may. */
template <int BM, int BN, int BK, int NT, int LDA, int LDB>
__device__ __forceinline__ void pipe_issue(float *stage, const float *__restrict__ A,
                                           const float *__restrict__ B, int M, int N, int K,
                                           int row0, int col0, int tile, int nfull,
                                           bool interior, bool b_vec)
{
    float *As = stage, *Bs = stage + BK * LDA;
    if (interior && tile < nfull)
        pipe_copy_fast<BM, BN, BK, NT, LDA, LDB>(As, Bs, A, B, N, K, row0, col0, tile * BK);
    else
        pipe_copy_checked<BM, BN, BK, NT, LDA, LDB>(As, Bs, A, B, M, N, K, row0, col0,
                                                    tile * BK, b_vec);
}
