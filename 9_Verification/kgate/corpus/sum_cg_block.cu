// kgate-task: sum_reduce
// planted defect: none (cooperative groups: float4 grid-stride loads, a warp tile reduces with
// shfl_down, warp sums meet in shared memory across a uniform block.sync(), one atomicAdd per
// block, out zeroed on the stream)
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__device__ float tile_sum(cg::thread_block_tile<32> tile, float v)
{
    for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);
    return v;
}

__global__ void sum_cg(const float* __restrict__ x, float* out, int n)
{
    __shared__ float warp_sums[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
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
    float s = tile_sum(tile, a + b);
    if (tile.thread_rank() == 0) warp_sums[tile.meta_group_rank()] = s;
    block.sync();   /* every thread of the block arrives: no branch around it */
    if (tile.meta_group_rank() == 0) {
        s = tile.thread_rank() < tile.meta_group_size() ? warp_sums[tile.thread_rank()] : 0.0f;
        s = tile_sum(tile, s);
        if (tile.thread_rank() == 0) atomicAdd(out, s);
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
    sum_cg<<<blocks, 256, 0, stream>>>(x, out, n);
}
