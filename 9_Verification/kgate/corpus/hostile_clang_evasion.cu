// kgate-task: sum_reduce
// planted defect: HOSTILE (static-track evasion). A __syncthreads() inside a
// branch only some threads take (P0, KG-SYNC-DIVERGENT) sits under
// #ifndef __clang__: libclang skips it, nvcc compiles it. The static track
// compares what it parsed with nvcc's own preprocessing: code nvcc compiles
// that the scan cannot see is refused (P0, KG-HIDDEN-CODE).
#include <cuda_runtime.h>

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
