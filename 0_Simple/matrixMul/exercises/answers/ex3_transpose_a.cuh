/* Exercise 3, a reference answer (exercises/README.md): A stored transposed
 * in shared memory. ex_store_a writes the four elements of its float4 into
 * four rows of As[k][m]; the kernel is then transposed_a
 * (kernels/08_transposed_a.cuh with PAD = 0): the values of A a thread needs
 * for one k are contiguous, and live only for that k.
 *     make try SAMPLE=matrixMul EX=3 ANSWER=1
 */
#define EXERCISE_BASE "vec_global_loads" /* the step this exercise changes: its speed is the yardstick */
#define EXERCISE_BM 128                  /* the block's tile of C: 128 rows ... */
#define EXERCISE_BN 128                  /* ... by 128 columns (the check runs a shape of 2x2 tiles) */

/* The launch: 256 threads per block, each an 8x8 block of C. */
static dim3 exercise_block(void) { return dim3(256); }
static dim3 exercise_grid(int M, int N) { return dim3(CEIL_DIV(N, 128), CEIL_DIV(M, 128)); }

/* This thread's share of the A tile (128 rows x 8 k), one float4 `a` that
 * load_a_regs (kernels/00_register_tiles.cuh) read from global memory: the 4
 * consecutive k from kq of row r of the tile, with r = threadIdx.x / 2 and
 * kq = (threadIdx.x % 2) * 4. Element c of a (a.x, a.y, a.z, a.w: c = 0..3)
 * is A(r, kq + c). */
__device__ __forceinline__ void ex_store_a(float4 a, float *As)
{
    const int r = threadIdx.x / 2, kq = (threadIdx.x % 2) * 4;
    As[(kq + 0) * 128 + r] = a.x; /* As[k][m]: four 4-byte stores into four rows */
    As[(kq + 1) * 128 + r] = a.y;
    As[(kq + 2) * 128 + r] = a.z;
    As[(kq + 3) * 128 + r] = a.w;
}

__global__ void __launch_bounds__(256)
    mm_exercise(int M, int N, int K, float alpha, const float *__restrict__ A,
                const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int BM = 128, BN = 128, BK = 8, NT = 256;
    __shared__ __align__(16) float As[BK * BM]; /* As[k][m]: the loop below reads it so */
    __shared__ __align__(16) float Bs[BK * BN]; /* Bs[k][n] */
    const int t = threadIdx.x;
    const int tcol = t % (BN / 8), trow = t / (BN / 8);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool a_vec = (K % 4) == 0, b_vec = (N % 4) == 0;
    float acc[8][8] = {};
    float4 ra[1], rb[1]; /* BM * BK / 4 / NT = 1 float4 of each per thread */
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_a_regs<BM, BK, NT>(ra, A, M, K, row0, k0, a_vec);
        load_b_regs<BN, BK, NT>(rb, B, K, N, k0, col0, b_vec);
        ex_store_a(ra[0], As);
        store_b_smem<BN, BK, NT, BN>(rb, Bs);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float4 a0 = *reinterpret_cast<const float4 *>(&As[k * BM + trow * 8]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[k * BM + trow * 8 + 4]);
            float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k * BN + tcol * 8]);
            float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k * BN + tcol * 8 + 4]);
            const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
            outer_product<8, 8>(acc, a, b);
        }
        __syncthreads();
    }
    thread_tile_store(C, M, N, row0 + trow * 8, col0 + tcol * 8, acc, alpha, beta, b_vec);
}
