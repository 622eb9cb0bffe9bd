/* kernels/09_warp_layout.cuh, variant warp_layout. From padded_a, one change:
 * which outputs a lane owns (64x32 warp tiles, 00_warp_tile.cuh, instead of a
 * contiguous 8x8 block per thread).
 *
 * Same loads, same single-buffered loop with two barriers. Predicted: each
 * load of B goes from 4 wavefronts to 1. In a model where an SM's shared
 * memory serves one 128-byte wavefront per cycle to its 4 schedulers,
 * padded_a needs 10 wavefronts per warp per k (2 for A, 8 for B) against 64
 * FMA cycles, so shared memory is busy ~62% of the time at full FMA rate;
 * warp_layout needs 4 (~25%). A clear gain where that pipe was a bottleneck.
 * Measured at 4096^3: +9.3%, 35385 -> 38668 GFLOP/s, 75.49% of cuBLAS
 * (results/H200/history/3865df4/matrixMul.txt, commit 3865df4).
 */
#pragma once
#include "00_load_store.cuh"
#include "00_register_tiles.cuh"
#include "00_warp_tile.cuh"

template <int BM, int BN, int BK>
__global__ void __launch_bounds__((BM / WT_M) * (BN / WT_N) * 32)
    mm_warp_layout(int M, int N, int K, float alpha, const float *__restrict__ A,
                   const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = (BM / WT_M) * (BN / WT_N) * 32;
    constexpr int LDA = BM + 4, LDB = BN;
    static_assert(BM % WT_M == 0 && BN % WT_N == 0, "block tile is whole warp tiles");
    static_assert(BM * BK % (4 * NT) == 0 && BN * BK % (4 * NT) == 0, "tile loads");
    __shared__ __align__(16) float As[BK * LDA];
    __shared__ __align__(16) float Bs[BK * LDB];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = warp / (BN / WT_N), wn = warp % (BN / WT_N);
    const int am = wm * WT_M + (lane / 4) * 4, bn = wn * WT_N + (lane % 4) * 4;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool a_vec = (K % 4) == 0, b_vec = (N % 4) == 0;
    float acc[8][8] = {};
    float4 ra[BM * BK / 4 / NT], rb[BN * BK / 4 / NT];
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_a_regs<BM, BK, NT>(ra, A, M, K, row0, k0, a_vec);
        load_b_regs<BN, BK, NT>(rb, B, K, N, k0, col0, b_vec);
        store_a_smem<BM, BK, NT, LDA>(ra, As);
        store_b_smem<BN, BK, NT, LDB>(rb, Bs);
        __syncthreads();
        warp_tile_compute<BK, LDA, LDB, 2, 2>(As, Bs, am, bn, acc);
        __syncthreads();
    }
    warp_tile_store<2, 2>(C, M, N, row0 + am, col0 + bn, acc, alpha, beta, b_vec);
}
