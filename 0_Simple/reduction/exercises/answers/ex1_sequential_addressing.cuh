/* Exercise 1, a reference answer: sequential addressing (see ../ex1_sequential_addressing.cuh). */
#define EXERCISE_BASE "interleaved_bank_conflicts"
#define EXERCISE_ELEMENTS_PER_THREAD 1

template <typename In, typename A>
__global__ void exercise_kernel(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? (A)in[i] : (A)0;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];  /* neighbours read neighbours: no bank conflicts */
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
