/* planted_leak: device memory that is never freed (memcheck --leak-check
 * full). The context is destroyed with cudaDeviceReset() so the leak report
 * is complete; the allocation's host frame is main(), at the cudaMalloc. */
#include "common_planted.h"

__global__ void touch(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = 1.0f;
}

int main()
{
    planted_setup("planted_leak");
    const int n = 1024;
    float *kept;
    cudaError_t e = cudaMalloc(&kept, n * sizeof(float));  // PLANTED: leak (declared by kind)
    CUDA_CHECK(e);
    touch<<<(n + 255) / 256, 256>>>(kept, n);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    /* missing: cudaFree(kept); */
    CUDA_CHECK(cudaDeviceReset());
    return planted_done("planted_leak");
}
