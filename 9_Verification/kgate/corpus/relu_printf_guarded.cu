// kgate-task: relu
// planted defect: none (grid-stride relu; a debug printf is left in, behind a branch that never runs: the published gate's P0 list rejects it)
#include <cstdio>
#include <cuda_runtime.h>

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = fmaxf(x[i], 0.0f);
#ifdef KGATE_DEBUG_RELU
    if (blockIdx.x == 0 && threadIdx.x == 0) printf("relu: n=%d\n", n);
#endif
    if (n < 0) printf("relu: negative size %d\n", n);   // debugging leftover, never true
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    int blocks = (n + 255) / 256;
    if (blocks > sms * 32) blocks = sms * 32;
    if (blocks < 1) blocks = 1;
    relu_kernel<<<blocks, 256, 0, stream>>>(x, y, n);
}
