// kgate-task: relu
// planted defect: launches 2048 threads per block (the limit is 1024): every launch fails
#include <cuda_runtime.h>

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    const int threads = 2048;  // "bigger blocks are faster"
    relu_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(x, y, n);
}
