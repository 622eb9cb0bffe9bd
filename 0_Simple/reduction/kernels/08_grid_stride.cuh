/* Step 08, grid_stride. The one change from step 07: the two loads become a
 * grid-stride loop. Each thread starts at its pair (blockIdx.x * 2 BLOCK +
 * tid, and BLOCK further), adds it into v, then jumps by the whole grid
 * (2 BLOCK gridDim.x elements) while there is more. The launcher still
 * gives every pair its own thread (run_tile: the same grid as step 07), so
 * each thread goes round the loop once, and this step alone should not
 * help: it costs one loop test. It pays off in step 09, which launches the
 * same kernel on a much smaller grid.
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 0.4621 ms, 2324 GB/s, 51.3% of CUB (step 07: 2442 GB/s): 5% slower, as
 * expected: one pass round the loop per thread, and its test.
 */
template <unsigned BLOCK, typename In, typename A>
__global__ void __launch_bounds__(BLOCK) reduce_grid_stride(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0,
                  "BLOCK must be a power of two in 32..1024");
    __shared__ A s[BLOCK];
    const unsigned tid = threadIdx.x;
    const size_t grid_size = (size_t)2 * BLOCK * gridDim.x;
    A v = (A)0;
    for (size_t i = (size_t)blockIdx.x * (2 * BLOCK) + tid; i < n; i += grid_size) {
        v += (A)in[i];
        if (i + BLOCK < n) v += (A)in[i + BLOCK];
    }
    s[tid] = v;
    __syncthreads();
    if (BLOCK >= 1024) { if (tid < 512) s[tid] = v = v + s[tid + 512]; __syncthreads(); }
    if (BLOCK >= 512) { if (tid < 256) s[tid] = v = v + s[tid + 256]; __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) s[tid] = v = v + s[tid + 128]; __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) s[tid] = v = v + s[tid + 64]; __syncthreads(); }
    if (tid < 32) {
        v = warp_reduce_smem(s, tid, BLOCK);
        if (tid == 0) out[blockIdx.x] = v;
    }
}
