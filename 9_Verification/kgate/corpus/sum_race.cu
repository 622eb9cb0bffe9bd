// kgate-task: sum_reduce
// planted defect: no __syncthreads() between the steps of the shared-memory tree: threads read partial sums before they are written
#include <cuda_runtime.h>

__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[512];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += x[i];
    s[threadIdx.x] = acc;
    for (int st = 256; st > 0; st >>= 1)
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    int blocks = (n + 511) / 512;
    if (blocks > 1024) blocks = 1024;
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<blocks, 512, 0, stream>>>(x, out, n);
}
