/* Step 06: shared_private_vec16. The one change from step 05: the launch
 * asks for all of the SM's memory that can be shared memory (the carveout,
 * cudaSharedmemCarveoutMaxShared: 228 KiB of the SM's 256 KiB on an H200,
 * leaving 28 KiB of L1); the kernel is step 05's. Steps 02 to 05 let the
 * driver choose. The layouts that follow need tens of KiB per block, and
 * every later step is launched this way until step 13 sizes the carveout to
 * what the blocks need.
 *
 * Why it could matter: a 16-byte load that misses holds L1 lines until its
 * data arrives, so a smaller L1 may cap the bytes in flight (step 13 found
 * that it does: +2.3 to 3.1% when L1 grew back to 156 KiB). Measured (H200,
 * 512 MiB, 256 bins; results/H200/histogram.txt, commit 3865df4): 2357 GB/s on
 * uniform bytes (110.5% of CUB), 3151 skewed, 4195 equal (118.4% of CUB):
 * 3.9% and 6.9% faster than step 05 on uniform and skewed bytes, 1.5% slower
 * on equal ones; why was not measured. Equal bytes run near the memory's
 * rate; uniform ones are held back by bank conflicts in the one copy (README,
 * "Why contention depends on the input"). */
template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_shared_private_vec16(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    extern __shared__ unsigned smem[];   /* BINS counters: the block's copy */
    const unsigned mine = (unsigned)__cvta_generic_to_shared(smem);   /* its 32-bit shared address */
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) smem[b] = 0;
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

    __syncthreads();   /* every count is in before the merge reads the copy */
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], (u64)smem[b]);
}
