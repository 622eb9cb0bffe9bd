/* kernels/11_cpasync_128x128x8_s2.cuh: the warp tiling fed by a cp.async
 * pipeline (00_cp_async.cuh), the kernel of variants cpasync_128x128x8_s2,
 * cpasync_128x128x8_s3, cpasync_128x128x16_s2, cpasync_128x128x16_s3 and
 * cpasync_128x128x8_w64x64_s3.
 *
 * The pipeline: STAGES-1 K-steps are requested before the loop; in step kt
 * the thread waits until at most STAGES-2 groups are pending (so step kt has
 * landed), the barrier makes every thread's copies visible and guarantees
 * that step kt-1's stage is no longer being read, then the copies of step
 * kt+STAGES-1 are issued into that stage and the block computes step kt. A
 * group is committed every iteration, even empty, so the count stays exact.
 * WM x WN is the warp tile; MINB blocks per SM bound the registers.
 *
 * cpasync_128x128x8_s2, from warptile_128x128x8, one change: the next
 * K-step's tiles travel by cp.async straight into shared memory instead of
 * through registers (two stages: the same double buffering, one barrier per
 * K-step). Predicted: about the same, the loads were already hidden.
 * Measured: 38308 GFLOP/s, 74.78% of cuBLAS, -1.7%: about the same,
 * slightly slower. The others, one change each (results/H200/history/3865df4/matrixMul.txt, commit 3865df4, 4096^3):
 *  - cpasync_128x128x8_s3, from cpasync_128x128x8_s2: 3 stages, two K-steps
 *    in flight. Measured: 37883 GFLOP/s, 73.95% of cuBLAS, -1.1%.
 *  - cpasync_128x128x16_s2, from cpasync_128x128x8_s2: BK = 16, half the
 *    barriers per FMA. Measured: 40892 GFLOP/s, 79.83% of cuBLAS, +6.7%.
 *  - cpasync_128x128x16_s3, from cpasync_128x128x16_s2: 3 stages. Measured:
 *    -0.6%, 79.31% of cuBLAS.
 *  - cpasync_128x128x8_w64x64_s3, from cpasync_128x128x8_s3: 64x64 warp
 *    tiles: 8x16 outputs per lane, 128 threads, 204 registers (two blocks
 *    per SM: 8 warps instead of 16). Per k a lane does 128 FMAs for 6 shared
 *    loads instead of 64 for 4, and the tile copies are shared by half as
 *    many threads, but this loop's address arithmetic stays (74% of its
 *    instructions are FMAs instead of 72%) and half as many warps hide the
 *    latencies. Predicted: a small gain. Measured: +4.5%, 39598 GFLOP/s,
 *    77.30% of cuBLAS.
 */
#pragma once
#include "00_load_store.cuh"
#include "00_warp_tile.cuh"
#include "00_cp_async.cuh"

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)
    mm_cpasync(int M, int N, int K, float alpha, const float *__restrict__ A,
               const float *__restrict__ B, float beta, float *__restrict__ C)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    constexpr int NT = cfg::NT, LDA = cfg::LDA, LDB = cfg::LDB;
    constexpr int SUB_M = cfg::SUB_M, SUB_N = cfg::SUB_N;
    static_assert(STAGES >= 2, "at least double buffering");
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 32 == 0 && WN % 16 == 0,
                  "block tile is whole warp tiles, warp tile is whole 4x4 sub-blocks");
    static_assert(BM * BK % NT == 0 && BN * BK % (4 * NT) == 0, "tile loads");
    extern __shared__ __align__(16) float smem[];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = warp / cfg::WARPS_N, wn = warp % cfg::WARPS_N;
    const int am = wm * WM + (lane / 4) * 4, bn = wn * WN + (lane % 4) * 4;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool b_vec = (N % 4) == 0;
    const int ntiles = CEIL_DIV(K, BK);
    float acc[SUB_M * 4][SUB_N * 4] = {};

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ntiles) {
            float *st = smem + s * cfg::STAGE_FLOATS;
            cp_async_tile<BM, BN, BK, NT, LDA, LDB>(st, st + cfg::A_FLOATS, A, B, M, N, K, row0,
                                                    col0, s * BK, b_vec);
        }
        cp_async_commit();
    }
    for (int kt = 0; kt < ntiles; kt++) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        int next = kt + STAGES - 1;
        if (next < ntiles) {
            float *st = smem + (next % STAGES) * cfg::STAGE_FLOATS;
            cp_async_tile<BM, BN, BK, NT, LDA, LDB>(st, st + cfg::A_FLOATS, A, B, M, N, K, row0,
                                                    col0, next * BK, b_vec);
        }
        cp_async_commit();
        const float *st = smem + (kt % STAGES) * cfg::STAGE_FLOATS;
        warp_tile_compute<BK, LDA, LDB, SUB_M, SUB_N>(st, st + cfg::A_FLOATS, am, bn, acc);
    }
    cp_async_wait<0>(); /* nothing may be in flight when the block exits */
    warp_tile_store<SUB_M, SUB_N>(C, M, N, row0 + am, col0 + bn, acc, alpha, beta, b_vec);
}
