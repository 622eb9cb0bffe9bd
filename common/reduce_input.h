/* reduce_input.h: the input values of the reduction samples, element by element.
 *
 * Element i is a pure function of (seed, i), usable on the host and the
 * device (RNG_HD from rng.h), so the GPU fills even an 8.6 GB input with a
 * kernel and the CPU reference regenerates the same values while it sums,
 * without ever holding the array.
 *   float   uniform in [-1, 1), 24 random bits (exact in float)
 *   double  uniform in [-1, 1), 53 random bits (exact in double)
 *   int     uniform in [-100, 100]: small, so |sum| <= 100 n fits a long long
 *           for any n this sample accepts
 * Shared by 0_Simple/reduction and 6_Advanced/threadFenceReduction.
 */
#ifndef REDUCE_INPUT_H
#define REDUCE_INPUT_H

#include <stdint.h>
#include "rng.h"

RNG_HD float red_input_f32(uint64_t seed, uint64_t i)
{
    return rng_uniform(seed, RNG_STREAM_A, i, -1.0f, 1.0f);
}

RNG_HD double red_input_f64(uint64_t seed, uint64_t i)
{
    return -1.0 + (double)(rng_hash(seed, RNG_STREAM_A, i) >> 11) * (2.0 / 9007199254740992.0);
}

RNG_HD int red_input_i32(uint64_t seed, uint64_t i)
{
    return (int)(rng_u32(seed, RNG_STREAM_A, i) % 201u) - 100;
}

#endif /* REDUCE_INPUT_H */
