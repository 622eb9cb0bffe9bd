/* Step 02, interleaved_bank_conflicts. The one change from step 01: which
 * thread adds which pair. Thread t now works on index 2 s t, so the active
 * threads are the first ones and whole warps retire early: no divergence
 * inside the busy warps, and no `%`.
 * What it costs: the strided index makes threads of a warp hit the same
 * shared-memory bank (2-way, 4-way, ... conflicts), and each conflicting
 * access is replayed.
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 1.587 ms, 676.5 GB/s, 15.0% of CUB (step 01: 416.2 GB/s).
 */
template <typename In, typename A>
__global__ void reduce_interleaved_bank_conflicts(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? (A)in[i] : (A)0;
    __syncthreads();
    for (unsigned k = 1; k < blockDim.x; k *= 2) {
        unsigned index = 2 * k * tid;
        if (index < blockDim.x) s[index] += s[index + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
