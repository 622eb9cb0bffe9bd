// kgate-task: histogram256
// planted defect: debug output with std::cout inside the kernel (host-only library in device code)
#include <cuda_runtime.h>
#include <iostream>

__global__ void hist256(const unsigned char* data, unsigned int* hist, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) std::cout << "histogram of " << n << " bytes" << std::endl;
    if (i < n) atomicAdd(&hist[data[i]], 1u);
}

extern "C" void launch(const unsigned char* data, unsigned int* hist, int n, cudaStream_t stream)
{
    cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned int), stream);
    hist256<<<(n + 255) / 256, 256, 0, stream>>>(data, hist, n);
}
