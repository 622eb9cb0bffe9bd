/* Step 6: mma_cpasync -- a third stage in the ring.
 *
 * The one change from step 5 (mma_cpasync_2stage): STAGES = 3 (96 KiB a
 * block, still 2 blocks per SM). The kernel is step 5's gemm_mma_cpasync.
 * Why it should help: with 2 stages the copies of step k+1 have only the time
 * of step k's math to land, and the wait at the top of step k+1 exposes the
 * rest of their latency; with 3, the copies of step k+2 are issued a whole
 * step earlier.
 * Measured (results/H200/tensorCoreGemm.txt, commit d4ff6ab, 8192^3): 3.214 ms,
 * 342.1 TFLOP/s, 43.31% of cuBLAS, +30.3% over step 4 (+34.5% at 4096^3, +40.0%
 * at 6000x5000x4000). Step 5 is new and not yet measured, so that gain is not
 * yet split between the asynchronous copies and the third stage. */
struct mma_cpasync_cfg {
    typedef mm_swizzled layout; /* step 4's tiles */
    static constexpr int STAGES = 3;
};
