// kgate-task: sum_reduce
// planted defect: HOSTILE (static-track evasion). The static track reads the
// uniform barrier under #ifndef __NVCC__ (clang does not define __NVCC__);
// nvcc compiles the #else, where only some threads reach the barrier (a
// divergent __syncthreads(), P0). The scan compares every conditional block
// with nvcc's own preprocessing: a block one of them reads and the other
// does not is refused (P0, KG-HIDDEN-CODE).
#include <cuda_runtime.h>

__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += x[i];
    s[t] = v;
#ifndef __NVCC__
    __syncthreads();
#else
    if (t < 128) __syncthreads();
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
