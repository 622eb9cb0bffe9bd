/* Step 10, shuffle_block_sum. The one change from step 09: the block sum.
 * The shared-memory tree (three __syncthreads at BLOCK = 256, then the last
 * warp's steps with __syncwarp) is replaced by block_sum
 * (common/reduce_device.cuh): each warp adds its 32 values with five
 * register shuffles, v += __shfl_down_sync(~0u, v, o) for o = 16, 8, 4, 2, 1;
 * lane 0 of each warp stores the warp's sum, one __syncthreads, and warp 0
 * shuffles those (at most 32) sums the same way: one __syncthreads per
 * block instead of three (at BLOCK = 256), no __syncwarp, and 32 words of
 * shared memory instead of BLOCK.
 * (The picture, docs/figures/reduction_tree.svg, shows both.)
 * Why it may not show: since step 09 the tree runs once per many
 * elements a thread loads, so it was a small part of the time already. The
 * loads are unchanged: two elements per round, BLOCK apart.
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 0.2861 ms, 3753 GB/s, 82.9% of CUB (step 09: 3760 GB/s): no change,
 * as expected.
 */
template <unsigned BLOCK, typename In, typename A>
__global__ void __launch_bounds__(BLOCK) reduce_shuffle_block_sum(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0,
                  "BLOCK must be a power of two in 32..1024");
    const unsigned tid = threadIdx.x;
    const size_t grid_size = (size_t)2 * BLOCK * gridDim.x;
    A v = (A)0;
    for (size_t i = (size_t)blockIdx.x * (2 * BLOCK) + tid; i < n; i += grid_size) {
        v += (A)in[i];
        if (i + BLOCK < n) v += (A)in[i + BLOCK];
    }
    v = block_sum(v);
    if (tid == 0) out[blockIdx.x] = v;
}
