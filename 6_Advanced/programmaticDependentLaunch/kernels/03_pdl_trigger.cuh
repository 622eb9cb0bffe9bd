/* Step 3, pdl_trigger: the one change is cudaTriggerProgrammaticLaunchCompletion()
 * as the first thing every block does. Once every block of kernel k has
 * called it, kernel k+1 may be launched: its blocks run their prologue while
 * kernel k runs its own prologue and body, then wait in
 * cudaGridDependencySynchronize() for kernel k to complete. The trigger is
 * only permission to start; it makes no store visible (the wait does that,
 * for all of kernel k's stores, made before or after the trigger), so it
 * may come before kernel k has written anything. */
__global__ void step_pdl_trigger(unsigned int *x, int n, const unsigned int *a_tab,
                                 const unsigned int *b_tab, int k, int iters, int body)
{
    cudaTriggerProgrammaticLaunchCompletion();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int a, b;
    step_prologue(a_tab, b_tab, k, iters, &a, &b);
    cudaGridDependencySynchronize();
    if (i < n) x[i] = step_body(x[i], a, b, body);
}
