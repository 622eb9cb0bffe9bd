/* Step 04: shared_private_prefetch. The one change from step 03: each
 * thread issues the load of its next vector before it counts the current
 * one (next = __ldg(p + stride), then cur = next), so a load is in flight
 * while the 16 atomics of the current vector run.
 *
 * Why it should help: in step 03 a thread waits a whole memory latency for
 * every vector before it can count it; by Little's law the bytes in flight
 * set the rate, and here each thread keeps one more vector in flight.
 * Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 13f861f): no gain: 2267 GB/s on uniform
 * bytes, 2929 skewed, 4288 equal: 0.2%, 0.3% and 2.1% slower than step 03 on
 * uniform, skewed and equal bytes. Why was not measured. */
template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_shared_private_prefetch(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    extern __shared__ unsigned smem[];   /* BINS counters: the block's copy */
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) smem[b] = 0;
    __syncthreads();

    const size_t head_max = (16u - ((uintptr_t)data & 15u)) & 15u;
    const size_t head = n < head_max ? n : head_max;
    const size_t nv = (n - head) / 16;   /* whole 16-byte vectors */
    const size_t tail_at = head + nv * 16;
    const uint4 *__restrict__ vec = (const uint4 *)(data + head);
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (gtid < head) atomicAdd(&smem[bin_of<BINS>(data[gtid])], 1u);
    if (gtid < n - tail_at) atomicAdd(&smem[bin_of<BINS>(data[tail_at + gtid])], 1u);

    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const unsigned my_rounds = gtid < nv ? (unsigned)((nv - 1 - gtid) / stride + 1) : 0u;
    const uint4 *p = vec + gtid;
    uint4 cur = make_uint4(0u, 0u, 0u, 0u), next = cur;
    if (my_rounds > 0) cur = __ldg(p);
    for (unsigned r = 0; r < my_rounds; r++) {
        if (r + 1 < my_rounds) next = __ldg(p + stride);   /* in flight while cur is counted */
        count_vector_atomic<BINS, 1>(smem, cur);
        cur = next;
        p += stride;
    }

    __syncthreads();   /* every count is in before the merge reads the copy */
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], (u64)smem[b]);
}
