// kgate-task: tanh
// planted defect: none (one element per thread with tanhf, 256 threads)
#include <cuda_runtime.h>

__global__ void tanh_kernel(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = tanhf(x[i]);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    tanh_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
