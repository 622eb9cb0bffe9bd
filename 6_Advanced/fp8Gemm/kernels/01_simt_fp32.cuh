/* Step 1: simt_fp32 -- the plain reference kernel: FP8 decoded to FP32 in
 * shared memory, FP32 multiply-adds on the CUDA cores.
 *
 * No tensor cores: a block computes a 64 x 64 tile of D, 256 threads of 4 x 4
 * outputs each. Each step over K copies a 64 x 32 slab of A and of B (one
 * byte per element, any alignment, zeros past M, N or K) into shared memory,
 * decoding e4m3 to float on the way; each thread then does 4 x 4 x 32 FMAs
 * from there. Rows are padded to 33 floats so that the 16 threads reading
 * B's rows [tx + 16 j] at one k hit 16 different banks.
 * Why it is here: it runs on any GPU and any shape (K need not be a multiple
 * of 16), and every product of two e4m3 values is exact in FP32, so with
 * small-integer inputs it is exact: the first thing to trust.
 * Measured: 67.16 ms at 8192^3 on the H200, 16371 GFLOP/s, 1.041% of cuBLASLt
 * FP8 in the same round robin (results/H200/fp8Gemm.txt, commit 13f861f). Its
 * errors equal cuBLASLt's with FP32 accumulation (err_z 1.716). */
#define S1_BM 64
#define S1_BN 64
#define S1_BK 32

__global__ void __launch_bounds__(256) gemm_simt_fp32(const uint8_t *__restrict__ A,
                                                      const uint8_t *__restrict__ B,
                                                      __nv_bfloat16 *__restrict__ D, int M, int N,
                                                      int K, const float *__restrict__ scale_a,
                                                      const float *__restrict__ scale_b)
{
    __shared__ float As[S1_BM][S1_BK + 1], Bs[S1_BN][S1_BK + 1];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * S1_BM, n0 = blockIdx.x * S1_BN;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += S1_BK) {
        /* 64 x 32 bytes of each: 8 per thread, a warp reading one row's 32 bytes */
#pragma unroll
        for (int r = 0; r < 8; r++) {
            const int e = tid + 256 * r, row = e / S1_BK, k = e % S1_BK;
            const int gk = k0 + k, ga = m0 + row, gb = n0 + row;
            As[row][k] = (ga < M && gk < K) ? fp8_e4m3_to_float(A[(size_t)ga * K + gk]) : 0.0f;
            Bs[row][k] = (gb < N && gk < K) ? fp8_e4m3_to_float(B[(size_t)gb * K + gk]) : 0.0f;
        }
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < S1_BK; k++) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++) a[i] = As[ty + 16 * i][k];
#pragma unroll
            for (int j = 0; j < 4; j++) b[j] = Bs[tx + 16 * j][k];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    const float scale = *scale_a * *scale_b;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int row = m0 + ty + 16 * i, col = n0 + tx + 16 * j;
            if (row < M && col < N) D[(size_t)row * N + col] = __float2bfloat16_rn(acc[i][j] * scale);
        }
}
