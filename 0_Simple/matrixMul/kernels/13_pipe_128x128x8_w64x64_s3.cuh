/* kernels/13_pipe_128x128x8_w64x64_s3.cuh: a pipelined main loop, the kernel
 * of every pipe_* variant.
 *
 * pipe_128x128x8_w64x64_s3, from unchecked_128x128x8_w64x64_s3, one change:
 * the fragments of k+1 are loaded from shared memory while the FMAs of k
 * issue. In unchecked_*, as in cpasync_*, the barrier comes right before the
 * first shared loads of a K-step, so every warp stalls on their latency;
 * here the wait and barrier sit inside the last k of a step, before the FMAs
 * of that k, so the first fragments of the next step are in flight while
 * those FMAs issue (two register sets, fa/fb[k & 1] and [(k+1) & 1]). (The
 * block index also goes through mm_tile_of, mm_host.h, on a 1D grid: at
 * GROUP_M = 1 that is the order of the 2D grid before, row by row; the _g8
 * variants change it.) In an interior block a K-step (128x128x8, 64x64) is
 * about 1140 instructions for 1024 FMAs (90%), cpasync_128x128x8_w64x64_s3's
 * 1390 (74%), static counts again. Two 128-thread blocks fit per SM at up
 * to 255 registers (ptxas_table.sh: no spills). Predicted: the best pipe_*
 * variants within ~10% of cuBLAS. Measured at 4096^3
 * (results/H200/history/3865df4/matrixMul.txt, commit 3865df4): 45964 GFLOP/s, 89.73% of cuBLAS,
 * +9.6% over unchecked_128x128x8_w64x64_s3 (+16.1% over
 * cpasync_128x128x8_w64x64_s3, with the unchecked copies).
 *
 * The others change one parameter of pipe_128x128x8_w64x64_s3 (measured in
 * the same run, 4096^3):
 *  - pipe_128x128x8_w64x32_s3: 64x32 warp tiles (256 threads): -3.1%,
 *    86.91% of cuBLAS.
 *  - pipe_128x128x8_w64x64_s4: 4 stages: +0.1%.
 *  - pipe_128x128x16_w64x64_s3: BK = 16: -4.9%; pipe_128x128x16_w64x64_s4,
 *    from it, 4 stages: -0.1%.
 *  - pipe_128x256x8_w64x64_s3: a 128x256 block tile, one 256-thread block
 *    per SM: +1.2%, 90.84% of cuBLAS, the best variant at all three shapes
 *    (91.14% at 2048^3: results/H200/history/3865df4/matrixMul__m_2048_n_2048_k_2048.txt, commit 3865df4;
 *    91.36% at 4096x1024x8192: results/H200/history/3865df4/matrixMul__m_4096_n_1024_k_8192.txt, commit 3865df4);
 *    pipe_128x256x16_w64x64_s3, from it, BK = 16: -3.1%.
 *  - pipe_256x128x8_w64x64_s3: a 256x128 block tile: -3.3%.
 *  - pipe_128x128x8_w64x64_s3_g8: GROUP_M = 8, blocks in bands of 8 tile
 *    rows so that blocks running at the same time share panels of A and B
 *    in the L2; predicted: little at these sizes (a wave of 264 blocks at
 *    4096^3 already covers 8 whole tile rows). Measured: -4.5%, not
 *    explained; pipe_128x128x16_w64x64_s3_g8, the same from
 *    pipe_128x128x16_w64x64_s3: +0.5%.
 */
#pragma once
#include "00_load_store.cuh"
#include "00_warp_tile.cuh"
#include "00_cp_async.cuh"
#include "00_fast_copies.cuh"
#include "../mm_host.h"

