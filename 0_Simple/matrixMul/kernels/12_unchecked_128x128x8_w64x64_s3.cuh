/* kernels/12_unchecked_128x128x8_w64x64_s3.cuh, variant
 * unchecked_128x128x8_w64x64_s3. From cpasync_128x128x8_w64x64_s3, one
 * change: blocks whose tile lies inside C copy without bounds tests.
 *
 * The loop is cpasync's; only the copies change (00_fast_copies.cuh): a
 * block whose tile lies wholly inside C, with N % 4 == 0, copies each
 * K-step but a partial last one through pipe_copy_fast (one address
 * computed, the others a fixed stride away: no tests, no multiplies), every
 * other block and K-step through pipe_copy_checked, which tests each element
 * as cp_async_tile did (at BK = 8 with the same copy map). What the
 * cpasync_* loop spends outside the FMAs, read from its SASS
 * (cpasync_128x128x16_s3: 1409 instructions per K-step for 1024 FMAs, a
 * static count: cuobjdump -sass, nvcc 13.0, sm_90), is largely this: every
 * copy tests its row, column and k and computes its own 64-bit address
 * (about 15 instructions per copy). An H200 scheduler issues one instruction
 * per cycle and does one warp-wide FMA per cycle, so every other
 * instruction takes an FMA's slot. Predicted: a gain, the share of those
 * instructions in the K-step. Measured at 4096^3 (results/H200/history/3865df4/matrixMul.txt, commit 3865df4):
 * 41936 GFLOP/s, 81.86% of cuBLAS, +5.9%.
 */
#pragma once
#include "00_load_store.cuh"
#include "00_warp_tile.cuh"
#include "00_cp_async.cuh"
#include "00_fast_copies.cuh"

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)
    mm_unchecked(int M, int N, int K, float alpha, const float *__restrict__ A,
                 const float *__restrict__ B, float beta, float *__restrict__ C)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    constexpr int NT = cfg::NT, LDA = cfg::LDA, LDB = cfg::LDB;
    constexpr int SUB_M = cfg::SUB_M, SUB_N = cfg::SUB_N;
    static_assert(STAGES >= 2, "at least double buffering");
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 32 == 0 && WN % 16 == 0,
                  "block tile is whole warp tiles, warp tile is whole 4x4 sub-blocks");
    static_assert(BK % 8 == 0 && BM % 32 == 0 && BM * BK % NT == 0 && BN * BK % (4 * NT) == 0,
                  "A copies in chunks of 4 rows x 8 k, B copies in float4s; LDA % 32 == 4");
    extern __shared__ __align__(16) float smem[];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = warp / cfg::WARPS_N, wn = warp % cfg::WARPS_N;
    const int am = wm * WM + (lane / 4) * 4, bn = wn * WN + (lane % 4) * 4;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool b_vec = (N % 4) == 0;
    const bool interior = b_vec && row0 + BM <= M && col0 + BN <= N;
    const int ntiles = CEIL_DIV(K, BK), nfull = K / BK;
    float acc[SUB_M * 4][SUB_N * 4] = {};

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ntiles)
            pipe_issue<BM, BN, BK, NT, LDA, LDB>(smem + s * cfg::STAGE_FLOATS, A, B, M, N, K,
                                                 row0, col0, s, nfull, interior, b_vec);
        cp_async_commit();
    }
    for (int kt = 0; kt < ntiles; kt++) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        int next = kt + STAGES - 1;
        if (next < ntiles)
            pipe_issue<BM, BN, BK, NT, LDA, LDB>(smem + (next % STAGES) * cfg::STAGE_FLOATS, A, B,
                                                 M, N, K, row0, col0, next, nfull, interior,
                                                 b_vec);
        cp_async_commit();
        const float *st = smem + (kt % STAGES) * cfg::STAGE_FLOATS;
        warp_tile_compute<BK, LDA, LDB, SUB_M, SUB_N>(st, st + cfg::A_FLOATS, am, bn, acc);
    }
    cp_async_wait<0>(); /* nothing may be in flight when the block exits */
    warp_tile_store<SUB_M, SUB_N>(C, M, N, row0 + am, col0 + bn, acc, alpha, beta, b_vec);
}
