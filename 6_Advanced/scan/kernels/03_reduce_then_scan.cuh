/* Step 03: reduce_then_scan. Step 02's block scan, but the grid-level plan
 * changes from scan-then-propagate to reduce-then-scan (Merrill and
 * Grimshaw 2009): (1) each block only SUMS its tile (reads it, writes one
 * value), (2) one block scans the sums, as before, (3) each block scans its
 * tile again, starting from its tile's offset, and writes it
 * (blelloch_tile with `offsets`). Reads 2n and writes n, where step 02 read
 * 2n and wrote 2n: the scanned array no longer makes a round trip through
 * memory just to get an offset added.
 *
 * Measured on the H200, 2^28 int32, inclusive (results/H200/scan.txt, commit 13f861f):
 * 3.35 ms, 20.68% of CUB: 1.15x step 02, but still behind step 01: the
 * block scan is still step 02's. */

/* Pass 1: the sum of each BL_TILE-element tile, by warp shuffles. */
template <typename T>
__global__ void __launch_bounds__(BL_BLOCK) reduce_tiles(const T *in, size_t n, T *tile_sums)
{
    __shared__ T s_warp[BL_BLOCK / 32];
    const int t = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * BL_TILE;
    const size_t i0 = base + t, i1 = base + t + BL_BLOCK;
    T v = (i0 < n ? in[i0] : T(0)) + (i1 < n ? in[i1] : T(0));
    v = warp_sum(v);
    if ((t & 31) == 0) s_warp[t >> 5] = v;
    __syncthreads();
    if (t < 32) {
        v = t < BL_BLOCK / 32 ? s_warp[t] : T(0);
        v = warp_sum(v);
        if (t == 0) tile_sums[blockIdx.x] = v;
    }
}
