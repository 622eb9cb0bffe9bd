// kgate-task: softmax_rows
// planted defect: SILENT (racecheck). One warp per row, three passes, the
// reciprocal of the sum; but the row's max and sum are exchanged between the
// lanes through a volatile shared-memory slot per lane (each lane writes its
// value, then reads its xor partner's) instead of shuffles, with no
// __syncwarp() between a lane's write and its partner's read: warp-synchronous
// code of pre-Volta GPUs. The warp stays converged on the H200, so every
// exchange reads the value of its own step and the outputs are right;
// racecheck reports each unordered write and read between lanes of a warp.
// The fix: __shfl_xor_sync(0xffffffff, v, o), or __syncwarp() after each
// write and each read.
#include <cuda_runtime.h>
#include <math.h>

#define WARPS 8

/* the butterfly through shared memory: after it every lane holds the warp's max (or sum) */
__device__ float warp_max_smem(volatile float* slot, int lane, float v)
{
    for (int o = 16; o > 0; o >>= 1) {
        slot[lane] = v;
        v = fmaxf(v, slot[lane ^ o]);   // the partner's write is not ordered before this read
    }
    return v;
}

__device__ float warp_sum_smem(volatile float* slot, int lane, float v)
{
    for (int o = 16; o > 0; o >>= 1) {
        slot[lane] = v;
        v += slot[lane ^ o];
    }
    return v;
}

__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    __shared__ float slots[WARPS][32];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int row = blockIdx.x * WARPS + warp;
    if (row >= rows) return;   // whole warps
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, in[c]);
    m = warp_max_smem(slots[warp], lane, m);
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += expf(in[c] - m);
    float inv = 1.0f / warp_sum_smem(slots[warp], lane, s);
    for (int c = lane; c < cols; c += 32) out[c] = expf(in[c] - m) * inv;
}

extern "C" void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream)
{
    softmax_rows_kernel<<<(rows + WARPS - 1) / WARPS, WARPS * 32, 0, stream>>>(x, y, rows, cols);
}
