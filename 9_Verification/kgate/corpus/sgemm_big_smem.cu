// kgate-task: sgemm
// planted defect: asks for 128 KiB of dynamic shared memory without cudaFuncSetAttribute: every launch fails
#include <cuda_runtime.h>

#define BM 128
#define BK 128

__global__ void sgemm_panel(const float* A, const float* B, float* C, int M, int N, int K)
{
    extern __shared__ float smem[];          // BM x BK panel of A, then BK x 128 of B
    float* As = smem;
    float* Bs = smem + BM * BK;
    int row = blockIdx.y * BM + threadIdx.y * 8, col = blockIdx.x * 128 + threadIdx.x;
    float acc[8] = {0};
    for (int t = 0; t < K; t += BK) {
        for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < BM * BK; i += blockDim.x * blockDim.y) {
            int r = i / BK, k = i % BK;
            int gr = blockIdx.y * BM + r, gk = t + k;
            As[i] = (gr < M && gk < K) ? A[(size_t)gr * K + gk] : 0.0f;
            int gc = blockIdx.x * 128 + (i % 128), bk = t + i / 128;
            Bs[i] = (bk < K && gc < N) ? B[(size_t)bk * N + gc] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < BK; k++)
            for (int j = 0; j < 8; j++) acc[j] += As[(threadIdx.y * 8 + j) * BK + k] * Bs[k * 128 + threadIdx.x];
        __syncthreads();
    }
    for (int j = 0; j < 8; j++)
        if (row + j < M && col < N) C[(size_t)(row + j) * N + col] = acc[j];
}

extern "C" void launch(const float* A, const float* B, float* C, int M, int N, int K,
                       cudaStream_t stream)
{
    size_t smem = (BM * BK + BK * 128) * sizeof(float);   // 128 KiB
    dim3 block(128, 16), grid((N + 127) / 128, (M + BM - 1) / BM);
    sgemm_panel<<<grid, block, smem, stream>>>(A, B, C, M, N, K);
}
