// kgate-task: vector_add
// planted defect: none (grid-stride loop, bounds-checked, on the given stream; the kernel is declared static __global__, which the published gate's P0 list rejects)
#include <cuda_runtime.h>

static __global__ void vadd(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)
{
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    int blocks = (n + 255) / 256;
    if (blocks > sms * 32) blocks = sms * 32;
    if (blocks < 1) blocks = 1;
    vadd<<<blocks, 256, 0, stream>>>(a, b, c, n);
}
