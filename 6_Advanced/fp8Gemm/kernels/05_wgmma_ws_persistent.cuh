/* Step 5: wgmma_ws_persistent -- one block per SM, looping over tiles.
 *
 * The one change from step 4 (wgmma_ws_128x256): PERSISTENT. The grid is one
 * block per SM; each block takes tiles t = blockIdx.x, + gridDim.x, ... in the
 * grouped order, its barrier phases carrying on from one tile to the next.
 * The kernel is step 3's gemm_wgmma_ws.
 * Why it should help: the producer starts filling the next tile's stages while
 * the consumers are still storing this tile's results, and no block has to
 * start up (barrier init, tensor-map prefetch) per tile. An FP8 tile's
 * main loop is half as long as a BF16 one's, so the epilogue is a larger
 * share of the time.
 * Measured: (measured on the H200: see results). */
struct wgmma_ws_persistent_cfg {
    static constexpr int BN = 256, STAGES = 4;
    static constexpr bool PERSISTENT = true;
};
