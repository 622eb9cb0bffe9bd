/* Step 15: fast_r32_l2pf. The one change from step 14: each thread also
 * asks the L2 for the vector L2PF_AHEAD rounds ahead (prefetch.global.L2,
 * 00_ptx.cuh: it holds no register and no L1 line), so the load one round
 * ahead should find its data in L2, at a fraction of the latency: memory
 * sees about L2PF_AHEAD times the requests in flight.
 *
 * Why it could help: if the bytes in flight still cap the rate once L1 is
 * large (step 13), more requests in flight that hold no L1 line get past the
 * cap; if not, predicted within 1-2% of step 14 (6 instructions more per
 * vector). Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 13f861f): it failed: 3774 GB/s on
 * uniform bytes against step 14's 4284, 3777 against 4286 on equal bytes,
 * 13-15% slower on every input at both sizes and both bin counts. The fit puts the
 * loss in the streaming rate, not the fixed cost; what causes it was not
 * measured (README, "Steps 12 to 16"). */
#define L2PF_AHEAD 4   /* the vector this many rounds ahead is prefetched */

template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_fast_r32_l2pf(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist,
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
    for (unsigned d = 1; d < L2PF_AHEAD; d++)   /* the first vectors' prefetches */
        if (d < my_rounds) prefetch_l2(p + d * stride);
    for (unsigned r = 0; r < my_rounds; r++) {
        if (r + 1 < my_rounds) next = __ldg(p + stride);   /* in flight while cur is counted */
        if (r + L2PF_AHEAD < my_rounds) prefetch_l2(p + L2PF_AHEAD * stride);
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
