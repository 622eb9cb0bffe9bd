/* Step 1, plain: the prologue, then the body (x = x * a + b, --body times)
 * on one element per thread. Launched with <<<>>> on one stream: kernel
 * k+1 cannot start before kernel k has finished and its stores are
 * visible, so every kernel pays, one after the other, the launch, its
 * prologue and its body. */
__global__ void step_plain(unsigned int *x, int n, const unsigned int *a_tab,
                           const unsigned int *b_tab, int k, int iters, int body)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int a, b;
    step_prologue(a_tab, b_tab, k, iters, &a, &b);
    if (i < n) x[i] = step_body(x[i], a, b, body);
}
