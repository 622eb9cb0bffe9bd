// kgate-task: histogram256
// planted defect: one global atomicAdd per byte on 256 hot addresses: correct but serialised in L2
#include <cuda_runtime.h>

__global__ void hist_global(const unsigned char* data, unsigned int* hist, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[data[i]], 1u);
}

extern "C" void launch(const unsigned char* data, unsigned int* hist, int n, cudaStream_t stream)
{
    cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned int), stream);
    hist_global<<<(n + 255) / 256, 256, 0, stream>>>(data, hist, n);
}
