/* pdl_chain.c: the chain's constants, input and CPU reference, and the
 * sweeps (see pdl_chain.h). */
#include "pdl_chain.h"

#include "rng.h"

/* Streams of the seeded generator: the input, the multipliers, the addends. */
enum { STREAM_INPUT = RNG_STREAM_A, STREAM_MUL = 16, STREAM_ADD = 17 };

void pdl_params(uint64_t seed, int steps, uint32_t *a, uint32_t *b)
{
    for (int k = 0; k < steps; k++) {
        a[k] = rng_u32(seed, STREAM_MUL, (uint64_t)k) | 1u;   /* odd: a bijection mod 2^32 */
        b[k] = rng_u32(seed, STREAM_ADD, (uint64_t)k);
    }
}

void pdl_input(uint64_t seed, uint32_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = rng_u32(seed, STREAM_INPUT, i);
}

uint32_t pdl_prologue(uint32_t b, int iters)
{
    for (int j = 0; j < iters; j++) b = b * 1664525u + 1013904223u;
    return b;
}

void pdl_body_map(uint32_t a, uint32_t b, int steps, uint32_t *mul, uint32_t *add)
{
    /* One more round after x -> x * m + c is x -> (x * m + c) * a + b. */
    uint32_t m = 1u, c = 0u;
    for (int j = 0; j < steps; j++) {
        m *= a;
        c = c * a + b;
    }
    *mul = m;
    *add = c;
}

void pdl_chain_cpu(uint32_t *x, size_t n, const uint32_t *a, const uint32_t *b, int steps,
                   int iters, int body)
{
    /* Step by step over the whole array, the order the GPU runs it in. */
    for (int k = 0; k < steps; k++) {
        uint32_t mul, add;
        pdl_body_map(a[k], pdl_prologue(b[k], iters), body, &mul, &add);
        for (size_t i = 0; i < n; i++) x[i] = x[i] * mul + add;
    }
}

int pdl_sweep(long long kernels, int quick, int out[3])
{
    if (kernels > 0) {
        out[0] = (int)kernels;
        return 1;
    }
    out[0] = 10;
    out[1] = quick ? 50 : 100;
    if (quick) return 2;
    out[2] = 1000;
    return 3;
}

int pdl_prologues(long long iters, int out[2])
{
    if (iters >= 0) {
        out[0] = (int)iters;
        return 1;
    }
    out[0] = 0;
    out[1] = PDL_LONG_PROLOGUE;
    return 2;
}
