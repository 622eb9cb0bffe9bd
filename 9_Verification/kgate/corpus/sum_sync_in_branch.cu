// kgate-task: sum_reduce
// planted defect: __syncthreads() inside if (threadIdx.x < st): threads that skip the branch never reach the barrier
#include <cuda_runtime.h>

__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int st = 128; st > 0; st >>= 1) {
        if (threadIdx.x < st) {
            s[threadIdx.x] += s[threadIdx.x + st];
            __syncthreads();
        }
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, out, n);
}
