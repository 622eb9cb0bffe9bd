/* planted_oob_read: an out-of-bounds global read (memcheck).
 * The loop bound is `<=` instead of `<`: thread n reads in[n], one float
 * past the end of a 1000-float allocation. */
#include "common_planted.h"

__global__ void copy_off_by_one(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = in[i];  // PLANTED: oob-global-read
}

int main()
{
    planted_setup("planted_oob_read");
    const int n = 1000;
    float *in, *out;
    CUDA_CHECK(cudaMalloc(&in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&out, (n + 1) * sizeof(float)));  /* out has room for n + 1 */
    CUDA_CHECK(cudaMemset(in, 0, n * sizeof(float)));
    copy_off_by_one<<<(n + 1 + 255) / 256, 256>>>(in, out, n);
    CHECK_LAUNCH();
    planted_sync("planted_oob_read");
    cudaFree(in);
    cudaFree(out);
    return planted_done("planted_oob_read");
}
