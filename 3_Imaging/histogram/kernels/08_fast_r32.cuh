/* Step 08: fast_r32. The one change from step 07: the layout of the 32
 * copies. Copy c is now lane c's (not warp c's), and the copies are
 * interleaved: the counter of bin b in copy c is word 32 b + c. A bank holds
 * every 32nd word, so lane L always hits bank L: an atomic instruction of a
 * warp is one conflict-free shared-memory access whatever bytes its 32
 * lanes hold. Neighbouring bins of one copy are now 32 words (128 bytes)
 * apart (STRIDE). The merge follows the layout: one warp per bin, the bin's
 * 32 copies are one row of consecutive words (a conflict-free read), summed
 * by warp_sum; lane 0 adds the sum to the global histogram.
 *
 * Why it should help: with one copy (or one per warp) random bytes put
 * several lanes of an atomic instruction on the same bank, and the hardware
 * serializes them: about 3.16 passes per instruction on uniform bytes at
 * 256 bins (README, "Why contention depends on the input"); here 1.
 *
 * Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 13f861f): 3958 GB/s on uniform bytes
 * against step 07's 2345 (187.1% of CUB), 3995 skewed; on equal bytes, which
 * had no bank conflicts to lose, 4000 against 4174: its merge costs more
 * (step 12 measures it).
 *
 * GROUPS: the sets of 32 lane copies; one here (step 09 launches this kernel
 * with two). */
template <int BINS, unsigned GROUPS = 1>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_fast_r32(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    constexpr unsigned COPIES = 32u * GROUPS;
    extern __shared__ unsigned smem[];            /* BINS x COPIES counters */
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const unsigned mine = (unsigned)__cvta_generic_to_shared(smem + lane + 32u * (warp % GROUPS));
    for (unsigned i = threadIdx.x; i < BINS * COPIES; i += blockDim.x) smem[i] = 0;
    __syncthreads();

    const size_t head_max = (16u - ((uintptr_t)data & 15u)) & 15u;
    const size_t head = n < head_max ? n : head_max;
    const size_t nv = (n - head) / 16;   /* whole 16-byte vectors */
    const size_t tail_at = head + nv * 16;
    const uint4 *__restrict__ vec = (const uint4 *)(data + head);
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (gtid < head) count_byte<BINS, 4u * COPIES>(mine, data[gtid]);
    if (gtid < n - tail_at) count_byte<BINS, 4u * COPIES>(mine, data[tail_at + gtid]);

    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const unsigned my_rounds = gtid < nv ? (unsigned)((nv - 1 - gtid) / stride + 1) : 0u;
    const uint4 *p = vec + gtid;
    uint4 cur = make_uint4(0u, 0u, 0u, 0u), next = cur;
    if (my_rounds > 0) cur = __ldg(p);
    for (unsigned r = 0; r < my_rounds; r++) {
        if (r + 1 < my_rounds) next = __ldg(p + stride);   /* in flight while cur is counted */
        count_vector<BINS, 4u * COPIES>(mine, cur);
        cur = next;
        p += stride;
    }

    __syncthreads();   /* every count is in before the merge reads the copies */
    for (unsigned b = warp; b < BINS; b += warps) {
        unsigned sum = 0;
#pragma unroll
        for (unsigned g = 0; g < GROUPS; g++) sum += smem[b * COPIES + 32u * g + lane];
        sum = warp_sum(sum);
        if (lane == 0) atomicAdd(&hist[b], (u64)sum);
    }
}
