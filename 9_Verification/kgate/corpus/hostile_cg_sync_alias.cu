// kgate-task: softmax_rows
// planted defect: HOSTILE (static-track evasion). The barrier between the
// max and the sum is cg::sync() on a reference to this_thread_block(),
// inside `if (c < cols)`: for rows shorter than the block, part of the block
// skips it (a divergent block barrier; P0, KG-SYNC-DIVERGENT).
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void softmax_kernel(const float* x, float* y, int rows, int cols)
{
    __shared__ float red[128];
    const cg::thread_block& tb = cg::this_thread_block();
    int r = blockIdx.x, c = threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float m = -3.0e38f;
    for (int j = c; j < cols; j += blockDim.x) m = fmaxf(m, xr[j]);
    red[c] = m;
    if (c < cols) cg::sync(tb);
    for (int k = 64; k > 0; k >>= 1) {
        if (c < k) red[c] = fmaxf(red[c], red[c + k]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float s = 0.0f;
    for (int j = c; j < cols; j += blockDim.x) s += expf(xr[j] - m);
    red[c] = s;
    __syncthreads();
    for (int k = 64; k > 0; k >>= 1) {
        if (c < k) red[c] += red[c + k];
        __syncthreads();
    }
    float inv = 1.0f / red[0];
    for (int j = c; j < cols; j += blockDim.x) y[(size_t)r * cols + j] = expf(xr[j] - m) * inv;
}

extern "C" void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream)
{
    softmax_kernel<<<rows, 128, 0, stream>>>(x, y, rows, cols);
}
