/* Step 07: lookback_in_order. Step 06's kernel with its tiles numbered by
 * blockIdx.x, as CUB's DeviceScan numbers them, instead of an atomic
 * counter.
 *
 * Why it can be faster: in steps 05 and 06 every block begins with an atomic
 * on one word in L2, then a barrier, and only then issues its loads: the
 * atomic's whole round trip (one L2 access, longer while the memory system
 * is busy) is added to the life of every tile, with nothing of that tile in
 * flight meanwhile. Here a block knows its tile at once and its loads leave
 * in its first instructions.
 *
 * What it gives up: the counter guaranteed that a tile waits only for tiles
 * whose blocks are already running. With blockIdx.x that holds only
 * because the GPU starts a grid's blocks in the order of their index (a
 * block with a higher index never runs while one with a lower index still
 * waits to start), which NVIDIA's hardware does and CUB relies on, but the
 * programming model does not promise. The look-back itself is step 05's.
 *
 * The kernel takes as template arguments the block size, the items per
 * thread, the blocks an SM must hold (MIN_BLOCKS, a limit on registers:
 * 65536 / (BLOCK x MIN_BLOCKS) per thread) and the look-back's waits:
 * this step launches it as step 06 runs, 256 x 16, LB_MIN_BLOCKS = 8
 * blocks per SM, no waits; steps 08 and 09 change only these.
 *
 * Measured on the H200, 2^28 int32, inclusive (results/H200/scan.txt, commit 13f861f):
 * 0.7389 ms, 93.78% of CUB: 1.02x step 06 (exclusive: 93.54% against
 * 91.47%). */
template <typename T, bool EXCLUSIVE, int BLOCK, int ITEMS, int MIN_BLOCKS, int FIRST_WAIT_NS,
          int POLL_WAIT_NS>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    lookback_in_order(const T *in, T *out, size_t n, unsigned long long *status)
{
    const int TILE = BLOCK * ITEMS;
    __shared__ T s_warp[BLOCK / 32 + 1];
    __shared__ T s_tr[BLOCK / 32][32 * ITEMS + ITEMS];   /* a padded slice per warp */
    __shared__ T s_before;
    const long long tile = blockIdx.x;
    const size_t tile_first = (size_t)tile * TILE;
    const size_t warp_first = tile_first + (size_t)(threadIdx.x >> 5) * (32 * ITEMS);
    const size_t first = tile_first + (size_t)threadIdx.x * ITEMS;
    const bool full = tile_first + TILE <= n;   /* the same for the whole block */
    T *s = s_tr[threadIdx.x >> 5];
    T x[ITEMS];
    if (full) load_items_transposed(in, warp_first, s, x);
    else load_items(in, n, first, x);
    T total;
    T before_thread = block_exclusive_scan<BLOCK>(thread_sum(x), &total, s_warp);
    if (threadIdx.x < 32) {
        T before_tile = T(0);
        if (tile == 0) {
            if (threadIdx.x == 0) status_store(status, LB_PREFIX, bits_of(total));
        } else {
            if (threadIdx.x == 0) status_store(status + tile, LB_AGGREGATE, bits_of(total));
            before_tile = look_back<T, FIRST_WAIT_NS, POLL_WAIT_NS>(status, tile);
            if (threadIdx.x == 0) status_store(status + tile, LB_PREFIX, bits_of(before_tile + total));
        }
        if (threadIdx.x == 0) s_before = before_tile;
    }
    __syncthreads();
    if (full) scan_store_items_transposed<T, EXCLUSIVE>(out, warp_first, s, x, s_before + before_thread);
    else scan_store_items<T, EXCLUSIVE>(out, n, first, x, s_before + before_thread);
}
