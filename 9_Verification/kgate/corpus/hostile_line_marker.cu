// kgate-task: sum_reduce
// planted defect: HOSTILE (static-track evasion). A line marker in gcc's own
// form (# 1 "file" 3: a system header) renames and renumbers what follows,
// and the block nvcc compiles under #ifdef __NVCC__ holds a divergent
// barrier. Refused like #line (P0, KG-HIDDEN-CODE).
#include <cuda_runtime.h>

# 1 "/usr/local/cuda/include/crt/sm_90_rt.hpp" 3
__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += x[i];
    s[t] = v;
#ifdef __NVCC__
    if (t < 128)
#endif
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
