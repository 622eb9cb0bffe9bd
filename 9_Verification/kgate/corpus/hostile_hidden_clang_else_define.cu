// kgate-task: sum_reduce
// planted defect: HOSTILE (static-track evasion). The barrier is a macro:
// under #ifdef __clang__ (what the static track reads) a uniform
// __syncthreads(), in the #else (what nvcc compiles) one that only the
// threads of the first half reach. The #else holds nothing but a #define,
// so no line of it puts code into nvcc's output; every block is compared
// anyway (P0, KG-HIDDEN-CODE).
#include <cuda_runtime.h>

#ifdef __clang__
#define BLOCK_SYNC(t) __syncthreads()
#else
#define BLOCK_SYNC(t) if ((t) < 128) __syncthreads()
#endif

__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += x[i];
    s[t] = v;
    BLOCK_SYNC(t);
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
