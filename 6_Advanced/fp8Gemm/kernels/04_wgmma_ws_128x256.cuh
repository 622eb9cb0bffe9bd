/* Step 4: wgmma_ws_128x256 -- a wider tile per consumer.
 *
 * The one change from step 3 (wgmma_ws): BN = 256. Each consumer multiplies
 * 64 x 256 with wgmma.m64n256k32 and holds 128 accumulators a thread (step
 * 3's setmaxnreg makes room); a stage is 48 KiB (A's box of 16 KiB and B's of
 * 32 KiB), so the ring has 4 stages (193 KiB with the alignment slack). The
 * kernel is step 3's gemm_wgmma_ws.
 * Why it should help: each 16 KiB of A brought into shared memory now feeds
 * twice as many flops, and every wgmma does twice the work for the same
 * issue overhead; FP8 needs this more than BF16, since each byte of a tile
 * carries twice the flops' worth of operand at twice the rate.
 * Measured: 0.7798 ms at 8192^3 on the H200, 89.64% of cuBLASLt FP8 (fast
 * accumulation), 1.09x step 3 (results/H200/fp8Gemm.txt, commit 13f861f); at
 * 6000 x 5000 x 4000, 1.18x step 3 (0.2178 ms against 0.2568:
 * results/H200/fp8Gemm__m_6000_n_5000_k_4000.txt, commit 13f861f). */
struct wgmma_ws_128x256_cfg {
    static constexpr int BN = 256, STAGES = 4;
    static constexpr bool PERSISTENT = false;
};
