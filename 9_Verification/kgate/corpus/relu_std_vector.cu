// kgate-task: relu
// planted defect: std::vector used inside the kernel (host-only library in device code)
#include <cuda_runtime.h>
#include <vector>

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        std::vector<float> tmp(1, x[i]);
        y[i] = tmp[0] > 0.0f ? tmp[0] : 0.0f;
    }
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
