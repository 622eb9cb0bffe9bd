// kgate-task: sum_reduce
// planted defect: HOSTILE (static-track evasion). #line renames the rest of
// the file to a header, so a check that maps nvcc's output back to the
// candidate by file name skips it; the #ifndef __clang__ block nvcc compiles
// there holds a divergent barrier. The gate does not trust #line to say
// where code is: it is refused (P0, KG-HIDDEN-CODE).
#include <cuda_runtime.h>

#line 1 "cuda_runtime_helpers.h"
__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += x[i];
    s[t] = v;
#ifndef __clang__
    if (t < 128) __syncthreads();
#else
    __syncthreads();
#endif
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
