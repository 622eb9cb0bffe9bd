/* kernels/05_blocktile_1d_32x32x32.cuh: 1D register blocking, the kernel of
 * variants blocktile_1d_32x32x32, blocktile_1d_64x64x32 and blocktile_1d.
 *
 * Block tile BM x BN, K-step BK; each thread computes TM outputs of one
 * column, keeping them in registers. One shared load of B is reused for TM
 * FMAs, so shared-memory traffic per FMA drops by about TM/2 (smem_tile32:
 * two shared loads per FMA). The tiles are loaded by a loop over the block's
 * threads (BM * BK elements of A, BK * BN of B, NT threads).
 *  - blocktile_1d_32x32x32, from smem_tile32, one change: 8 outputs of a
 *    column per thread (TM = 8), in the same 32x32 tile with the same K-step
 *    of 32: 128 threads instead of 1024. Global traffic is unchanged; shared
 *    loads per FMA drop from 2 to about 9/8. Measured: 8479 -> 15914
 *    GFLOP/s, +87.7%, 31.07% of cuBLAS.
 *  - blocktile_1d_64x64x32, one change: the block tile grows to 64x64 (512
 *    threads): half the global loads per FMA, predicted a gain. Measured:
 *    11748 GFLOP/s, -26.2%, 22.93% of cuBLAS: slower; why was not measured.
 *  - blocktile_1d (64x64x8), one change: a K-step of 8 instead of 32 (a
 *    quarter of the shared memory, 4 KiB per tile pair, four times the
 *    barriers), predicted about the same. Measured: 11684 GFLOP/s, -0.5%,
 *    22.81% of cuBLAS.
 * Figures at 4096^3: results/H200/history/3865df4/matrixMul.txt, commit 3865df4.
 */
#pragma once
#include "00_load_store.cuh"

template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__(BM *BN / TM)
    mm_blocktile_1d(int M, int N, int K, float alpha, const float *__restrict__ A,
                    const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = BM * BN / TM;
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int t = threadIdx.x;
    const int tcol = t % BN, trow = t / BN; /* rows trow*TM .. +TM-1 of the tile */
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM] = {};
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
            float b = Bs[k][tcol];
#pragma unroll
            for (int i = 0; i < TM; i++) acc[i] += As[trow * TM + i][k] * b;
        }
        __syncthreads();
    }
    int col = col0 + tcol;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int row = row0 + trow * TM + i;
        if (row < M && col < N) {
            size_t j = (size_t)row * N + col;
            C[j] = axpby(acc[i], alpha, beta, C + j);
        }
    }
}
