// kgate-task: tanh
// planted defect: none
#include <cuda_runtime.h>

__global__ void tanh_kernel(const float* x, float* y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = tanhf(x[i]);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    int blocks = (n + 255) / 256;
    if (blocks > 4096) blocks = 4096;
    tanh_kernel<<<blocks, 256, 0, stream>>>(x, y, n);
}
