/* kernels/03_smem_tile32.cuh, variants smem_tile32 (TILE = 32) and
 * smem_tile16 (TILE = 16). From coalesced (32x32 threads, one output each),
 * one change: shared-memory tiles.
 *
 * Each block computes a TILE x TILE tile of C. Per step of TILE along K, the
 * block loads one tile of A and one of B into shared memory (each thread one
 * element of each, coalesced, zero outside the matrix), and every thread then
 * reads TILE elements of each from shared memory: global loads drop by a
 * factor TILE. Two barriers per step:
 *   (1) after the stores to shared memory: a thread reads elements other
 *       threads stored, so all of them must have landed before anyone computes;
 *   (2) after the compute: the next step's stores overwrite the tiles, so
 *       everyone must have finished reading them first. Remove it and a fast
 *       warp overwrites data a slow warp still needs (racecheck reports it).
 * This is the kernel of NVIDIA's matrixMul sample and of most textbooks: the
 * loads sit at the top of the loop, so every thread waits for its two global
 * loads (hundreds of cycles) before the barrier, with nothing to overlap.
 * Measured at 4096^3 (results/H200/history/3865df4/matrixMul.txt, commit 3865df4):
 * smem_tile32 5755 -> 8479 GFLOP/s, +47.3% over coalesced, 16.55% of cuBLAS;
 * smem_tile16 (from smem_tile32, one change: TILE = 16, a quarter of the
 * threads per block and twice the global loads per FMA) 8121 GFLOP/s, -4.2%.
 */
#pragma once
#include "00_load_store.cuh"

template <int TILE>
__global__ void __launch_bounds__(TILE *TILE)
    mm_smem(int M, int N, int K, float alpha, const float *__restrict__ A,
            const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.f;
        __syncthreads(); /* (1) the tiles are complete */
#pragma unroll
        for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
        __syncthreads(); /* (2) nobody reads them any more */
    }
    if (row < M && col < N) {
        size_t i = (size_t)row * N + col;
        C[i] = axpby(acc, alpha, beta, C + i);
    }
}
