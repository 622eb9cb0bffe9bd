/* Step 02: smem_tile -- the one change from step 01: the tile goes through
 * shared memory, so that the stores are coalesced too.
 *
 * The block loads its 32 x 32 tile of in row by row (coalesced, as before)
 * into shared memory, waits for the whole tile (__syncthreads), then writes
 * the mirror tile of out row by row: thread (x, y) writes out row
 * (tile column y), element x, taking it from tile[x][y]. Both global
 * accesses are now whole 128-byte rows.
 *
 * The price: tile[x][y] with x = threadIdx.x varying across the warp reads
 * a column of the tile, 32 floats 32 * 4 bytes apart. Shared memory has 32
 * banks of 4 bytes; word w lives in bank w % 32, and all 32 words of a
 * column are in the same bank: a 32-way bank conflict, the read is served
 * one word at a time (ncu: l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld).
 * PAD is 0 here; step 03 changes it.
 * Measured on the H200 at 16384 x 16384 (results/H200/transpose.txt, commit 13f861f):
 * 2.119 ms, 1013 GB/s, 23.93% of the copy: 1.84x step 01. The bank
 * conflicts have not been counted on the H200 yet (make profile). */
template <int PAD>
__global__ void transpose_smem_tile(const float *__restrict__ in, float *__restrict__ out,
                                    int rows, int cols, size_t ld_in, size_t ld_out)
{
    __shared__ float tile[TILE][TILE + PAD];
    const int c = blockIdx.x * TILE + threadIdx.x;
    const int r = blockIdx.y * TILE + threadIdx.y;
    if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = in[(size_t)r * ld_in + c];
    __syncthreads();
    /* the mirror tile: out rows blockIdx.x * TILE + y, columns blockIdx.y * TILE + x */
    const int oc = blockIdx.y * TILE + threadIdx.x;  /* column of out = row of in */
    const int orow = blockIdx.x * TILE + threadIdx.y;  /* row of out = column of in */
    if (orow < cols && oc < rows) out[(size_t)orow * ld_out + oc] = tile[threadIdx.x][threadIdx.y];
}
