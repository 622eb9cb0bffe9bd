/* Exercise 1: coalesce the naive kernel.
 *
 * mm_exercise below is the kernel of kernels/01_naive.cuh, and its launch has
 * already been turned around: the grid's x now runs along the columns of C
 * (N) and its y along the rows (M), as the coalesced step's launcher does.
 * The kernel still takes its row from x, so as given it computes the wrong
 * elements and leaves some of C unwritten: the check FAILs.
 * Your change: take the column from x and the row from y (two lines), so
 * that the 32 lanes of a warp read 32 consecutive floats of B and write 32
 * consecutive floats of C. Then check it and time it against naive:
 *     make try SAMPLE=matrixMul EX=1
 * (exercises/README.md says what to observe, and has hints.)
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
    int row = blockIdx.x * blockDim.x + threadIdx.x; /* TODO: the column comes from x */
    int col = blockIdx.y * blockDim.y + threadIdx.y; /* TODO: the row from y */
    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; k++) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        size_t i = (size_t)row * N + col;
        C[i] = axpby(acc, alpha, beta, C + i);
    }
}
