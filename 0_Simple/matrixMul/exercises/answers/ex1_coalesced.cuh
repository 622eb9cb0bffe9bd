/* Exercise 1, a reference answer (exercises/README.md): the naive kernel
 * coalesced. The column comes from x and the row from y, so the 32 lanes of
 * a warp read 32 consecutive floats of B and write 32 consecutive floats of
 * C; this is the kernel of kernels/02_coalesced.cuh.
 *     make try SAMPLE=matrixMul EX=1 ANSWER=1
 */
#define EXERCISE_BASE "naive" /* the step this exercise changes: its speed is the yardstick */
#define EXERCISE_BM 32        /* the block's tile of C: 32 rows ... */
#define EXERCISE_BN 32        /* ... by 32 columns (the check runs a shape of 2x2 tiles) */

/* The launch: 32x32 threads per block, x along N, y along M. */
static dim3 exercise_block(void) { return dim3(32, 32); }
static dim3 exercise_grid(int M, int N) { return dim3(CEIL_DIV(N, 32), CEIL_DIV(M, 32)); }

__global__ void mm_exercise(int M, int N, int K, float alpha, const float *__restrict__ A,
                            const float *__restrict__ B, float beta, float *__restrict__ C)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x; /* x along the row: coalesced */
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; k++) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        size_t i = (size_t)row * N + col;
        C[i] = axpby(acc, alpha, beta, C + i);
    }
}
