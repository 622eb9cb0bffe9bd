/* Step 04: window_1x8, 3x3 only. The one change from step 01 (direct):
 * a thread walks down a strip of ROWS = 8 rows of its column instead of
 * computing one pixel, and keeps the horizontal 3-sums of the rows above
 * and below in registers (the sliding window): the mean of row y is the
 * sum of the 3-sums of rows y-1, y and y+1, so each input row is loaded
 * once per strip (plus the two rows around it) and each row's 3-sum serves
 * three outputs. With it come the two things a strip needs: the kernel is
 * written for the 3x3 mean only (the window holds 3 rows), and a block is
 * WIN_THREADS threads side by side along a row instead of a 32x8 tile. No
 * shared memory, no barrier.
 *
 * Why it should help: 3 loads per pixel (its column and the two beside
 * it) instead of step 01's 9, and 4 additions instead of 8 (a row's 3-sum is
 * computed once and used by three outputs).
 * Measured (H200, 16384x16384 ROI, radius 1; results/H200/blur.txt, commit 13f861f):
 * 2732 GB/s, 64.6% of a cudaMemcpy of the same bytes, 2.45x step 01. */
namespace window_1x8 {
constexpr int COLS = 1;        /* a thread's adjacent columns */
constexpr int ROWS = 8;        /* a thread's rows: its strip */
constexpr int IN_FLIGHT = 1;   /* rows loaded before any is used */

/* The raw pixels of ROI row y that a thread needs: its COLS columns from
 * c0 (image columns), and the columns just left and right of them. Rows
 * and columns outside the ROI read as 0.
 * The COLS loads are issued unconditionally, so that no branch stands
 * between the loads of a chunk: one that would hold no ROI pixel (a row
 * past the ROI, a group past its end) reads a valid address instead (ROI
 * row 0, the pixel nearest it in the ROI) and its value is zeroed. */
__device__ __forceinline__ void load_row(const blur_args *a, int y, int c0, float v[COLS], float *left,
                                         float *right)
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
    if (row_ok && c0 - 1 >= lo && c0 - 1 < hi) *left = __ldg(row + c0 - 1);
    if (row_ok && c0 + COLS >= lo && c0 + COLS < hi) *right = __ldg(row + c0 + COLS);
}

/* Horizontal 3-sums of a thread's COLS pixels. */
__device__ __forceinline__ void row_sums(const float v[COLS], float left, float right, float h[COLS])
{
    h[0] = left + v[0] + right;
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
} /* namespace window_1x8 */

/* A thread owns COLS adjacent columns (a group aligned to COLS in image
 * columns) and walks down a strip of ROWS rows, keeping the horizontal
 * 3-sums of the rows above and below in registers (the sliding window); the
 * mean of row y is the sum of the 3-sums of rows y-1, y and y+1. No shared
 * memory, no barrier. */
__global__ void __launch_bounds__(WIN_THREADS) blur_window_1x8(blur_args a)
{
    using namespace window_1x8;
    static_assert(ROWS % IN_FLIGHT == 0, "a strip is whole chunks of rows");
    /* my column group: the groups from the one holding x0, one per thread */
    const int c0 = (a.x0 / COLS + (int)(blockIdx.x * WIN_THREADS + threadIdx.x)) * COLS;
    const int y_first = blockIdx.y * ROWS;   /* my strip's first output row */
    float v[COLS], l, r, up[COLS], mid[COLS];
    load_row(&a, y_first - 1, c0, v, &l, &r);
    row_sums(v, l, r, up);
    load_row(&a, y_first, c0, v, &l, &r);
    row_sums(v, l, r, mid);
#pragma unroll
    for (int chunk = 0; chunk < ROWS; chunk += IN_FLIGHT) {
        if (y_first + chunk >= a.height) break;   /* the same for the whole block */
        float cv[IN_FLIGHT][COLS], cl[IN_FLIGHT], cr[IN_FLIGHT];
#pragma unroll
        for (int j = 0; j < IN_FLIGHT; j++)   /* all loads first: IN_FLIGHT in flight */
            load_row(&a, y_first + chunk + j + 1, c0, cv[j], &cl[j], &cr[j]);
#pragma unroll
        for (int j = 0; j < IN_FLIGHT; j++) {
            const int y = y_first + chunk + j;   /* the output row; y + 1 is cv[j] */
            float down[COLS];
            row_sums(cv[j], cl[j], cr[j], down);
            if (y < a.height) store_row(&a, y, c0, up, mid, down);
#pragma unroll
            for (int k = 0; k < COLS; k++) {
                up[k] = mid[k];
                mid[k] = down[k];
            }
        }
    }
}
