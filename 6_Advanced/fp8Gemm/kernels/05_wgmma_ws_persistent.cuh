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
 * Measured: 0.7648 ms at 8192^3 on the H200, 91.39% of cuBLASLt FP8 (fast
 * accumulation), 1.02x step 4 (results/H200/fp8Gemm.txt, commit 13f861f);
 * 83.69% at 4096^3, 1.05x step 4
 * (results/H200/fp8Gemm__m_4096_n_4096_k_4096.txt, commit 13f861f); but at
 * 6000 x 5000 x 4000 1.03x SLOWER than step 4 (0.2235 ms against 0.2178:
 * results/H200/fp8Gemm__m_6000_n_5000_k_4000.txt, commit 13f861f), not yet
 * explained. */
struct wgmma_ws_persistent_cfg {
    static constexpr int BN = 256, STAGES = 4;
    static constexpr bool PERSISTENT = true;
};
