/* Step 9: wgmma_tma_s3 -- a tile order that shares panels in L2.
 *
 * The one change from step 8 (wgmma_tma_rows_s3): blocks take their tiles in
 * groups of WG_GROUP_M = 16 tile rows (tc_tile_of in tc_layout.h: down a
 * group's rows first, then across), instead of row by row. The kernel is step
 * 8's gemm_wgmma_tma.
 * Why it should help: at 8192^3 a row of tiles is 64 tiles, so the blocks in
 * flight (two per SM with 3 stages: 264) cover about 4 rows of C and need
 * every 128-column panel of B: all of B (128 MiB) streams through the 60 MiB
 * L2 once per wave of blocks. In groups of 16 rows they cover a patch 16
 * tiles tall and about 17 wide: 16 panels of A and 17 of B, each read by
 * about 16 blocks while it is still in L2.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 1.776 ms, 619.1 TFLOP/s, 81.68% of cuBLAS, +7.4% over step 8; at 4096^3,
 * where A and B (32 MiB each) nearly fit in the L2, -1.6%. */

/* Tile order: group this many tile rows together. */
constexpr int WG_GROUP_M = 16;

template <int GROUP_M>
struct tile_grouped {
    static __device__ __forceinline__ void of(int t, int tiles_m, int tiles_n, int *tm, int *tn)
    {
        tc_tile_of(t, tiles_m, tiles_n, GROUP_M, tm, tn);
    }
};

struct wgmma_tma_s3_cfg {
    static constexpr int STAGES = 3;
    typedef tile_grouped<WG_GROUP_M> order;
};
