/* Step 7: mma_tma -- the copies by TMA (Hopper, sm_90a).
 *
 * The one change from step 6 (mma_cpasync): a stage is copied by the Tensor
 * Memory Accelerator instead of by every thread. One thread issues three
 * cp.async.bulk.tensor copies per stage (A as one 128 x 64 box, B as two
 * 64 x 64 boxes) from tensor maps the host made with cuTensorMapEncodeTiled;
 * the hardware computes the addresses, fills what lies outside the matrix with
 * zeros, writes the 128-byte swizzle of step 4 itself, and counts the bytes it
 * delivered on the stage's mbarrier. Threads wait on the mbarrier's phase
 * instead of cp.async.wait_group; a __syncthreads at the end of each step
 * still tells the issuing thread that a stage is free. The compute (ldmatrix
 * and mma.sync, 8 warps of 64x32), the 3 stages and the row-major tile order
 * stay: blocks are numbered in one dimension here (tile_rows), in the same
 * order as step 6's 2-D grid, so that step 9 can change the order alone.
 * Why it should help: the 2048 16-byte copies a stage cost the 256 threads
 * (8 each, with their addresses and predicates) become 3 instructions of one
 * thread, and no thread waits for its own copies any more.
 * Needs N and K multiples of 8 (a tensor map's row stride is a multiple of
 * 16 bytes): no element-wise path any more.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 2.690 ms, 408.7 TFLOP/s, 53.92% of cuBLAS, +25.7% over step 6 (+23.6% at
 * 4096^3, +22.7% at 6000x5000x4000). */

/* The layout TMA writes: a stage is A's box (128 rows of 128 bytes, 16 KiB),
 * then B's two boxes (64 rows of 128 bytes each, 8 KiB apart); inside a box,
 * chunk c of row r sits at chunk c ^ (r % 8), as in step 4 (the boxes are
 * 1024-byte aligned, which the hardware swizzle assumes). Only B's address
 * differs from step 4's: columns 64-127 are in the second box, not in the
 * second half of a 256-byte row. */
struct mm_tma_boxes {
    static constexpr int BK = TC_BK;
    static constexpr int A_BYTES = wg_cfg<MM_BN>::A_BYTES, B_BYTES = wg_cfg<MM_BN>::B_BYTES;
    static constexpr int B_BOX_BYTES = wg_cfg<MM_BN>::B_BOX_BYTES;
    static __device__ __forceinline__ uint32_t a_off(int r, int chunk)
    {
        return (uint32_t)r * 128u + tc_swz128(r, chunk) * 16u;
    }
    static __device__ __forceinline__ uint32_t b_off(int k, int chunk)
    {
        return (uint32_t)(chunk / 8) * B_BOX_BYTES + (uint32_t)k * 128u + tc_swz128(k, chunk % 8) * 16u;
    }
    static_assert(MM_BM == TC_BM && BK * 2 == 128 && MM_BN == 2 * TC_BOX_COLS,
                  "a stage is one box of A and two boxes of B");
};

/* Block tile t -> (tile row, tile column), row-major: consecutive blocks walk
 * along a row of tiles (what a 2-D grid with blockIdx.x on the columns does). */
struct tile_rows {
    static __device__ __forceinline__ void of(int t, int tiles_m, int tiles_n, int *tm, int *tn)
    {
        (void)tiles_m;
        *tm = t / tiles_n;
        *tn = t % tiles_n;
    }
};

/* STAGES-1 K-steps are issued before the loop; in step kt thread 0 issues
 * step kt+STAGES-1 into the stage step kt-1 used (the barrier that ended step
 * kt-1 freed it), everyone waits for stage kt's bytes (phase kt / STAGES of
 * its barrier), multiplies it, and meets at the barrier. */
template <class CFG>
__global__ void __launch_bounds__(MM_THREADS, 2) gemm_mma_tma(const __grid_constant__ CUtensorMap tmA,
                                                              const __grid_constant__ CUtensorMap tmB,
                                                              float *__restrict__ C, int M, int N, int K)
{
#if TC_SM90A
    typedef mm_tma_boxes L;
    constexpr int STAGES = CFG::STAGES, STAGE_BYTES = L::A_BYTES + L::B_BYTES;
    extern __shared__ uint8_t smem_dyn[];
    __shared__ __align__(8) uint64_t full_bar[STAGES];
    const uint32_t base = (smem_u32(smem_dyn) + 1023u) & ~1023u; /* the launch adds 1 KiB */
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm_ = warp / 4, wn_ = warp % 4;
    int tm, tn;
    CFG::order::of(blockIdx.x, CEIL_DIV(M, MM_BM), CEIL_DIV(N, MM_BN), &tm, &tn);
    const int m0 = tm * MM_BM, n0 = tn * MM_BN, nk = CEIL_DIV(K, L::BK);
    auto stage = [&](int s) { return base + (uint32_t)s * STAGE_BYTES; };
    auto full = [&](int s) { return smem_u32(&full_bar[s]); };
    auto issue = [&](int t) { /* K-step t into stage t % STAGES */
        int s = t % STAGES;
        mbar_arrive_expect_tx(full(s), STAGE_BYTES);
        tma_load_2d(stage(s), &tmA, full(s), t * L::BK, m0);
#pragma unroll
        for (int j = 0; j < 2; j++)
            tma_load_2d(stage(s) + L::A_BYTES + j * L::B_BOX_BYTES, &tmB, full(s),
                        n0 + j * TC_BOX_COLS, t * L::BK);
    };

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) mbar_init(full(s), 1);
        fence_barrier_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        tma_prefetch_map(&tmA);
        tma_prefetch_map(&tmB);
        for (int t = 0; t < STAGES - 1 && t < nk; t++) issue(t);
    }
    float acc[4][4][4] = {};
    for (int kt = 0; kt < nk; kt++) {
        if (threadIdx.x == 0 && kt + STAGES - 1 < nk) issue(kt + STAGES - 1);
        const int s = kt % STAGES;
        mbar_wait(full(s), (kt / STAGES) & 1);
        __syncwarp(); /* ldmatrix and mma.sync are .aligned: the warp converged after its waits */
        mm_compute_stage<L>(stage(s), wm_, wn_, lane, acc);
        __syncthreads(); /* everyone is done with stage s: thread 0 may refill it */
    }
    mm_store<true>(C, M, N, m0, n0, wm_, wn_, lane, acc); /* N % 8 == 0 here */
#endif
}

struct mma_tma_cfg {
    static constexpr int STAGES = 3;
    typedef tile_rows order;
};
