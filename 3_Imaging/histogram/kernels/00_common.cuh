/* kernels/00_common.cuh: what the kernels of every step share: their block
 * sizes, the bin of a byte and the sum over a warp. The steps follow in
 * kernels/01_*.cuh .. 16_*.cuh, in teaching order; histogram.cu includes
 * them all and keeps the launchers, the variant table, the checks and the
 * timing. */
#ifndef HIST_KERNELS_COMMON_CUH
#define HIST_KERNELS_COMMON_CUH

typedef unsigned long long u64;   /* the global histogram's counters: 64-bit */

#define ATOMIC_THREADS 256   /* block of global_atomics */
/* Block of every privatized kernel: 32 warps. Their __launch_bounds__ ask for
 * two blocks per SM (32 registers per thread), which fits where an SM holds
 * 2048 threads (sm_80, sm_90, sm_100); ptxas ignores the hint, with a
 * warning, where it holds fewer. */
#define PRIV_THREADS 1024

/* Byte v in bin v * BINS / 256: the byte itself for 256 bins, its top six
 * bits for 64. */
template <int BINS>
__device__ __forceinline__ unsigned bin_of(unsigned byte)
{
    static_assert(BINS == 256 || BINS == 64, "bins: 256 or 64");
    return BINS == 256 ? byte : byte >> 2;
}

/* The sum over the 32 lanes of a warp, in every lane: one REDUX instruction
 * on sm_80 and later, five shuffles before (sm_75). */
__device__ __forceinline__ unsigned warp_sum(unsigned v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xFFFFFFFFu, v);
#else
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
    return v;
#endif
}

#endif /* HIST_KERNELS_COMMON_CUH */
