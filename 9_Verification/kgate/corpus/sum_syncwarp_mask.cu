// kgate-task: sum_reduce
// planted defect: SILENT (synccheck; --sanitize=all). The first warp folds
// the block's last 64 partial sums in shared memory, halving the lanes that
// add at each step, and narrows the __syncwarp() mask to those lanes
// (0xffff, then 0xff, ...). But all 32 lanes execute every __syncwarp(), and
// a lane that reaches __syncwarp(mask) must be in mask: the lanes that no
// longer add are not. Each pair of lanes that exchange a sum is in the mask
// of the step that orders them, so the sums come out right; synccheck's
// documentation names this a barrier with invalid arguments (not yet seen on
// our H200). The fix: __syncwarp() with the full mask, as every lane reaches
// it, or shuffles.
#include <cuda_runtime.h>

#define THREADS 256

__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[THREADS];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int st = THREADS / 2; st > 32; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        unsigned lane = threadIdx.x;
        for (int k = 32; k > 0; k >>= 1) {
            unsigned adding = k == 32 ? 0xffffffffu : (1u << k) - 1u;   // the lanes below k
            float t = lane < (unsigned)k ? s[lane + k] : 0.0f;
            __syncwarp(adding);   // reached by all 32 lanes
            if (lane < (unsigned)k) s[lane] += t;
            __syncwarp(adding);
        }
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    int blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 2048) blocks = 2048;
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<blocks, THREADS, 0, stream>>>(x, out, n);
}
