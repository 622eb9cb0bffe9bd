/* Exercise 1: privatize. Count into a copy of the bins in shared memory and
 * add the copy to the global histogram once per block, instead of one global
 * atomic per byte (step 01). What to do, what to look for and the command:
 * exercises/README.md. As given, the kernel counts into its copy but never
 * zeroes it and never adds it to hist: the check fails.
 *
 * The sample launches it as it launches step 02 (run_shared_private): 1024
 * threads per block, a grid that fills the GPU once, each thread looping
 * over the bytes with the grid's stride. */
#define EXERCISE_BASE "global_atomics"
#define EXERCISE_RUN BY_BINS(run_shared_private, hist_exercise)
#define EXERCISE_MAX_N GA_MAX_N   /* timed on 2^24 bytes at most, as global_atomics is */

template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_exercise(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    __shared__ unsigned s[BINS];   /* this block's copy of the bins */

    /* TODO 1: set every counter of s to 0 (the block's threads share the
     * work: thread t zeroes s[t], s[t + blockDim.x], ...), then make every
     * thread wait until all of them are zero. */

    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&s[bin_of<BINS>(data[i])], 1u);

    /* TODO 2: wait until every thread of the block has counted, then add the
     * copy to the global histogram: atomicAdd(&hist[b], (u64)s[b]) for each
     * bin b, the block's threads sharing the bins as in TODO 1. */
}
