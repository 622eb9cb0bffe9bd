// kgate-task: sum_reduce
// planted defect: SILENT (memcheck leak). launch() keeps its buffer of
// per-block partial sums between calls and allocates a larger one with
// cudaMalloc when a call needs more blocks, but never frees the one it
// replaces (nor, having no teardown, the last). Every sum is right and the
// buffers are small (at most 1024 floats), so nothing in the checked or
// timed runs shows it; memcheck's leak check at exit names each allocation.
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
    static float* partial = nullptr;
    static int capacity = 0;
    int blocks = (n + BLOCK - 1) / BLOCK;
    if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
    if (blocks < 1) blocks = 1;
    if (blocks > capacity) {
        /* the old buffer is dropped, not freed: earlier calls on the stream may still use it */
        cudaMalloc(&partial, blocks * sizeof(float));
        capacity = blocks;
    }
    partial_sums<<<blocks, BLOCK, 0, stream>>>(x, partial, n);
    final_sum<<<1, BLOCK, 0, stream>>>(partial, out, blocks);
}
