/* Step 13: fast_r32_l1. The one change from step 12: the carveout. The
 * kernel is step 12's; its launch (run_lanes with FIT in histogram.cu) asks
 * for the shared memory its two blocks need (hist_carveout_percent: 30%,
 * which the H200 rounds up to 100 KiB) instead of all 228 KiB that can be
 * shared, so L1 keeps 156 KiB instead of 28. (A kernel of its own, because
 * the carveout is an attribute of the function.)
 *
 * Why it should help: a 16-byte load that misses holds L1 lines until its
 * data arrives, so L1 may cap the bytes in flight: 28 KiB on each of 132 SMs
 * is 3.8 MB, which at 4.4 TB/s covers under 0.9 us of latency (Little's law),
 * about what a read from HBM under load takes, while the threads of an SM
 * want 32-64 KiB in flight. Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 3865df4): 4239 GB/s on uniform bytes
 * against step 12's 4112 (+3.1%, 198.9% of CUB), 4244 against 4150 on equal
 * bytes (+2.3%); the fitted rate rose from 4.40-4.42 to 4.55-4.57 TB/s. */
template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_fast_r32_l1(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist,
                 unsigned epoch, unsigned *__restrict__ zeroed)
{
    constexpr unsigned COPIES = 32;               /* one per lane */
    extern __shared__ unsigned smem[];            /* BINS x COPIES counters, then BINS totals */
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    unsigned *totals = smem + BINS * COPIES;      /* the block's count of each bin */
    const unsigned mine = (unsigned)__cvta_generic_to_shared(smem + lane);
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
