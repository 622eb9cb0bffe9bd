/* Step 13, warp_shuffle_u8. The one change from step 12: 8 loads in flight
 * per thread instead of 4. The kernel is step 12's, reduce_loads_in_flight;
 * the constant below goes into its template (this step's row of the
 * variant table). More bytes in flight help only while the memory system
 * is short of them; step 12 is already at 99.2% of CUB, and twice the
 * accumulators cost registers, so expect little or nothing.
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 0.2383 ms, 4505 GB/s, 99.5% of CUB (step 12: 4492 GB/s): hardly a
 * change (0.3% faster).
 */
#define WARP_SHUFFLE_U8_LOADS 8
