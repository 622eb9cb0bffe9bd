/* ck_work.h: the arithmetic both parts of concurrentKernels run, shared by
 * the kernels and the CPU reference (host and device, like common/rng.h).
 *
 * ck_step is a 32-bit hash step (a multiply-add, then an xor-shift): each
 * step depends on the last, and the xor-shift keeps the compiler from
 * folding a run of steps into one, so `iters` steps take `iters` times as
 * long. What the checks test is not this arithmetic (tests/test_ck_host.c
 * pins it to known values) but that every thread, block, kernel, chunk and
 * copy did its part, in the right place, and was finished when read.
 */
#ifndef CK_WORK_H
#define CK_WORK_H

#include <stdint.h>

#include "rng.h"

#ifdef __CUDACC__
#define CK_HD __host__ __device__ __forceinline__
#else
#define CK_HD static inline
#endif

CK_HD uint32_t ck_step(uint32_t x)
{
    x = x * 1664525u + 1013904223u;
    return x ^ (x >> 15);
}

/* `steps` steps from x. */
CK_HD uint32_t ck_steps(uint32_t x, int steps)
{
    for (int j = 0; j < steps; j++) x = ck_step(x);
    return x;
}

/* Where thread `tid` of kernel `kernel` starts: a seeded value of its own. */
CK_HD uint32_t ck_seed(uint64_t seed, int kernel, uint32_t tid)
{
    return rng_u32(seed, RNG_STREAM_B, ((uint64_t)(uint32_t)kernel << 32) | tid);
}

#endif /* CK_WORK_H */
