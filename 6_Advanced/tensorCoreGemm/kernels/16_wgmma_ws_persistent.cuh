/* Step 16: wgmma_ws_persistent -- one block per SM, looping over tiles.
 *
 * The one change from step 15 (wgmma_ws_128x256): PERSISTENT. The grid is one
 * block per SM; each block takes tiles t = blockIdx.x, + gridDim.x, ... in the
 * grouped order, its barrier phases carrying on from one tile to the next.
 * The kernel is step 14's gemm_wgmma_ws.
 * Why it should help: the producer starts filling the next tile's stages while
 * the consumers are still storing this tile's results, and no block has to
 * start up (barrier init, tensor-map prefetch) per tile.
 * Measured (results/H200/tensorCoreGemm.txt, commit d4ff6ab, 8192^3): 1.632 ms,
 * 673.7 TFLOP/s, 85.30% of cuBLAS, +0.4% over step 15 (+2.3% at 4096^3, 96.76%
 * of cuBLAS there; +1.0% at 6000x5000x4000): the epilogue was not a large part
 * of the time. */
struct wgmma_ws_persistent_cfg {
    static constexpr int BN = 256, STAGES = 4;
    static constexpr bool PERSISTENT = true;
};
