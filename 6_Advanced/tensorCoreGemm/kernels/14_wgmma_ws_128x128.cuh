/* Step 14: wgmma_ws_128x128 -- keep the next wgmma group queued.
 *
 * The one change from step 13 (wgmma_ws_setmaxnreg): a consumer waits with
 * wgmma.wait_group 1 instead of 0 and releases the stage of the step before:
 * after committing step g's wgmma it waits only until step g-1's are done,
 * frees step g-1's stage, and goes on to wait for step g+1's data while step
 * g's wgmma still run.
 * Why it should help: with wait_group 0 each consumer drains the tensor-core
 * queue at every step, and between its last wgmma finishing and its next being
 * issued (a barrier wait, a fence, 4 descriptors) its tensor cores have
 * nothing queued; with wait_group 1 the next group is issued behind the one
 * running.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 1.702 ms, 645.8 TFLOP/s, 85.21% of cuBLAS: a small gain (+1.3% at 8192^3,
 * +0.5% at 4096^3, +2.2% at 6000x5000x4000). Steps 11 to 14 together: +19.9%
 * over step 10 (+16.2%, +3.2%).
 *
 * The whole kernel: warpgroup 0 is the producer: it gives most of its
 * registers away (setmaxnreg.dec to 40) and one of its threads runs ahead
 * issuing TMA copies into a ring of STAGES stages, waiting only for a stage's
 * empty barrier. Warpgroups 1 and 2 are consumers (setmaxnreg.inc to 232:
 * 64 x 256 FP32 accumulators are 128 registers a thread): each waits for a
 * stage's full barrier, issues its 4 wgmma, and releases the stage it used one
 * step earlier once wgmma.wait_group(1) says those wgmma are done, so the
 * tensor cores always have the next group queued. Register budget of a block:
 * 384 threads x 168 at launch = 128 x 40 + 256 x 232.
 *
 * Barriers, per stage s and use n = g / STAGES of it (g counts K-steps across
 * tiles): full[s] (count 1: the producer's arrive.expect_tx, plus the bytes)
 * completes phase n when the data of K-step g is in; consumers wait on parity
 * n & 1. empty[s] (count 8: lane 0 of each of the 8 consumer warps) completes
 * phase n when use n is read; the producer waits on it (parity n & 1) before
 * use n + 1. Neither barrier can run two phases ahead of a waiter: each phase
 * needs the waiter's own arrive on the other barrier first.
 *
 * PERSISTENT (step 16): a grid of one block per SM (or grid_limit, in the
 * checks) loops over tiles t = blockIdx.x, + gridDim.x, ...; the producer
 * fills the next tile's stages while the consumers store this tile's results.
 * Without it the grid has one block per tile and the loop runs once. */
template <int BN, int STAGES, bool PERSISTENT>
__global__ void __launch_bounds__(384, 1) gemm_wgmma_ws(const __grid_constant__ CUtensorMap tmA,
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
                wgmma_wait<1>(); /* K-step g-1's wgmma are done: its stage is free */
                if (kt > 0 && lane == 0) mbar_arrive(empty((g - 1) % STAGES));
            }
            wgmma_wait<0>();
            if (lane == 0) mbar_arrive(empty((g - 1) % STAGES));
            fence_acc(d);
            wg_store<BN>(C, M, N, m0 + c * 64, n0, warp, lane, d);
        }
    }
#endif
}

struct wgmma_ws_128x128_cfg {
    static constexpr int BN = 128, STAGES = 4;
    static constexpr bool PERSISTENT = false;
};
