/* fill.cuh: device code the judge and the harness share, so both fill the
 * same inputs bit for bit from a seed (one kernel, one compiler: the same
 * fused multiply-adds) and pick the same sampled output elements.
 * Included by judge.cu and sandboxed/harness.cu. */
#ifndef KGATE_FILL_CUH
#define KGATE_FILL_CUH

#include <stdint.h>

#include "proto.h"
#include "rng.h"

/* Uniform floats in [lo, hi); for blur, the padding after `width` in each
 * pitched row holds 1e4 (a kernel that reads it gets a visibly wrong mean). */
__global__ void kg_fill_uniform(float *p, size_t n, unsigned long long seed, int stream, float lo,
                                float hi, long long width, long long pitch)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int pad = pitch > 0 && (long long)(i % (size_t)pitch) >= width;
        p[i] = pad ? 1.0e4f : rng_uniform(seed, stream, i, lo, hi);
    }
}

/* Four bytes a thread at a time where p starts at a multiple of 4 (the same
 * bytes as one at a time: each from its own index). */
__global__ void kg_fill_bytes(unsigned char *p, size_t n, unsigned long long seed)
{
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    size_t n4 = (uintptr_t)p % 4 == 0 ? n / 4 : 0;
    for (size_t w = tid; w < n4; w += stride) {
        uint32_t v = 0;
        for (int k = 0; k < 4; k++) v |= (rng_u32(seed, RNG_STREAM_A, 4 * w + k) >> 24) << (8 * k);
        ((uint32_t *)p)[w] = v;
    }
    for (size_t i = 4 * n4 + tid; i < n; i += stride) p[i] = (unsigned char)(rng_u32(seed, RNG_STREAM_A, i) >> 24);
}

/* Spin about `ns` nanoseconds of the global timer, one thread. */
__global__ void kg_delay(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

/* kg_sample_index on the device (proto.c has the host copy). */
__device__ __forceinline__ size_t kg_sample_index_dev(uint64_t seed, uint32_t i, size_t n_out)
{
    uint64_t r = ((uint64_t)rng_u32(seed, RNG_STREAM_C, i) << 32) | rng_u32(seed, RNG_STREAM_D, i);
    return (size_t)(r % n_out);
}

/* 32-bit words of the output at the sampled indices. */
__global__ void kg_gather_sample(const uint32_t *out, size_t n_out, uint64_t seed, uint32_t n,
                                 uint32_t *dst)
{
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
        dst[k] = out[kg_sample_index_dev(seed, k, n_out)];
}

/* Fill the input pools of a task for a mid/large shape (n0, n1: pool sizes). */
static inline void kg_fill_pools(const kg_task *t, kg_shape s, void *p0, size_t n0, void *p1,
                                 size_t n1, unsigned long long seed, int blocks, cudaStream_t st)
{
    if (t->sig == KG_SIG_HIST) {
        kg_fill_bytes<<<blocks, 256, 0, st>>>((unsigned char *)p0, n0, seed);
    } else {
        long long w = t->sig == KG_SIG_BLUR ? s.d[0] : 0, p = t->sig == KG_SIG_BLUR ? s.d[2] : 0;
        kg_fill_uniform<<<blocks, 256, 0, st>>>((float *)p0, n0, seed, RNG_STREAM_A, t->lo, t->hi, w, p);
        if (p1)
            kg_fill_uniform<<<blocks, 256, 0, st>>>((float *)p1, n1, seed, RNG_STREAM_B, t->lo, t->hi, 0, 0);
    }
}

#endif
