/* Step 3: mma_ldmatrix_pad64 -- twice as much K per stage.
 *
 * The one change from step 2 (mma_ldmatrix_pad32): BK = 64 instead of 32, so
 * a stage holds 128 x 64 of A and 64 x 128 of B (35 KiB with the padding).
 * The kernel is step 2's gemm_mma_ldmatrix; only its layout type changes.
 * Why it should help: each stage costs two __syncthreads and a round trip to
 * global memory whatever its size; with twice the K per stage there are half
 * as many of them for the same work, and each warp runs 32 mma between two
 * barriers instead of 16.
 * Measured (results/H200/history/3865df4/tensorCoreGemm.txt, commit 3865df4, 8192^3; the other
 * shapes, from the files beside it: README, Deep dive):
 * 4.146 ms, 265.2 TFLOP/s, 33.25% of cuBLAS, +25.1% over step 2 (+25.7% at
 * 4096^3, +19.9% at 6000x5000x4000). */
typedef mm_padded<64> mma_ldmatrix_pad64_layout;
