/* Exercise 2, a reference answer (exercises/README.md): four outputs per
 * thread. Each of the 32x8 threads loads rows ty, ty + 8, ty + 16 and
 * ty + 24 of both tiles and accumulates those four rows of C in four
 * registers: each value of Bs read from shared memory feeds four FMAs (in
 * smem_tile32, one). The idea of the blocktile_1d steps
 * (kernels/05_blocktile_1d_32x32x32.cuh), at 4 outputs per thread.
 *     make try SAMPLE=matrixMul EX=2 ANSWER=1
 */
#define EXERCISE_BASE "smem_tile32" /* the step this exercise changes: its speed is the yardstick */
#define EXERCISE_BM 32              /* the block's tile of C: 32 rows ... */
#define EXERCISE_BN 32              /* ... by 32 columns (the check runs a shape of 2x2 tiles) */

/* The launch: a 32x32 tile of C per block, 32x8 threads (x along N). */
static dim3 exercise_block(void) { return dim3(32, 8); }
static dim3 exercise_grid(int M, int N) { return dim3(CEIL_DIV(N, 32), CEIL_DIV(M, 32)); }

__global__ void __launch_bounds__(256)
    mm_exercise(int M, int N, int K, float alpha, const float *__restrict__ A,
                const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    int tx = threadIdx.x, ty = threadIdx.y; /* ty: 0..7 */
    int row0 = blockIdx.y * 32, col = blockIdx.x * 32 + tx;
    float acc[4] = {0.f, 0.f, 0.f, 0.f}; /* rows ty + 8 * i of the tile */
    for (int k0 = 0; k0 < K; k0 += 32) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int r = ty + 8 * i;
            As[r][tx] = (row0 + r < M && k0 + tx < K) ? A[(size_t)(row0 + r) * K + k0 + tx] : 0.f;
            Bs[r][tx] = (k0 + r < K && col < N) ? B[(size_t)(k0 + r) * N + col] : 0.f;
        }
        __syncthreads(); /* (1) the tiles are complete */
#pragma unroll
        for (int k = 0; k < 32; k++) {
            float b = Bs[k][tx]; /* one shared load, four FMAs */
#pragma unroll
            for (int i = 0; i < 4; i++) acc[i] += As[ty + 8 * i][k] * b;
        }
        __syncthreads(); /* (2) nobody reads them any more */
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int row = row0 + ty + 8 * i;
        if (row < M && col < N) {
            size_t j = (size_t)row * N + col;
            C[j] = axpby(acc[i], alpha, beta, C + j);
        }
    }
}
