/* Step 18: wgmma_ws_multicast -- two blocks share each box of B.
 *
 * The one change from step 17 (wgmma_ws_streamk): the blocks run as clusters
 * of 2 (a launch attribute: cudaLaunchKernelEx), and the two blocks of a cluster multiply the two
 * 128x256 tiles one above the other: the same 256 columns of B, different
 * rows of A. Each block still loads its own A box, but only half of the
 * stage's B (2 of the 4 boxes of 64 columns), with a multicast TMA copy that
 * writes those boxes into both blocks' shared memory and counts their bytes
 * on both blocks' full barrier. A stage can be refilled only when both blocks
 * have read it, so every consumer warp releases it on its own empty barrier
 * and on its partner's (count 16: 8 warps of each block). The schedule is
 * step 17's over pairs of tiles, one unit per cluster; each block of a
 * cluster writes its half of a piece to its own workspace slot.
 * Why it should help: the bytes of A and B each SM asks the L2 for per
 * K-step fall from 48 KiB to 32 KiB (B's 32 KiB now serves two SMs). If the
 * limit at 6000x5000x4000 is the operands' path from the L2 (README, Deep
 * dive: the 128x128 steps 8 to 14 all stopped at 405-425 TFLOP/s there, in
 * results/H200/history/cd59140/tensorCoreGemm__m_6000_n_5000_k_4000.txt, commit cd59140),
 * this moves the ceiling up by up to 1.5x, without copying anything.
 * Prediction, to be measured: faster than step 17 at 6000x5000x4000; at
 * 8192^3 and 4096^3 about step 17's time (not limited there). At
 * 6000x5000x4000 the pairs are 24 x 20 = 480 on 66 clusters: 7 rounds and
 * 18 pairs, split into 3 pieces of 21 K-steps.
 * Measured (results/H200/tensorCoreGemm_steps17_20.txt, commit 39af820, one
 * process per step and shape): 0.3555 ms at 6000x5000x4000, 95.11% of
 * cuBLAS, +40.6% over step 17 and 99% of step 15's rate at 6000x5120x4096,
 * where the rows are 128 bytes apart (675 against 684 TFLOP/s): the
 * misaligned B rows no longer cost. At 8192^3 1.401 ms, 100.8% of cuBLAS;
 * 4096^3 was not run. */
#if TC_SM90A
__device__ __forceinline__ uint32_t cluster_rank()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ uint32_t cluster_id()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
    return r;
}
__device__ __forceinline__ uint32_t cluster_count()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
    return r;
}
/* Every thread of both blocks: what each did before is visible to the other after. */
__device__ __forceinline__ void cluster_sync_all()
{
    asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
}
/* Arrive on the mbarrier at the same offset in block `cta` of the cluster.
 * The default semantics (release at CTA scope) are enough here: what the
 * arrival stands for is that this block's wgmma have finished reading the
 * stage (wgmma.wait_group came first), not data for the partner to read; a
 * .release.cluster arrive costs a MEMBAR.ALL.GPU per K-step in the SASS. */
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t cta)
{
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(bar), "r"(cta));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}
/* tma_load_2d to every block of the cluster in `mask`: the box lands at offset
 * dst in each one's shared memory and its bytes count on each one's barrier at
 * offset bar. */
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const CUtensorMap *map,
                                                      uint32_t bar, int c0, int c1, uint16_t mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1), "h"(mask)
                 : "memory");
}
#endif

/* Launched as clusters of 2 only (the launcher's attribute; __cluster_dims__
 * would not compile for the sm_80 builds, where this kernel is empty). */
