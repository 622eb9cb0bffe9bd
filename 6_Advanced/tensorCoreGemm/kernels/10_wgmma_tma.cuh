/* Step 10: wgmma_tma -- a fourth stage in the ring.
 *
 * The one change from step 9 (wgmma_tma_s3): STAGES = 4. The kernel is step
 * 8's gemm_wgmma_tma. A block now takes 129 KiB of shared memory, so one
 * block fits on an SM instead of two: the deeper ring and the lower occupancy
 * come together, and the measurement is of both.
 * Why it should help: thread 0 issues a stage 3 steps ahead instead of 2, so a
 * late TMA copy has one more step of wgmma to hide behind.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 2.041 ms, 538.6 TFLOP/s, 71.06% of cuBLAS: 13.0% slower than step 9 (-12.3%
 * at 4096^3, -0.4% at 6000x5000x4000); the run does not separate the deeper
 * ring from the lower occupancy. (In the run at d4ff6ab it was the least
 * steady variant at 8192^3, median 2.175 ms and fastest run 2.067, 5% apart:
 * results/H200/history/d4ff6ab/tensorCoreGemm.txt, commit d4ff6ab; here 2.041
 * and 1.96 ms, 4% apart.) */
struct wgmma_tma_cfg {
    static constexpr int STAGES = 4;
    typedef tile_grouped<WG_GROUP_M> order;
};
