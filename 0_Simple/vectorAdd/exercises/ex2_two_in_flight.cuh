/* Exercise 2: two loads in flight per thread.
 *
 * exercise_kernel below is grid_stride_float4 unrolled by two: each round of
 * the loop handles float4 i and float4 i + stride (stride: the threads of the
 * whole grid), so each thread can have both pairs of loads on their way to
 * memory before it waits for the first. As given, the loop already steps by
 * 2 * stride, but only float4 i is done: every other sweep of the array is
 * skipped. Load the second pair before the first store, and store its sum,
 * both only when float4 i + stride exists. Then check:
 *     make try SAMPLE=vectorAdd EX=2
 * What to observe: FAIL names the first element left unwritten (the check on
 * a 3-block grid, where every thread goes round the loop, finds it); after
 * the fix, PASS, and on a GPU the speed against grid_stride_float4. Does a
 * second load in flight help a grid that already fills the GPU?
 * (exercises/README.md has hints.)
 */
#define EXERCISE_BASE "grid_stride_float4" /* the step this exercise changes: its speed is the yardstick */

__global__ void exercise_kernel(const float *a, const float *b, float *c, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;                /* threads in the grid */
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t n4 = n / 4;
    const float4 *a4 = (const float4 *)a, *b4 = (const float4 *)b;
    float4 *c4 = (float4 *)c;
    for (size_t i = tid; i < n4; i += 2 * stride) {  /* two float4s per round: i and i + stride */
        float4 x = a4[i], y = b4[i];
        /* TODO: if float4 i + stride exists, load its pair here, before the first store */
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        /* TODO: ... and store its sum here */
    }
    for (size_t i = 4 * n4 + tid; i < n; i += stride) c[i] = a[i] + b[i];  /* the n % 4 tail */
}

static void exercise_run(void *p, cudaStream_t s)
{
    add_ctx *x = (add_ctx *)p;  /* the grid of grid_stride_float4: the GPU filled once */
    exercise_kernel<<<x->grid_stride_blocks, x->block, 0, s>>>(x->a, x->b, x->c, x->n);
    CHECK_LAUNCH();
}
