/* Step 1: wmma -- the tensor cores through nvcuda::wmma fragments.
 *
 * The change from the step before (matrixMul's FP32 kernels): the inner
 * product is done by the tensor cores, 16x16x16 at a time on BF16 inputs with
 * FP32 accumulation, instead of one FMA per thread per k.
 * Why it should help: one warp-wide mma does 4096 multiply-adds, and the
 * H200's dense BF16 tensor-core peak (132 SMs x 4096 flops a clock, 1070
 * TFLOP/s at 1980 MHz) is 16 times its FP32 peak (66.9 TFLOP/s).
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3): 11.51 ms,
 * 95.5 TFLOP/s, 12.61% of cuBLAS; 2.1 times matrixMul's best FP32 kernel
 * (46367 GFLOP/s at 4096^3, results/H200/history/cd59140/matrixMul.txt, commit cd59140), though
 * this 8192^3 run was held by the power cap to a median 1688 MHz and matrixMul's
 * ran at 1980; far from what the tensor cores can do: the loads and the math
 * take turns.
 *
 * 128x128 block tile, 8 warps in 2 x 4, each warp 64x32 = 4 x 2 fragments of
 * 16x16. Tiles of A (128 x 32) and B (32 x 128) are staged in shared memory,
 * rows padded by 8 BF16 (16 bytes) so that the fragment loads of consecutive
 * rows start in different banks. The fragments' register layout is the
 * compiler's business: wmma::load_matrix_sync and mma_sync hide it, which is
 * also why the next step drops them. The epilogue goes through a 16x16 patch
 * of shared memory per warp so that the stores can be bounds-checked. */
enum { WM_BM = 128, WM_BN = 128, WM_BK = 32 };
enum { WM_LDA = WM_BK + 8, WM_LDB = WM_BN + 8 }; /* padded row lengths (elements) */

template <bool VEC>
__global__ void __launch_bounds__(256, 1) gemm_wmma(const uint16_t *__restrict__ A,
                                                 const uint16_t *__restrict__ B,
                                                 float *__restrict__ C, int M, int N, int K)
{
#if TC_SM80
    namespace wm = nvcuda::wmma;
    __shared__ __align__(128) uint16_t As[WM_BM * WM_LDA];
    __shared__ __align__(128) uint16_t Bs[WM_BK * WM_LDB];
    __shared__ __align__(128) float Cs[8][16 * 16];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm_ = warp / 4, wn_ = warp % 4;
    const int m0 = blockIdx.y * WM_BM, n0 = blockIdx.x * WM_BN;

    wm::fragment<wm::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) wm::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += WM_BK) {
#pragma unroll
        for (int i = 0; i < 2; i++) { /* A: 128 rows x 4 chunks of 8 */
            int idx = tid + i * 256, r = idx / 4, c = idx % 4;
            *(uint4 *)&As[r * WM_LDA + c * 8] = load_chunk<VEC>(A, M, K, m0 + r, k0 + c * 8);
        }
#pragma unroll
        for (int i = 0; i < 2; i++) { /* B: 32 rows x 16 chunks of 8 */
            int idx = tid + i * 256, r = idx / 16, c = idx % 16;
            *(uint4 *)&Bs[r * WM_LDB + c * 8] = load_chunk<VEC>(B, K, N, k0 + r, n0 + c * 8);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < WM_BK; kk += 16) {
            wm::fragment<wm::matrix_a, 16, 16, 16, __nv_bfloat16, wm::row_major> af[4];
            wm::fragment<wm::matrix_b, 16, 16, 16, __nv_bfloat16, wm::row_major> bf[2];
#pragma unroll
            for (int i = 0; i < 4; i++)
                wm::load_matrix_sync(af[i], (const __nv_bfloat16 *)&As[(wm_ * 64 + i * 16) * WM_LDA + kk],
                                     WM_LDA);
#pragma unroll
            for (int j = 0; j < 2; j++)
                wm::load_matrix_sync(bf[j], (const __nv_bfloat16 *)&Bs[kk * WM_LDB + wn_ * 32 + j * 16],
                                     WM_LDB);
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 2; j++) wm::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
        }
        __syncthreads(); /* the next step's loads overwrite As and Bs */
    }

    float *cs = Cs[warp];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            wm::store_matrix_sync(cs, acc[i][j], 16, wm::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                int row = m0 + wm_ * 64 + i * 16 + e / 16, col = n0 + wn_ * 32 + j * 16 + e % 16;
                if (row < M && col < N) C[(size_t)row * N + col] = cs[e];
            }
            __syncwarp(); /* the patch is rewritten by the next fragment */
        }
#endif
}
