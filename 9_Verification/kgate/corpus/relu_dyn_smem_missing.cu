// kgate-task: relu
// planted defect: stages the input through an extern __shared__ array but launches with no dynamic shared memory: every shared access is out of bounds
#include <cuda_runtime.h>

__global__ void relu_staged(const float* __restrict__ x, float* __restrict__ y, int n)
{
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) y[i] = fmaxf(tile[threadIdx.x], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_staged<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
