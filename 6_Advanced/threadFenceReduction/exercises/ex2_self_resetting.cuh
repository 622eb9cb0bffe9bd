/* Exercise 2: a counter that resets itself.
 *
 * exercise_kernel below is single_pass without the line that resets the
 * counter. The first launch is right; in the next one the tickets start where
 * the last launch left them, no block draws gridDim.x - 1, and the result is
 * never written. Do not put the store back: make the ticket itself wrap.
 * atomicInc(p, limit) returns the old value and stores old + 1, or 0 when the
 * old value was limit or more, in one atomic operation. Then check:
 *     make try SAMPLE=threadFenceReduction EX=2
 * What to observe: FAIL on the second checked launch (its result still
 * poisoned); after the fix, PASS, and on a GPU the speed against single_pass.
 * (exercises/README.md has hints.)
 */
#define EXERCISE_BASE "single_pass" /* the step this exercise changes: its speed is the yardstick */

template <typename In, typename A, int UNROLL>
__global__ void exercise_kernel(const In *__restrict__ in, size_t n, A *partials, unsigned int *retired, A *out)
{
    __shared__ bool am_last;
    A v = thread_sum<In, A, UNROLL>(in, n);
    v = block_sum(v);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();
        unsigned int ticket = atomicAdd(retired, 1u);  /* TODO: a ticket that wraps to 0 after the last */
        am_last = ticket == gridDim.x - 1;
        if (am_last) __threadfence();
    }
    __syncthreads();
    if (am_last) {
        A w = (A)0;
        for (unsigned int i = threadIdx.x; i < gridDim.x; i += blockDim.x) w += __ldcg(&partials[i]);
        w = block_sum(w);
        if (threadIdx.x == 0) *out = w;  /* the counter is never reset */
    }
}
