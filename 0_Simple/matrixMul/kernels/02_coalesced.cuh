/* kernels/02_coalesced.cuh, variant coalesced. From naive, one change: the
 * mapping of threads to outputs.
 *
 * The same arithmetic; threadIdx.x now walks along a row of C (col from x,
 * row from y; the launcher's grid swaps to match), so a warp reads 32
 * consecutive floats of B (one 128-byte line), broadcasts one element of A,
 * and writes 32 consecutive floats of C. Predicted: about 10x (a warp's 32
 * transactions per load become one).
 * Measured at 4096^3: 498.3 -> 5755 GFLOP/s, x11.5, 11.23% of cuBLAS
 * (results/H200/history/3865df4/matrixMul.txt, commit 3865df4).
 */
#pragma once
#include "00_load_store.cuh"

__global__ void mm_coalesced(int M, int N, int K, float alpha, const float *__restrict__ A,
                             const float *__restrict__ B, float beta, float *__restrict__ C)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; k++) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        size_t i = (size_t)row * N + col;
        C[i] = axpby(acc, alpha, beta, C + i);
    }
}
