// kgate-task: histogram256
// planted defect: none (per-block shared-memory bins, 16-byte loads, bins zeroed on the stream)
#include <cuda_runtime.h>

__global__ void hist256(const unsigned char* data, unsigned int* hist, int n)
{
    __shared__ unsigned int bins[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) bins[i] = 0;
    __syncthreads();
    int tid = blockIdx.x * blockDim.x + threadIdx.x, stride = blockDim.x * gridDim.x;
    int n16 = n / 16;
    const uint4* d4 = reinterpret_cast<const uint4*>(data);
    for (int i = tid; i < n16; i += stride) {
        uint4 v = d4[i];
        unsigned int w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            atomicAdd(&bins[w[k] & 0xFFu], 1u);
            atomicAdd(&bins[(w[k] >> 8) & 0xFFu], 1u);
            atomicAdd(&bins[(w[k] >> 16) & 0xFFu], 1u);
            atomicAdd(&bins[w[k] >> 24], 1u);
        }
    }
    for (int i = 16 * n16 + tid; i < n; i += stride) atomicAdd(&bins[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        if (bins[i]) atomicAdd(&hist[i], bins[i]);
}

extern "C" void launch(const unsigned char* data, unsigned int* hist, int n, cudaStream_t stream)
{
    cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned int), stream);
    int blocks = (n / 16 + 255) / 256;
    if (blocks < 1) blocks = 1;
    if (blocks > 1024) blocks = 1024;
    hist256<<<blocks, 256, 0, stream>>>(data, hist, n);
}
