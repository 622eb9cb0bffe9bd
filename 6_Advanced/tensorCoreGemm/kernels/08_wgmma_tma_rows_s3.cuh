/* Step 8: wgmma_tma_rows_s3 -- warpgroup MMA from shared memory (sm_90a).
 *
 * The one change from step 7 (mma_tma): the multiplication is wgmma.mma_async
 * instead of ldmatrix + mma.sync. The 8 warps become 2 warpgroups of 4, each
 * multiplying 64 x 128 of the tile with one wgmma.m64n128k16 per 16 of K
 * (4 per stage), both operands read by the tensor cores straight from shared
 * memory through 64-bit matrix descriptors (tc_wgmma_desc: A K-major, B
 * N-major, imm-trans-b = 1 since B is row-major), the accumulators (64 FP32
 * a thread) in registers. TMA, the 3 stages, the barrier per step and the
 * row-major tile order stay. The launch bound no longer asks for 2 blocks per
 * SM (90 registers a thread: 2 blocks fit anyway, as in step 7, by shared
 * memory).
 * Why it should help: Hopper's tensor cores reach their rate only through
 * wgmma; mma.sync runs on them at a fraction of it, and its operands must
 * first pass through registers (ldmatrix), 8 warps each loading its own.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 1.907 ms, 576.6 TFLOP/s, 76.07% of cuBLAS, +41.1% over step 7 (+46.9% at
 * 4096^3, +9.7% at 6000x5000x4000). */

/* Two warpgroups, each 64 x 128 of a 128x128 tile; thread 0 also issues the
 * TMA copies, STAGES-1 K-steps ahead. full[s] completes when stage s has its
 * bytes. A __syncthreads after each step is the only way the issuing thread
 * learns that both warpgroups are done with a stage before refilling it.
 * CFG gives STAGES and the tile order; DESC makes the wgmma descriptors (an
 * exercise may hand in its own). */
template <class CFG, class DESC = wg_desc_swz128>
__global__ void __launch_bounds__(256, 1) gemm_wgmma_tma(const __grid_constant__ CUtensorMap tmA,
                                                         const __grid_constant__ CUtensorMap tmB,
                                                         float *__restrict__ C, int M, int N, int K)
{
#if TC_SM90A
    constexpr int BN = 128, STAGES = CFG::STAGES;
    typedef wg_cfg<BN> cfg;
    extern __shared__ uint8_t smem_dyn[];
    __shared__ __align__(8) uint64_t full_bar[STAGES];
    const uint32_t base = (smem_u32(smem_dyn) + 1023u) & ~1023u; /* the launch adds 1 KiB */
    const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
    int tm, tn;
    CFG::order::of(blockIdx.x, CEIL_DIV(M, TC_BM), CEIL_DIV(N, BN), &tm, &tn);
    const int m0 = tm * TC_BM, n0 = tn * BN, nk = CEIL_DIV(K, TC_BK);
    auto sA = [&](int s) { return base + (uint32_t)s * cfg::A_BYTES; };
    auto sB = [&](int s) { return base + (uint32_t)STAGES * cfg::A_BYTES + (uint32_t)s * cfg::B_BYTES; };
    auto full = [&](int s) { return smem_u32(&full_bar[s]); };
    auto issue = [&](int t) { /* K-step t into stage t % STAGES */
        int s = t % STAGES;
        mbar_arrive_expect_tx(full(s), cfg::STAGE_BYTES);
        tma_load_2d(sA(s), &tmA, full(s), t * TC_BK, m0);
#pragma unroll
        for (int j = 0; j < BN / TC_BOX_COLS; j++)
            tma_load_2d(sB(s) + j * cfg::B_BOX_BYTES, &tmB, full(s), n0 + j * TC_BOX_COLS, t * TC_BK);
    };

    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) mbar_init(full(s), 1);
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
        /* stage (kt-1) % STAGES was released by the barrier that ended step kt-1 */
        if (tid == 0 && kt + STAGES - 1 < nk) issue(kt + STAGES - 1);
        const int s = kt % STAGES;
        mbar_wait(full(s), (kt / STAGES) & 1);
        __syncwarp();
        wgmma_fence();
        wg_mma_stage<BN, DESC>(d, sA(s) + wg * 64 * 128, sB(s), kt == 0);
        wgmma_commit();
        wgmma_wait<0>();
        __syncthreads();
    }
    fence_acc(d);
    wg_store<BN>(C, M, N, m0 + wg * 64, n0, warp, lane, d);
#endif
}

struct wgmma_tma_rows_s3_cfg {
    static constexpr int STAGES = 3;
    typedef tile_rows order;
};
