// kgate-task: sum_reduce
// planted defect: none (float4 grid-stride loads, warp shuffles, one atomicAdd per block, out zeroed on the stream)
#include <cuda_runtime.h>

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

__global__ void sum4(const float* __restrict__ x, float* out, int n)
{
    __shared__ float partial[32];
    int tid = blockIdx.x * blockDim.x + threadIdx.x, stride = blockDim.x * gridDim.x;
    int n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float a = 0.0f, b = 0.0f;
    for (int i = tid; i < n4; i += stride) {
        float4 v = x4[i];
        a += v.x + v.y;
        b += v.z + v.w;
    }
    for (int i = 4 * n4 + tid; i < n; i += stride) a += x[i];
    float s = warp_sum(a + b);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) partial[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
        s = warp_sum(s);
        if (lane == 0) atomicAdd(out, s);
    }
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    int blocks = (n / 4 + 255) / 256;
    if (blocks > sms * 8) blocks = sms * 8;
    if (blocks < 1) blocks = 1;
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum4<<<blocks, 256, 0, stream>>>(x, out, n);
}
