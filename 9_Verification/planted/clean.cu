/* planted_clean: the control. A block-wise sum through shared memory with
 * every barrier in place, every input written, every allocation freed, and
 * a size (1000) that is not a multiple of the block: all four tools must
 * stay silent. It checks its own result (exit 1 on a wrong sum). */
#include <math.h>
#include "common_planted.h"

__global__ void block_sum(const float *in, float *out, int n)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

int main()
{
    planted_setup("planted_clean");
    const int n = 1000, blocks = (n + 255) / 256;
    float h[1000], sums[4];
    for (int i = 0; i < n; i++) h[i] = (float)(i % 7);
    float *in, *out;
    CUDA_CHECK(cudaMalloc(&in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&out, blocks * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(in, h, n * sizeof(float), cudaMemcpyHostToDevice));
    block_sum<<<blocks, 256>>>(in, out, n);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(sums, out, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    double got = 0, want = 0;
    for (int b = 0; b < blocks; b++) got += sums[b];
    for (int i = 0; i < n; i++) want += h[i];
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
    if (fabs(got - want) > 0) {
        printf("planted_clean: FAIL (sum %.1f, expected %.1f)\n", got, want);
        return 1;
    }
    printf("planted_clean: PASS\n");
    return 0;
}
