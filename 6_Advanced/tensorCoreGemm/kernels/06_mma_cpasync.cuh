/* Step 6: mma_cpasync -- a third stage in the ring.
 *
 * The one change from step 5 (mma_cpasync_2stage): STAGES = 3 (96 KiB a
 * block, still 2 blocks per SM). The kernel is step 5's gemm_mma_cpasync.
 * Why it should help: with 2 stages the copies of step k+1 have only the time
 * of step k's math to land, and the wait at the top of step k+1 exposes the
 * rest of their latency; with 3, the copies of step k+2 are issued a whole
 * step earlier.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 3.383 ms, 325.0 TFLOP/s, 42.88% of cuBLAS: 2.8% slower than step 5 (-3.3%
 * at 4096^3, -2.6% at 6000x5000x4000). Why the third stage costs was not
 * measured. */
struct mma_cpasync_cfg {
    typedef mm_swizzled layout; /* step 4's tiles */
    static constexpr int STAGES = 3;
};
