/* Step 01: global_atomics, the classic form. One thread per byte, one
 * atomicAdd on a 64-bit global counter per byte.
 *
 * Why it is slow: every byte becomes a read-modify-write in L2, and all of
 * them land on BINS addresses (8 bins share a 32-byte sector), so the atomic
 * units serialize them: uniform bytes spread over 256 counters, equal bytes
 * queue on one. Timed on at most 2^24 bytes (it is hundreds of times slower
 * than the rest).
 *
 * Measured (H200, 256 bins, 2^24 bytes;
 * results/H200/histogram.txt, commit 13f861f): 6.3 GB/s on uniform bytes, 1.4
 * GB/s on equal ones: 0.3% and 0.04% of CUB. */
template <int BINS>
__global__ void hist_global_atomics(const unsigned char *__restrict__ data, size_t n,
                                    u64 *__restrict__ hist)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[bin_of<BINS>(data[i])], 1ull);
}
