/* 00_step.cuh: what every step's kernel shares.
 *
 * The prologue: the part of kernel k that needs nothing from kernel k-1.
 * It loads the kernel's two constants from a table the host wrote before
 * the chain started, then runs `iters` dependent steps of an LCG on b: a
 * stand-in for real setup (index arithmetic, loading weights or a lookup
 * table, zeroing shared memory). With iters = 0 it is the two loads alone.
 * pdl_prologue() in pdl_chain.c is the same arithmetic on the CPU. */
__device__ __forceinline__ void step_prologue(const unsigned int *a_tab, const unsigned int *b_tab,
                                              int k, int iters, unsigned int *a, unsigned int *b)
{
    unsigned int bk = b_tab[k];
    /* Not unrolled: unrolled, the compiler folds four LCG steps into one
     * multiply-add, and the prologue would be a quarter as long. */
#pragma unroll 1
    for (int j = 0; j < iters; j++) bk = bk * 1664525u + 1013904223u;
    *a = a_tab[k];
    *b = bk;
}

/* The body: x = x * a + b on one element, `steps` times over (1 unless
 * --body asks for more). A longer body is a kernel that works longer on
 * what it read before it stores its result: what the next kernel's
 * prologue can overlap, and the window in which a read of x made before
 * cudaGridDependencySynchronize() still sees the old value. Each step needs
 * the one before, and the loop is not unrolled, so it is as long as asked.
 * pdl_body_map() in pdl_chain.c is the same map on the CPU. */
__device__ __forceinline__ unsigned int step_body(unsigned int v, unsigned int a, unsigned int b,
                                                  int steps)
{
#pragma unroll 1
    for (int j = 0; j < steps; j++) v = v * a + b;
    return v;
}

/* Programmatic dependent launch needs compute capability 9.0 (griddepcontrol
 * in PTX). Built for an older GPU the two calls become nothing: there the
 * launch attribute has no effect, every kernel starts after the one before
 * it has finished, and nothing needs waiting for. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define cudaGridDependencySynchronize() ((void)0)
#define cudaTriggerProgrammaticLaunchCompletion() ((void)0)
#endif
