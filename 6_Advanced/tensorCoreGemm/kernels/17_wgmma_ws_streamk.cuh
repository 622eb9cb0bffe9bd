/* Step 17: wgmma_ws_streamk -- the last round of tiles split along K.
 *
 * The one change from step 16 (wgmma_ws_persistent): the schedule. The grid is
 * still one block per SM looping over 128x256 tiles with step 14's pipeline,
 * but only the full rounds of tiles are handed out whole; the tiles of the
 * last, partial round are each cut along K into S pieces, one piece per block
 * (tc_tail_split and tc_unit_of in tc_layout.h, which tests/test_tc_host.c
 * checks: every K-step of every tile multiplied exactly once). A piece's sums
 * go to a workspace; a second, small kernel adds each tail tile's S partial
 * tiles in the fixed order 0, 1, ..., S-1 and stores it, so the result does
 * not depend on which block finished first.
 * Why it should help: at 6000x5000x4000, 47 x 20 = 940 tiles on 132 SMs are 7
 * full rounds and a last one of 16 tiles: for the time of one whole tile
 * (about 1/8 of the kernel), 116 SMs wait (step 15: 69.15% of cuBLAS there,
 * results/H200/history/cd59140/tensorCoreGemm__m_6000_n_5000_k_4000.txt, commit cd59140). Split into 8 pieces each, the 16
 * tail tiles keep 128 SMs busy for 1/8 of that time, plus the partial tiles'
 * round trip through L2 (16 MiB written and read) and a second launch.
 * Prediction, to be measured: at most 1 - 7.12/8 = 11% faster at
 * 6000x5000x4000; the same time as step 16 at 8192^3 (2048 tiles: 15 rounds
 * and 68 tiles) and 4096^3 (512 tiles: 3 rounds and 116 tiles), where the
 * last round is more than half full: with one piece per block the plan
 * cannot split it (132 / 68 = 1) and leaves every tile whole.
 * Measured (results/H200/tensorCoreGemm_steps17_20.txt, commit 39af820, a
 * later run than the steps before, one process per step and shape): 0.4997
 * ms at 6000x5000x4000, 69.74% of cuBLAS, where step 15 reached 69.98% in
 * the same run: no gain; the prediction was wrong and the run does not say
 * why (the partials' round trip and the second launch are candidates).
 * 8192^3 and 4096^3 were not run. Step 18 runs on this schedule. */
