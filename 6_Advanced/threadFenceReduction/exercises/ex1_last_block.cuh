/* Exercise 1: the last block.
 *
 * exercise_kernel below is single_pass up to the ticket: every block sums its
 * share, thread 0 publishes the block's partial in partials[blockIdx.x],
 * fences, and draws a ticket from the counter with atomicAdd (0, 1, 2, ... in
 * the order the blocks get there). What is missing is the end: as given no
 * block thinks it is the last, nobody sums the partials, and the result is
 * never written. Write it: the block that drew the last ticket sums all
 * gridDim.x partials with the whole block, writes the sum to *out, and sets
 * the counter back to 0 for the next launch. Try it without looking at
 * reduce_single_pass in threadFenceReduction.cu. Then check:
 *     make try SAMPLE=threadFenceReduction EX=1
 * What to observe: FAIL, the result still poisoned (NaN); after the fix, PASS,
 * and on a GPU the speed against single_pass (the two should then be the same
 * kernel). (exercises/README.md has hints.)
 */
#define EXERCISE_BASE "single_pass" /* the step this exercise changes: its speed is the yardstick */

template <typename In, typename A, int UNROLL>
__global__ void exercise_kernel(const In *__restrict__ in, size_t n, A *partials, unsigned int *retired, A *out)
{
    __shared__ bool am_last;  /* one flag for the whole block */
    A v = thread_sum<In, A, UNROLL>(in, n);
    v = block_sum(v);         /* the block's partial sum, in thread 0 */
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();      /* the partial is visible to every block before the ticket is */
        unsigned int ticket = atomicAdd(retired, 1u);
        am_last = false;      /* TODO: true for the block that drew the last ticket (tickets start at 0) */
        (void)ticket;
        if (am_last) __threadfence();  /* the acquire side: read the partials only after this */
    }
    __syncthreads();          /* every thread of the block now knows am_last */
    if (am_last) {
        /* TODO: sum partials[0 .. gridDim.x - 1] with every thread of the block, then
         * thread 0 writes the sum to *out and resets *retired to 0 */
    }
}
