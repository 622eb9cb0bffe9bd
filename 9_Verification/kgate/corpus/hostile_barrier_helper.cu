// kgate-task: sum_reduce
// planted defect: HOSTILE (static-track evasion). The barrier hides in a
// __device__ helper that waits only when its argument says so, and the
// kernel passes a thread-dependent value (t < k): part of the block skips
// the barrier (a divergent block barrier; P0, KG-SYNC-DIVERGENT).
#include <cuda_runtime.h>

__device__ void stage_done(bool mine)
{
    if (mine) __syncthreads();
}

__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += x[i];
    s[t] = v;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        stage_done(t < k);
    }
    if (t == 0) atomicAdd(out, s[0]);
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<264, 256, 0, stream>>>(x, out, n);
}
