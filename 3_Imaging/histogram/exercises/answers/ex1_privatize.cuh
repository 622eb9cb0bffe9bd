/* Exercise 1, a reference answer (it is step 02, kernels/02_shared_private.cuh). */
#define EXERCISE_BASE "global_atomics"
#define EXERCISE_RUN BY_BINS(run_shared_private, hist_exercise)
#define EXERCISE_MAX_N GA_MAX_N   /* timed on 2^24 bytes at most, as global_atomics is */

template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_exercise(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    __shared__ unsigned s[BINS];   /* this block's copy of the bins */

    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) s[b] = 0;
    __syncthreads();   /* no thread counts before every counter is zero */

    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&s[bin_of<BINS>(data[i])], 1u);

    __syncthreads();   /* no thread merges before every thread has counted */
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], (u64)s[b]);
}