template <int BN, int STAGES>
__global__ void __launch_bounds__(384, 1) gemm_wgmma_ws_streamk(const __grid_constant__ CUtensorMap tmA,
                                                                const __grid_constant__ CUtensorMap tmB,
                                                                float *__restrict__ C,
                                                                float *__restrict__ work, int M, int N,
                                                                int K, tc_tail_plan plan)
{
#if TC_SM90A
    typedef wg_cfg<BN> cfg;
    extern __shared__ uint8_t smem_dyn[];
    __shared__ __align__(8) uint64_t full_bar[STAGES], empty_bar[STAGES];
    const uint32_t base = (smem_u32(smem_dyn) + 1023u) & ~1023u;
    const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
    const int tiles_m = CEIL_DIV(M, TC_BM), tiles_n = CEIL_DIV(N, BN);
    const int nk = CEIL_DIV(K, TC_BK), b = blockIdx.x, grid = gridDim.x;
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

    tc_unit w;
    if (wg == 0) { /* producer: the same units, in the same order, as the consumers */
        setmaxnreg_dec<40>();
        if (tid == 0) {
            tma_prefetch_map(&tmA);
            tma_prefetch_map(&tmB);
            int g = 0;
            for (int u = 0; tc_unit_of(&plan, b, u, grid, nk, &w); u++) {
                int tm, tn;
                tc_tile_of(w.tile, tiles_m, tiles_n, WG_GROUP_M, &tm, &tn);
                const int m0 = tm * TC_BM, n0 = tn * BN;
                for (int kt = w.k0; kt < w.k1; kt++, g++) {
                    const int s = g % STAGES, n = g / STAGES;
                    if (n > 0) mbar_wait(empty(s), (n - 1) & 1);
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
        for (int u = 0; tc_unit_of(&plan, b, u, grid, nk, &w); u++) {
            int tm, tn;
            tc_tile_of(w.tile, tiles_m, tiles_n, WG_GROUP_M, &tm, &tn);
            const int m0 = tm * TC_BM, n0 = tn * BN;
            /* a piece starts at K-step k0, not 0: its first wgmma overwrites
             * the accumulators, and there is no earlier stage of it to free */
            for (int kt = w.k0; kt < w.k1; kt++, g++) {
                const int s = g % STAGES;
                mbar_wait(full(s), (g / STAGES) & 1);
                __syncwarp();
                wgmma_fence();
                wg_mma_stage<BN>(d, sA(s) + c * 64 * 128, sB(s), kt == w.k0);
                wgmma_commit();
                wgmma_wait<1>();
                if (kt > w.k0 && lane == 0) mbar_arrive(empty((g - 1) % STAGES));
            }
            wgmma_wait<0>();
            if (lane == 0) mbar_arrive(empty((g - 1) % STAGES));
            fence_acc(d);
            if (w.slot < 0) {
                wg_store<BN>(C, M, N, m0 + c * 64, n0, warp, lane, d);
            } else {
                /* the partial tile, accumulator i of consumer thread t (0..255)
                 * at i * 256 + t: each store of a warp is 128 contiguous bytes */
                float *p = work + (size_t)w.slot * (TC_BM * BN) + c * 128 + tid % 128;
#pragma unroll
                for (int i = 0; i < BN / 2; i++) p[i * 256] = d[i];
            }
        }
    }
#endif
}

/* The tail tiles' sums: block (r, y) adds, for tail tile r, accumulator pairs
 * (i, i+1), i even, of the y-th eighth of the tile's 128 accumulators a
 * consumer thread holds, over its `pieces` partial tiles in order 0, 1, ...,
 * and stores them where wg_store would have: C(row, col), C(row, col + 1).
 * CL (step 18 on: 2) is the blocks per cluster: the plan's tiles are then
 * pairs of tiles one above the other, block x = 2r + h adds half h of tail
 * pair r, and the CTA of rank h of a cluster wrote its pieces to slots
 * CL * (the plan's slot) + h. */
#define SK_FIXUP_Y 16 /* blocks per tail tile; 256 threads each */
template <int BN, int CL>
__global__ void __launch_bounds__(256) gemm_streamk_fixup(const float *__restrict__ work,
                                                          float *__restrict__ C, int M, int N,
                                                          tc_tail_plan plan)
{
#if TC_SM90A
    constexpr int PER_Y = (BN / 2) / SK_FIXUP_Y; /* accumulators per thread and block */
    constexpr size_t SLOT = (size_t)TC_BM * BN;   /* floats of one partial tile */
    static_assert(PER_Y % 2 == 0, "pairs of accumulators");
    const int r = blockIdx.x / CL, h = blockIdx.x % CL, t = threadIdx.x, c = t / 128,
              warp = (t % 128) / 32, lane = t % 32;
    int tp, tn;
    tc_tile_of(plan.dp_tiles + r, CEIL_DIV(CEIL_DIV(M, TC_BM), CL), CEIL_DIV(N, BN), WG_GROUP_M / CL,
               &tp, &tn);
    const int tm = tp * CL + h;
    const float *p = work + ((size_t)r * plan.pieces * CL + h) * SLOT + t;
    const int row_lo = tm * TC_BM + c * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int q = 0; q < PER_Y; q += 2) {
        const int i = blockIdx.y * PER_Y + q;
        float x0 = p[i * 256], x1 = p[(i + 1) * 256];
        for (int s = 1; s < plan.pieces; s++) {
            x0 += p[s * CL * SLOT + i * 256];
            x1 += p[s * CL * SLOT + (i + 1) * 256];
        }
        /* wg_store's map: element i is row +8 when (i/2) is odd, column 8*(i/4) + 2*(lane%4) */
        const int row = row_lo + 8 * ((i / 2) % 2), col = tn * BN + 8 * (i / 4) + 2 * (lane % 4);
        if (row < M && col < N) *(float2 *)&C[(size_t)row * N + col] = make_float2(x0, x1);
    }
#endif
}

struct wgmma_ws_streamk_cfg {
    static constexpr int BN = 256, STAGES = 4;
};