/* The loop, for K-step kt (stage kt % STAGES):
 *   issue the copies of step kt+STAGES-1 into the stage step kt-1 used
 *     (every thread finished reading it before the barrier that ended kt-1);
 *   for k < BK: load the fragments of k+1 (two register sets, fa/fb[k & 1]
 *     and [(k+1) & 1]), then the FMAs of k; at k = BK-1, first wait for
 *     step kt+1's copies (at most STAGES-2 groups pending: groups are
 *     committed once per step, even empty) and the barrier, then load the
 *     fragments of step kt+1, k = 0, then the FMAs of k = BK-1.
 * One barrier per K-step. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB, int GROUP_M>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)
    mm_pipelined(int M, int N, int K, float alpha, const float *__restrict__ A,
                 const float *__restrict__ B, float beta, float *__restrict__ C)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    constexpr int NT = cfg::NT, LDA = cfg::LDA, LDB = cfg::LDB;
    constexpr int SUB_M = cfg::SUB_M, SUB_N = cfg::SUB_N, TM = SUB_M * 4, TN = SUB_N * 4;
    static_assert(STAGES >= 2, "at least double buffering");
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 32 == 0 && WN % 16 == 0,
                  "block tile is whole warp tiles, warp tile is whole 4x4 sub-blocks");
    static_assert(BK % 8 == 0 && BM % 32 == 0 && BM * BK % NT == 0 && BN * BK % (4 * NT) == 0,
                  "A copies in chunks of 4 rows x 8 k, B copies in float4s; LDA % 32 == 4");
    extern __shared__ __align__(16) float smem[];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = warp / cfg::WARPS_N, wn = warp % cfg::WARPS_N;
    const int am = wm * WM + (lane / 4) * 4, bn = wn * WN + (lane % 4) * 4;
    int tile_m, tile_n;
    mm_tile_of(blockIdx.x, CEIL_DIV(M, BM), CEIL_DIV(N, BN), GROUP_M, &tile_m, &tile_n);
    const int row0 = tile_m * BM, col0 = tile_n * BN;
    const bool b_vec = (N % 4) == 0;
    const bool interior = b_vec && row0 + BM <= M && col0 + BN <= N;
    const int ntiles = CEIL_DIV(K, BK), nfull = K / BK;
    float acc[TM][TN] = {};
    float fa[2][TM], fb[2][TN];

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ntiles)
            pipe_issue<BM, BN, BK, NT, LDA, LDB>(smem + s * cfg::STAGE_FLOATS, A, B, M, N, K,
                                                 row0, col0, s, nfull, interior, b_vec);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    load_fragments<LDA, LDB, SUB_M, SUB_N>(smem, smem + cfg::A_FLOATS, 0, am, bn, fa[0], fb[0]);
    int rd = 0, wr = STAGES - 1; /* stage being read, stage being written */
    for (int kt = 0; kt < ntiles; kt++) {
        if (kt + STAGES - 1 < ntiles)
            pipe_issue<BM, BN, BK, NT, LDA, LDB>(smem + wr * cfg::STAGE_FLOATS, A, B, M, N, K,
                                                 row0, col0, kt + STAGES - 1, nfull, interior,
                                                 b_vec);
        cp_async_commit();
        const float *st = smem + rd * cfg::STAGE_FLOATS;
        rd = rd + 1 == STAGES ? 0 : rd + 1;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
        const float *st_next = smem + rd * cfg::STAGE_FLOATS;
#pragma unroll
        for (int k = 0; k < BK; k++) {
            if (k < BK - 1) {
                load_fragments<LDA, LDB, SUB_M, SUB_N>(st, st + cfg::A_FLOATS, k + 1, am, bn,
                                                       fa[(k + 1) & 1], fb[(k + 1) & 1]);
            } else {
                cp_async_wait<STAGES - 2>(); /* step kt+1 has landed (this thread's copies) */
                __syncthreads();             /* ... everyone's, and stage kt is read out */
                if (kt + 1 < ntiles)
                    load_fragments<LDA, LDB, SUB_M, SUB_N>(st_next, st_next + cfg::A_FLOATS, 0,
                                                           am, bn, fa[(k + 1) & 1],
                                                           fb[(k + 1) & 1]);
            }
            outer_product<TM, TN>(acc, fa[k & 1], fb[k & 1]);
        }
    }
    cp_async_wait<0>(); /* only empty groups can be pending here, but leave none */
    warp_tile_store<SUB_M, SUB_N>(C, M, N, row0 + am, col0 + bn, acc, alpha, beta, b_vec);
}
