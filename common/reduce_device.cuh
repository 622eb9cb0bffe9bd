/* reduce_device.cuh: device building blocks shared by 0_Simple/reduction and
 * 6_Advanced/threadFenceReduction: accumulator and 16-byte vector types, the
 * input-filling kernel, the warp and block sums, and the grid-stride
 * per-thread sum that the fast variants of both samples are built on, and the
 * host helpers both launchers use (occupancy, the CUB reference).
 */
#ifndef REDUCE_DEVICE_CUH
#define REDUCE_DEVICE_CUH

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>

#include "cuda_check.h"
#include "reduce_input.h"
#include "reduce_ref.h"

/* The accumulator of each input type: float and double sum in their own type
 * (as CUB does), int sums in long long, so the result is exact for any n. */
template <typename T> struct acc_of;
template <> struct acc_of<float> { typedef float type; };
template <> struct acc_of<double> { typedef double type; };
template <> struct acc_of<int> { typedef long long type; };
template <> struct acc_of<long long> { typedef long long type; };

/* A 16-byte vector of each type: one load instruction moves 16 bytes per
 * thread, 512 contiguous bytes per warp. */
template <typename T> struct vec16;
template <> struct vec16<float> { typedef float4 type; enum { N = 4 }; };
template <> struct vec16<double> { typedef double2 type; enum { N = 2 }; };
template <> struct vec16<int> { typedef int4 type; enum { N = 4 }; };
template <> struct vec16<long long> { typedef longlong2 type; enum { N = 2 }; };

template <typename A> __device__ __forceinline__ A vsum(float4 v) { return (A)((v.x + v.y) + (v.z + v.w)); }
template <typename A> __device__ __forceinline__ A vsum(double2 v) { return (A)(v.x + v.y); }
template <typename A> __device__ __forceinline__ A vsum(int4 v) { return (A)v.x + (A)v.y + (A)v.z + (A)v.w; }
template <typename A> __device__ __forceinline__ A vsum(longlong2 v) { return (A)(v.x + v.y); }

__device__ __forceinline__ void red_input_store(float *x, uint64_t seed, size_t i) { x[i] = red_input_f32(seed, i); }
__device__ __forceinline__ void red_input_store(double *x, uint64_t seed, size_t i) { x[i] = red_input_f64(seed, i); }
__device__ __forceinline__ void red_input_store(int *x, uint64_t seed, size_t i) { x[i] = red_input_i32(seed, i); }

/* x[i] = input element i, generated on the device (no host copy of 8 GB). */
template <typename T>
__global__ void fill_input(T *x, size_t n, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        red_input_store(x, seed, i);
}

/* Fill d[0..n) with the inputs of `seed`, a grid of 8 blocks per SM. */
template <typename T>
static void red_fill_device(T *d, size_t n, uint64_t seed, int sm_count)
{
    fill_input<T><<<sm_count * 8, 256>>>(d, n, seed);
    CHECK_LAUNCH();
}

/* Sum over the 32 lanes of a warp with register shuffles: no shared memory,
 * no barrier. The result is valid in lane 0. */
template <typename A>
__device__ __forceinline__ A warp_sum(A v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/* Sum over the block (blockDim.x a multiple of 32, at most 1024): each warp
 * shuffles down to one value, lane 0 of each warp stores it, one barrier, and
 * warp 0 shuffles the (at most 32) warp sums. Valid in thread 0. Every thread
 * of the block must call it (it contains __syncthreads). Callable twice in a
 * row only with a __syncthreads between the calls (warp_part is reused). */
template <typename A>
__device__ __forceinline__ A block_sum(A v)
{
    __shared__ A warp_part[32];
    const unsigned lane = threadIdx.x & 31u, wid = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) warp_part[wid] = v;
    __syncthreads();
    A r = (A)0;
    if (wid == 0) {
        r = lane < (blockDim.x >> 5) ? warp_part[lane] : (A)0;
        r = warp_sum(r);
    }
    return r;
}

