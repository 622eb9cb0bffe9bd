// kgate-task: sgemm
// planted defect: 32x32 shared-memory tiles with one output per thread: correct, but far below 50% of cuBLAS
#include <cuda_runtime.h>

#define T 32

__global__ void sgemm_tiled(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[T][T], Bs[T][T];
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < K; t += T) {
        int ak = t + threadIdx.x, bk = t + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[(size_t)row * K + ak] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[(size_t)bk * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

extern "C" void launch(const float* A, const float* B, float* C, int M, int N, int K,
                       cudaStream_t stream)
{
    dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
    sgemm_tiled<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
