/* Step 12: fast_r32_bmerge. Builds on step 08 (fast_r32), the smallest lane
 * layout, which steps 09 to 11 did not beat by more than 2% (README). The
 * one change from step 08:
 * the merge. Step 08 adds each bin with a 64-bit atomic from one lane (a
 * warp per bin): 256 single-counter requests per block, 67,584 from 264
 * blocks, all in the last microseconds and all on the same 2 KiB of L2,
 * where they queue. Here a warp still sums a bin's 32 copies with one
 * warp_sum, but lane 0 writes the sum into a row of totals in shared memory
 * (BINS more words); after a barrier thread b adds bin b: a warp's 32
 * atomics go to 32 consecutive counters (one request per 32-byte sector, as
 * in step 06's merge), and an empty bin adds nothing (CUB skips them too;
 * equal bytes: one atomic per block instead of 256).
 *
 * Steps 12 to 16 share one launcher (run_lanes in histogram.cu), so this
 * kernel already takes the launch number and the flag that step 14 uses;
 * it ignores them.
 *
 * Why it should help: fitting time = fixed + n / rate to the 512 MiB and 4
 * GiB + 1 runs gave step 08 about twice step 06's fixed cost per launch (16.6
 * against 8.8 us, in the run at d4ff6ab) although the two launch alike and
 * differ outside the counting loop only in the merge (README, "Steps 12 to
 * 16"). Measured (H200, 512 MiB, 256 bins; results/H200/histogram.txt, commit 13f861f):
 * 4163 GB/s on uniform bytes against step 08's 3958 (196.8% of CUB), 4170
 * against 4000 on equal bytes (118.1%), 5.4-6.6 us less; in the run at
 * 3865df4 the fitted fixed cost fell from 14.8-15.2 to 8.1-8.6 us (README).
 * At 64 bins it was 3.3-4.3% slower than step 08 (not investigated;
 * results/H200/histogram__bins_64.txt, commit 13f861f).
 *
 * FIT is not read by the code: it is 1 in step 13, which launches this
 * kernel with the carveout sized to need. The carveout is an attribute of
 * the function (cudaFuncSetAttribute), so each launch gets an instantiation
 * of its own. */
template <int BINS, int FIT = 0>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_fast_r32_bmerge(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist,
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
