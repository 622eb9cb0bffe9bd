// kgate-task: histogram256
// planted defect: none (per-block shared bins, 16-byte loads, a grid of 8 blocks per SM)
#include <cuda_runtime.h>

__global__ void hist_kernel(const unsigned char* __restrict__ data, unsigned int* __restrict__ hist, int n)
{
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;                 // blockDim.x == 256
    __syncthreads();
    const int stride = blockDim.x * gridDim.x;
    const int n16 = n >> 4;
    const uint4* in = reinterpret_cast<const uint4*>(data);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += stride) {
        uint4 v = in[i];
        unsigned int words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int k = 0; k < 4; k++)
#pragma unroll
            for (int s = 0; s < 32; s += 8) atomicAdd(&local[(words[k] >> s) & 0xFFu], 1u);
    }
    for (int i = (n16 << 4) + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    if (local[threadIdx.x]) atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

extern "C" void launch(const unsigned char* data, unsigned int* hist, int n, cudaStream_t stream)
{
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned int), stream);
    int blocks = (n / 16 + 255) / 256;
    if (blocks > sms * 8) blocks = sms * 8;
    if (blocks < 1) blocks = 1;
    hist_kernel<<<blocks, 256, 0, stream>>>(data, hist, n);
}
