// kgate-task: sum_reduce
// planted defect: none (deterministic two-pass reduction with a stream-ordered scratch buffer;
// 63% of cub::DeviceReduce::Sum at the mid size on the H200, 2026-11-29, once the gate kept
// its memory pool: the 25% and 47.7% of the two earlier runs were the pool artifact)
#include <cuda_runtime.h>

#define BLOCK 256
#define MAX_BLOCKS 1024

__device__ float block_sum(float v)
{
    __shared__ float sh[BLOCK];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    return sh[0];
}

__global__ void partial_sums(const float* x, float* partial, int n)
{
    float acc = 0.0f;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) acc += x[i];
    float s = block_sum(acc);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

__global__ void final_sum(const float* partial, float* out, int m)
{
    float acc = 0.0f;
    for (int i = threadIdx.x; i < m; i += BLOCK) acc += partial[i];
    float s = block_sum(acc);
    if (threadIdx.x == 0) *out = s;
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    int blocks = (n + BLOCK - 1) / BLOCK;
    if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
    float* partial = nullptr;
    cudaMallocAsync(&partial, blocks * sizeof(float), stream);
    partial_sums<<<blocks, BLOCK, 0, stream>>>(x, partial, n);
    final_sum<<<1, BLOCK, 0, stream>>>(partial, out, blocks);
    cudaFreeAsync(partial, stream);
}
