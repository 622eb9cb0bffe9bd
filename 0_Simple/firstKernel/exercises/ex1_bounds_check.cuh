/* Exercise 1: the bounds check.
 *
 * exercise_kernel below is saxpy without its bounds check. The launcher rounds
 * the grid up, so the last block has threads past the end of the arrays: each
 * of them writes y[i] for an i >= n, where nobody may write. Make the kernel
 * correct by changing one line, then check it:
 *     make try SAMPLE=firstKernel EX=1
 * What to observe: FAIL names the first element written past the end; after
 * the fix, PASS, at the speed of saxpy. (exercises/README.md has hints.)
 */
#define EXERCISE_BASE "saxpy" /* the step this exercise changes: its speed is the yardstick */

__global__ void exercise_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = a * x[i] + y[i];  /* TODO: only for the elements that exist */
}

static void exercise_launch(int n, float a, const float *x, float *y)
{
    int block = 256, grid = (n + block - 1) / block;
    exercise_kernel<<<grid, block>>>(n, a, x, y);
}
