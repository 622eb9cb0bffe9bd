/* Step 2: wgmma_tma -- the tensor cores: TMA copies into a ring of shared-
 * memory stages, wgmma m64n128k32 on e4m3 (sm_90a).
 *
 * The change from step 1: a block computes 128 x 128 of D with two
 * warpgroups (64 rows each) issuing wgmma.mma_async on FP8 straight from
 * shared memory; A's and B's tiles arrive by TMA (one thread issues a copy
 * of a whole 2D box; the hardware writes it in the 128-byte swizzle wgmma
 * reads and zero-fills what lies outside the matrix), into a ring of STAGES
 * stages of 128 K each.
 * Barriers, per stage s and its use n = kt / STAGES: full[s] (count 1: thread
 * 0's arrive.expect_tx, plus the bytes of both boxes) completes phase n when
 * the data of K-step kt is in; everyone waits on parity n & 1. empty[s]
 * (count 8: lane 0 of each warp, after its warpgroup's wgmma on the stage are
 * done) completes phase n when use n is read; thread 0 waits on it before it
 * refills the stage with K-step kt + STAGES. So thread 0, a consumer like the
 * others, also feeds the ring: it stalls its own warp (and so its warpgroup's
 * wgmma) while it waits for the slowest warp. Step 3 moves that job to a
 * warpgroup of its own.
 * Why it should help: FP8 wgmma runs at twice the BF16 tensor-core rate and
 * about 30 times the FP32 rate of step 1.
 * Measured: 1.12 ms at 8192^3 on the H200, 62.41% of cuBLASLt FP8 (fast
 * accumulation), 60.0x step 1 (results/H200/fp8Gemm.txt, commit 13f861f);
 * 59.96% at 4096^3
 * (results/H200/fp8Gemm__m_4096_n_4096_k_4096.txt, commit 13f861f). */
template <int STAGES>
__global__ void __launch_bounds__(256, 1) gemm_wgmma_tma(const __grid_constant__ CUtensorMap tmA,
                                                         const __grid_constant__ CUtensorMap tmB,
                                                         __nv_bfloat16 *__restrict__ D, int M,
                                                         int N, int K,
                                                         const float *__restrict__ scale_a,
                                                         const float *__restrict__ scale_b)
{
#if F8_SM90A
    constexpr int BN = 128;
    typedef f8_cfg<BN> cfg;
    extern __shared__ uint8_t smem_dyn[];
    __shared__ __align__(8) uint64_t full_bar[STAGES], empty_bar[STAGES];
    const uint32_t base = (smem_u32(smem_dyn) + 1023u) & ~1023u;
    const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
    const int nk = CEIL_DIV(K, F8_BK);
    int tm, tn;
    fp8_tile_of(blockIdx.x, CEIL_DIV(M, F8_BM), CEIL_DIV(N, BN), F8_GROUP_M, &tm, &tn);
    const int m0 = tm * F8_BM, n0 = tn * BN;
    auto sA = [&](int s) { return base + (uint32_t)s * cfg::STAGE_BYTES; };
    auto sB = [&](int s) { return sA(s) + cfg::A_BYTES; };
    auto full = [&](int s) { return smem_u32(&full_bar[s]); };
    auto empty = [&](int s) { return smem_u32(&empty_bar[s]); };
    auto load = [&](int kt) {
        const int s = kt % STAGES;
        mbar_arrive_expect_tx(full(s), cfg::STAGE_BYTES);
        tma_load_2d(sA(s), &tmA, full(s), kt * F8_BK, m0);
        tma_load_2d(sB(s), &tmB, full(s), kt * F8_BK, n0);
    };

    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(full(s), 1);
            mbar_init(empty(s), 8);
        }
        fence_barrier_init();
        tma_prefetch_map(&tmA);
        tma_prefetch_map(&tmB);
    }
    __syncthreads();
    if (tid == 0)
        for (int kt = 0; kt < STAGES && kt < nk; kt++) load(kt);

    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++) d[i] = 0.0f;
    for (int kt = 0; kt < nk; kt++) {
        const int s = kt % STAGES, n = kt / STAGES;
        mbar_wait(full(s), n & 1);
        wgmma_fence();
        f8_mma_stage<BN>(d, sA(s) + wg * 64 * F8_BK, sB(s), kt == 0);
        wgmma_commit();
        wgmma_wait<0>();
        __syncwarp();
        if (lane == 0) mbar_arrive(empty(s));
        if (tid == 0 && kt + STAGES < nk) {
            mbar_wait(empty(s), n & 1); /* use n read by every warp */
            load(kt + STAGES);
        }
    }
    fence_acc(d);
    f8_store<BN>(D, M, N, m0 + wg * 64, n0, warp, lane, d, *scale_a * *scale_b);
#endif
}
