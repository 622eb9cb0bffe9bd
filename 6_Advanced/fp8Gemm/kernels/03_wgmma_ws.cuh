/* Step 3: wgmma_ws -- warp specialization: a producer warpgroup feeds the
 * ring, two consumer warpgroups only multiply.
 *
 * The change from step 2 (wgmma_tma): a third warpgroup (384 threads). It
 * gives most of its registers away (setmaxnreg.dec to 40) and one of its
 * threads runs ahead issuing TMA copies, waiting only for a stage's empty
 * barrier; the consumers take registers (setmaxnreg.inc to 232) and never
 * wait for each other. A consumer also keeps the next wgmma group queued: it
 * waits with wgmma.wait_group 1, so after committing K-step g it only waits
 * for K-step g-1's wgmma, frees that stage, and goes on to wait for K-step
 * g+1's data while g's wgmma still run.
 * Why it should help: in step 2 thread 0 stalls its warpgroup's wgmma while
 * it waits for the slowest warp to free a stage, and every consumer drains
 * the tensor-core queue at each K-step.
 * Measured: 0.8513 ms at 8192^3 on the H200, 82.1% of cuBLASLt FP8 (fast
 * accumulation), 1.32x step 2 (results/H200/fp8Gemm.txt, commit 13f861f);
 * 73.93% at 4096^3
 * (results/H200/fp8Gemm__m_4096_n_4096_k_4096.txt, commit 13f861f).
 *
 * Barriers, per stage s and use n = g / STAGES of it (g counts K-steps across
 * tiles): full[s] (count 1) completes phase n when K-step g's data is in;
 * consumers wait on parity n & 1. empty[s] (count 8: lane 0 of each consumer
 * warp) completes phase n when use n is read; the producer waits on it
 * (parity (n-1) & 1) before use n. Neither barrier can run two phases ahead of
 * a waiter: each phase needs the waiter's own arrive on the other barrier.
 * Register budget: 384 threads x 168 at launch = 128 x 40 + 256 x 232.
 *
 * PERSISTENT (step 5): a grid of one block per SM (or grid_limit, in the
 * checks) loops over tiles t = blockIdx.x, + gridDim.x, ...; the producer
 * fills the next tile's stages while the consumers store this tile's results.
 * Without it the grid has one block per tile and the loop runs once. */
template <int BN, int STAGES, bool PERSISTENT>
__global__ void __launch_bounds__(384, 1) gemm_wgmma_ws(const __grid_constant__ CUtensorMap tmA,
                                                        const __grid_constant__ CUtensorMap tmB,
                                                        __nv_bfloat16 *__restrict__ D, int M, int N,
                                                        int K, const float *__restrict__ scale_a,
                                                        const float *__restrict__ scale_b)
{
#if F8_SM90A
    typedef f8_cfg<BN> cfg;
    extern __shared__ uint8_t smem_dyn[];
    __shared__ __align__(8) uint64_t full_bar[STAGES], empty_bar[STAGES];
    const uint32_t base = (smem_u32(smem_dyn) + 1023u) & ~1023u;
    const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
    const int tiles_m = CEIL_DIV(M, F8_BM), tiles_n = CEIL_DIV(N, BN);
    const int ntiles = tiles_m * tiles_n, nk = CEIL_DIV(K, F8_BK);
    const int step = PERSISTENT ? (int)gridDim.x : ntiles;
    auto sA = [&](int s) { return base + (uint32_t)s * cfg::STAGE_BYTES; };
    auto sB = [&](int s) { return sA(s) + cfg::A_BYTES; };
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
                fp8_tile_of(t, tiles_m, tiles_n, F8_GROUP_M, &tm, &tn);
                const int m0 = tm * F8_BM, n0 = tn * BN;
                for (int kt = 0; kt < nk; kt++, g++) {
                    const int s = g % STAGES, n = g / STAGES;
                    if (n > 0) mbar_wait(empty(s), (n - 1) & 1); /* use n-1 read by all */
                    mbar_arrive_expect_tx(full(s), cfg::STAGE_BYTES);
                    tma_load_2d(sA(s), &tmA, full(s), kt * F8_BK, m0);
                    tma_load_2d(sB(s), &tmB, full(s), kt * F8_BK, n0);
                }
            }
        }
    } else { /* consumers: warpgroup c = wg - 1 owns rows 64c .. 64c+63 of each tile */
        setmaxnreg_inc<232>();
        const int c = wg - 1;
        const float scale = *scale_a * *scale_b;
        float d[BN / 2];
#pragma unroll
        for (int i = 0; i < BN / 2; i++) d[i] = 0.0f;
        int g = 0;
        for (int t = blockIdx.x; t < ntiles; t += step) {
            int tm, tn;
            fp8_tile_of(t, tiles_m, tiles_n, F8_GROUP_M, &tm, &tn);
            const int m0 = tm * F8_BM, n0 = tn * BN;
            for (int kt = 0; kt < nk; kt++, g++) {
                const int s = g % STAGES;
                mbar_wait(full(s), (g / STAGES) & 1);
                wgmma_fence();
                f8_mma_stage<BN>(d, sA(s) + c * 64 * F8_BK, sB(s), kt == 0);
                wgmma_commit();
                wgmma_wait<1>(); /* K-step g-1's wgmma are done: its stage is free */
                __syncwarp();
                if (kt > 0 && lane == 0) mbar_arrive(empty((g - 1) % STAGES));
            }
            wgmma_wait<0>();
            __syncwarp();
            if (lane == 0) mbar_arrive(empty((g - 1) % STAGES));
            fence_acc(d);
            f8_store<BN>(D, M, N, m0 + c * 64, n0, warp, lane, d, scale);
        }
    }
#endif
}

struct wgmma_ws_cfg {
    static constexpr int BN = 128, STAGES = 4; /* as step 2 */
    static constexpr bool PERSISTENT = false;
};
