/* Exercise 1, a reference answer: 16-byte loads and their tail (see ../ex1_vector_tail.cuh). */
#define EXERCISE_BASE "naive"

__global__ void exercise_kernel(const float *a, const float *b, float *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t n4 = n / 4;
    if (i < n4) {
        float4 x = ((const float4 *)a)[i], y = ((const float4 *)b)[i];
        ((float4 *)c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    } else if (i == n4) {
        for (size_t j = 4 * n4; j < n; j++) c[j] = a[j] + b[j];  /* at most 3 elements */
    }
}

static void exercise_run(void *p, cudaStream_t s)
{
    add_ctx *x = (add_ctx *)p;
    size_t threads = (x->n + 3) / 4;
    size_t blocks = (threads + x->block - 1) / x->block;
    exercise_kernel<<<(unsigned)blocks, x->block, 0, s>>>(x->a, x->b, x->c, x->n);
    CHECK_LAUNCH();
}
