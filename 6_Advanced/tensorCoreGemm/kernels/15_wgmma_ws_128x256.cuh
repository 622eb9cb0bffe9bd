/* Step 15: wgmma_ws_128x256 -- a wider tile per consumer.
 *
 * The one change from step 14 (wgmma_ws_128x128): BN = 256. Each consumer
 * multiplies 64 x 256 with wgmma.m64n256k16 and holds 128 accumulators a
 * thread (step 13's setmaxnreg makes room); a stage is 48 KiB (A's box and 4
 * of B's). The kernel is step 14's gemm_wgmma_ws.
 * Why it should help: each 16 KiB of A brought into shared memory now feeds
 * twice as many flops, and every wgmma does twice the work for the same
 * issue overhead.
 * Measured (results/H200/history/3865df4/tensorCoreGemm.txt, commit 3865df4, 8192^3; the other
 * shapes, from the files beside it: README, Deep dive):
 * 1.397 ms, 787.2 TFLOP/s, 98.69% of cuBLAS, +18.6% over step 14 (+18.2% at
 * 4096^3, +16.7% at 6000x5000x4000). */
struct wgmma_ws_128x256_cfg {
    static constexpr int BN = 256, STAGES = 4;
    static constexpr bool PERSISTENT = false;
};
