/* Step 02: blelloch. The block scan of step 01 replaced by Blelloch's
 * work-efficient scan (1990; GPU Gems 3, ch. 39): two elements per thread,
 * an up-sweep that builds a tree of partial sums in place (n - 1 additions),
 * the root cleared, then a down-sweep that pushes prefixes back down (n - 1
 * additions and n - 1 swaps): O(n) work instead of step 01's O(n log n), at
 * the price of twice the steps (2 log2 n). The grid-level frame (three
 * passes, scan-then-propagate) is step 01's.
 *
 * The tree's strided indices (offset * (2t + 1) - 1) make the threads of a
 * warp hit the same shared-memory bank at the deep levels; GPU Gems pads the
 * array to avoid it. We do not: the sample's later steps leave the tree
 * behind altogether (warp shuffles, step 04).
 *
 * Measured on the H200, 2^28 int32, inclusive (results/H200/scan.txt, commit 13f861f):
 * 3.845 ms, 18.02% of CUB: 0.84x step 01, slower despite a third of the
 * additions. A hypothesis, not profiled: the tree's dependent levels and the
 * bank conflicts above (2-way at the first level, up to 16-way deeper). */
#define BL_BLOCK 256
#define BL_TILE (2 * BL_BLOCK)

/* Exclusive scan of s[0..BL_TILE) in place; returns the tile's total.
 * Every thread of the block calls it. */
template <typename T>
__device__ __forceinline__ T blelloch_block_scan(T *s, T *s_total)
{
    const int t = threadIdx.x;
    int offset = 1;
    for (int d = BL_TILE / 2; d > 0; d >>= 1) {        /* up-sweep */
        __syncthreads();
        if (t < d) {
            int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
            s[b] += s[a];
        }
        offset <<= 1;
    }
    __syncthreads();
    if (t == 0) {
        *s_total = s[BL_TILE - 1];
        s[BL_TILE - 1] = T(0);                          /* the root: nothing before it */
    }
    for (int d = 1; d < BL_TILE; d <<= 1) {             /* down-sweep */
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
            T left = s[a];
            s[a] = s[b];
            s[b] += left;
        }
    }
    __syncthreads();
    return *s_total;
}

/* One tile of BL_TILE elements: loads coalesced (t and t + BL_BLOCK), the
 * block scan, stores. tile_sums (when not NULL) gets the tile's total;
 * offsets (when not NULL: step 03) is added to every output. */
template <typename T, bool EXCLUSIVE>
__global__ void __launch_bounds__(BL_BLOCK) blelloch_tile(const T *in, T *out, size_t n,
                                                          T *tile_sums, const T *offsets)
{
    __shared__ T s[BL_TILE];
    __shared__ T s_total;
    const int t = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * BL_TILE;
    const size_t i0 = base + t, i1 = base + t + BL_BLOCK;
    const T x0 = i0 < n ? in[i0] : T(0), x1 = i1 < n ? in[i1] : T(0);
    s[t] = x0;
    s[t + BL_BLOCK] = x1;
    T total = blelloch_block_scan(s, &s_total);
    const T off = offsets ? offsets[blockIdx.x] : T(0);
    if (i0 < n) out[i0] = off + (EXCLUSIVE ? s[t] : s[t] + x0);
    if (i1 < n) out[i1] = off + (EXCLUSIVE ? s[t + BL_BLOCK] : s[t + BL_BLOCK] + x1);
    if (tile_sums && t == 0) tile_sums[blockIdx.x] = total;
}
