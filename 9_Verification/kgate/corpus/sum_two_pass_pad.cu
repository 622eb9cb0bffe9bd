// kgate-task: sum_reduce
// planted defect: SILENT (initcheck; --sanitize=all). The buffer of per-block
// partial sums is allocated rounded up to a multiple of 4 so that the final
// pass can read it as float4; the first pass writes only one partial per
// block, and the final pass zeroes the lanes past the block count after
// loading them. The sum is right whatever the padding holds, but up to three
// floats of a fresh allocation are read before anything wrote them: initcheck
// reports the uninitialized global read. The buffer is stream-ordered and
// freed (cudaMallocAsync / cudaFreeAsync), so memcheck sees no leak.
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
    const float4* p4 = reinterpret_cast<const float4*>(partial);
    float acc = 0.0f;
    for (int q = threadIdx.x; 4 * q < m; q += BLOCK) {
        float4 v = p4[q];   // the last group reads the padding too
        int i = 4 * q;
        acc += v.x;
        acc += i + 1 < m ? v.y : 0.0f;
        acc += i + 2 < m ? v.z : 0.0f;
        acc += i + 3 < m ? v.w : 0.0f;
    }
    float s = block_sum(acc);
    if (threadIdx.x == 0) *out = s;
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    int blocks = (n + BLOCK - 1) / BLOCK;
    if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
    if (blocks < 1) blocks = 1;
    int padded = (blocks + 3) / 4 * 4;
    float* partial = nullptr;
    cudaMallocAsync(&partial, padded * sizeof(float), stream);
    partial_sums<<<blocks, BLOCK, 0, stream>>>(x, partial, n);
    final_sum<<<1, BLOCK, 0, stream>>>(partial, out, blocks);
    cudaFreeAsync(partial, stream);
}
