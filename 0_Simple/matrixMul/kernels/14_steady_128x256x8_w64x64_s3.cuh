/* kernels/14_steady_128x256x8_w64x64_s3.cuh: a main loop without branches,
 * the kernel of every steady_* variant.
 *
 * steady_128x256x8_w64x64_s3, from pipe_128x256x8_w64x64_s3, one change:
 * the loop that an interior block runs K/BK times has no branch and no
 * address arithmetic beyond two pointer increments. In pipe_* every K-step
 * asks three questions (is there a step left to copy? may it take the
 * unchecked copies? is there a next step to load fragments from?) and the
 * unchecked copies compute their addresses from the step number. Read from
 * the SASS (cuobjdump -sass, nvcc 13.0, sm_90), the path an interior block
 * of pipe_128x256x8_w64x64_s3 takes through one K-step is 1136 instructions
 * for 1024 FFMAs, and ptxas's own stall counts (the control bits of each
 * instruction: the cycles a warp waits before its next issue) add up to
 * 1232 cycles: the branches at the top of the step alone wait 40 cycles.
 * cuBLAS's loop (sm80_xmma_gemm_f32f32_..._tilesize256x128x8_stage3, the
 * kernel our H200 runs for the reference) is 1154 instructions, none a
 * branch but the one that closes the loop, in 1161 cycles.
 *
 * What changes:
 *  - The K tail goes first. With kofs = ntiles*BK - K (0..BK-1), K-step s
 *    covers k from s*BK - kofs: step 0 is the partial one (its k < 0 read
 *    as zeros), every later step is whole, so no copy after step 0 needs a
 *    test on k.
 *  - A block whose tile lies inside C (and N % 4 == 0, K > BK) runs its own
 *    copy of the loop, steady_loop<true>, whose copies go through two
 *    pointers that advance by one K-step each step (no test, no multiply);
 *    every other block runs steady_loop<false>, whose copies test each
 *    element (steady_copy_checked). One branch per block, not per step.
 *  - Past the last K-step the interior loop does not skip the copies: its
 *    pointers stop advancing, so it copies the last step again into a stage
 *    that is never read; and the fragments of the next step are loaded even
 *    after the last one (from a stage in shared memory, into registers that
 *    are then not used).
 * Predicted: +2 to +7% at 4096^3, so 92-97% of cuBLAS. Two warps share
 * each scheduler (one 256-thread block per SM), so a warp's stall can be
 * filled by the other's instructions: the instruction count (1136 -> 1116,
 * -1.8%) is the floor of the gain, the stall cycles (1232 -> 1156, -6.2%)
 * its ceiling, reached where both warps wait at once (after the barrier,
 * where they start together). The shared loads are not scheduled further
 * ahead than in pipe_* (ptxas puts each about 40 instructions before its
 * first use; cuBLAS about 185): not changed here, and a risk.
 *
 * The others, one change each:
 *  - steady_128x128x8_w64x64_s3: the same change from
 *    pipe_128x128x8_w64x64_s3 (two 128-thread blocks per SM; its interior
 *    K-step 1125 instructions in 1173 issue cycles). Predicted: about as
 *    steady_128x256x8_w64x64_s3 gains over pipe_128x256x8_w64x64_s3.
 *  - steady_128x256x8_w64x64_s3_pf, from steady_128x256x8_w64x64_s3: the
 *    interior loop's copies ask the L2 to fetch the whole 128-byte line on a
 *    miss (cp.async ... .L2::128B; in the SASS LDGSTS.E.LTC128B, which is
 *    what cuBLAS's loop issues too). A's copies read 32 bytes of each row
 *    per K-step, so one line holds a row's next three K-steps. Predicted:
 *    0 to +2%: the L2 hit rate of the copies rises (cuBLAS 89%, pipe_* 80%
 *    in NOTEBOOK.md), which matters only where a copy's latency is not
 *    hidden by the two K-steps in flight.
 * Measured (results/H200/matrixMul_steady.txt, commit 39af820; one process
 * per variant and shape, cuBLAS round robin in each): 2.825 ms at 4096^3,
 * +4.8% over pipe_128x256x8_w64x64_s3's 2.96 ms in the same run: 96.17% of
 * cuBLAS (96.05% at 2048^3, 98.72% at 4096x1024x8192), inside the predicted
 * range. steady_128x128x8_w64x64_s3: 94.57 / 98.72 / 96.06%. The _pf
 * variant: +0.1 / -1.2 / +0.4% against steady_128x256x8_w64x64_s3, nothing
 * measurable.
 */
