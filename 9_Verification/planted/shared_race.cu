/* planted_shared_race: a shared-memory race (racecheck).
 * A block reverses 64 values through shared memory but forgets the
 * __syncthreads() between the write and the read, so thread t reads the
 * slot thread 63 - t (another warp) may not have written yet. */
#include "common_planted.h"

__global__ void reverse_no_barrier(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    /* missing: __syncthreads(); */
    out[t] = s[63 - t];  // PLANTED: shared-race
}

int main()
{
    planted_setup("planted_shared_race");
    const int n = 64;
    float *in, *out;
    CUDA_CHECK(cudaMalloc(&in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&out, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(in, 0, n * sizeof(float)));
    reverse_no_barrier<<<1, n>>>(in, out);
    CHECK_LAUNCH();
    planted_sync("planted_shared_race");
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
    return planted_done("planted_shared_race");
}
