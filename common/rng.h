/* rng.h: seeded, reproducible random inputs, the same on the CPU and the GPU.
 *
 * Element i of an input is a pure function of (seed, stream, i), so a sample
 * can fill a 8 GB array on the device with a kernel and its CPU reference can
 * regenerate any element without copying the array back. Never seeded from
 * the clock: the same --seed gives the same inputs on every machine.
 *
 *   float x = rng_uniform(seed, RNG_STREAM_A, i, -1.0f, 1.0f);
 *   rng_fill_uniform(h_a, n, seed, RNG_STREAM_A, -1.0f, 1.0f);   // host array
 *
 * The hash is splitmix64's finalizer over a combined counter: fast, and good
 * enough for test data (not for cryptography or Monte Carlo statistics).
 */
#ifndef COMMON_RNG_H
#define COMMON_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define RNG_HD __host__ __device__ __forceinline__
#else
#define RNG_HD static inline
#endif

/* Independent streams for the different inputs of one sample. */
enum { RNG_STREAM_A = 1, RNG_STREAM_B = 2, RNG_STREAM_C = 3, RNG_STREAM_D = 4 };

RNG_HD uint64_t rng_hash(uint64_t seed, uint64_t stream, uint64_t i)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ULL + stream * 0xD1B54A32D192ED03ULL + i;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform float in [lo, hi): 24 random bits, so every value is exact. */
RNG_HD float rng_uniform(uint64_t seed, uint64_t stream, uint64_t i, float lo, float hi)
{
    float u = (float)(rng_hash(seed, stream, i) >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

/* Uniform 32-bit word. */
RNG_HD uint32_t rng_u32(uint64_t seed, uint64_t stream, uint64_t i)
{
    return (uint32_t)(rng_hash(seed, stream, i) >> 32);
}

static inline void rng_fill_uniform(float *x, size_t n, uint64_t seed, uint64_t stream,
                                    float lo, float hi)
{
    for (size_t i = 0; i < n; i++) x[i] = rng_uniform(seed, stream, i, lo, hi);
}

#endif /* COMMON_RNG_H */
