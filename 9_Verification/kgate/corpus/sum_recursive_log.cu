// kgate-task: sum_reduce
// planted defect: none (float4 grid-stride loads, warp shuffles, one atomicAdd per block; a small recursive helper computes the tree depth: bounded, but the published gate's P0 list rejects recursion)
#include <cuda_runtime.h>

// depth of a power-of-two tree: log2(v), recursively (at most 5 levels here)
__device__ int tree_depth(int v)
{
    return v < 2 ? 0 : 1 + tree_depth(v >> 1);
}

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
        int warps = blockDim.x / 32;
        s = lane < warps ? partial[lane] : 0.0f;
        // fold the per-warp sums in tree_depth(warps) halving steps
        for (int level = tree_depth(warps), half = warps / 2; level > 0; level--, half /= 2)
            s += __shfl_down_sync(0xffffffffu, s, half);
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
