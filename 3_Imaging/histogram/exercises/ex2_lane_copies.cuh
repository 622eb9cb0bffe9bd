/* Exercise 2: one copy per lane. Step 04 (shared_private_prefetch) counts
 * every thread of a block into one copy of the bins; random bytes then put
 * several lanes of one atomic instruction on the same shared-memory bank,
 * and the hardware serializes them. Give each lane its own copy, laid out so
 * that lane L always uses bank L. What to do, what to look for and the
 * command: exercises/README.md.
 *
 * As given, the kernel is step 04 with room for 32 copies (the launcher
 * gives it BINS x 32 counters) and a merge that already reads the lane
 * layout, but it still counts into one copy: the check fails. */
#define EXERCISE_BASE "shared_private_prefetch"
#define EXERCISE_RUN BY_BINS(run_privatized, hist_exercise, HIST_PER_LANE, 1, 0, 0)

template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_exercise(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    extern __shared__ unsigned smem[];   /* BINS x 32 counters */
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;

    /* TODO: this thread's copy. The counter of bin b in the copy that starts
     * at `mine` is mine[b * STRIDE]. As given, every thread shares the copy
     * of words 0 .. BINS-1. Give lane L its own copy, interleaved with the
     * others: the counter of bin b for lane L at word 32 b + L (a bank holds
     * every 32nd word, so lane L then always hits bank L). */
    unsigned *mine = smem;
    constexpr unsigned STRIDE = 1;   /* words between two bins of one copy */

    for (unsigned i = threadIdx.x; i < BINS * 32u; i += blockDim.x) smem[i] = 0;
    __syncthreads();

    const size_t head_max = (16u - ((uintptr_t)data & 15u)) & 15u;
    const size_t head = n < head_max ? n : head_max;
    const size_t nv = (n - head) / 16;   /* whole 16-byte vectors */
    const size_t tail_at = head + nv * 16;
    const uint4 *__restrict__ vec = (const uint4 *)(data + head);
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (gtid < head) atomicAdd(&mine[bin_of<BINS>(data[gtid]) * STRIDE], 1u);
    if (gtid < n - tail_at) atomicAdd(&mine[bin_of<BINS>(data[tail_at + gtid]) * STRIDE], 1u);

    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const unsigned my_rounds = gtid < nv ? (unsigned)((nv - 1 - gtid) / stride + 1) : 0u;
    const uint4 *p = vec + gtid;
    uint4 cur = make_uint4(0u, 0u, 0u, 0u), next = cur;
    if (my_rounds > 0) cur = __ldg(p);
    for (unsigned r = 0; r < my_rounds; r++) {
        if (r + 1 < my_rounds) next = __ldg(p + stride);   /* in flight while cur is counted */
        count_vector_atomic<BINS, STRIDE>(mine, cur);
        cur = next;
        p += stride;
    }

    /* The merge, for the lane layout: one warp per bin; the bin's 32 copies
     * are one row of consecutive words, summed over the warp's lanes. */
    __syncthreads();
    for (unsigned b = warp; b < BINS; b += warps) {
        const unsigned sum = warp_sum(smem[32u * b + lane]);
        if (lane == 0) atomicAdd(&hist[b], (u64)sum);
    }
}
