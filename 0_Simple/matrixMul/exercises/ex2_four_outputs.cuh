/* Exercise 2: four outputs per thread (register blocking).
 *
 * mm_exercise below is the kernel of kernels/03_smem_tile32.cuh (32x32 tiles
 * of A and B in shared memory, two barriers per K-step), written out for
 * TILE = 32, and its launch has already been changed: a block still
 * computes a 32x32 tile of C, but with 32x8 threads instead of 32x32. As
 * given, each thread loads one element of each tile and computes one output,
 * so three quarters of the tiles are never loaded and three quarters of C
 * are never written: the check FAILs.
 * Your change: make each thread do the work of four, rows ty, ty + 8,
 * ty + 16 and ty + 24 of the tile: four elements of each tile loaded, four
 * outputs accumulated in four registers, four stored. One value of Bs then
 * feeds four FMAs. Then check it and time it against smem_tile32:
 *     make try SAMPLE=matrixMul EX=2
 * (exercises/README.md says what to observe, and has hints.)
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
    int row = row0 + ty;
    float acc = 0.f; /* TODO: four accumulators, for rows ty + 8 * i (i = 0..3) */
    for (int k0 = 0; k0 < K; k0 += 32) {
        /* TODO: rows ty + 8 * i of both tiles, not only row ty */
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.f;
        __syncthreads(); /* (1) the tiles are complete */
#pragma unroll
        for (int k = 0; k < 32; k++) acc += As[ty][k] * Bs[k][tx]; /* TODO: four rows */
        __syncthreads(); /* (2) nobody reads them any more */
    }
    if (row < M && col < N) { /* TODO: store the four rows */
        size_t i = (size_t)row * N + col;
        C[i] = axpby(acc, alpha, beta, C + i);
    }
}
