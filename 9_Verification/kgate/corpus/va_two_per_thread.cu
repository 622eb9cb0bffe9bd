// kgate-task: vector_add
// planted defect: none (two coalesced elements per thread (i and i + blockDim.x), one pass)
#include <cuda_runtime.h>

#define THREADS 256

__global__ void vadd2(const float* __restrict__ a, const float* __restrict__ b,
                      float* __restrict__ c, int n)
{
    long long base = (long long)blockIdx.x * (2 * THREADS) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < 2; k++) {
        long long i = base + k * THREADS;
        if (i < n) c[i] = a[i] + b[i];
    }
}

extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)
{
    int blocks = (int)(((long long)n + 2 * THREADS - 1) / (2 * THREADS));
    if (blocks < 1) blocks = 1;
    vadd2<<<blocks, THREADS, 0, stream>>>(a, b, c, n);
}
