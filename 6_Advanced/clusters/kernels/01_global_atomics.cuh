/* Step 01: global_atomics. The plain kernel: one thread per sample, one
 * atomicAdd on the 65,536 counters in global memory. Every add is a trip to
 * the L2 slice that holds the counter; the L2's atomic units are the limit,
 * not HBM. This is what every cluster size is compared with. */
__global__ void __launch_bounds__(ATOMIC_THREADS)
hist_global_atomics(const uint16_t *data, size_t n, unsigned *hist)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[data[i]], 1u);
}
