/* Step 05: shared_private_ptx. The one change from step 04: how a byte is
 * counted. Step 04 extracts each byte with a shift and a mask and calls
 * atomicAdd on &smem[bin]; nvcc 13.0 then rebuilds every shared address from
 * the bin with three instructions. Here the copy's 32-bit shared address is
 * computed once (mine) and each byte is one prmt (byte k to the bottom),
 * one multiply-add for its address and one red.shared.add (count_word and
 * count_byte in 00_count.cuh, the PTX in 00_ptx.cuh): two instructions fewer
 * per byte, and the add returns nothing, so no register waits for it.
 *
 * Why it should help: once loads are wide and in flight, the 16 atomics per
 * vector and the instructions around them are the work; fewer instructions
 * per byte leave the SM more room to keep up with memory.
 * Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 13f861f): no gain: 2267 GB/s on uniform
 * bytes, 2923 skewed, 4289 equal, within 0.2% of step 04 on every input.
 *
 * ALL_SHARED is not read by the code: it is 1 in step 06, which launches
 * this kernel asking for all shared memory as the carveout. The carveout is
 * an attribute of the function (cudaFuncSetAttribute), so each launch gets
 * an instantiation of its own. */
template <int BINS, int ALL_SHARED = 0>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_shared_private_ptx(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    extern __shared__ unsigned smem[];   /* BINS counters: the block's copy */
    const unsigned mine = (unsigned)__cvta_generic_to_shared(smem);   /* its 32-bit shared address */
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) smem[b] = 0;
    __syncthreads();

    const size_t head_max = (16u - ((uintptr_t)data & 15u)) & 15u;
    const size_t head = n < head_max ? n : head_max;
    const size_t nv = (n - head) / 16;   /* whole 16-byte vectors */
    const size_t tail_at = head + nv * 16;
    const uint4 *__restrict__ vec = (const uint4 *)(data + head);
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (gtid < head) count_byte<BINS, 4>(mine, data[gtid]);
    if (gtid < n - tail_at) count_byte<BINS, 4>(mine, data[tail_at + gtid]);

    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const unsigned my_rounds = gtid < nv ? (unsigned)((nv - 1 - gtid) / stride + 1) : 0u;
    const uint4 *p = vec + gtid;
    uint4 cur = make_uint4(0u, 0u, 0u, 0u), next = cur;
    if (my_rounds > 0) cur = __ldg(p);
    for (unsigned r = 0; r < my_rounds; r++) {
        if (r + 1 < my_rounds) next = __ldg(p + stride);   /* in flight while cur is counted */
        count_vector<BINS, 4>(mine, cur);
        cur = next;
        p += stride;
    }

    __syncthreads();   /* every count is in before the merge reads the copy */
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], (u64)smem[b]);
}
