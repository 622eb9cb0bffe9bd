// kgate-task: vector_add
// planted defect: the loop starts at the global index but steps by blockDim.x alone: every block walks from its start to the end of the array, redoing the other blocks' elements (correct values, hundreds of times the work)
#include <cuda_runtime.h>

__global__ void vadd(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x) c[i] = a[i] + b[i];
}

extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)
{
    int blocks = (n + 255) / 256;
    if (blocks > 1024) blocks = 1024;
    vadd<<<blocks, 256, 0, stream>>>(a, b, c, n);
}
