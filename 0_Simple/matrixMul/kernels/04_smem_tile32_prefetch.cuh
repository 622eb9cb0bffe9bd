/* kernels/04_smem_tile32_prefetch.cuh, variant smem_tile32_prefetch. From
 * smem_tile32, one change: the next K-step's loads are in flight during the
 * FMAs.
 *
 * The global loads of the next step are issued right after barrier (1),
 * into two registers, so their latency hides behind this step's TILE FMAs
 * instead of stalling every thread at the top of the loop; the registers are
 * stored to shared memory at the top of the next step. (The addresses walk
 * along K as two pointers instead of being recomputed: the same elements.)
 * Predicted: faster by the share of time smem_tile32 spends waiting on its
 * loads.
 * Measured on the H200 (4096^3, experiments/tile32_ab.cu, 2026-11-29), in
 * results/H200/matrixMul_tile32_ab.txt, commit 10393d1: loads at the top of
 * the loop 8.48 TFLOP/s, with this prefetch 9.97; as the variants of this
 * sample (results/H200/history/3865df4/matrixMul.txt, commit 3865df4): 8479 -> 9968
 * GFLOP/s, +17.6%, 19.46% of cuBLAS (+6.2% at 2048^3:
 * results/H200/history/3865df4/matrixMul__m_2048_n_2048_k_2048.txt, commit 3865df4).
 * The steps after this one start again from smem_tile32 (loads at the top).
 */
#pragma once
#include "00_load_store.cuh"

template <int TILE>
__global__ void __launch_bounds__(TILE *TILE)
    mm_smem_prefetch(int M, int N, int K, float alpha, const float *__restrict__ A,
                     const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    /* This thread's element of the A tile is (row, k0+tx), of the B tile
     * (k0+ty, col); the pointers walk along K. Edge threads may point past
     * the matrices; they only dereference elements that exist. */
    const float *a = A + (size_t)row * K + tx;
    const float *b = B + (size_t)ty * N + col;
    float a_next = (row < M && tx < K) ? *a : 0.f;
    float b_next = (ty < K && col < N) ? *b : 0.f;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = a_next;
        Bs[ty][tx] = b_next;
        __syncthreads(); /* (1) the tiles are complete */
        a += TILE;
        b += (size_t)TILE * N;
        int k1 = k0 + TILE; /* prefetch the next step's elements (zero past K) */
        a_next = (row < M && k1 + tx < K) ? *a : 0.f;
        b_next = (k1 + ty < K && col < N) ? *b : 0.f;
#pragma unroll
        for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
        __syncthreads(); /* (2) nobody reads them any more */
    }
    if (row < M && col < N) {
        size_t i = (size_t)row * N + col;
        C[i] = axpby(acc, alpha, beta, C + i);
    }
}
