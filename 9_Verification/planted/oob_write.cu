/* planted_oob_write: an out-of-bounds global write (memcheck).
 * The grid is rounded up to whole blocks and the kernel has no bounds
 * check: threads 1000..1023 write past the end of out. */
#include "common_planted.h"

__global__ void fill_unchecked(float *out, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = v;  // PLANTED: oob-global-write
}

int main()
{
    planted_setup("planted_oob_write");
    const int n = 1000;
    float *out;
    CUDA_CHECK(cudaMalloc(&out, n * sizeof(float)));
    fill_unchecked<<<(n + 255) / 256, 256>>>(out, 1.0f);
    CHECK_LAUNCH();
    planted_sync("planted_oob_write");
    cudaFree(out);
    return planted_done("planted_oob_write");
}
