/* Exercise 2: the first add during the load (from step 04 to step 05).
 *
 * exercise_kernel below is step 04, sum_in_register, launched as step 05 is:
 * each block is given 2 blockDim elements (EXERCISE_ELEMENTS_PER_THREAD is
 * 2), so there are half as many blocks. As given, each thread loads only the
 * first of its two elements, so half the array is never summed: the check
 * FAILs. Make each thread add its second element, blockDim further, during
 * the load, when it exists. Then check it:
 *     make try SAMPLE=reduction EX=2
 * What to observe: FAIL before; after, PASS, and the speed against
 * sum_in_register: the biggest single gain of the tree steps, for one line.
 * (exercises/README.md has hints; answers/ a reference answer.)
 */
#define EXERCISE_BASE "sum_in_register" /* the step this exercise changes: its speed is the yardstick */
#define EXERCISE_ELEMENTS_PER_THREAD 2  /* a block sums 2 blockDim elements */

template <typename In, typename A>
__global__ void exercise_kernel(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    A v = i < n ? (A)in[i] : (A)0;
    /* TODO: add element i + blockDim.x too, if it exists */
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] = v = v + s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = v;
}