template <int BN, int STAGES>
__global__ void __launch_bounds__(384, 1)
    gemm_wgmma_ws_multicast(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                            float *__restrict__ C, float *__restrict__ work, int M, int N, int K,
                            tc_tail_plan plan)
{
#if TC_SM90A
    typedef wg_cfg<BN> cfg;
    constexpr int MY_BOXES = BN / TC_BOX_COLS / 2; /* boxes of B this block loads for both */
    extern __shared__ uint8_t smem_dyn[];
    __shared__ __align__(8) uint64_t full_bar[STAGES], empty_bar[STAGES];
    const uint32_t base = (smem_u32(smem_dyn) + 1023u) & ~1023u;
    const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
    const uint32_t rank = cluster_rank(), peer = rank ^ 1u;
    const int pair_rows = CEIL_DIV(CEIL_DIV(M, TC_BM), 2), tiles_n = CEIL_DIV(N, BN);
    const int nk = CEIL_DIV(K, TC_BK), cb = (int)cluster_id(), ncl = (int)cluster_count();
    auto sA = [&](int s) { return base + (uint32_t)s * cfg::A_BYTES; };
    auto sB = [&](int s) { return base + (uint32_t)STAGES * cfg::A_BYTES + (uint32_t)s * cfg::B_BYTES; };
    auto full = [&](int s) { return smem_u32(&full_bar[s]); };
    auto empty = [&](int s) { return smem_u32(&empty_bar[s]); };

    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(full(s), 1);
            mbar_init(empty(s), 16); /* lane 0 of the 8 consumer warps of each block */
        }
        fence_barrier_init();
    }
    /* both blocks' barriers exist before either block's copies or arrivals reach them */
    cluster_sync_all();

    tc_unit w;
    if (wg == 0) { /* producer: the cluster's units, in the same order as its partner */
        setmaxnreg_dec<40>();
        if (tid == 0) {
            tma_prefetch_map(&tmA);
            tma_prefetch_map(&tmB);
            int g = 0;
            for (int u = 0; tc_unit_of(&plan, cb, u, ncl, nk, &w); u++) {
                int tp, tn;
                tc_tile_of(w.tile, pair_rows, tiles_n, WG_GROUP_M / 2, &tp, &tn);
                const int m0 = (2 * tp + (int)rank) * TC_BM, n0 = tn * BN;
                /* with an odd number of tile rows, the second tile of the last pair
                 * lies below A: it still loads its half of B for its partner, and
                 * reads some rows of A whose products it never stores */
                const int a_row = m0 < M ? m0 : 0;
                for (int kt = w.k0; kt < w.k1; kt++, g++) {
                    const int s = g % STAGES, n = g / STAGES;
                    if (n > 0) mbar_wait(empty(s), (n - 1) & 1); /* use n-1 read by both blocks */
                    mbar_arrive_expect_tx(full(s), cfg::STAGE_BYTES); /* A, and all of B: half from the partner */
                    tma_load_2d(sA(s), &tmA, full(s), kt * TC_BK, a_row);
#pragma unroll
                    for (int j = 0; j < MY_BOXES; j++) {
                        const int box = (int)rank * MY_BOXES + j;
                        tma_load_2d_multicast(sB(s) + box * cfg::B_BOX_BYTES, &tmB, full(s),
                                              n0 + box * TC_BOX_COLS, kt * TC_BK, (uint16_t)0x3);
                    }
                }
            }
        }
    } else { /* consumers: warpgroup c = wg - 1 owns rows 64c .. 64c+63 of the block's tile */
        setmaxnreg_inc<232>();
        const int c = wg - 1;
        float d[BN / 2];
#pragma unroll
        for (int i = 0; i < BN / 2; i++) d[i] = 0.0f;
        int g = 0;
        for (int u = 0; tc_unit_of(&plan, cb, u, ncl, nk, &w); u++) {
            int tp, tn;
            tc_tile_of(w.tile, pair_rows, tiles_n, WG_GROUP_M / 2, &tp, &tn);
            const int m0 = (2 * tp + (int)rank) * TC_BM, n0 = tn * BN;
            for (int kt = w.k0; kt < w.k1; kt++, g++) {
                const int s = g % STAGES;
                mbar_wait(full(s), (g / STAGES) & 1);
                __syncwarp();
                wgmma_fence();
                wg_mma_stage<BN>(d, sA(s) + c * 64 * 128, sB(s), kt == w.k0);
                wgmma_commit();
                wgmma_wait<1>();
                if (kt > w.k0 && lane == 0) { /* the stage before is free, here and for the partner */
                    mbar_arrive(empty((g - 1) % STAGES));
                    mbar_arrive_cluster(empty((g - 1) % STAGES), peer);
                }
            }
            wgmma_wait<0>();
            if (lane == 0) {
                mbar_arrive(empty((g - 1) % STAGES));
                mbar_arrive_cluster(empty((g - 1) % STAGES), peer);
            }
            fence_acc(d);
            if (w.slot < 0) {
                wg_store<BN>(C, M, N, m0 + c * 64, n0, warp, lane, d);
            } else { /* the block's half of the piece: slot 2 * (the plan's slot) + rank */
                float *p = work + (size_t)(2 * w.slot + (int)rank) * (TC_BM * BN) + c * 128 + tid % 128;
#pragma unroll
                for (int i = 0; i < BN / 2; i++) p[i * 256] = d[i];
            }
        }
    }
    /* neither block leaves while its partner may still arrive on its barriers */
    cluster_sync_all();
#endif
}

struct wgmma_ws_multicast_cfg {
    static constexpr int BN = 256, STAGES = 4;
};
