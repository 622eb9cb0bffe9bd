/* Step 03: padded_tile -- the one change from step 02: each row of the
 * shared tile gets one float of padding, tile[32][33] instead of [32][32].
 * The kernel is step 02's, transpose_smem_tile, with PAD = 1.
 *
 * Why it should help: with 33 floats per row, word (x, y) of the tile is
 * word 33 x + y, in bank (33 x + y) % 32 = (x + y) % 32; a column (x = 0..31,
 * y fixed) now spans all 32 banks, and the column read of step 02 takes one
 * pass instead of 32. The row writes stay conflict-free. One float per row
 * costs 128 bytes of shared memory per block.
 * Measured on the H200 at 16384 x 16384 (results/H200/transpose.txt, commit 13f861f):
 * 1.267 ms, 1695 GB/s, 40.02% of the copy: 1.67x step 02. The bank
 * conflicts before and after have not been counted on the H200 yet
 * (make profile SAMPLE=transpose VARIANT=padded_tile: NOTEBOOK.md). */
constexpr auto transpose_padded_tile = transpose_smem_tile<1>;
