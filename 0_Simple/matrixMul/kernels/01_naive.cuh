/* kernels/01_naive.cuh, variant naive: one thread per element of C.
 *
 * The starting point. threadIdx.x runs down a column of C (row = x index),
 * so the 32 threads of a warp read 32 different rows of A (32 separate
 * memory transactions per load) and write 32 different rows of C. Only the
 * load of B is shared: all lanes read the same element.
 * Measured at 4096^3: 498.3 GFLOP/s, 0.97% of cuBLAS
 * (results/H200/history/3865df4/matrixMul.txt, commit 3865df4).
 */
#pragma once
#include "00_load_store.cuh"

__global__ void mm_naive(int M, int N, int K, float alpha, const float *__restrict__ A,
                         const float *__restrict__ B, float beta, float *__restrict__ C)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; k++) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        size_t i = (size_t)row * N + col;
        C[i] = axpby(acc, alpha, beta, C + i);
    }
}
