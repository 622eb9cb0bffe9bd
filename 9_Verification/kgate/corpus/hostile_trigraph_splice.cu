// kgate-task: sum_reduce
// planted defect: HOSTILE (static-track evasion). The comment on the if line
// ends in the trigraph ??/, a backslash for the gate's C++14 compile: the
// next line (an empty statement) is spliced into the comment, so nvcc
// compiles `if (t < 128) __syncthreads();` (a divergent barrier), while
// C++17 and the static track read `if (t < 128) {}` and a uniform barrier.
// A text that reads differently with and without trigraphs is refused
// (P0, KG-HIDDEN-CODE).
#include <cuda_runtime.h>

__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += x[i];
    s[t] = v;
    if (t < 128) // the first half stages the partial sums ??/
    {}
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, s[0]);
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<264, 256, 0, stream>>>(x, out, n);
}
