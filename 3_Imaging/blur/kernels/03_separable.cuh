/* Step 03: separable. The one change from step 02: the box sum is split in
 * two passes, each a 1-D sum over 2r+1 pixels: a row pass into an
 * intermediate image (tmp, width x height floats), then a column pass over
 * it that divides by the edge rule's count. 2(2r+1) additions per pixel
 * instead of (2r+1)^2, but tmp costs a write and a read of 4 bytes per
 * pixel: 16 bytes per pixel move instead of 8.
 *
 * Why it should help: only where the radius makes the arithmetic the limit;
 * at small radii the extra bytes cost more than the additions save. Measured
 * (H200, 16384x16384 ROI; results/H200/blur.txt, commit 13f861f;
 * results/H200/blur__radius_8.txt, commit 13f861f): 691.7 GB/s at radius 1, the
 * slowest there (16.4% of the copy), and 519.7 GB/s at radius 8, three times
 * step 02 (174.5).
 *
 * Row pass: tmp(x, y) = the sum of the ROI pixels of row y in columns
 * x-r .. x+r (a sum, not a mean: the column pass divides once). The block's
 * 128 columns and the r on each side sit in shared memory. */
#define ROWPASS_TW 128   /* separable row pass: a block is 128 columns by 4 rows */
#define ROWPASS_TH 4
#define COLPASS_TW 32    /* separable column pass: 32 columns by 8 rows */
#define COLPASS_TH 8

__global__ void __launch_bounds__(ROWPASS_TW * ROWPASS_TH) box_row_sums(blur_args a)
{
    __shared__ float seg[ROWPASS_TH][ROWPASS_TW + 2 * BLUR_MAX_RADIUS];
    const int r = a.radius;
    const int bx = blockIdx.x * ROWPASS_TW;
    const int y = blockIdx.y * ROWPASS_TH + threadIdx.y;
    const bool row_ok = y < a.height;   /* the last block may hang past the last row */
    for (int tx = threadIdx.x; tx < ROWPASS_TW + 2 * r; tx += ROWPASS_TW) {
        const int gx = bx - r + tx;
        float v = 0.0f;
        if (row_ok && gx >= 0 && gx < a.width) v = in_row(&a, y)[a.x0 + gx];
        seg[threadIdx.y][tx] = v;
    }
    __syncthreads();   /* the row segments are complete */
    const int x = bx + threadIdx.x;
    if (row_ok && x < a.width) {
        float s = 0.0f;
        for (int d = 0; d <= 2 * r; d++) s += seg[threadIdx.y][threadIdx.x + d];
        tmp_row(&a, y)[x] = s;
    }
}

/* Column pass: out(x, y) = the sum of tmp(x, y-r .. y+r) over ROI rows,
 * divided by the edge rule's count. */
__global__ void __launch_bounds__(COLPASS_TW * COLPASS_TH) box_col_means(blur_args a)
{
    __shared__ float seg[COLPASS_TH + 2 * BLUR_MAX_RADIUS][COLPASS_TW];
    const int r = a.radius;
    const int x = blockIdx.x * COLPASS_TW + threadIdx.x;
    const int by = blockIdx.y * COLPASS_TH;
    const bool col_ok = x < a.width;
    for (int ty = threadIdx.y; ty < COLPASS_TH + 2 * r; ty += COLPASS_TH) {
        const int gy = by - r + ty;
        float v = 0.0f;
        if (col_ok && gy >= 0 && gy < a.height) v = tmp_row(&a, gy)[x];
        seg[ty][threadIdx.x] = v;
    }
    __syncthreads();   /* the column segments are complete */
    const int y = by + threadIdx.y;
    if (col_ok && y < a.height) {
        float s = 0.0f;
        for (int d = 0; d <= 2 * r; d++) s += seg[threadIdx.y + d][threadIdx.x];
        out_row(&a, y)[a.x0 + x] = s / (float)box_count(x, y, a.width, a.height, r);
    }
}
