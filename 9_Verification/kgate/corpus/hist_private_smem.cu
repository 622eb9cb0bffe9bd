// kgate-task: histogram256
// planted defect: a private 256-bin histogram per thread in dynamic shared memory: 256 KiB per block, the launch fails
#include <cuda_runtime.h>

__global__ void hist_private(const unsigned char* data, unsigned int* hist, int n)
{
    extern __shared__ unsigned int priv[];   // blockDim.x private copies of 256 bins
    unsigned int* mine = priv + threadIdx.x * 256;
    for (int b = 0; b < 256; b++) mine[b] = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) mine[data[i]]++;
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned int s = 0;
        for (int t = 0; t < blockDim.x; t++) s += priv[t * 256 + b];
        atomicAdd(&hist[b], s);
    }
}

extern "C" void launch(const unsigned char* data, unsigned int* hist, int n, cudaStream_t stream)
{
    cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned int), stream);
    int threads = 256;
    size_t smem = threads * 256 * sizeof(unsigned int);
    hist_private<<<128, threads, smem, stream>>>(data, hist, n);
}
