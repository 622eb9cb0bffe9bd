// kgate-task: relu
// planted defect: casts the const away and computes relu in place in the input, then copies it to the output: the caller's input is modified
#include <cuda_runtime.h>

__global__ void relu_inplace(float* __restrict__ x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    float* buf = const_cast<float*>(x);
    relu_inplace<<<(n + 255) / 256, 256, 0, stream>>>(buf, n);
    cudaMemcpyAsync(y, x, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, stream);
}
