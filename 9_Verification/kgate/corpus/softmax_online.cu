// kgate-task: softmax_rows
// planted defect: none (online softmax: max and sum in one pass per warp)
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_online(const float* x, float* y, int rows, int cols)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = xr[c];
        if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
        else s += expf(v - m);
    }
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        float mn = fmaxf(m, m2);
        s = (m == -INFINITY ? 0.0f : s * expf(m - mn)) + (m2 == -INFINITY ? 0.0f : s2 * expf(m2 - mn));
        m = mn;
    }
    float inv = 1.0f / s;
    for (int c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - m) * inv;
}

extern "C" void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream)
{
    int threads = 256;   // 8 rows per block
    int blocks = (rows * 32 + threads - 1) / threads;
    softmax_online<<<blocks, threads, 0, stream>>>(x, y, rows, cols);
}
