/* kernels/06_blocktile_2d_64x64x8.cuh: 2D register blocking, the kernel of
 * variants blocktile_2d_64x64x8 and blocktile_2d.
 *
 * Each thread computes a TM x TN block as outer products: per k it loads TM
 * values of A and TN of B into registers and does TM*TN FMAs (64 FMAs for 16
 * shared loads at 8x8, against 1 FMA per 2 loads in smem_tile32).
 *  - blocktile_2d_64x64x8, from blocktile_1d (64x64x8), one change: an 8x8
 *    block per thread instead of 8x1: 64 threads instead of 512, a value of
 *    A now feeds 8 FMAs too. Measured: 11684 -> 21262 GFLOP/s, +82.0%,
 *    41.51% of cuBLAS.
 *  - blocktile_2d (128x128x8), one change: the block tile grows to 128x128
 *    (256 threads): half the global loads per FMA, predicted a gain.
 *    Measured: 16209 GFLOP/s, -23.8%, 31.64% of cuBLAS: slower; why was not
 *    measured (README, register blocking).
 * Figures at 4096^3: results/H200/history/3865df4/matrixMul.txt, commit 3865df4.
 */
#pragma once
#include "00_load_store.cuh"

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    mm_blocktile_2d(int M, int N, int K, float alpha, const float *__restrict__ A,
                    const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = (BM / TM) * (BN / TN);
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int t = threadIdx.x;
    const int tcol = t % (BN / TN), trow = t / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    float ra[TM], rb[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = t; i < BM * BK; i += NT) {
            int r = i / BK, c = i % BK;
            As[r][c] = (row0 + r < M && k0 + c < K) ? A[(size_t)(row0 + r) * K + k0 + c] : 0.f;
        }
        for (int i = t; i < BK * BN; i += NT) {
            int r = i / BN, c = i % BN;
            Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(size_t)(k0 + r) * N + col0 + c] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
#pragma unroll
            for (int i = 0; i < TM; i++) ra[i] = As[trow * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; j++) rb[j] = Bs[k][tcol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int row = row0 + trow * TM + i;
        if (row >= M) continue;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int col = col0 + tcol * TN + j;
            if (col < N) {
                size_t q = (size_t)row * N + col;
                C[q] = axpby(acc[i][j], alpha, beta, C + q);
            }
        }
    }
}
