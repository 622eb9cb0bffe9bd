/* Step 06: lookback_transposed. Step 05's kernel, with its loads and stores
 * made coalesced. In step 05 each thread loads its own 16 consecutive
 * elements: a warp's 16-byte load touches 32 pieces 64 bytes apart, half of
 * every 32-byte sector it fetches, so each sector is requested twice (the
 * second time from L1 if it still holds it), and each store sends half
 * sectors to L2.
 * Here a warp loads its 512 elements warp-striped (lane l takes the 16-byte
 * vectors l, l + 32, l + 64, l + 96: every instruction reads 512 contiguous
 * bytes), writes them to shared memory, and each lane reads back its 16
 * consecutive elements; the stores go the same way in reverse. A warp needs
 * only __syncwarp() around it: no other warp touches its part.
 *
 * Bank conflicts: element e of the warp's 512 goes to word e + e / 32 (one
 * word of padding per 32). Then the striped writes (lane l, word 4l + c of a
 * 128-word row) and the blocked reads (lane l, word 16l + j) each hit 32
 * different banks.
 *
 * Measured on the H200, 2^28 int32, inclusive (results/H200/scan.txt, commit 13f861f):
 * 0.7552 ms, 91.75% of CUB: 1.31x step 05, the largest look-back step. */
#define TR_WARP_ITEMS (32 * WS_ITEMS)                     /* 512 elements per warp */
#define TR_WARP_WORDS (TR_WARP_ITEMS + TR_WARP_ITEMS / 32) /* with padding */

__device__ __forceinline__ int tr_word(int e) { return e + (e >> 5); }

/* The thread's ITEMS consecutive elements of a FULL tile, x[j] = element
 * warp_first + ITEMS * lane + j (what load_items gives), through the warp's
 * slice of shared memory s (32 * ITEMS + ITEMS words). All ITEMS / 4 loads
 * are issued before the first one is used: they are in flight together. */
template <typename T, int ITEMS>
__device__ __forceinline__ void load_items_transposed(const T *in, size_t warp_first, T *s,
                                                      T (&x)[ITEMS])
{
    typedef typename vec4_of<T>::type V;
    const int lane = threadIdx.x & 31;
    const V *p = (const V *)(in + warp_first);
    V v[ITEMS / 4];
#pragma unroll
    for (int q = 0; q < ITEMS / 4; q++) v[q] = p[q * 32 + lane];
#pragma unroll
    for (int q = 0; q < ITEMS / 4; q++) {
        const int e = q * 128 + lane * 4;
        s[tr_word(e)] = v[q].x; s[tr_word(e + 1)] = v[q].y;
        s[tr_word(e + 2)] = v[q].z; s[tr_word(e + 3)] = v[q].w;
    }
    __syncwarp();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) x[j] = s[tr_word(lane * ITEMS + j)];
    __syncwarp();   /* the slice is reused by the store */
}

/* The thread's outputs (scanned from `start`, as scan_store_items) stored
 * warp-striped through the same slice. */
template <typename T, bool EXCLUSIVE, int ITEMS>
__device__ __forceinline__ void scan_store_items_transposed(T *out, size_t warp_first, T *s,
                                                            const T (&x)[ITEMS], T start)
{
    typedef typename vec4_of<T>::type V;
    const int lane = threadIdx.x & 31;
    T acc = start;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        T y;
        if (EXCLUSIVE) { y = acc; acc += x[j]; }
        else { acc += x[j]; y = acc; }
        s[tr_word(lane * ITEMS + j)] = y;
    }
    __syncwarp();
    V *p = (V *)(out + warp_first);
#pragma unroll
    for (int q = 0; q < ITEMS / 4; q++) {
        const int e = q * 128 + lane * 4;
        V v;
        v.x = s[tr_word(e)]; v.y = s[tr_word(e + 1)]; v.z = s[tr_word(e + 2)]; v.w = s[tr_word(e + 3)];
        p[q * 32 + lane] = v;
    }
}

template <typename T, bool EXCLUSIVE>
__global__ void __launch_bounds__(WS_BLOCK, LB_MIN_BLOCKS) lookback_transposed(const T *in, T *out, size_t n,
                                                                unsigned long long *status,
                                                                unsigned *tile_counter)
{
    __shared__ T s_warp[WS_BLOCK / 32 + 1];
    __shared__ T s_tr[WS_BLOCK / 32][TR_WARP_WORDS];
    __shared__ unsigned s_tile;
    __shared__ T s_before;
    if (threadIdx.x == 0) s_tile = atomicAdd(tile_counter, 1u);
    __syncthreads();
    const long long tile = s_tile;
    const size_t tile_first = (size_t)tile * WS_TILE;
    const size_t warp_first = tile_first + (size_t)(threadIdx.x >> 5) * TR_WARP_ITEMS;
    const size_t first = tile_first + (size_t)threadIdx.x * WS_ITEMS;
    const bool full = tile_first + WS_TILE <= n;   /* the same for the whole block */
    T *s = s_tr[threadIdx.x >> 5];
    T x[WS_ITEMS];
    if (full) load_items_transposed(in, warp_first, s, x);
    else load_items(in, n, first, x);
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
    if (full) scan_store_items_transposed<T, EXCLUSIVE>(out, warp_first, s, x, s_before + before_thread);
    else scan_store_items<T, EXCLUSIVE>(out, n, first, x, s_before + before_thread);
}
