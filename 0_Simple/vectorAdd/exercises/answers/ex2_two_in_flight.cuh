/* Exercise 2, a reference answer: two loads in flight per thread (see ../ex2_two_in_flight.cuh). */
#define EXERCISE_BASE "grid_stride_float4"

__global__ void exercise_kernel(const float *a, const float *b, float *c, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t n4 = n / 4;
    const float4 *a4 = (const float4 *)a, *b4 = (const float4 *)b;
    float4 *c4 = (float4 *)c;
    for (size_t i = tid; i < n4; i += 2 * stride) {
        bool two = i + stride < n4;  /* the second float4 of this round exists */
        float4 x = a4[i], y = b4[i], x2 = x, y2 = y;
        if (two) { x2 = a4[i + stride]; y2 = b4[i + stride]; }  /* both pairs on their way */
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        if (two) c4[i + stride] = make_float4(x2.x + y2.x, x2.y + y2.y, x2.z + y2.z, x2.w + y2.w);
    }
    for (size_t i = 4 * n4 + tid; i < n; i += stride) c[i] = a[i] + b[i];
}

static void exercise_run(void *p, cudaStream_t s)
{
    add_ctx *x = (add_ctx *)p;
    exercise_kernel<<<x->grid_stride_blocks, x->block, 0, s>>>(x->a, x->b, x->c, x->n);
    CHECK_LAUNCH();
}
