/* Exercise 1: sequential addressing (from step 02 to step 03).
 *
 * exercise_kernel below is step 02, interleaved_bank_conflicts, half turned
 * into step 03: its loop already runs s = blockDim/2, ..., 4, 2, 1, but its
 * body still uses step 02's interleaved index, 2 s tid, which only works
 * when s grows. In this order most elements are never added: the check
 * FAILs. Change the two lines marked TODO so that in step s, each thread
 * tid < s adds element tid + s to element tid, then check it:
 *     make try SAMPLE=reduction EX=1
 * What to observe: FAIL (the sum, and how far off) before; after, PASS, and
 * the speed against interleaved_bank_conflicts. (exercises/README.md has
 * hints; answers/ a reference answer.)
 */
#define EXERCISE_BASE "interleaved_bank_conflicts" /* the step this exercise changes: its speed is the yardstick */
#define EXERCISE_ELEMENTS_PER_THREAD 1             /* a block sums blockDim elements */

template <typename In, typename A>
__global__ void exercise_kernel(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? (A)in[i] : (A)0;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        unsigned index = 2 * k * tid;                      /* TODO: sequential addressing */
        if (index < blockDim.x) s[index] += s[index + k];  /* TODO */
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