#pragma once
#include "00_load_store.cuh"
#include "00_warp_tile.cuh"
#include "00_cp_async.cuh"
#include "00_fast_copies.cuh"
#include "../mm_host.h"

/* The copies of the K-step whose first k is k0 (may be negative: step 0),
 * each element tested: inside A or B, and 0 <= k < K; outside, zeros. The
 * copy map is pipe_copy_map's (00_fast_copies.cuh). */
template <int BM, int BN, int BK, int NT, int LDA, int LDB>
__device__ __forceinline__ void steady_copy_checked(float *As, float *Bs,
                                                    const float *__restrict__ A,
                                                    const float *__restrict__ B, int M, int N,
                                                    int K, int row0, int col0, int k0, bool b_vec)
{
    typedef pipe_copy_map<BM, BN, BK, NT> map;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int ra = (warp / map::KO) * 4 + lane / 8, ka = (warp % map::KO) * 8 + lane % 8;
    const int rb = threadIdx.x / (BN / 4), nq = (threadIdx.x % (BN / 4)) * 4;
    const int k = k0 + ka;
#pragma unroll
    for (int i = 0; i < BM * BK / NT; i++) {
        const int r = ra + i * map::ROWS_APART;
        const bool ok = row0 + r < M && k >= 0 && k < K;
        cp_async4(&As[ka * LDA + r], ok ? A + (size_t)(row0 + r) * K + k : A, ok);
    }
#pragma unroll
    for (int i = 0; i < BN * BK / 4 / NT; i++) {
        const int r = rb + i * map::B_ROWS_APART;
        const int kr = k0 + r, n = col0 + nq;
        const bool k_ok = kr >= 0 && kr < K;
        if (b_vec) { /* N % 4 == 0: a float4 is all in range or all out */
            const bool ok = k_ok && n < N;
            cp_async16(&Bs[r * LDB + nq], ok ? B + (size_t)kr * N + n : B, ok);
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const bool ok = k_ok && n + e < N;
                cp_async4(&Bs[r * LDB + nq + e], ok ? B + (size_t)kr * N + n + e : B, ok);
            }
        }
    }
}

/* cp.async with an L2 prefetch hint (steady_*_pf): on a miss, the L2 fetches
 * the whole 128-byte line around the element from memory, not only its
 * 32-byte sector. A warp's copies of A take one sector of each of 4 rows
 * (8 k of 4 bytes), so the line holds this row's next 3 K-steps too.
 * Without the hint (PF false), 00_cp_async.cuh's copies. */
template <bool PF>
__device__ __forceinline__ void steady_cp4(float *smem, const float *gmem)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (PF) {
        unsigned s = (unsigned)__cvta_generic_to_shared(smem);
        asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 4;\n" ::"r"(s), "l"(gmem));
        return;
    }
#endif
    cp_async4(smem, gmem, true);
}

template <bool PF>
__device__ __forceinline__ void steady_cp16(float *smem, const float *gmem)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (PF) {
        unsigned s = (unsigned)__cvta_generic_to_shared(smem);
        asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
        return;
    }
#endif
    cp_async16(smem, gmem, true);
}

/* The copies of a whole K-step of an interior block: a and b point at this
 * thread's first element of A and of B in that step; the others are a fixed
 * number of rows away (a_rows, b_rows elements). */
