/* Step 05, first_add_load. The one change from step 04: each block covers
 * 2 blockDim elements, and every thread adds its two during the load,
 * before the tree. No thread is idle in the first step any more, and half
 * as many blocks are launched (the launcher passes 2 blockDim elements per
 * block: run_tile in reduction.cu).
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 0.5968 ms, 1799 GB/s, 39.8% of CUB (step 04: 967.3 GB/s): 1.86x.
 */
template <typename In, typename A>
__global__ void reduce_first_add_load(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    A v = i < n ? (A)in[i] : (A)0;
    if (i + blockDim.x < n) v += (A)in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] = v = v + s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = v;
}
