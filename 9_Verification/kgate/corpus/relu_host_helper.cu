// kgate-task: relu
// planted defect: the kernel calls a helper defined without __device__ (a host function): nvcc refuses it
#include <cuda_runtime.h>

inline float relu_scalar(float v) { return v > 0.0f ? v : 0.0f; }

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = relu_scalar(x[i]);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
