/* Exercise 1: 16-byte loads, and the tail they leave.
 *
 * exercise_kernel below is the naive kernel with one change: each thread adds
 * four neighbouring elements with one float4 (16-byte) load from a, one from
 * b and one float4 store to c, so a warp moves 512 contiguous bytes per
 * instruction instead of 128. But n need not be a multiple of 4: the last
 * n % 4 elements (c[4*n4] .. c[n-1]) are nobody's, and the check finds them
 * unwritten. The launcher already starts one thread more than there are whole
 * float4s whenever n % 4 != 0. Give those elements to that thread, then check:
 *     make try SAMPLE=vectorAdd EX=1
 * What to observe: FAIL names the first element left unwritten (at n = 1 it
 * is c[0]); after the fix, PASS, and on a GPU the speed against naive, the
 * step it changes: what 16-byte loads alone are worth here.
 * (exercises/README.md has hints.)
 */
#define EXERCISE_BASE "naive" /* the step this exercise changes: its speed is the yardstick */

__global__ void exercise_kernel(const float *a, const float *b, float *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;  /* which float4 is mine */
    size_t n4 = n / 4;                                           /* whole float4s in n */
    if (i < n4) {
        float4 x = ((const float4 *)a)[i], y = ((const float4 *)b)[i];
        ((float4 *)c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    /* TODO: thread n4 adds the last n % 4 elements, c[4 * n4] .. c[n - 1], one by one */
}

static void exercise_run(void *p, cudaStream_t s)
{
    add_ctx *x = (add_ctx *)p;
    size_t threads = (x->n + 3) / 4;  /* whole float4s, plus one thread for the tail */
    size_t blocks = (threads + x->block - 1) / x->block;
    exercise_kernel<<<(unsigned)blocks, x->block, 0, s>>>(x->a, x->b, x->c, x->n);
    CHECK_LAUNCH();
}
