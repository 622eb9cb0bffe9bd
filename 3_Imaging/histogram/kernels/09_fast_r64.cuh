/* Step 09: fast_r64. The one change from step 08: two sets of lane copies
 * (GROUPS = 2, 64 copies, 64 KiB per block at 256 bins): even warps count
 * into one set, odd warps into the other. Lane L still hits bank L.
 *
 * Why it could help: with the bank conflicts gone, what is left for equal
 * bytes is warps updating the same word back to back; two sets halve that.
 *
 * Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 3865df4): it did not help: 3922 GB/s on
 * uniform bytes against step 08's 3946, 3939 against 3961 on equal bytes
 * (within 0.6% on every input). Same-word atomics from different warps cost
 * nothing measurable. */
template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_fast_r64(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    constexpr unsigned GROUPS = 2;                /* sets of 32 lane copies */
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
