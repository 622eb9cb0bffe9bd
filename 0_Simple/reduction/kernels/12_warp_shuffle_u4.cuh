/* Step 12, warp_shuffle_u4. The one change from step 11: LOADS independent
 * 16-byte loads in flight per thread instead of one, with LOADS = 4 (the
 * constant below, used by this step's row of the variant table).
 * thread_sum<In, A, LOADS> issues the LOADS loads of a round (each a grid
 * apart) before any add, each into its own accumulator, so a thread waits
 * on 4 x 16 bytes at once instead of one load at a time. HBM needs many
 * bytes in flight to stay busy (Little's law: bandwidth x latency), and
 * with one 16-byte load per thread the whole GPU did not have enough.
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 0.2391 ms, 4492 GB/s, 99.2% of CUB (step 11: 4383 GB/s): 1.02x.
 */
#define WARP_SHUFFLE_U4_LOADS 4

template <typename In, typename A, int LOADS>
__global__ void reduce_loads_in_flight(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A v = thread_sum<In, A, LOADS>(in, n);
    v = block_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}