/* This thread's share of in[0..n): a grid-stride loop over 16-byte vectors
 * with UNROLL independent loads issued before any add (UNROLL x 16 bytes in
 * flight per thread, which is what keeps HBM busy), then the last n % N
 * scalars by the first threads of the grid. `in` must be 16-byte aligned
 * (cudaMalloc gives 256). 64-bit indices: n may exceed 2^32. */
template <typename In, typename A, int UNROLL>
__device__ __forceinline__ A thread_sum(const In *__restrict__ in, size_t n)
{
    typedef typename vec16<In>::type V;
    const int N = vec16<In>::N;
    const V *__restrict__ v = (const V *)in;
    const size_t nv = n / N;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    A acc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) acc[u] = (A)0;
    size_t i = tid;
    for (; i + (size_t)(UNROLL - 1) * stride < nv; i += (size_t)UNROLL * stride) {
        V x[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) x[u] = v[i + (size_t)u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) acc[u] += vsum<A>(x[u]);
    }
    for (; i < nv; i += stride) acc[0] += vsum<A>(v[i]);
    if (tid < n - nv * N) acc[0] += (A)in[nv * N + tid];
#pragma unroll
    for (int u = 1; u < UNROLL; u++) acc[0] += acc[u];
    return acc[0];
}

/* ---- host helpers shared by the launchers ------------------------------ */

/* Most blocks the device can hold at once (blocks per SM x SMs): the most
 * partial sums a pass-1 grid that "fills the GPU once" can write, so the
 * size of the partial-sum buffer of the grid-stride variants. */
static inline size_t red_max_resident_blocks(int device, int sm_count)
{
    int per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device));
    return (size_t)(per_sm > 0 ? per_sm : 32) * (size_t)(sm_count > 0 ? sm_count : 1);
}

/* The size guard of every pass that writes partial sums: a launch that would
 * write more of them than the buffer holds stops the program before it
 * writes past the end (a FAIL, not memory corruption). */
static inline void red_partials_fit(const char *sample, size_t blocks, size_t capacity)
{
    if (blocks <= capacity) return;
    fprintf(stderr, "%s: internal error: a pass of %zu blocks would write %zu partial sums into "
                    "a buffer of %zu\n", sample, blocks, blocks, capacity);
    printf("%s: FAIL (partial-sum buffer too small)\n", sample);
    exit(1);
}

/* Resident blocks per SM of `kernel` at `block` threads (at least 1), asked
 * once per block size: *cache_block and *cache remember the last answer. */
template <typename K>
static int red_resident_per_sm(K kernel, int block, int *cache_block, int *cache)
{
    if (*cache_block != block) {
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(cache, kernel, block, 0));
        if (*cache < 1) *cache = 1;
        *cache_block = block;
    }
    return *cache;
}

/* The reference of both samples: cub::DeviceReduce::Sum of n elements of T
 * into one accumulator, with temporary storage the caller allocated once
 * (outside the timing) from red_cub_temp_bytes. */
template <typename T>
static void red_cub_sum(void *temp, size_t bytes, const void *in, void *out, size_t n,
                        cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, (const T *)in, (A *)out, (int64_t)n, s));
}

template <typename T>
static size_t red_cub_temp_bytes_of(size_t n)
{
    typedef typename acc_of<T>::type A;
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(NULL, bytes, (const T *)NULL, (A *)NULL, (int64_t)n));
    return bytes;
}

static inline size_t red_cub_temp_bytes(red_type t, size_t n)
{
    return t == RED_FLOAT ? red_cub_temp_bytes_of<float>(n)
         : t == RED_DOUBLE ? red_cub_temp_bytes_of<double>(n)
                           : red_cub_temp_bytes_of<int>(n);
}

#endif /* REDUCE_DEVICE_CUH */
