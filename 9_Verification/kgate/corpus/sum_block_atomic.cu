// kgate-task: sum_reduce
// planted defect: none (grid-stride accumulation, shared-memory tree, one atomicAdd per block; out zeroed on the stream)
#include <cuda_runtime.h>

#define THREADS 256

__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[THREADS];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int st = THREADS / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    int blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 2048) blocks = 2048;
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<blocks, THREADS, 0, stream>>>(x, out, n);
}
