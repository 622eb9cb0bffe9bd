/* Step 10: wgmma_tma -- a fourth stage in the ring.
 *
 * The one change from step 9 (wgmma_tma_s3): STAGES = 4. The kernel is step
 * 8's gemm_wgmma_tma. A block now takes 129 KiB of shared memory, so one
 * block fits on an SM instead of two: the deeper ring and the lower occupancy
 * come together, and the measurement is of both.
 * Why it should help: thread 0 issues a stage 3 steps ahead instead of 2, so a
 * late TMA copy has one more step of wgmma to hide behind.
 * Measured (results/H200/tensorCoreGemm.txt, commit d4ff6ab, 8192^3): 2.175 ms,
 * 505.6 TFLOP/s, 64.01% of cuBLAS, +47.8% over step 6 (+55.8% at 4096^3, +29.9%
 * at 6000x5000x4000). Steps 7 to 9 are new and not yet measured, so that gain
 * is not yet split between TMA, wgmma, the tile order and the fourth stage.
 * It is also the least steady variant of that run at 8192^3: median 2.175 ms,
 * fastest run 2.067 ms, 5% apart; the barrier per step makes everyone wait for
 * whichever warpgroup is late. */
struct wgmma_tma_cfg {
    static constexpr int STAGES = 4;
    typedef tile_grouped<WG_GROUP_M> order;
};
