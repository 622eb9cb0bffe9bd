/* Step 06, unroll_last_warp. The one change from step 05: the tree stops its
 * __syncthreads loop at 64 values, and the last six steps run inside warp 0
 * with only __syncwarp (warp_reduce_smem, kernels/00_warp_reduce_smem.cuh).
 * Why it helps: six block-wide barriers fewer per block (each one makes
 * every warp of the block wait for the slowest), and less loop overhead.
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 0.4731 ms, 2270 GB/s, 50.2% of CUB (step 05: 1799 GB/s): 1.26x.
 */
template <typename In, typename A>
__global__ void reduce_unroll_last_warp(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    A v = i < n ? (A)in[i] : (A)0;
    if (i + blockDim.x < n) v += (A)in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 32; k >>= 1) {
        if (tid < k) s[tid] = v = v + s[tid + k];
        __syncthreads();
    }
    if (tid < 32) {
        v = warp_reduce_smem(s, tid, blockDim.x);
        if (tid == 0) out[blockIdx.x] = v;
    }
}
