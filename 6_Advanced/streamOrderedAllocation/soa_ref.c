/* soa_ref.c: the input and the CPU reference of streamOrderedAllocation (see soa_ref.h). */
#include "soa_ref.h"

#include "rng.h"

void soa_input(uint64_t seed, uint32_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++) in[i] = rng_u32(seed, RNG_STREAM_A, i);
}

void soa_expected(const uint32_t *in, uint32_t *acc, size_t n, int iters)
{
    /* acc = in * A + B: run the recurrence acc = 3 acc + (in (t+1) + t) on
     * the two coefficients instead of on every element. */
    uint32_t A = 0, B = 0;
    for (int t = 0; t < iters; t++) {
        A = 3u * A + (uint32_t)(t + 1);
        B = 3u * B + (uint32_t)t;
    }
    for (size_t i = 0; i < n; i++) acc[i] = in[i] * A + B;
}

void soa_loop_ref(const uint32_t *in, uint32_t *acc, size_t n, int iters)
{
    for (size_t i = 0; i < n; i++) acc[i] = 0;
    for (int t = 0; t < iters; t++)
        for (size_t i = 0; i < n; i++) acc[i] = 3u * acc[i] + (in[i] * (uint32_t)(t + 1) + (uint32_t)t);
}

double soa_mib(unsigned long long bytes)
{
    return (double)bytes / 1048576.0;
}
