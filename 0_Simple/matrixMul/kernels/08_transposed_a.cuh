/* kernels/08_transposed_a.cuh, the kernel of variants transposed_a (PAD = 0)
 * and padded_a (PAD = 4).
 *
 * transposed_a, from vec_global_loads, one change: A is stored transposed in
 * shared memory, As[k][m], so the 8 values of A a thread needs for one k are
 * contiguous: two float4 shared loads per k. The loads from global memory
 * are unchanged; the store to shared memory becomes four 4-byte stores (a
 * float4 of 4 consecutive k lands in 4 different rows of As). The shared
 * loads were already 16 bytes wide (see vec_global_loads) and their count
 * does not change; what changes is how long their values live. From As[m][k]
 * the unrolled loop loads all 8 k of a thread's 8 rows at once (64 registers
 * held through the K-step); from As[k][m] it needs the 8 values of one k at
 * a time: 109 registers instead of 130 (ptxas_table.sh), so two 256-thread
 * blocks fit on an SM instead of one (16 warps instead of 8 to hide
 * latency). The transposing stores cost 3 more instructions per thread per
 * K-step, and two threads (the two float4s of one row of A) hit the same
 * bank. Predicted: a gain, from the occupancy. Measured at 4096^3: +56.8%,
 * 22299 -> 34964 GFLOP/s, 68.25% of cuBLAS.
 *
 * padded_a, from transposed_a, one change: rows of BM + 4 floats shift each
 * k-row by 4 banks, so those stores are conflict-free. Predicted: a few
 * percent at most. Measured at 4096^3: +1.2%, 35385 GFLOP/s, 69.08% of
 * cuBLAS. (padded_a is the kernel that was called `vectorized`.)
 * Both figures: results/H200/history/3865df4/matrixMul.txt, commit 3865df4.
 */
#pragma once
#include "00_load_store.cuh"
#include "00_register_tiles.cuh"

template <int BM, int BN, int BK, int PAD>
__global__ void __launch_bounds__((BM / 8) * (BN / 8))
    mm_transposed(int M, int N, int K, float alpha, const float *__restrict__ A,
                  const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = (BM / 8) * (BN / 8);
    constexpr int LDA = BM + PAD, LDB = BN;
    static_assert(BM * BK % (4 * NT) == 0 && BN * BK % (4 * NT) == 0, "tile loads");
    static_assert(PAD % 4 == 0, "rows stay 16-byte aligned for the float4 loads");
    __shared__ __align__(16) float As[BK * LDA];
    __shared__ __align__(16) float Bs[BK * LDB];
    const int t = threadIdx.x;
    const int tcol = t % (BN / 8), trow = t / (BN / 8);
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
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float4 a0 = *reinterpret_cast<const float4 *>(&As[k * LDA + trow * 8]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[k * LDA + trow * 8 + 4]);
            float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k * LDB + tcol * 8]);
            float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k * LDB + tcol * 8 + 4]);
            const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
            outer_product<8, 8>(acc, a, b);
        }
        __syncthreads();
    }
    thread_tile_store(C, M, N, row0 + trow * 8, col0 + tcol * 8, acc, alpha, beta, b_vec);
}
