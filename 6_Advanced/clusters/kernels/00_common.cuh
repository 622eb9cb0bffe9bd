/* 00_common.cuh: what every step uses: the block size, and the loop that
 * hands each thread its samples, 8 at a time (one 16-byte load), then the
 * n % 8 left at the end one by one. */
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define ATOMIC_THREADS 256   /* step 01: one thread per sample */
#define CL_THREADS 1024      /* steps 02 to 06: a block of 32 warps, latency hidden by many loads in flight */

/* Call count(v) for every sample of data[0..n) that this thread owns in a
 * grid-stride loop over 16-byte vectors, thread t of the whole grid taking
 * vectors t, t + stride, ...; then the tail. data comes from cudaMalloc
 * (256-byte aligned), so the uint4 loads are aligned. */
template <typename F>
__device__ __forceinline__ void for_each_sample(const uint16_t *data, size_t n, F count)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t nvec = n / 8;
    const uint4 *v = (const uint4 *)data;
    for (size_t i = gtid; i < nvec; i += stride) {
        const uint4 w = __ldg(v + i);
        count(w.x & 0xFFFFu); count(w.x >> 16);
        count(w.y & 0xFFFFu); count(w.y >> 16);
        count(w.z & 0xFFFFu); count(w.z >> 16);
        count(w.w & 0xFFFFu); count(w.w >> 16);
    }
    for (size_t i = 8 * nvec + gtid; i < n; i += stride) count((unsigned)data[i]);
}

/* Sample i = cl_input_value(kind, seed, i), written by the device. */
__global__ void fill_input(uint16_t *d, size_t n, int kind, uint64_t seed)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        d[i] = (uint16_t)cl_input_value(kind, seed, i);
}
