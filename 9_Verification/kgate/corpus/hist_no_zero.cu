// kgate-task: histogram256
// planted defect: never zeroes hist: the counts are added to whatever the buffer held
#include <cuda_runtime.h>

__global__ void hist256(const unsigned char* data, unsigned int* hist, int n)
{
    __shared__ unsigned int bins[256];
    bins[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[i]], 1u);
    __syncthreads();
    atomicAdd(&hist[threadIdx.x], bins[threadIdx.x]);
}

extern "C" void launch(const unsigned char* data, unsigned int* hist, int n, cudaStream_t stream)
{
    int blocks = (n + 255) / 256;
    if (blocks > 1024) blocks = 1024;
    hist256<<<blocks, 256, 0, stream>>>(data, hist, n);
}
