/* Step 05: decoupled_lookback. Step 04's tile, in ONE pass (Merrill and
 * Garland 2016, "Single-pass Parallel Prefix Scan with Decoupled
 * Look-back"; CUB's DeviceScan). Each element is read once and written
 * once: 2n of memory traffic, the minimum, where step 04 read it twice.
 *
 * Each tile publishes a status word as soon as it can: first its own sum
 * (AGGREGATE, known after its block scan), later the sum of everything up
 * to and including it (PREFIX). To learn what comes before it, a tile's
 * first warp looks back at the 32 tiles before it, one lane per tile: it
 * waits while any of them has published nothing (INVALID); adds up the
 * aggregates back to the nearest PREFIX and stops there; with no PREFIX in
 * the window it adds all 32 aggregates and looks at the 32 before. It
 * never waits for a PREFIX, only for an AGGREGATE, which a tile publishes
 * as soon as its own block scan is done, without waiting for anyone: so no
 * tile waits for a chain of others.
 *
 * Memory ordering. The flag and the value share one 64-bit word (flag in
 * the high half, the value's 32 bits in the low half), written by one
 * 64-bit store and read by one 64-bit load, both atomic at device scope
 * (st.relaxed.gpu / ld.relaxed.gpu): a reader that sees the flag sees the
 * value that came with it, so no fence is needed. Were they two words, the
 * writer would need st.release (or __threadfence() between value and flag)
 * and the reader ld.acquire, or the reader could see the new flag with an
 * old value. A plain load would not do either: the compiler may keep it in
 * a register across the spin loop, and the SM's L1 is not coherent; the
 * .gpu scope makes each load go to L2, where every SM's store lands.
 *
 * Forward progress: tiles are numbered in the order blocks START (an
 * atomic counter), not by blockIdx, so every tile a block waits for belongs
 * to a block that is already running and will finish; with blockIdx a block
 * could wait for a tile whose block is not yet scheduled.
 *
 * Measured on the H200, 2^28 int32, inclusive (results/H200/scan.txt, commit 13f861f):
 * 0.9876 ms, 70.17% of CUB: 1.08x step 04; a third less traffic, but the
 * loads and stores are not coalesced (step 06). */
#define LB_INVALID 0u
#define LB_AGGREGATE 1u
#define LB_PREFIX 2u

template <typename T>
__device__ __forceinline__ unsigned bits_of(T v) { return (unsigned)v; }
template <>
__device__ __forceinline__ unsigned bits_of<float>(float v) { return __float_as_uint(v); }
template <typename T>
__device__ __forceinline__ T from_bits(unsigned b) { return (T)b; }
template <>
__device__ __forceinline__ float from_bits<float>(unsigned b) { return __uint_as_float(b); }

__device__ __forceinline__ void status_store(unsigned long long *p, unsigned flag, unsigned value)
{
    unsigned long long w = ((unsigned long long)flag << 32) | value;
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
}

__device__ __forceinline__ unsigned long long status_load(const unsigned long long *p)
{
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
    return w;
}

/* Called by one whole warp of tile `tile` (> 0): the sum of every element
 * before the tile. Lane 31 looks at tile - 1, lane 0 at tile - 32; a tile
 * before the first counts as a PREFIX of 0. FIRST_WAIT_NS and POLL_WAIT_NS
 * are step 08's (kernels/08_lookback_patient.cuh); 0 here: no waiting. */
template <typename T, int FIRST_WAIT_NS = 0, int POLL_WAIT_NS = 0>
__device__ T look_back(const unsigned long long *status, long long tile)
{
    const int lane = threadIdx.x & 31;
    T before = T(0);
    if (FIRST_WAIT_NS > 0) __nanosleep(FIRST_WAIT_NS);
    for (long long p = tile - 32 + lane;; p -= 32) {
        unsigned flag;
        T v;
        for (;;) {
            if (p >= 0) {
                unsigned long long w = status_load(status + p);
                flag = (unsigned)(w >> 32);
                v = from_bits<T>((unsigned)w);
            } else {
                flag = LB_PREFIX;
                v = T(0);
            }
            if (!__any_sync(FULL_MASK, flag == LB_INVALID)) break;
            if (POLL_WAIT_NS > 0) __nanosleep(POLL_WAIT_NS);
        }
        const unsigned prefixes = __ballot_sync(FULL_MASK, flag == LB_PREFIX);
        const int nearest = prefixes ? 31 - __clz(prefixes) : 0;   /* highest lane with a PREFIX */
        before += warp_sum(lane >= nearest ? v : T(0));
        if (prefixes) return before;
    }
}

/* Eight blocks of 256 threads per SM (2048 threads, all an SM holds), so
 * at most 32 registers per thread: a kernel that needs more runs fewer
 * tiles at once, and fewer loads are in flight. */
#define LB_MIN_BLOCKS 8

template <typename T, bool EXCLUSIVE>
__global__ void __launch_bounds__(WS_BLOCK, LB_MIN_BLOCKS) decoupled_lookback(const T *in, T *out, size_t n,
                                                               unsigned long long *status,
                                                               unsigned *tile_counter)
{
    __shared__ T s_warp[WS_BLOCK / 32 + 1];
    __shared__ unsigned s_tile;
    __shared__ T s_before;
    if (threadIdx.x == 0) s_tile = atomicAdd(tile_counter, 1u);
    __syncthreads();
    const long long tile = s_tile;
    const size_t first = (size_t)tile * WS_TILE + (size_t)threadIdx.x * WS_ITEMS;
    T x[WS_ITEMS];
    load_items(in, n, first, x);
    T total;
    T before_thread = block_exclusive_scan<WS_BLOCK>(thread_sum(x), &total, s_warp);
    if (threadIdx.x < 32) {
        T before_tile = T(0);
        if (tile == 0) {
            if (threadIdx.x == 0) status_store(status, LB_PREFIX, bits_of(total));
        } else {
            if (threadIdx.x == 0) status_store(status + tile, LB_AGGREGATE, bits_of(total));
            before_tile = look_back<T>(status, tile);
            if (threadIdx.x == 0) status_store(status + tile, LB_PREFIX, bits_of(before_tile + total));
        }
        if (threadIdx.x == 0) s_before = before_tile;
    }
    __syncthreads();
    scan_store_items<T, EXCLUSIVE>(out, n, first, x, s_before + before_thread);
}
