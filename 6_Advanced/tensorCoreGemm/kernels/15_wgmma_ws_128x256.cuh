/* Step 15: wgmma_ws_128x256 -- a wider tile per consumer.
 *
 * The one change from step 14 (wgmma_ws_128x128): BN = 256. Each consumer
 * multiplies 64 x 256 with wgmma.m64n256k16 and holds 128 accumulators a
 * thread (step 13's setmaxnreg makes room); a stage is 48 KiB (A's box and 4
 * of B's). The kernel is step 14's gemm_wgmma_ws.
 * Why it should help: each 16 KiB of A brought into shared memory now feeds
 * twice as many flops, and every wgmma does twice the work for the same
 * issue overhead.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 1.465 ms, 750.4 TFLOP/s, 99.00% of cuBLAS, +16.2% over step 14 (+15.4% at
 * 4096^3, +16.3% at 6000x5000x4000). */
struct wgmma_ws_128x256_cfg {
    static constexpr int BN = 256, STAGES = 4;
    static constexpr bool PERSISTENT = false;
};
