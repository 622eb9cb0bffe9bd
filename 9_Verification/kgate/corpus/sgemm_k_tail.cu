// kgate-task: sgemm
// planted defect: the tile loop runs K / 16 times: the last K % 16 products are dropped
#include <cuda_runtime.h>

#define TS 16

__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float sA[TS][TS], sB[TS][TS];
    int row = blockIdx.y * TS + threadIdx.y, col = blockIdx.x * TS + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < K / TS; t++) {
        sA[threadIdx.y][threadIdx.x] = row < M ? A[(size_t)row * K + t * TS + threadIdx.x] : 0.0f;
        sB[threadIdx.y][threadIdx.x] = col < N ? B[(size_t)(t * TS + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TS; k++) sum += sA[threadIdx.y][k] * sB[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = sum;
}

extern "C" void launch(const float* A, const float* B, float* C, int M, int N, int K,
                       cudaStream_t stream)
{
    dim3 block(TS, TS), grid((N + TS - 1) / TS, (M + TS - 1) / TS);
    matmul<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