template <int BM, int BN, int BK, int NT, int LDA, int LDB, bool PF>
__device__ __forceinline__ void steady_copy_fast(float *As, float *Bs, const float *a,
                                                 const float *b, size_t a_rows, size_t b_rows)
{
    typedef pipe_copy_map<BM, BN, BK, NT> map;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int ra = (warp / map::KO) * 4 + lane / 8, ka = (warp % map::KO) * 8 + lane % 8;
    const int rb = threadIdx.x / (BN / 4), nq = (threadIdx.x % (BN / 4)) * 4;
#pragma unroll
    for (int i = 0; i < BM * BK / NT; i++)
        steady_cp4<PF>(&As[ka * LDA + ra + i * map::ROWS_APART], a + i * a_rows);
#pragma unroll
    for (int i = 0; i < BN * BK / 4 / NT; i++)
        steady_cp16<PF>(&Bs[(rb + i * map::B_ROWS_APART) * LDB + nq], b + i * b_rows);
}

/* The main loop, for K-step kt (stage rd), as pipe_*'s: issue the copies of
 * step kt+STAGES-1 into stage wr; for k < BK load the fragments of k+1
 * during the FMAs of k; at k = BK-1 wait for step kt+1 and the barrier
 * first, then load its k = 0. FAST: the interior block's copies (see the
 * top of the file); the prologue has copied steps 0..STAGES-2 and loaded
 * the fragments of k = 0 into fa[0], fb[0]. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, bool FAST, bool PF>
__device__ __forceinline__ void steady_loop(float (&acc)[(WM / 32) * 4][(WN / 16) * 4],
                                            float (&fa)[2][(WM / 32) * 4],
                                            float (&fb)[2][(WN / 16) * 4], float *smem,
                                            const float *__restrict__ A,
                                            const float *__restrict__ B, int M, int N, int K,
                                            int row0, int col0, int am, int bn, int ntiles,
                                            int kofs, bool b_vec)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    typedef pipe_copy_map<BM, BN, BK, cfg::NT> map;
    constexpr int NT = cfg::NT, LDA = cfg::LDA, LDB = cfg::LDB;
    constexpr int SUB_M = cfg::SUB_M, SUB_N = cfg::SUB_N, TM = SUB_M * 4, TN = SUB_N * 4;
    /* FAST only: the step the pointers are at, never past the last (and >= 1: whole) */
    const int p = STAGES - 1 < ntiles - 1 ? STAGES - 1 : ntiles - 1;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int ra = (warp / map::KO) * 4 + lane / 8, ka = (warp % map::KO) * 8 + lane % 8;
    const int rb = threadIdx.x / (BN / 4), nq = (threadIdx.x % (BN / 4)) * 4;
    const float *a = FAST ? A + (size_t)(row0 + ra) * K + (p * BK - kofs + ka) : A;
    const float *b = FAST ? B + (size_t)(p * BK - kofs + rb) * N + (col0 + nq) : B;
    const size_t a_rows = (size_t)map::ROWS_APART * K, b_rows = (size_t)map::B_ROWS_APART * N;
    const size_t b_step = (size_t)BK * N;

    int rd = 0, wr = STAGES - 1; /* stage being read, stage being written */
    for (int kt = 0; kt < ntiles; kt++) {
        float *stw = smem + wr * cfg::STAGE_FLOATS;
        if (FAST) {
            steady_copy_fast<BM, BN, BK, NT, LDA, LDB, PF>(stw, stw + cfg::A_FLOATS, a, b,
                                                           a_rows, b_rows);
            if (kt + STAGES < ntiles) { /* the next step to copy exists: move to it */
                a += BK;
                b += b_step;
            }
        } else if (kt + STAGES - 1 < ntiles) {
            steady_copy_checked<BM, BN, BK, NT, LDA, LDB>(stw, stw + cfg::A_FLOATS, A, B, M, N,
                                                          K, row0, col0,
                                                          (kt + STAGES - 1) * BK - kofs, b_vec);
        }
        cp_async_commit();
        const float *st = smem + rd * cfg::STAGE_FLOATS;
        rd = rd + 1 == STAGES ? 0 : rd + 1;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
        const float *st_next = smem + rd * cfg::STAGE_FLOATS;
#pragma unroll
        for (int k = 0; k < BK; k++) {
            if (k < BK - 1) {
                load_fragments<LDA, LDB, SUB_M, SUB_N>(st, st + cfg::A_FLOATS, k + 1, am, bn,
                                                       fa[(k + 1) & 1], fb[(k + 1) & 1]);
            } else {
                cp_async_wait<STAGES - 2>(); /* step kt+1 has landed (this thread's copies) */
                __syncthreads();             /* ... everyone's, and stage kt is read out */
                /* after the last step these fragments are loaded and not used */
                load_fragments<LDA, LDB, SUB_M, SUB_N>(st_next, st_next + cfg::A_FLOATS, 0, am,
                                                       bn, fa[(k + 1) & 1], fb[(k + 1) & 1]);
            }
            outer_product<TM, TN>(acc, fa[k & 1], fb[k & 1]);
        }
    }
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB, bool PF>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)
    mm_steady(int M, int N, int K, float alpha, const float *__restrict__ A,
              const float *__restrict__ B, float beta, float *__restrict__ C)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    constexpr int NT = cfg::NT, LDA = cfg::LDA, LDB = cfg::LDB;
    constexpr int SUB_M = cfg::SUB_M, SUB_N = cfg::SUB_N, TM = SUB_M * 4, TN = SUB_N * 4;
    static_assert(STAGES >= 2, "at least double buffering");
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 32 == 0 && WN % 16 == 0,
                  "block tile is whole warp tiles, warp tile is whole 4x4 sub-blocks");
    static_assert(BK % 8 == 0 && BM % 32 == 0 && BM * BK % NT == 0 && BN * BK % (4 * NT) == 0,
                  "A copies in chunks of 4 rows x 8 k, B copies in float4s; LDA % 32 == 4");
    extern __shared__ __align__(16) float smem[];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = warp / cfg::WARPS_N, wn = warp % cfg::WARPS_N;
    const int am = wm * WM + (lane / 4) * 4, bn = wn * WN + (lane % 4) * 4;
    int tile_m, tile_n;
    mm_tile_of(blockIdx.x, CEIL_DIV(M, BM), CEIL_DIV(N, BN), 1, &tile_m, &tile_n);
    const int row0 = tile_m * BM, col0 = tile_n * BN;
    const bool b_vec = (N % 4) == 0;
    const int ntiles = CEIL_DIV(K, BK), kofs = ntiles * BK - K;
    /* K > BK: the interior loop's pointers start at a whole step (>= 1) */
    const bool fast = b_vec && row0 + BM <= M && col0 + BN <= N && K > BK;
    float acc[TM][TN] = {};
    float fa[2][TM], fb[2][TN];

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ntiles) {
            float *st = smem + s * cfg::STAGE_FLOATS;
            steady_copy_checked<BM, BN, BK, NT, LDA, LDB>(st, st + cfg::A_FLOATS, A, B, M, N, K,
                                                          row0, col0, s * BK - kofs, b_vec);
        }
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    load_fragments<LDA, LDB, SUB_M, SUB_N>(smem, smem + cfg::A_FLOATS, 0, am, bn, fa[0], fb[0]);
    if (fast)
        steady_loop<BM, BN, BK, WM, WN, STAGES, true, PF>(acc, fa, fb, smem, A, B, M, N, K, row0,
                                                          col0, am, bn, ntiles, kofs, b_vec);
    else
        steady_loop<BM, BN, BK, WM, WN, STAGES, false, PF>(acc, fa, fb, smem, A, B, M, N, K, row0,
                                                           col0, am, bn, ntiles, kofs, b_vec);
    cp_async_wait<0>(); /* nothing may be in flight when the block exits */
    warp_tile_store<SUB_M, SUB_N>(C, M, N, row0 + am, col0 + bn, acc, alpha, beta, b_vec);
}
