/* Step 04, sum_in_register. The one change from step 03: each thread keeps
 * its running sum in a register, v, and writes it back to shared memory at
 * every step. `s[tid] += s[tid + k]` read two shared words and wrote one;
 * `s[tid] = v = v + s[tid + k]` reads one and writes one, and thread 0's
 * result is already in its register at the end.
 * Why it should help a little: one shared-memory load fewer per active
 * thread and step. The tree is a small part of the time here (the kernel
 * waits mostly on its global loads), so expect a small gain at most.
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 1.11 ms, 967.3 GB/s, 21.4% of CUB (step 03: 873.6 GB/s): 1.11x, more
 * than the small gain expected.
 */
template <typename In, typename A>
__global__ void reduce_sum_in_register(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    A v = i < n ? (A)in[i] : (A)0;
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] = v = v + s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = v;
}
