/* Step 11, warp_shuffle. The one change from step 10: the loads are 16-byte
 * vectors (float4, double2, int4). thread_sum<In, A, 1>
 * (common/reduce_device.cuh) is the grid-stride loop of step 10 with one
 * 16-byte vector per thread and round instead of two elements: a warp reads
 * 512 contiguous bytes with one instruction, a quarter of the load
 * instructions for floats, and a thread has 16 bytes in flight instead of 8.
 * The last n % 4 elements (n % 2 for double) are added by the first threads
 * of the grid. The block sum is step 10's. (No template block size any more:
 * nothing in this kernel depends on it.)
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 0.245 ms, 4383 GB/s, 96.8% of CUB (step 10: 3753 GB/s): 1.17x.
 */
template <typename In, typename A>
__global__ void reduce_warp_shuffle(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A v = thread_sum<In, A, 1>(in, n);
    v = block_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}
