/* Exercise 2: a grid-stride loop.
 *
 * The launcher below starts a fixed grid of 256 blocks of 256 threads (65,536
 * threads), whatever n is: at n = 2^26+3 each thread has about a thousand
 * elements to do. As given, each thread does one, so most of y is never
 * computed. Make every thread loop: start at its own element i, then step by
 * the number of threads in the whole grid (gridDim.x * blockDim.x) while the
 * element exists. Then check it:
 *     make try SAMPLE=firstKernel EX=2
 * What to observe: FAIL names the first element left undone; after the fix,
 * PASS, and the verdict gives its speed against saxpy's one-thread-per-element
 * grid. Then try other fixed grids (64, 1024, 4096 blocks): which is fastest,
 * and why? (exercises/README.md has hints.)
 */
#define EXERCISE_BASE "saxpy" /* the step this exercise changes: its speed is the yardstick */

__global__ void exercise_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];  /* TODO: every element i, i + stride, i + 2*stride, ... */
}

static void exercise_launch(int n, float a, const float *x, float *y)
{
    exercise_kernel<<<256, 256>>>(n, a, x, y);  /* a fixed grid: fewer threads than elements */
}
