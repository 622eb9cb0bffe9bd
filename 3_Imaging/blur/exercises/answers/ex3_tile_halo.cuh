/* Exercise 3, a reference answer (it is step 02's loader,
 * kernels/02_smem_tile.cuh): the block's threads walk the tile with a
 * stride of the block's size, consecutive threads on consecutive columns. */
#define EXERCISE_BASE "smem_tile"

__global__ void __launch_bounds__(TILE_W * TILE_H) blur_exercise(blur_args a)
{
    __shared__ float tile[TILE_H + 2 * BLUR_MAX_RADIUS][TILE_W + 2 * BLUR_MAX_RADIUS];
    const int r = a.radius;
    const int bx = blockIdx.x * TILE_W, by = blockIdx.y * TILE_H;   /* the block's first output */

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
