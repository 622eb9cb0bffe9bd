/* Step 04: wider -- the one change from step 03: each thread moves
 * ROWS_PER_THREAD = 4 elements instead of one, a block of 32 x 8 threads for
 * the same 32 x 32 padded tile (the layout of Harris's "An Efficient Matrix
 * Transpose in CUDA C/C++").
 *
 * Why it should help: step 03 spends a thread, its index arithmetic and its
 * share of the barrier on one 4-byte element, and each thread has a single
 * load in flight. An SM holds 2048 threads either way (2 blocks of 1024 or 8
 * of 256), but now each of them issues four independent loads before its first
 * store: 4x the tiles, and the bytes in flight, per SM, which HBM needs to
 * stream at its rate (bytes in flight = rate x latency).
 * Measured on the H200 at 16384 x 16384 (results/H200/transpose.txt, commit 13f861f):
 * 0.615 ms, 3492 GB/s, 82.47% of the copy: 2.06x step 03, the largest
 * step of the sample. */
#define WIDER_ROWS 8                          /* threadIdx.y: 0..7 */
#define ROWS_PER_THREAD (TILE / WIDER_ROWS)   /* 4 */

__global__ void transpose_wider(const float *__restrict__ in, float *__restrict__ out, int rows,
                                int cols, size_t ld_in, size_t ld_out)
{
    __shared__ float tile[TILE][TILE + 1];
    const int c = blockIdx.x * TILE + threadIdx.x;
#pragma unroll
    for (int j = 0; j < TILE; j += WIDER_ROWS) {
        const int r = blockIdx.y * TILE + threadIdx.y + j;
        if (r < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)r * ld_in + c];
    }
    __syncthreads();
    const int oc = blockIdx.y * TILE + threadIdx.x;
#pragma unroll
    for (int j = 0; j < TILE; j += WIDER_ROWS) {
        const int orow = blockIdx.x * TILE + threadIdx.y + j;
        if (orow < cols && oc < rows)
            out[(size_t)orow * ld_out + oc] = tile[threadIdx.x][threadIdx.y + j];
    }
}
