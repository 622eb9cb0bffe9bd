// kgate-task: softmax_rows
// planted defect: one warp per row, 8 rows per block, but the grid is rows / 8 rounded down: the last rows % 8 rows are never written
#include <cuda_runtime.h>
#include <math.h>

__device__ __forceinline__ float warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    int row = blockIdx.x * 8 + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, in[c]);
    m = warp_max(m);
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += expf(in[c] - m);
    float inv = 1.0f / warp_sum(s);
    for (int c = lane; c < cols; c += 32) out[c] = expf(in[c] - m) * inv;
}

extern "C" void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream)
{
    int blocks = rows / 8;
    if (blocks < 1) blocks = 1;
    softmax_rows_kernel<<<blocks, 256, 0, stream>>>(x, y, rows, cols);
}
