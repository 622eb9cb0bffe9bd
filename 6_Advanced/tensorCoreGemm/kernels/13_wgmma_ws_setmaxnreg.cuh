/* Step 13: wgmma_ws_setmaxnreg -- registers moved from producer to consumers.
 *
 * The one change from step 12 (wgmma_ws_producer): setmaxnreg. The producer
 * warpgroup lowers its register limit to 40 (setmaxnreg.dec), the consumers
 * raise theirs to 232 (setmaxnreg.inc); the block's budget stays 384 x 168.
 * Why it should help: here, little or nothing: a consumer of this 128x128
 * tile holds 64 accumulators a thread and fits in the 168 registers every
 * thread has at launch. It is what lets step 15's consumers hold 128
 * accumulators (64 x 256) without spilling: a change that pays off only
 * with another, kept as its own step so that its cost or gain here is seen.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 1.725 ms, 637.3 TFLOP/s, 84.08% of cuBLAS, +7.0% over step 12 (+7.0% at
 * 4096^3, +0.6% at 6000x5000x4000): a gain where none was expected; not
 * investigated. */
template <int BN, int STAGES, bool PERSISTENT>
__global__ void __launch_bounds__(384, 1) gemm_wgmma_ws_setmaxnreg(const __grid_constant__ CUtensorMap tmA,
                                                        const __grid_constant__ CUtensorMap tmB,
                                                        float *__restrict__ C, int M, int N, int K)
{
#if TC_SM90A
    typedef wg_cfg<BN> cfg;
    extern __shared__ uint8_t smem_dyn[];
    __shared__ __align__(8) uint64_t full_bar[STAGES], empty_bar[STAGES];
    const uint32_t base = (smem_u32(smem_dyn) + 1023u) & ~1023u;
    const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
    const int tiles_m = CEIL_DIV(M, TC_BM), tiles_n = CEIL_DIV(N, BN);
    const int ntiles = tiles_m * tiles_n, nk = CEIL_DIV(K, TC_BK);
    const int step = PERSISTENT ? (int)gridDim.x : ntiles;
    auto sA = [&](int s) { return base + (uint32_t)s * cfg::A_BYTES; };
    auto sB = [&](int s) { return base + (uint32_t)STAGES * cfg::A_BYTES + (uint32_t)s * cfg::B_BYTES; };
    auto full = [&](int s) { return smem_u32(&full_bar[s]); };
    auto empty = [&](int s) { return smem_u32(&empty_bar[s]); };

    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(full(s), 1);
            mbar_init(empty(s), 8);
        }
        fence_barrier_init();
    }
    __syncthreads();

    if (wg == 0) { /* producer */
        setmaxnreg_dec<40>();
        if (tid == 0) {
            tma_prefetch_map(&tmA);
            tma_prefetch_map(&tmB);
            int g = 0;
            for (int t = blockIdx.x; t < ntiles; t += step) {
                int tm, tn;
                tc_tile_of(t, tiles_m, tiles_n, WG_GROUP_M, &tm, &tn);
                const int m0 = tm * TC_BM, n0 = tn * BN;
                for (int kt = 0; kt < nk; kt++, g++) {
                    const int s = g % STAGES, n = g / STAGES;
                    if (n > 0) mbar_wait(empty(s), (n - 1) & 1); /* use n-1 read by all */
                    mbar_arrive_expect_tx(full(s), cfg::STAGE_BYTES);
                    tma_load_2d(sA(s), &tmA, full(s), kt * TC_BK, m0);
#pragma unroll
                    for (int j = 0; j < BN / TC_BOX_COLS; j++)
                        tma_load_2d(sB(s) + j * cfg::B_BOX_BYTES, &tmB, full(s), n0 + j * TC_BOX_COLS,
                                    kt * TC_BK);
                }
            }
        }
    } else { /* consumers: warpgroup c = wg - 1 owns rows 64c .. 64c+63 of each tile */
        setmaxnreg_inc<232>();
        const int c = wg - 1;
        float d[BN / 2];
#pragma unroll
        for (int i = 0; i < BN / 2; i++) d[i] = 0.0f;
        int g = 0;
        for (int t = blockIdx.x; t < ntiles; t += step) {
            int tm, tn;
            tc_tile_of(t, tiles_m, tiles_n, WG_GROUP_M, &tm, &tn);
            const int m0 = tm * TC_BM, n0 = tn * BN;
            for (int kt = 0; kt < nk; kt++, g++) {
                const int s = g % STAGES;
                mbar_wait(full(s), (g / STAGES) & 1);
                __syncwarp();
                wgmma_fence();
                wg_mma_stage<BN>(d, sA(s) + c * 64 * 128, sB(s), kt == 0);
                wgmma_commit();
                wgmma_wait<0>(); /* this K-step's wgmma are done: its stage is free */
                if (lane == 0) mbar_arrive(empty(s));
            }
            fence_acc(d);
            wg_store<BN>(C, M, N, m0 + c * 64, n0, warp, lane, d);
        }
    }
#endif
}

struct wgmma_ws_setmaxnreg_cfg {
    static constexpr int BN = 128, STAGES = 4;
    static constexpr bool PERSISTENT = false;
};
