// kgate-task: sum_reduce
// planted defect: warp reduction with __shfl_down (no _sync), removed for sm_70 and later: it does not compile for the GPU
#include <cuda_runtime.h>

__inline__ __device__ float warp_reduce(float v)
{
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down(v, offset);
    return v;
}

__global__ void sum_kernel(const float* __restrict__ x, float* out, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
    v = warp_reduce(v);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<1024, 256, 0, stream>>>(x, out, n);
}
