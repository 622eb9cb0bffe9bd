/* Step 13, warp_shuffle_u8. The one change from step 12: 8 loads in flight
 * per thread instead of 4. The kernel is step 12's, reduce_loads_in_flight;
 * the constant below goes into its template (this step's row of the
 * variant table). More bytes in flight help only while the memory system
 * is short of them; step 12 is already at 99.5% of CUB, and twice the
 * accumulators cost registers, so expect little or nothing.
 *
 * Measured: not yet measured.
 */
#define WARP_SHUFFLE_U8_LOADS 8
