/* kernels/00_tile.cuh: what every step shares.
 *
 * in is rows x cols, out = in^T is cols x rows, both row-major with row
 * strides ld_in and ld_out (elements, multiples of 4: transpose_ld()).
 * Every block owns one TILE x TILE square of in (blockIdx.x across its
 * columns, blockIdx.y down its rows) and writes the mirror square of out.
 * Threads whose element is outside the matrix (the edge tiles of an odd
 * shape) load and store nothing, but still reach every barrier. */
#define TILE 32
