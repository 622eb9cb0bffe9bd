/* Exercise 3, a reference answer: the last warp in registers (see ../ex3_last_warp_shuffle.cuh). */
#define EXERCISE_BASE "unroll_last_warp"
#define EXERCISE_ELEMENTS_PER_THREAD 2

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
        if (blockDim.x >= 64) v += s[tid + 32];
        for (int offset = 16; offset > 0; offset >>= 1)  /* all 32 lanes take part in each shuffle */
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (tid == 0) out[blockIdx.x] = v;
    }
}
