/* Step 5: mma_cpasync_2stage -- asynchronous copies into two stages.
 *
 * The one change from step 4 (mma_ldmatrix): the loads become cp.async copies
 * (global to shared memory without passing through registers) into a ring of
 * stages, here 2: while step k is multiplied from one stage, the copies of
 * step k+1 fly into the other. One __syncthreads per step both publishes a
 * stage and frees the previous one. Same tiles, same layout, same compute.
 * The stages (64 KiB) are dynamic shared memory; __launch_bounds__ asks for 2
 * blocks per SM, which changes nothing here: step 4 already fits 2 (125
 * registers, nvcc 13.0 -Xptxas -v).
 * Why it should help: in step 4 the loads and the math take turns, and only
 * the other resident block hides the memory latency.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 3.288 ms, 334.4 TFLOP/s, 44.11% of cuBLAS, +35.5% over step 4 (+35.0% at
 * 4096^3, +40.1% at 6000x5000x4000). */

/* A ring of STAGES stages. STAGES-1 K-steps are requested before the loop; in
 * step kt a thread waits until its copies for step kt have landed (at most
 * STAGES-2 groups still pending), the barrier makes everyone's copies visible
 * and guarantees step kt-1's stage is no longer read, then the copies of step
 * kt+STAGES-1 go into that stage and step kt is computed. A group is committed
 * every step, even an empty one, so the count stays exact. Without VEC the
 * stage is filled through registers instead (same ring, same barriers:
 * correct, not asynchronous). */
template <class CFG, bool VEC>
__global__ void __launch_bounds__(MM_THREADS, 2) gemm_mma_cpasync(const uint16_t *__restrict__ A,
                                                                  const uint16_t *__restrict__ B,
                                                                  float *__restrict__ C, int M,
                                                                  int N, int K)
{
#if TC_SM80
    typedef typename CFG::layout L;
    constexpr int STAGES = CFG::STAGES, STAGE_BYTES = L::A_BYTES + L::B_BYTES;
    static_assert(STAGES >= 2, "a ring needs a stage to fill while another is read");
    extern __shared__ __align__(128) uint8_t smem_dyn[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm_ = warp / 4, wn_ = warp % 4;
    const int m0 = blockIdx.y * MM_BM, n0 = blockIdx.x * MM_BN;
    const int nk = CEIL_DIV(K, L::BK);
    const uint32_t base = smem_u32(smem_dyn);
    float acc[4][4][4] = {};

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nk) {
            if constexpr (VEC)
                mm_load_stage_async<L>(base + s * STAGE_BYTES, A, B, M, N, K, m0, n0, s * L::BK);
            else
                mm_load_stage<L, false>(smem_dyn + s * STAGE_BYTES, A, B, M, N, K, m0, n0, s * L::BK);
        }
        cp_async_commit();
    }
    for (int kt = 0; kt < nk; kt++) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        int next = kt + STAGES - 1;
        if (next < nk) {
            int s = next % STAGES;
            if constexpr (VEC)
                mm_load_stage_async<L>(base + s * STAGE_BYTES, A, B, M, N, K, m0, n0, next * L::BK);
            else
                mm_load_stage<L, false>(smem_dyn + s * STAGE_BYTES, A, B, M, N, K, m0, n0, next * L::BK);
        }
        cp_async_commit();
        mm_compute_stage<L>(base + (kt % STAGES) * STAGE_BYTES, wm_, wn_, lane, acc);
    }
    cp_async_wait<0>(); /* nothing may be in flight when the block exits */
    mm_store<VEC>(C, M, N, m0, n0, wm_, wn_, lane, acc);
#endif
}

struct mma_cpasync_2stage_cfg {
    typedef mm_swizzled layout; /* step 4's tiles */
    static constexpr int STAGES = 2;
};
