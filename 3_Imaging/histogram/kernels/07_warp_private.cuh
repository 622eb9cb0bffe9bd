/* Step 07: warp_private. The one change from step 06: one copy of the bins
 * per warp (32 copies per block, 32 KiB at 256 bins) instead of one per
 * block. Thread t counts into copy t / 32; the merge sums the 32 copies of
 * each bin down a column (consecutive threads read consecutive bins:
 * conflict-free) and adds the sum with one global atomic per bin per block.
 *
 * Why it should help: warps no longer hit the same counters; equal bytes
 * from 32 warps go to 32 words instead of one. It does not change the bank
 * pattern inside one warp's atomic instruction (each copy has the same).
 *
 * Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 13f861f): it did not help: 2345 GB/s on
 * uniform bytes against step 06's 2354, 3104 against 3112 skewed, 4174
 * against 4197 equal. The same-word traffic between warps that it removes
 * cost nothing measurable. */
template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_warp_private(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    extern __shared__ unsigned smem[];   /* warps x BINS counters: copy w is warp w's */
    const unsigned warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const unsigned mine = (unsigned)__cvta_generic_to_shared(smem + warp * BINS);
    for (unsigned i = threadIdx.x; i < warps * BINS; i += blockDim.x) smem[i] = 0;
    __syncthreads();

    const size_t head_max = (16u - ((uintptr_t)data & 15u)) & 15u;
    const size_t head = n < head_max ? n : head_max;
    const size_t nv = (n - head) / 16;   /* whole 16-byte vectors */
    const size_t tail_at = head + nv * 16;
    const uint4 *__restrict__ vec = (const uint4 *)(data + head);
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (gtid < head) count_byte<BINS, 4>(mine, data[gtid]);
    if (gtid < n - tail_at) count_byte<BINS, 4>(mine, data[tail_at + gtid]);

    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const unsigned my_rounds = gtid < nv ? (unsigned)((nv - 1 - gtid) / stride + 1) : 0u;
    const uint4 *p = vec + gtid;
    uint4 cur = make_uint4(0u, 0u, 0u, 0u), next = cur;
    if (my_rounds > 0) cur = __ldg(p);
    for (unsigned r = 0; r < my_rounds; r++) {
        if (r + 1 < my_rounds) next = __ldg(p + stride);   /* in flight while cur is counted */
        count_vector<BINS, 4>(mine, cur);
        cur = next;
        p += stride;
    }

    __syncthreads();   /* every count is in before the merge reads the copies */
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned sum = 0;
        for (unsigned w = 0; w < warps; w++) sum += smem[w * BINS + b];
        atomicAdd(&hist[b], (u64)sum);
    }
}
