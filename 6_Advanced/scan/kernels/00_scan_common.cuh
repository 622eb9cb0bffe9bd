/* 00_scan_common.cuh: what several steps share.
 *
 * - warp_inclusive_scan / block_exclusive_scan: the scan of one value per
 *   thread across a block with warp shuffles (__shfl_up_sync), no shared
 *   memory tree: 5 shuffle steps per warp, one shared slot per warp, and the
 *   first warp scans the warp totals. Steps 04 and 05 build their tiles on
 *   it; the tile-sum scan below uses it too.
 * - scan_tile_sums: one block scans the tile sums of a pass in place
 *   (exclusive), ITEMS per thread per round, carrying the running total
 *   from round to round. Steps 01-04 use it as their middle pass.
 * - add_tile_offsets: the third pass of steps 01 and 02 (scan-then-propagate):
 *   adds each tile's offset to its already scanned elements.
 */

#define FULL_MASK 0xffffffffu

template <typename T>
__device__ __forceinline__ T warp_inclusive_scan(T x)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        T y = __shfl_up_sync(FULL_MASK, x, d);
        if (lane >= d) x += y;
    }
    return x;
}

template <typename T>
__device__ __forceinline__ T warp_sum(T x)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(FULL_MASK, x, d);
    return x;
}

/* Exclusive scan of x over the block (BLOCK threads, a multiple of 32);
 * *total gets the sum of all x. s_warp: BLOCK / 32 + 1 shared slots. Every
 * thread of the block must call it (it has barriers). */
template <int BLOCK, typename T>
__device__ __forceinline__ T block_exclusive_scan(T x, T *total, T *s_warp)
{
    static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK: whole warps, at most 32 of them");
    const int NW = BLOCK / 32;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T inc = warp_inclusive_scan(x);
    T exc = __shfl_up_sync(FULL_MASK, inc, 1);   /* the lane before mine: exclusive */
    if (lane == 0) exc = T(0);
    __syncthreads();                              /* s_warp is free (a previous call read it) */
    if (lane == 31) s_warp[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        T w = lane < NW ? s_warp[lane] : T(0);
        T wi = warp_inclusive_scan(w);
        T we = __shfl_up_sync(FULL_MASK, wi, 1);
        if (lane < NW) s_warp[lane] = lane == 0 ? T(0) : we;
        if (lane == NW - 1) s_warp[NW] = wi;
    }
    __syncthreads();
    *total = s_warp[NW];
    return s_warp[warp] + exc;
}

/* The middle pass: sums[0..m) replaced by its exclusive scan, by one block
 * of SUMS_BLOCK threads, SUMS_ITEMS consecutive sums per thread per round. */
#define SUMS_BLOCK 1024
#define SUMS_ITEMS 8
template <typename T>
__global__ void __launch_bounds__(SUMS_BLOCK) scan_tile_sums(T *sums, size_t m)
{
    __shared__ T s_warp[SUMS_BLOCK / 32 + 1];
    T carry = T(0);
    for (size_t base = 0; base < m; base += (size_t)SUMS_BLOCK * SUMS_ITEMS) {
        const size_t first = base + (size_t)threadIdx.x * SUMS_ITEMS;
        T v[SUMS_ITEMS], mine = T(0);
#pragma unroll
        for (int j = 0; j < SUMS_ITEMS; j++) {
            v[j] = first + j < m ? sums[first + j] : T(0);
            mine += v[j];
        }
        T round_total;
        T acc = carry + block_exclusive_scan<SUMS_BLOCK>(mine, &round_total, s_warp);
#pragma unroll
        for (int j = 0; j < SUMS_ITEMS; j++) {
            if (first + j < m) sums[first + j] = acc;
            acc += v[j];
        }
        carry += round_total;
    }
}

/* Scan-then-propagate's last pass: element i of tile t gets offsets[t]. */
template <typename T>
__global__ void add_tile_offsets(T *out, size_t n, const T *offsets, int tile)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += offsets[i / tile];
}
