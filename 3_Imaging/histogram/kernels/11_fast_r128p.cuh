/* Step 11: fast_r128p. The one change from step 10: four sets of lane
 * copies (GROUPS = 4): 128 copies of 16-bit counters, 64 KiB + 1 KiB of
 * accumulators per block at 256 bins. As 32-bit counters they would take
 * 128 KiB, and only one block of 1024 threads would fit on an SM; packed,
 * two still do. Warps w with the same w mod 4 share a set, so a counter
 * grows by at most 16 x 8 per round and the flush comes every 511 rounds.
 *
 * Why it could help: fewer warps per copy, for the same-word traffic on
 * equal bytes; the run below says whether more copies pay for the 16-bit
 * arithmetic.
 *
 * Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 3865df4): 3992 GB/s on uniform bytes
 * against step 10's 3972, 4015 against 3991 on equal bytes (+0.5-0.6%), and
 * 1.2-1.6% ahead of step 08 on every input; at 64 bins 0.7-1.2% behind step
 * 08 (results/H200/histogram__bins_64.txt, commit 3865df4). In the run at
 * d4ff6ab, when steps 06 to 11 were one template kernel, it was 1-3% behind
 * steps 08 and 09 (README, "Which fast configuration wins"): differences of
 * this size decide nothing. Step 12 builds on step 08 (fast_r32). */
template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_fast_r128p(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    constexpr unsigned GROUPS = 4;                /* sets of 32 lane copies */
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
