/* kernels/07_vec_global_loads.cuh, variant vec_global_loads. From
 * blocktile_2d, one change: global memory is read and written in float4s.
 *
 * The same tile (128x128x8, 8x8 per thread), the same shared layouts As[m][k]
 * and Bs[k][n], the same compute loop. Each thread loads its share of a tile
 * as one 16-byte load of A and one of B (blocktile_2d: four scalar loads of
 * each, every one with its own index arithmetic and bounds test) and stores
 * it to shared memory with one 16-byte store; C is written as float4s too.
 * The compute loop was already vectorized by the compiler in blocktile_2d:
 * its SASS reads shared memory with LDS.128 (the 8 k of a row of As, and 8
 * consecutive n of Bs, are contiguous and the k loop is unrolled), so what
 * blocktile_2d wastes is in the loads: its loop body is 899 instructions for
 * 512 FMAs and 32 shared loads, this one's 612 (static counts, cuobjdump
 * -sass, nvcc 13.0, sm_90). Predicted: a large gain from the instruction
 * count alone. Measured at 4096^3 (results/H200/history/3865df4/matrixMul.txt, commit 3865df4):
 * +37.6%, 16209 -> 22299 GFLOP/s, 43.53% of cuBLAS (4.9% faster than
 * blocktile_2d_64x64x8, the fastest kernel before it).
 */
#pragma once
#include "00_load_store.cuh"
#include "00_register_tiles.cuh"

template <int BM, int BN, int BK>
__global__ void __launch_bounds__((BM / 8) * (BN / 8))
    mm_vec_global(int M, int N, int K, float alpha, const float *__restrict__ A,
                  const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = (BM / 8) * (BN / 8);
    static_assert(BM * BK % (4 * NT) == 0 && BN * BK % (4 * NT) == 0, "tile loads");
    __shared__ __align__(16) float As[BM * BK]; /* As[m][k], as in blocktile_2d */
    __shared__ __align__(16) float Bs[BK * BN];
    const int t = threadIdx.x;
    const int tcol = t % (BN / 8), trow = t / (BN / 8);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool a_vec = (K % 4) == 0, b_vec = (N % 4) == 0;
    float acc[8][8] = {};
    float4 ga[BM * BK / 4 / NT], gb[BN * BK / 4 / NT];
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_a_regs<BM, BK, NT>(ga, A, M, K, row0, k0, a_vec);
        load_b_regs<BN, BK, NT>(gb, B, K, N, k0, col0, b_vec);
        store_a_smem_rows<BM, BK, NT>(ga, As);
        store_b_smem<BN, BK, NT, BN>(gb, Bs);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[8], b[8];
#pragma unroll
            for (int i = 0; i < 8; i++) a[i] = As[(trow * 8 + i) * BK + k];
#pragma unroll
            for (int j = 0; j < 8; j++) b[j] = Bs[k * BN + tcol * 8 + j];
            outer_product<8, 8>(acc, a, b);
        }
        __syncthreads();
    }
    thread_tile_store(C, M, N, row0 + trow * 8, col0 + tcol * 8, acc, alpha, beta, b_vec);
}
