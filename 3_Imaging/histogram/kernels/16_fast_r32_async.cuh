/* Step 16: fast_r32_async. Builds on step 14 (fast_r32_nozero); the one
 * change from it: how the vectors are loaded. cp.async (sm_80 and later,
 * 00_ptx.cuh) copies each vector into a ring of ASYNC_STAGES 16-byte slots
 * per thread in shared memory (64 KiB per block: 97 KiB in all at 256 bins,
 * two blocks still fit in 228 KiB), so ASYNC_STAGES - 1 vectors are always
 * in flight, in neither registers nor L1 (.cg: L2 only). Each thread only
 * ever reads its own slots, after its own cp.async.wait_group: no barrier
 * is needed for them. A slot is refilled in the round after it was read,
 * when the counts that used its bytes have been issued.
 *
 * Why it could help: the same aim as step 15 (more bytes in flight past the
 * L1 cap) by another road. The price: each vector crosses shared memory twice
 * more (the copy's write and one LDS.128), 8 more shared-memory passes per
 * warp to the 16 of its atomics, and 71 instructions per vector instead of
 * 60. Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 13f861f): it gained nothing: 3929 GB/s
 * on uniform bytes against step 14's 4284 (9.1% slower), 4147 against 4286 on
 * equal bytes (3.4% slower). In this run its median was within 1.0% of its
 * fastest run on every input; the runs at d4ff6ab and 3865df4 saw it 7-10%
 * apart (README). */
#define ASYNC_STAGES 4   /* ring slots per thread; one fewer vectors in flight */

template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_fast_r32_async(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist,
                    unsigned epoch, unsigned *__restrict__ zeroed)
{
    constexpr unsigned COPIES = 32;               /* one per lane */
    extern __shared__ unsigned smem[];            /* counters, totals, then the ring */
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    unsigned *totals = smem + BINS * COPIES;      /* the block's count of each bin */
    uint4 *ring = (uint4 *)(totals + BINS);       /* ASYNC_STAGES x blockDim 16-byte slots */
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
    /* Slot s of this thread: ring[s x blockDim + tid] (consecutive threads,
     * consecutive 16 bytes: conflict-free). The prologue starts vectors
     * 0 .. ASYNC_STAGES - 2; round r waits for vector r, reads it, starts
     * vector r + ASYNC_STAGES - 1 into the slot read in round r - 1, and
     * counts. A group is committed every time, empty or not, so "all but the
     * newest ASYNC_STAGES - 2 groups" is always "up to vector r". */
    uint4 *my_slots = ring + threadIdx.x;
    const unsigned slot_step = blockDim.x;
    const uint4 *ahead = p;
    for (unsigned s = 0; s + 1 < ASYNC_STAGES; s++) {
        if (s < my_rounds) cp_async16((unsigned)__cvta_generic_to_shared(my_slots + s * slot_step), ahead);
        cp_async_commit();
        ahead += stride;
    }
    for (unsigned r = 0; r < my_rounds; r++) {
        cp_async_wait<ASYNC_STAGES - 2>();   /* vector r has landed */
        const uint4 v = my_slots[(r % ASYNC_STAGES) * slot_step];
        const unsigned refill = r + ASYNC_STAGES - 1;
        if (refill < my_rounds)
            cp_async16((unsigned)__cvta_generic_to_shared(my_slots + (refill % ASYNC_STAGES) * slot_step),
                       ahead);
        cp_async_commit();
        ahead += stride;
        count_vector<BINS, 4u * COPIES>(mine, v);
    }
    cp_async_wait<0>();   /* nothing of this thread's left in flight (all empty by now) */

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
