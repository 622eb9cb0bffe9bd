/* Step 14: fast_r32_nozero. The one change from step 13: no memset before
 * the kernel. Block 0 zeroes the output at its start and then publishes this
 * launch's number (the epoch, new for every launch) in a flag, with release
 * semantics; every block reads the flag with acquire semantics before its
 * merge and adds only once it holds the epoch. Waiting for another block is
 * safe only if that block is sure to run: the launcher (run_lanes with
 * NOZERO) launches it cooperatively, which guarantees that every block of
 * the grid is resident at once (the grid is at most the resident blocks
 * anyway). Block 0 sets the flag within microseconds of the start, the
 * others look at it after counting, so in practice nobody waits.
 *
 * Why it should help: it saves the 2 KiB memset and the gap between it and
 * the kernel, bounded by CUB's whole fixed cost (about 3 us); predicted 1 to
 * 1.5 us less per launch. Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 13f861f): medians 0.9 us less on uniform
 * bytes (4284 GB/s, 202.6% of CUB), 0.7 us less on equal bytes (4286 GB/s,
 * 121.4% of CUB), a little under the prediction: the fastest variant on
 * uniform and skewed bytes (on equal bytes step 03 is faster, 4379 GB/s). */
template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_fast_r32_nozero(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist,
                     unsigned epoch, unsigned *__restrict__ zeroed)
{
    constexpr unsigned COPIES = 32;               /* one per lane */
    extern __shared__ unsigned smem[];            /* BINS x COPIES counters, then BINS totals */
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    unsigned *totals = smem + BINS * COPIES;      /* the block's count of each bin */
    const unsigned mine = (unsigned)__cvta_generic_to_shared(smem + lane);
    for (unsigned i = threadIdx.x; i < BINS * COPIES; i += blockDim.x) smem[i] = 0;
    if (blockIdx.x == 0) {
        for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) hist[b] = 0;   /* zero the output */
        __threadfence();   /* this thread's zeros are in L2 before the flag can be */
    }
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) st_release_gpu(zeroed, epoch);   /* "zeroed for launch epoch" */

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

    /* Before the merge, thread 0 makes sure block 0 has zeroed the output
     * for this launch (while other warps may still be counting). */
    if (threadIdx.x == 0)
        while (ld_acquire_gpu(zeroed) != epoch) {
        }
    __syncthreads();   /* every count is in before the copies are summed */
    for (unsigned b = warp; b < BINS; b += warps) {
        const unsigned sum = warp_sum(smem[b * COPIES + lane]);   /* one conflict-free row */
        if (lane == 0) totals[b] = sum;
    }
    __syncthreads();   /* every total is in before thread b adds bin b */
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) {
        const unsigned v = totals[b];
        if (v != 0) atomicAdd(&hist[b], (u64)v);
    }
}
