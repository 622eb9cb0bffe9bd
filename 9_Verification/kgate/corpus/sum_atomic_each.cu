// kgate-task: sum_reduce
// planted defect: every element is atomicAdd-ed into the same address: correct but serialised on one memory location
#include <cuda_runtime.h>

__global__ void sum_atomic(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_atomic<<<(n + 255) / 256, 256, 0, stream>>>(x, out, n);
}
