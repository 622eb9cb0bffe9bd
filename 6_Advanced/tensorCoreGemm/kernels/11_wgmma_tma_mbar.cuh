/* Step 11: wgmma_tma_mbar -- stages released through mbarriers.
 *
 * The one change from step 10 (wgmma_tma): the __syncthreads that ended each
 * K-step is gone. Each stage gets a second mbarrier, empty[s] (count 8): lane
 * 0 of every warp arrives on it once the warp's wgmma of that stage are done,
 * and thread 0 waits on it before refilling the stage. Same 2 warpgroups
 * (thread 0 still issues the copies and still multiplies), same 4 stages,
 * same tile order. The kernel is step 8's, with that change.
 * Why it should help: the block-wide barrier made every warp wait for the
 * slowest one at every step; now only thread 0 (and with it its warp, and its
 * warpgroup at the next wgmma) waits, and only when the stage it wants to
 * refill is still being read.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 2.545 ms, 431.9 TFLOP/s, 56.99% of cuBLAS: 19.8% slower than step 10
 * (-15.7% at 4096^3, -1.7% at 6000x5000x4000). Why was not measured (README,
 * Try next: profile steps 10 to 12). */

/* Barriers, per stage s and use n = t / STAGES of it (t the K-step): full[s]
 * completes phase n when K-step t's bytes are in; everyone waits on parity
 * n & 1. empty[s] completes phase n when the 8 warps have read use n; thread
 * 0 waits on parity (n - 1) & 1 before issuing use n. Neither barrier can run
 * two phases ahead of a waiter: each phase needs the waiter's own arrive (or
 * copy) on the other barrier first. */
template <class CFG, class DESC = wg_desc_swz128>
__global__ void __launch_bounds__(256, 1) gemm_wgmma_tma_mbar(const __grid_constant__ CUtensorMap tmA,
                                                         const __grid_constant__ CUtensorMap tmB,
                                                         float *__restrict__ C, int M, int N, int K)
{
#if TC_SM90A
    constexpr int BN = 128, STAGES = CFG::STAGES;
    typedef wg_cfg<BN> cfg;
    extern __shared__ uint8_t smem_dyn[];
    __shared__ __align__(8) uint64_t full_bar[STAGES], empty_bar[STAGES];
    const uint32_t base = (smem_u32(smem_dyn) + 1023u) & ~1023u; /* the launch adds 1 KiB */
    const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
    int tm, tn;
    CFG::order::of(blockIdx.x, CEIL_DIV(M, TC_BM), CEIL_DIV(N, BN), &tm, &tn);
    const int m0 = tm * TC_BM, n0 = tn * BN, nk = CEIL_DIV(K, TC_BK);
    auto sA = [&](int s) { return base + (uint32_t)s * cfg::A_BYTES; };
    auto sB = [&](int s) { return base + (uint32_t)STAGES * cfg::A_BYTES + (uint32_t)s * cfg::B_BYTES; };
    auto full = [&](int s) { return smem_u32(&full_bar[s]); };
    auto empty = [&](int s) { return smem_u32(&empty_bar[s]); };
    auto issue = [&](int t) { /* K-step t into stage t % STAGES, once its last use is read */
        int s = t % STAGES, n = t / STAGES;
        if (n > 0) mbar_wait(empty(s), (n - 1) & 1);
        mbar_arrive_expect_tx(full(s), cfg::STAGE_BYTES);
        tma_load_2d(sA(s), &tmA, full(s), t * TC_BK, m0);
#pragma unroll
        for (int j = 0; j < BN / TC_BOX_COLS; j++)
            tma_load_2d(sB(s) + j * cfg::B_BOX_BYTES, &tmB, full(s), n0 + j * TC_BOX_COLS, t * TC_BK);
    };

    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(full(s), 1);
            mbar_init(empty(s), 8);
        }
        fence_barrier_init();
    }
    __syncthreads();
    if (tid == 0) {
        tma_prefetch_map(&tmA);
        tma_prefetch_map(&tmB);
        for (int t = 0; t < STAGES - 1 && t < nk; t++) issue(t);
    }
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++) d[i] = 0.0f; /* scale-d 0 ignores them; no uninitialized reads */
    for (int kt = 0; kt < nk; kt++) {
        /* into the stage step kt-1 used: issue() waits until all 8 warps read it */
        if (tid == 0 && kt + STAGES - 1 < nk) issue(kt + STAGES - 1);
        const int s = kt % STAGES;
        mbar_wait(full(s), (kt / STAGES) & 1);
        __syncwarp();
        wgmma_fence();
        wg_mma_stage<BN, DESC>(d, sA(s) + wg * 64 * 128, sB(s), kt == 0);
        wgmma_commit();
        wgmma_wait<0>();
        if (lane == 0) mbar_arrive(empty(s)); /* this warp is done with stage s */
    }
    fence_acc(d);
    wg_store<BN>(C, M, N, m0 + wg * 64, n0, warp, lane, d);
#endif
}

struct wgmma_tma_mbar_cfg {
    static constexpr int STAGES = 4;
    typedef tile_grouped<WG_GROUP_M> order;
};
