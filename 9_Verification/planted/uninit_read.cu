/* planted_uninit_read: a read of uninitialized global memory (initcheck).
 * Only the first 64 of 100 inputs are copied to the device; the kernel
 * reads all 100. */
#include "common_planted.h"

__global__ void scale(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];  // PLANTED: uninit-global-read
}

int main()
{
    planted_setup("planted_uninit_read");
    const int n = 100, filled = 64;
    float h[100];
    for (int i = 0; i < n; i++) h[i] = (float)i;
    float *in, *out;
    CUDA_CHECK(cudaMalloc(&in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(in, h, filled * sizeof(float), cudaMemcpyHostToDevice));
    scale<<<1, 128>>>(in, out, n);
    CHECK_LAUNCH();
    planted_sync("planted_uninit_read");
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
    return planted_done("planted_uninit_read");
}
