// kgate-task: sum_reduce
// planted defect: SILENT (memcheck). The grid-stride loop loads x as float4
// over n rounded up to a multiple of 4 and zeroes the lanes at or past n
// before adding them. The sum is right, and in the gate's checked runs the
// last load's extra bytes are the guard after the input; memcheck, where x
// is an allocation of exactly n floats, reports the 16-byte read that
// crosses its end whenever n is not a multiple of 4.
#include <cuda_runtime.h>

#define THREADS 256

__global__ void sum_float4(const float* x, float* out, int n)
{
    __shared__ float s[THREADS];
    int n4 = (n + 3) / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float acc = 0.0f;
    for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < n4; q += blockDim.x * gridDim.x) {
        float4 v = x4[q];
        int i = 4 * q;
        acc += v.x;
        acc += i + 1 < n ? v.y : 0.0f;
        acc += i + 2 < n ? v.z : 0.0f;
        acc += i + 3 < n ? v.w : 0.0f;
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int st = THREADS / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    int n4 = (n + 3) / 4;
    int blocks = (n4 + THREADS - 1) / THREADS;
    if (blocks > 1024) blocks = 1024;
    if (blocks < 1) blocks = 1;
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_float4<<<blocks, THREADS, 0, stream>>>(x, out, n);
}
