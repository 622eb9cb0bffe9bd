/* Step 16: wgmma_ws_persistent -- one block per SM, looping over tiles.
 *
 * The one change from step 15 (wgmma_ws_128x256): PERSISTENT. The grid is one
 * block per SM; each block takes tiles t = blockIdx.x, + gridDim.x, ... in the
 * grouped order, its barrier phases carrying on from one tile to the next.
 * The kernel is step 14's gemm_wgmma_ws.
 * Why it should help: the producer starts filling the next tile's stages while
 * the consumers are still storing this tile's results, and no block has to
 * start up (barrier init, tensor-map prefetch) per tile.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 1.456 ms, 755.4 TFLOP/s, 99.66% of cuBLAS, +0.7% over step 15 (+2.1% at
 * 4096^3, 97.15% of cuBLAS there): the epilogue was not a large part of the
 * time. At 6000x5000x4000 it is 2.7% slower than step 15; not investigated. */
struct wgmma_ws_persistent_cfg {
    static constexpr int BN = 256, STAGES = 4;
    static constexpr bool PERSISTENT = true;
};
