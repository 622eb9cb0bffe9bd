/* Step 04: warp_shuffle_tiles. Step 03's three passes, with the tile that
 * the fast scans use: 16 consecutive elements per thread (a tile of
 * 256 x 16 = 4096), loaded and stored as four 16-byte vectors; each thread
 * scans its 16 in registers, in order (15 additions, no barrier), and only
 * the 256 thread totals go through the block scan, which is warp shuffles
 * (kernels/00_scan_common.cuh: 5 shuffle steps per warp, then one warp over
 * the 8 warp totals) instead of a shared-memory tree. Per element: about
 * two additions and no shared-memory traffic, where Blelloch's tree costs
 * two shared loads and stores per element per level.
 * Bigger tiles also make the middle pass 8x shorter (n / 4096 sums).
 *
 * Measured on the H200, 2^28 int32, inclusive (results/H200/scan.txt, commit 13f861f):
 * 1.063 ms, 65.19% of CUB: 3.15x step 03, the largest step of the sample. */
#define WS_BLOCK 256
#define WS_ITEMS 16
#define WS_TILE (WS_BLOCK * WS_ITEMS)

template <typename T> struct vec4_of;
template <> struct vec4_of<int> { typedef int4 type; };
template <> struct vec4_of<float> { typedef float4 type; };

/* A thread's ITEMS (here WS_ITEMS) consecutive elements from `first`:
 * ITEMS / 4 16-byte loads when all are inside the array (first is a
 * multiple of ITEMS elements, so the vectors are aligned), one by one in
 * the last tile. Past n: 0. ITEMS comes from the array's size (step 08
 * uses 32). */
template <typename T, int ITEMS>
__device__ __forceinline__ void load_items(const T *in, size_t n, size_t first, T (&x)[ITEMS])
{
    static_assert(ITEMS % 4 == 0, "ITEMS: whole 16-byte vectors");
    typedef typename vec4_of<T>::type V;
    if (first + ITEMS <= n) {
        const V *p = (const V *)(in + first);
#pragma unroll
        for (int q = 0; q < ITEMS / 4; q++) {
            V v = p[q];
            x[4 * q] = v.x; x[4 * q + 1] = v.y; x[4 * q + 2] = v.z; x[4 * q + 3] = v.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; j++) x[j] = first + j < n ? in[first + j] : T(0);
    }
}

/* The thread's outputs: its elements scanned in order, starting from
 * `start` (what comes before its first element), stored like load_items. */
template <typename T, bool EXCLUSIVE, int ITEMS>
__device__ __forceinline__ void scan_store_items(T *out, size_t n, size_t first,
                                                 const T (&x)[ITEMS], T start)
{
    typedef typename vec4_of<T>::type V;
    T y[ITEMS], acc = start;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        if (EXCLUSIVE) { y[j] = acc; acc += x[j]; }
        else { acc += x[j]; y[j] = acc; }
    }
    if (first + ITEMS <= n) {
        V *p = (V *)(out + first);
#pragma unroll
        for (int q = 0; q < ITEMS / 4; q++) {
            V v;
            v.x = y[4 * q]; v.y = y[4 * q + 1]; v.z = y[4 * q + 2]; v.w = y[4 * q + 3];
            p[q] = v;
        }
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; j++)
            if (first + j < n) out[first + j] = y[j];
    }
}

template <typename T, int ITEMS>
__device__ __forceinline__ T thread_sum(const T (&x)[ITEMS])
{
    T s = T(0);
#pragma unroll
    for (int j = 0; j < ITEMS; j++) s += x[j];
    return s;
}

/* Pass 1: each tile's sum. */
template <typename T>
__global__ void __launch_bounds__(WS_BLOCK) reduce_tiles_vec(const T *in, size_t n, T *tile_sums)
{
    __shared__ T s_warp[WS_BLOCK / 32];
    const size_t first = (size_t)blockIdx.x * WS_TILE + (size_t)threadIdx.x * WS_ITEMS;
    T x[WS_ITEMS];
    load_items(in, n, first, x);
    T v = warp_sum(thread_sum(x));
    if ((threadIdx.x & 31) == 0) s_warp[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < WS_BLOCK / 32 ? s_warp[threadIdx.x] : T(0);
        v = warp_sum(v);
        if (threadIdx.x == 0) tile_sums[blockIdx.x] = v;
    }
}

/* Pass 3: each tile scanned from its offset. */
template <typename T, bool EXCLUSIVE>
__global__ void __launch_bounds__(WS_BLOCK) scan_tiles_vec(const T *in, T *out, size_t n,
                                                           const T *offsets)
{
    __shared__ T s_warp[WS_BLOCK / 32 + 1];
    const size_t first = (size_t)blockIdx.x * WS_TILE + (size_t)threadIdx.x * WS_ITEMS;
    T x[WS_ITEMS];
    load_items(in, n, first, x);
    T total;
    T before = block_exclusive_scan<WS_BLOCK>(thread_sum(x), &total, s_warp);
    scan_store_items<T, EXCLUSIVE>(out, n, first, x, offsets[blockIdx.x] + before);
}
