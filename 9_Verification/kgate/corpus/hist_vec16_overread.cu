// kgate-task: histogram256
// planted defect: SILENT (memcheck). Bytes are read sixteen at a time over n
// rounded up to a multiple of 16, and bytes at or past n are not counted, so
// every bin is right; but the last uint4 load reads up to 15 bytes past the
// input. In the gate's checked runs they are the guard bytes after it;
// memcheck, where the input is an allocation of exactly n bytes, reports the
// 16-byte read that crosses its end whenever n is not a multiple of 16.
#include <cuda_runtime.h>

__global__ void hist_vec16(const unsigned char* data, unsigned int* hist, int n)
{
    __shared__ unsigned int bins[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    int n16 = (n + 15) / 16;   // rounded up: the last chunk may run past n
    const uint4* d4 = reinterpret_cast<const uint4*>(data);
    for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < n16; q += blockDim.x * gridDim.x) {
        uint4 v = d4[q];
        unsigned int w[4] = {v.x, v.y, v.z, v.w};
        int i = 16 * q;
#pragma unroll
        for (int k = 0; k < 16; k++)
            if (i + k < n) atomicAdd(&bins[(w[k / 4] >> (8 * (k % 4))) & 0xFFu], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (bins[b]) atomicAdd(&hist[b], bins[b]);
}

extern "C" void launch(const unsigned char* data, unsigned int* hist, int n, cudaStream_t stream)
{
    cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned int), stream);
    int blocks = ((n + 15) / 16 + 255) / 256;
    if (blocks < 1) blocks = 1;
    if (blocks > 1024) blocks = 1024;
    hist_vec16<<<blocks, 256, 0, stream>>>(data, hist, n);
}
