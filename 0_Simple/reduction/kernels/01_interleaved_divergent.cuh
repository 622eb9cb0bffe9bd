/* Step 01, interleaved_divergent: the textbook tree, the starting point.
 *
 * Each block sums one tile of blockDim.x elements into one partial sum; the
 * launcher repeats the kernel over the partial sums until one value is left.
 * In step s (s = 1, 2, 4, ...), the threads whose index is a multiple of 2s
 * add the element s to their right. Correct, but the active threads are
 * scattered over every warp: each warp stays busy (and divergent) at every
 * step while doing almost no work, and `%` is slow.
 * Threads whose element lies past n contribute 0 and still reach every
 * __syncthreads: a thread that returned early would leave the barrier
 * waiting for it (undefined behaviour).
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 2.58 ms, 416.2 GB/s, 9.2% of CUB.
 */
template <typename In, typename A>
__global__ void reduce_interleaved_divergent(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? (A)in[i] : (A)0;
    __syncthreads();
    for (unsigned k = 1; k < blockDim.x; k *= 2) {
        if (tid % (2 * k) == 0) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
