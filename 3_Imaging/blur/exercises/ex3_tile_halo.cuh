/* Exercise 3: load the halo. This is step 02 (smem_tile) whose loader fills
 * only the centre of the tile: each thread loads its own pixel, and the r
 * pixels around the block (the halo) that the edge threads' boxes need are
 * never loaded. What to do, what to look for and the command:
 * exercises/README.md. As given, the sums near every block's edge read
 * tile values nobody wrote: the check fails. The sample launches it as it
 * launches step 02: 32 x 8 threads per block, one per output pixel. */
#define EXERCISE_BASE "smem_tile"

__global__ void __launch_bounds__(TILE_W * TILE_H) blur_exercise(blur_args a)
{
    __shared__ float tile[TILE_H + 2 * BLUR_MAX_RADIUS][TILE_W + 2 * BLUR_MAX_RADIUS];
    const int r = a.radius;
    const int bx = blockIdx.x * TILE_W, by = blockIdx.y * TILE_H;   /* the block's first output */

    /* TODO: fill the whole tile: (TILE_W + 2r) x (TILE_H + 2r) values,
     * tile[ty][tx] = ROI pixel (bx - r + tx, by - r + ty), and 0 where that
     * pixel is outside the ROI. The block has TILE_W x TILE_H threads, fewer
     * than the tile's values, so each thread loads several. As given, each
     * thread loads only its own pixel, at the tile's centre. */
    {
        const int gx = bx + threadIdx.x, gy = by + threadIdx.y;   /* ROI coordinates */
        float v = 0.0f;
        if (gx < a.width && gy < a.height) v = in_row(&a, gy)[a.x0 + gx];
        tile[threadIdx.y + r][threadIdx.x + r] = v;
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
