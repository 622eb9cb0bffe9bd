/* Exercise 1, a reference answer: the bounds check (see ../ex1_bounds_check.cuh). */
#define EXERCISE_BASE "saxpy"

__global__ void exercise_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];  /* threads past the end do nothing */
}

static void exercise_launch(int n, float a, const float *x, float *y)
{
    int block = 256, grid = (n + block - 1) / block;
    exercise_kernel<<<grid, block>>>(n, a, x, y);
}
