/* Step 03, sequential. The one change from step 02: the addressing. In step
 * s (now s = blockDim/2, ..., 2, 1), thread t < s adds element t + s to
 * element t: consecutive threads touch consecutive words, so there are no
 * bank conflicts, and the active threads are still the first ones.
 * What is left: half the threads are idle from the very first step.
 * (The picture, docs/figures/reduction_tree.svg, shows this tree.)
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 1.229 ms, 873.6 GB/s, 19.3% of CUB (step 02: 676.5 GB/s).
 */
template <typename In, typename A>
__global__ void reduce_sequential(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? (A)in[i] : (A)0;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
