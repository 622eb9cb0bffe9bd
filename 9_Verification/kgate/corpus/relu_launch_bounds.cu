// kgate-task: relu
// planted defect: the kernel is compiled with __launch_bounds__(128) but launched with 256 threads per block: every launch fails
#include <cuda_runtime.h>

__global__ void __launch_bounds__(128) relu_kernel(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
