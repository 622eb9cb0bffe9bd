/* Step 01: naive -- one thread per element, read in, write out, no shared
 * memory. A block of 32 x 32 threads covers one 32 x 32 tile.
 *
 * The loads are coalesced: the 32 threads of a warp (consecutive
 * threadIdx.x) read 32 consecutive floats of one row of in, 128 bytes. The
 * stores are not: the same 32 threads write one column of out, 32 floats
 * ld_out * 4 bytes apart, so each warp store touches 32 different 32-byte
 * sectors and uses 4 bytes of each. Half the traffic moves at an eighth of
 * its efficiency (the L2 merges some of the sectors before they reach HBM).
 * Measured on the H200 at 16384 x 16384 (results/H200/transpose.txt, commit 13f861f):
 * 3.902 ms, 550.4 GB/s, 13% of a device-to-device copy of the same bytes. */
__global__ void transpose_naive(const float *__restrict__ in, float *__restrict__ out, int rows,
                                int cols, size_t ld_in, size_t ld_out)
{
    const int c = blockIdx.x * TILE + threadIdx.x;   /* column of in = row of out */
    const int r = blockIdx.y * TILE + threadIdx.y;   /* row of in = column of out */
    if (r < rows && c < cols) out[(size_t)c * ld_out + r] = in[(size_t)r * ld_in + c];
}
