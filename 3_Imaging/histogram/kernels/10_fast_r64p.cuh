/* Step 10: fast_r64p. The one change from step 09: 16-bit counters, two per
 * word. Bins p and p + BINS/2 of a copy share one word, as its low and high
 * halves (count_word_packed, 00_count.cuh), so the 64 copies take half the
 * shared memory (32 KiB + 1 KiB of 32-bit accumulators at 256 bins).
 *
 * What 16 bits cost: a counter must never pass 65535. In one round each
 * thread counts one 16-byte vector, so a counter grows by at most 16 x (the
 * warps that share its copy) per round; the whole block flushes the 16-bit
 * counters into the 32-bit accumulators (flush_packed, 00_count.cuh) every
 * hist_flush_rounds rounds (hist_common.h: 255 for 32 warps in 2 groups).
 * Every thread must reach every flush's barriers, so the block runs the
 * rounds of its thread 0 (the most any of its threads has) in intervals,
 * each thread stopping at its own last round within an interval. The head
 * and tail bytes go straight into the 32-bit accumulators.
 *
 * Why: packing is what lets step 11 fit 128 copies; alone it costs two
 * instructions per byte and buys nothing, so this step shows its price.
 * Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 13f861f): 3817 GB/s on uniform bytes
 * against step 09's 3837 (0.6% slower), 3950 against 3893 on equal bytes
 * (1.5% faster): not the price expected there; why was not measured.
 *
 * GROUPS: the sets of 32 lane copies; two here, as in step 09 (step 11
 * launches this kernel with four). */
template <int BINS, unsigned GROUPS = 2>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_fast_r64p(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    constexpr unsigned COPIES = 32u * GROUPS;
    extern __shared__ unsigned smem[];            /* BINS/2 x COPIES words of two counters, then acc */
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    unsigned *copies = smem;
    unsigned *acc = smem + (BINS / 2) * COPIES;   /* BINS 32-bit accumulators */
    const unsigned mine = (unsigned)__cvta_generic_to_shared(copies + lane + 32u * (warp % GROUPS));
    for (unsigned i = threadIdx.x; i < (BINS / 2) * COPIES + BINS; i += blockDim.x) smem[i] = 0;
    __syncthreads();

    const size_t head_max = (16u - ((uintptr_t)data & 15u)) & 15u;
    const size_t head = n < head_max ? n : head_max;
    const size_t nv = (n - head) / 16;   /* whole 16-byte vectors */
    const size_t tail_at = head + nv * 16;
    const uint4 *__restrict__ vec = (const uint4 *)(data + head);
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (gtid < head) atomicAdd(&acc[bin_of<BINS>(data[gtid])], 1u);
    if (gtid < n - tail_at) atomicAdd(&acc[bin_of<BINS>(data[tail_at + gtid])], 1u);

    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x;   /* thread 0's first vector */
    const unsigned my_rounds = gtid < nv ? (unsigned)((nv - 1 - gtid) / stride + 1) : 0u;
    const unsigned block_rounds = first < nv ? (unsigned)((nv - 1 - first) / stride + 1) : 0u;
    const unsigned interval = hist_flush_rounds(blockDim.x, GROUPS);
    const uint4 *p = vec + gtid;
    uint4 cur = make_uint4(0u, 0u, 0u, 0u), next = cur;
    if (my_rounds > 0) cur = __ldg(p);
    for (unsigned r0 = 0; r0 < block_rounds; r0 += interval) {
        const unsigned r1 = block_rounds - r0 > interval ? r0 + interval : block_rounds;
        const unsigned r_end = r1 < my_rounds ? r1 : my_rounds;
        for (unsigned r = r0; r < r_end; r++) {
            if (r + 1 < my_rounds) next = __ldg(p + stride);   /* in flight while cur is counted */
            count_vector_packed<BINS, 4u * COPIES>(mine, cur);
            cur = next;
            p += stride;
        }
        if (r1 < block_rounds) flush_packed<BINS, GROUPS>(copies, acc);
    }

    flush_packed<BINS, GROUPS>(copies, acc);   /* its barriers also end the counting */
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], (u64)acc[b]);
}
