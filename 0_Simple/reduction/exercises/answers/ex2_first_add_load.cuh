/* Exercise 2, a reference answer: the first add during the load (see ../ex2_first_add_load.cuh). */
#define EXERCISE_BASE "sum_in_register"
#define EXERCISE_ELEMENTS_PER_THREAD 2

template <typename In, typename A>
__global__ void exercise_kernel(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    A v = i < n ? (A)in[i] : (A)0;
    if (i + blockDim.x < n) v += (A)in[i + blockDim.x];  /* the second element, when there is one */
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] = v = v + s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = v;
}
