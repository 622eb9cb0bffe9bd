// kgate-task: softmax_rows
// planted defect: none (one 128-thread block per row, shuffle + shared-memory reductions, max subtracted)
#include <cuda_runtime.h>
#include <math.h>

#define THREADS 128

__device__ float warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void softmax_rows_kernel(const float* x, float* y, int cols)
{
    __shared__ float red[THREADS / 32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += THREADS) m = fmaxf(m, xr[c]);
    m = warp_max(m);
    if (lane == 0) red[warp] = m;
    __syncthreads();
    m = red[0];
    for (int w = 1; w < THREADS / 32; w++) m = fmaxf(m, red[w]);
    __syncthreads();

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) s += expf(xr[c] - m);
    s = warp_sum(s);
    if (lane == 0) red[warp] = s;
    __syncthreads();
    s = 0.0f;
    for (int w = 0; w < THREADS / 32; w++) s += red[w];

    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += THREADS) yr[c] = expf(xr[c] - m) * inv;
}

extern "C" void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream)
{
    softmax_rows_kernel<<<rows, THREADS, 0, stream>>>(x, y, cols);
}
