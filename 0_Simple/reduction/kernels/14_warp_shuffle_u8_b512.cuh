/* Step 14, warp_shuffle_u8_b512. The one change from step 13: 512 threads
 * per block instead of --block (256 by default). The kernel is step 12's
 * with 8 loads in flight, as in step 13; the block size below is this
 * step's row of the variant table (its block column), so the grid has half
 * as many blocks of twice the threads, and the same number of threads
 * resident per SM. Expect no change: the block size matters to the tree and
 * the second pass, which are a small part of the time by now.
 *
 * Measured (H200, 2^28 floats; results/H200/reduction.txt, commit 13f861f):
 * 0.2385 ms, 4502 GB/s, 99.5% of CUB (step 13: 4505 GB/s): no change.
 */
#define WARP_SHUFFLE_U8_B512_BLOCK 512
