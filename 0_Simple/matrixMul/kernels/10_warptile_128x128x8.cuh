/* kernels/10_warptile_128x128x8.cuh: register-staged double buffering, the
 * kernel of variants warptile_128x128x8, warptile_128x64x8,
 * warptile_128x128x16 and warptile_128x128x16_1blk.
 *
 * warptile_128x128x8, from warp_layout, one change: two copies of each
 * shared tile. While the block computes on one, the next K-step's float4
 * global loads are already in flight into registers, and are stored to the
 * other copy after the compute. One barrier per K-step is enough: the buffer
 * written in step t was last read in step t-1, before that step's closing
 * barrier. __launch_bounds__(NT, MINB) caps registers so MINB blocks fit on
 * an SM: 128 per thread for two 256-thread blocks (warp_layout already ran
 * two blocks per SM at 111). Predicted: a gain, the loads hidden. Measured
 * at 4096^3: +0.8%, 38962 GFLOP/s, 76.06% of cuBLAS: little was left to hide.
 * The others, one change each:
 *  - warptile_128x64x8, from warptile_128x128x8: a 128x64 block tile (128
 *    threads, 3 blocks per SM). Measured: -12.9%, 66.23% of cuBLAS at
 *    4096^3, and about 49% at the two smaller grids (wave quantization:
 *    README).
 *  - warptile_128x128x16, from warptile_128x128x8: BK = 16, half the
 *    barriers per FMA, still capped at 128 registers for two blocks per SM:
 *    the prefetch registers no longer fit and ptxas spills
 *    (./ptxas_table.sh). Predicted: slower or the same, the spills costing
 *    what the barriers save. Measured: 42003 GFLOP/s, 81.99% of cuBLAS,
 *    +7.8%: faster, spills and all.
 *  - warptile_128x128x16_1blk, from warptile_128x128x16: the cap lifted
 *    (MINB = 1): 147 registers, no spills, one block per SM. Predicted: a
 *    small gain. Measured: 40862 GFLOP/s, 79.77% of cuBLAS, -2.7%: slower;
 *    why was not measured.
 * Figures: results/H200/history/3865df4/matrixMul.txt, commit 3865df4.
 */
#pragma once
#include "00_load_store.cuh"
#include "00_register_tiles.cuh"
#include "00_warp_tile.cuh"

template <int BM, int BN, int BK, int MINB>
__global__ void __launch_bounds__((BM / WT_M) * (BN / WT_N) * 32, MINB)
    mm_warptile(int M, int N, int K, float alpha, const float *__restrict__ A,
                const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = (BM / WT_M) * (BN / WT_N) * 32;
    constexpr int LDA = BM + 4, LDB = BN;
    static_assert(BM % WT_M == 0 && BN % WT_N == 0, "block tile is whole warp tiles");
    static_assert(BM * BK % (4 * NT) == 0 && BN * BK % (4 * NT) == 0, "tile loads");
    __shared__ __align__(16) float As[2][BK * LDA];
    __shared__ __align__(16) float Bs[2][BK * LDB];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = warp / (BN / WT_N), wn = warp % (BN / WT_N);
    const int am = wm * WT_M + (lane / 4) * 4, bn = wn * WT_N + (lane % 4) * 4;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool a_vec = (K % 4) == 0, b_vec = (N % 4) == 0;
    const int ntiles = CEIL_DIV(K, BK);
    float acc[8][8] = {};
    float4 ra[BM * BK / 4 / NT], rb[BN * BK / 4 / NT];

    load_a_regs<BM, BK, NT>(ra, A, M, K, row0, 0, a_vec);
    load_b_regs<BN, BK, NT>(rb, B, K, N, 0, col0, b_vec);
    store_a_smem<BM, BK, NT, LDA>(ra, As[0]);
    store_b_smem<BN, BK, NT, LDB>(rb, Bs[0]);
    __syncthreads();
    for (int kt = 0; kt < ntiles; kt++) {
        const int cur = kt & 1;
        const bool more = kt + 1 < ntiles;
        if (more) { /* issue the next step's global loads before computing */
            load_a_regs<BM, BK, NT>(ra, A, M, K, row0, (kt + 1) * BK, a_vec);
            load_b_regs<BN, BK, NT>(rb, B, K, N, (kt + 1) * BK, col0, b_vec);
        }
        warp_tile_compute<BK, LDA, LDB, 2, 2>(As[cur], Bs[cur], am, bn, acc);
        if (more) {
            store_a_smem<BM, BK, NT, LDA>(ra, As[cur ^ 1]);
            store_b_smem<BN, BK, NT, LDB>(rb, Bs[cur ^ 1]);
        }
        __syncthreads();
    }
    warp_tile_store<2, 2>(C, M, N, row0 + am, col0 + bn, acc, alpha, beta, b_vec);
}
