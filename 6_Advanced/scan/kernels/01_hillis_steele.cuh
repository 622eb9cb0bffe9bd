/* Step 01: hillis_steele. The textbook scan of one block (Hillis and Steele
 * 1986): one element per thread in shared memory; at step d every element
 * adds the one d places before it, d = 1, 2, 4, ... 128: after log2(256)
 * = 8 steps element i holds the sum of elements 0..i. It does n log2 n
 * additions where a loop does n: "step-efficient", not work-efficient.
 *
 * Across the grid: scan-then-propagate, three passes. (1) Each block scans
 * its tile of 256 elements and writes its tile's total; (2) one block scans
 * the totals (kernels/00_scan_common.cuh); (3) every element gets its tile's
 * offset added. The array is read twice and written twice.
 *
 * Why two barriers per step: every thread reads s[t - d] and then writes
 * s[t]; the thread that owns s[t - d] may already have added to it. Read
 * all, barrier, write all, barrier.
 *
 * Measured on the H200, 2^28 int32, inclusive (results/H200/scan.txt, commit 13f861f):
 * 3.244 ms, 21.36% of CUB. */
#define HS_BLOCK 256

template <typename T, bool EXCLUSIVE>
__global__ void __launch_bounds__(HS_BLOCK) hillis_steele_tile(const T *in, T *out, size_t n,
                                                               T *tile_sums)
{
    __shared__ T s[HS_BLOCK];
    const int t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * HS_BLOCK + t;
    s[t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int d = 1; d < HS_BLOCK; d <<= 1) {
        T add = t >= d ? s[t - d] : T(0);
        __syncthreads();
        s[t] += add;
        __syncthreads();
    }
    if (i < n) out[i] = EXCLUSIVE ? (t > 0 ? s[t - 1] : T(0)) : s[t];
    if (t == HS_BLOCK - 1) tile_sums[blockIdx.x] = s[t];
}
