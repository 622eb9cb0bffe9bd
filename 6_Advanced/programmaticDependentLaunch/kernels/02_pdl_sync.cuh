/* Step 2, pdl_sync: the one change is cudaGridDependencySynchronize()
 * between the prologue and the first read of x, and the launch with
 * cudaLaunchAttributeProgrammaticStreamSerialization = 1 (the launcher).
 * The attribute lets kernel k+1 start before kernel k has finished; the
 * call makes each thread wait, at that point, until kernel k has completed
 * and its stores are visible. Everything above the call (the prologue) may
 * run while kernel k still runs; nothing above it may read what kernel k
 * writes. Without an explicit trigger, kernel k lets its successor start
 * only as its blocks exit: the overlap is the end of kernel k (the wait for
 * its completion and the flush of its stores) against the launch of k+1. */
__global__ void step_pdl_sync(unsigned int *x, int n, const unsigned int *a_tab,
                              const unsigned int *b_tab, int k, int iters, int body)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int a, b;
    step_prologue(a_tab, b_tab, k, iters, &a, &b);
    cudaGridDependencySynchronize();
    if (i < n) x[i] = step_body(x[i], a, b, body);
}
