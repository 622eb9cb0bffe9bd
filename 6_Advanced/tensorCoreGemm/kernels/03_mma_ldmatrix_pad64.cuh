/* Step 3: mma_ldmatrix_pad64 -- twice as much K per stage.
 *
 * The one change from step 2 (mma_ldmatrix_pad32): BK = 64 instead of 32, so
 * a stage holds 128 x 64 of A and 64 x 128 of B (35 KiB with the padding).
 * The kernel is step 2's gemm_mma_ldmatrix; only its layout type changes.
 * Why it should help: each stage costs two __syncthreads and a round trip to
 * global memory whatever its size; with twice the K per stage there are half
 * as many of them for the same work, and each warp runs 32 mma between two
 * barriers instead of 16.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 4.534 ms, 242.5 TFLOP/s, 32.00% of cuBLAS, +27.0% over step 2 (+26.2% at
 * 4096^3, +20.1% at 6000x5000x4000). */
typedef mm_padded<64> mma_ldmatrix_pad64_layout;
