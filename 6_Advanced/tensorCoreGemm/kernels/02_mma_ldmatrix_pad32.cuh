/* Step 2: mma_ldmatrix_pad32 -- the instruction underneath WMMA.
 *
 * The one change from step 1 (wmma): the fragments are loaded with ldmatrix
 * and multiplied with mma.sync.m16n8k16 in PTX, from the same padded
 * 128x128x32 tiles, loaded the same way. Knowing the fragments' register
 * layout (the PTX ISA documents it) also lets the epilogue store straight
 * from the accumulators instead of through a patch of shared memory: that is
 * the same change seen from the other end.
 * Why it should help: one ldmatrix.x4 loads four 8x8 matrices for the whole
 * warp in one instruction, and the m16n8k16 tiles let each warp keep 4 x 4
 * accumulator tiles without WMMA's copies between fragments.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 5.756 ms, 191.0 TFLOP/s, 25.20% of cuBLAS, x2.00 over step 1 (x1.98 at
 * 4096^3, x1.93 at 6000x5000x4000).
 *
 * The kernel takes its shared-memory layout as a type (00_mma_sync.cuh says
 * what it provides): steps 3 and 4 change only that. */

/* A stage stored with padded rows, as step 1 stores it: BK + 8 BF16 per row
 * of A, 128 + 8 per row of B. Rows 16 bytes longer than a multiple of 128
 * start 4 banks further on, so the 8 rows one ldmatrix phase reads land in 8
 * different groups of 4 banks. */
template <int BK_>
struct mm_padded {
    static constexpr int BK = BK_;
    static constexpr int A_ROW = (BK + 8) * 2, B_ROW = (MM_BN + 8) * 2; /* bytes */
    static constexpr int A_BYTES = MM_BM * A_ROW, B_BYTES = BK * B_ROW;
    static __device__ __forceinline__ uint32_t a_off(int r, int chunk) { return (uint32_t)(r * A_ROW + chunk * 16); }
    static __device__ __forceinline__ uint32_t b_off(int k, int chunk) { return (uint32_t)(k * B_ROW + chunk * 16); }
    static_assert(A_ROW % 16 == 0 && B_ROW % 16 == 0, "ldmatrix and 16-byte stores need 16-byte aligned rows");
};
typedef mm_padded<32> mma_ldmatrix_pad32_layout;

/* Load a stage, barrier, compute, barrier. The loads and the math take turns;
 * only other resident blocks hide the memory latency. */
template <class L, bool VEC>
__global__ void __launch_bounds__(MM_THREADS) gemm_mma_ldmatrix(const uint16_t *__restrict__ A,
                                                                const uint16_t *__restrict__ B,
                                                                float *__restrict__ C, int M,
                                                                int N, int K)
{
#if TC_SM80
    __shared__ __align__(128) uint8_t smem[L::A_BYTES + L::B_BYTES];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm_ = warp / 4, wn_ = warp % 4;
    const int m0 = blockIdx.y * MM_BM, n0 = blockIdx.x * MM_BN;
    float acc[4][4][4] = {};
    for (int k0 = 0; k0 < K; k0 += L::BK) {
        mm_load_stage<L, VEC>(smem, A, B, M, N, K, m0, n0, k0);
        __syncthreads();
        mm_compute_stage<L>(smem_u32(smem), wm_, wn_, lane, acc);
        __syncthreads();
    }
    mm_store<VEC>(C, M, N, m0, n0, wm_, wn_, lane, acc);
#endif
}
