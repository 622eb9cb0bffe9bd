/* Step 02: smem_tile. The one change from step 01: the block first copies
 * its 32x8 pixels and the r-pixel halo around them into shared memory, once,
 * with consecutive threads on consecutive columns; then each thread sums its
 * box from shared memory. Pixels outside the ROI go into the tile as 0, so
 * every thread sums a full (2r+1)^2 box and only the divisor follows the
 * edge rule.
 *
 * Why it should help: each input pixel is loaded from global memory
 * (32+2r)(8+2r)/256 times instead of (2r+1)^2 (1.33 against 9 for radius 1),
 * at the price of a barrier; the box is still (2r+1)^2 shared-memory reads
 * per pixel, so it should gain at small radii and lose at large ones.
 * Measured (H200, 16384x16384 ROI; results/H200/blur.txt, commit 13f861f;
 * results/H200/blur__radius_8.txt, commit 13f861f): the opposite. 1039 GB/s
 * at radius 1, 7.2% slower than step 01 (L1 already served step 01's repeated
 * loads), and 27% faster at radius 8 (174.5 against 137 GB/s), where step 01's
 * 289 loads per pixel are more than L1 absorbs. */
#define TILE_W 32   /* smem_tile: outputs per block, 32 x 8, one per thread */
#define TILE_H 8

__global__ void __launch_bounds__(TILE_W * TILE_H) blur_smem_tile(blur_args a)
{
    __shared__ float tile[TILE_H + 2 * BLUR_MAX_RADIUS][TILE_W + 2 * BLUR_MAX_RADIUS];
    const int r = a.radius;
    const int bx = blockIdx.x * TILE_W, by = blockIdx.y * TILE_H;   /* first output */
    const int tile_w = TILE_W + 2 * r, tile_h = TILE_H + 2 * r;   /* outputs plus halo */
    for (int i = threadIdx.y * TILE_W + threadIdx.x; i < tile_w * tile_h; i += TILE_W * TILE_H) {
        const int ty = i / tile_w, tx = i - ty * tile_w;
        const int gx = bx - r + tx, gy = by - r + ty;   /* ROI coordinates */
        float v = 0.0f;
        if (gx >= 0 && gx < a.width && gy >= 0 && gy < a.height) v = in_row(&a, gy)[a.x0 + gx];
        tile[ty][tx] = v;
    }
    __syncthreads();   /* the tile is complete before anyone reads a neighbour's pixel */
    const int x = bx + threadIdx.x, y = by + threadIdx.y;
    if (x < a.width && y < a.height) {   /* after the barrier: every thread reached it */
        float s = 0.0f;
        for (int dy = 0; dy <= 2 * r; dy++)
            for (int dx = 0; dx <= 2 * r; dx++) s += tile[threadIdx.y + dy][threadIdx.x + dx];
        out_row(&a, y)[a.x0 + x] = s / (float)box_count(x, y, a.width, a.height, r);
    }
}
