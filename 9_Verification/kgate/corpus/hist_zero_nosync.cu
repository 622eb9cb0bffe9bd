// kgate-task: histogram256
// planted defect: SILENT to every sanitizer tool. The block zeroes its shared
// bins and goes straight on to count into them: no __syncthreads() between
// the zeroing and the first atomicAdd, so a warp may count into a bin that
// another warp has not zeroed yet. In practice every warp's zeroing store
// comes long before any warp's first count (which waits for its 16-byte load
// from global memory), so the bins come out right. racecheck does not report
// it: it does not pair a plain shared store with a shared atomic (on our H200
// this candidate ran clean under racecheck). The static scan names the line
// (KG-SYNC-MISSING, P1: not a stop by itself), which sends the candidate to
// the late-warps run: half of each block's warps start about 20 us late, the
// early ones count into bins the late ones then zero, and the bins come out
// too small (L3).
#include <cuda_runtime.h>

__global__ void hist256(const unsigned char* data, unsigned int* hist, int n)
{
    __shared__ unsigned int bins[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) bins[b] = 0;
    /* missing: __syncthreads(); */
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
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (bins[b]) atomicAdd(&hist[b], bins[b]);
}

extern "C" void launch(const unsigned char* data, unsigned int* hist, int n, cudaStream_t stream)
{
    cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned int), stream);
    int blocks = (n / 16 + 255) / 256;
    if (blocks < 1) blocks = 1;
    if (blocks > 1024) blocks = 1024;
    hist256<<<blocks, 256, 0, stream>>>(data, hist, n);
}
