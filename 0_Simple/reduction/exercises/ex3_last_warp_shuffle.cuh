/* Exercise 3: the last warp in registers (step 06 with warp shuffles).
 *
 * exercise_kernel below is step 06, unroll_last_warp, with its last warp's
 * shared-memory steps (warp_reduce_smem) taken out: warp 0 gathers the last
 * 64 values into 32 registers, v, and then lane 0 writes its own v alone, so
 * the other 31 lanes' values are lost and the check FAILs. Add them up where
 * the TODO is, in registers: five steps of
 *     v += __shfl_down_sync(0xffffffffu, v, offset);
 * with offset 16, 8, 4, 2, 1 (lane l receives lane l + offset's v), after
 * which lane 0 holds the warp's sum. Then check it:
 *     make try SAMPLE=reduction EX=3
 * What to observe: FAIL before; after, PASS, and the speed against
 * unroll_last_warp, whose warp used shared memory and ten __syncwarp.
 * (exercises/README.md has hints; answers/ a reference answer.)
 */
#define EXERCISE_BASE "unroll_last_warp" /* the step this exercise changes: its speed is the yardstick */
#define EXERCISE_ELEMENTS_PER_THREAD 2   /* a block sums 2 blockDim elements */

template <typename In, typename A>
__global__ void exercise_kernel(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    A v = i < n ? (A)in[i] : (A)0;
    if (i + blockDim.x < n) v += (A)in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 32; k >>= 1) {
        if (tid < k) s[tid] = v = v + s[tid + k];
        __syncthreads();
    }
    if (tid < 32) {
        v = s[tid];
        if (blockDim.x >= 64) v += s[tid + 32];  /* 64 values -> 32, one per lane */
        /* TODO: sum v over the warp's 32 lanes with __shfl_down_sync */
        if (tid == 0) out[blockIdx.x] = v;
    }
}
