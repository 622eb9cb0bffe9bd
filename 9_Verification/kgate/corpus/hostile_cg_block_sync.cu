// kgate-task: sum_reduce
// planted defect: HOSTILE (static-track evasion). The tree's barrier is
// cooperative groups' block.sync(), called inside `if (t < k)`: threads
// outside the branch never arrive (a divergent block barrier, undefined: a
// hang or wrong sums). Every spelling of a block barrier counts
// (P0, KG-SYNC-DIVERGENT).
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[256];
    cg::thread_block block = cg::this_thread_block();
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += x[i];
    s[t] = v;
    block.sync();
    for (int k = 128; k > 0; k >>= 1) {
        if (t < k) {
            s[t] += s[t + k];
            block.sync();
        }
    }
    if (t == 0) atomicAdd(out, s[0]);
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<264, 256, 0, stream>>>(x, out, n);
}
