/* planted_barrier: a __syncthreads() reached by only part of a warp
 * (synccheck). Threads 0..15 of the single warp wait at the barrier, 16..31
 * skip it: divergent threads at a block barrier. (compute-sanitizer catches
 * a barrier skipped by part of a warp, not one skipped by whole warps.) */
#include "common_planted.h"

__global__ void half_warp_barrier(float *out)
{
    __shared__ float s[32];
    int t = threadIdx.x;
    s[t] = (float)t;
    if (t < 16) {
        __syncthreads();  // PLANTED: barrier-error
    }
    out[t] = s[t];
}

int main()
{
    planted_setup("planted_barrier");
    float *out;
    CUDA_CHECK(cudaMalloc(&out, 32 * sizeof(float)));
    half_warp_barrier<<<1, 32>>>(out);
    CHECK_LAUNCH();
    planted_sync("planted_barrier");
    cudaFree(out);
    return planted_done("planted_barrier");
}
