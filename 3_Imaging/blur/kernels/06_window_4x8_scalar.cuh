/* Step 06: window_4x8_scalar. The one change from step 05: a thread owns 4
 * adjacent columns instead of 1 (COLS = 4), loaded and stored 4 bytes at a
 * time. Only the columns left and right of its group come from the
 * neighbour lanes, and a warp covers 128 columns.
 *
 * Why it should help: the shuffles and edge loads are shared by 4 pixels,
 * and a quarter of the threads do the same work with more independent
 * loads each; it also prepares step 07, whose float4 holds 4 columns.
 * Measured (H200, 16384x16384 ROI, radius 1; results/H200/blur.txt, commit 13f861f):
 * 3275 GB/s, 77.4% of the copy, 1.33x step 05. */
namespace window_4x8_scalar {
constexpr int COLS = 4;        /* a thread's adjacent columns */
constexpr int ROWS = 8;        /* a thread's rows: its strip */
constexpr int IN_FLIGHT = 1;   /* rows loaded before any is used */

/* The raw pixels of ROI row y that a thread needs: its COLS columns from
 * c0 (image columns), and the columns just left and right of them when the
 * thread is at a warp's edge. Rows and columns outside the ROI read as 0.
 * The COLS loads are issued unconditionally, so that no branch stands
 * between the loads of a chunk: one that would hold no ROI pixel (a row
 * past the ROI, a group past its end) reads a valid address instead (ROI
 * row 0, the pixel nearest it in the ROI) and its value is zeroed. */
__device__ __forceinline__ void load_row(const blur_args *a, int y, int c0, int lane, float v[COLS],
                                         float *left, float *right)
{
    const int lo = a->x0, hi = a->x0 + a->width;   /* the ROI's image columns [lo, hi) */
    const bool row_ok = y >= 0 && y < a->height;
    const float *row = in_row(a, row_ok ? y : 0);
#pragma unroll
    for (int k = 0; k < COLS; k++) v[k] = __ldg(row + min(max(c0 + k, lo), hi - 1));
#pragma unroll
    for (int k = 0; k < COLS; k++)
        if (!row_ok || c0 + k < lo || c0 + k >= hi) v[k] = 0.0f;   /* not part of any mean */
    *left = 0.0f;
    *right = 0.0f;
    if (lane == 0 && row_ok && c0 - 1 >= lo && c0 - 1 < hi) *left = __ldg(row + c0 - 1);
    if (lane == 31 && row_ok && c0 + COLS >= lo && c0 + COLS < hi) *right = __ldg(row + c0 + COLS);
}

/* Horizontal 3-sums of a thread's COLS pixels: the columns just left and
 * right of its group are its neighbour lanes' last and first (a shuffle
 * each); lanes 0 and 31 have no neighbour there and use the ones they
 * loaded. Every lane of the warp must call this. */
__device__ __forceinline__ void row_sums(const float v[COLS], float left, float right, int lane,
                                         float h[COLS])
{
    const float from_left = __shfl_up_sync(FULL_MASK, v[COLS - 1], 1);
    const float from_right = __shfl_down_sync(FULL_MASK, v[0], 1);
    if (lane != 0) left = from_left;
    if (lane != 31) right = from_right;
    h[0] = left + v[0] + v[1];
#pragma unroll
    for (int k = 1; k < COLS - 1; k++) h[k] = v[k - 1] + v[k] + v[k + 1];
    h[COLS - 1] = v[COLS - 2] + v[COLS - 1] + right;
}

/* Output row y from the 3-sums of rows y-1, y, y+1 (zeros outside the ROI). */
__device__ __forceinline__ void store_row(const blur_args *a, int y, int c0, const float up[COLS],
                                          const float mid[COLS], const float down[COLS])
{
    const int lo = a->x0, hi = a->x0 + a->width;
    float o[COLS];
#pragma unroll
    for (int k = 0; k < COLS; k++) o[k] = up[k] + mid[k] + down[k];
#pragma unroll
    for (int k = 0; k < COLS; k++)   /* the edge rule: divide by the pixels in the box */
        o[k] /= (float)box_count(c0 + k - lo, y, a->width, a->height, 1);
    float *row = out_row(a, y);
#pragma unroll
    for (int k = 0; k < COLS; k++)
        if (c0 + k >= lo && c0 + k < hi) row[c0 + k] = o[k];
}
} /* namespace window_4x8_scalar */

/* A thread owns COLS adjacent columns (a group aligned to COLS in image
 * columns) and walks down a strip of ROWS rows, keeping the horizontal
 * 3-sums of the rows above and below in registers (the sliding window); the
 * mean of row y is the sum of the 3-sums of rows y-1, y and y+1. No shared
 * memory, no barrier. */
__global__ void __launch_bounds__(WIN_THREADS) blur_window_4x8_scalar(blur_args a)
{
    using namespace window_4x8_scalar;
    static_assert(ROWS % IN_FLIGHT == 0, "a strip is whole chunks of rows");
    static_assert(WIN_THREADS % 32 == 0, "the shuffles need whole warps");
    const int lane = threadIdx.x & 31;
    /* my column group: the groups from the one holding x0, one per thread */
    const int c0 = (a.x0 / COLS + (int)(blockIdx.x * WIN_THREADS + threadIdx.x)) * COLS;
    const int y_first = blockIdx.y * ROWS;   /* my strip's first output row */
    float v[COLS], l, r, up[COLS], mid[COLS];
    load_row(&a, y_first - 1, c0, lane, v, &l, &r);
    row_sums(v, l, r, lane, up);
    load_row(&a, y_first, c0, lane, v, &l, &r);
    row_sums(v, l, r, lane, mid);
#pragma unroll
    for (int chunk = 0; chunk < ROWS; chunk += IN_FLIGHT) {
        if (y_first + chunk >= a.height) break;   /* the same for the whole block */
        float cv[IN_FLIGHT][COLS], cl[IN_FLIGHT], cr[IN_FLIGHT];
#pragma unroll
        for (int j = 0; j < IN_FLIGHT; j++)   /* all loads first: IN_FLIGHT in flight */
            load_row(&a, y_first + chunk + j + 1, c0, lane, cv[j], &cl[j], &cr[j]);
#pragma unroll
        for (int j = 0; j < IN_FLIGHT; j++) {
            const int y = y_first + chunk + j;   /* the output row; y + 1 is cv[j] */
            float down[COLS];
            row_sums(cv[j], cl[j], cr[j], lane, down);
            if (y < a.height) store_row(&a, y, c0, up, mid, down);
#pragma unroll
            for (int k = 0; k < COLS; k++) {
                up[k] = mid[k];
                mid[k] = down[k];
            }
        }
    }
}
