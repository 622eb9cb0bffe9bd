// kgate-task: vector_add
// planted defect: none (grid-stride loop, bounds-checked, on the given stream)
#include <cuda_runtime.h>

__global__ void vadd_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c[i] = a[i] + b[i];
}

extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)
{
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    if (blocks > 8192) blocks = 8192;
    vadd_kernel<<<blocks, threads, 0, stream>>>(a, b, c, n);
}
