/* reduce_input.h: the input values of the reduction samples, element by element.
 *
 * Element i is a pure function of (seed, i), usable on the host and the
 * device (RNG_HD from rng.h), so the GPU fills even an 8.6 GB input with a
 * kernel and the CPU reference regenerates the same values while it sums,
 * without ever holding the array.
 *
 * Every type gets small NONZERO INTEGERS, symmetric around 0 (uniform over
 * -K..-1 and 1..K), stored in the element type:
 *   float   K = 16      (RED_K_F32)
 *   double  K = 2^18    (RED_K_F64)
 *   int     K = 100     (RED_K_I32)
 * Why integers: the sum of integers is exact in float as long as every
 * partial sum stays within 2^24, so every correct summation order gives the
 * same, exact result and the check can demand equality: one lost element (it
 * is never 0), one lost block (its values cancel exactly only by chance,
 * about 1 / (sigma sqrt(2 pi m)) for m values), a truncated n or a zero
 * result all fail. With real-valued inputs the rounding of a float sum of
 * 2^28 values is far larger than one element, so no tolerance could accept
 * every correct order and still see a lost element (reduce_ref.h).
 * Why the bounds:
 *   float: a partial sum of any m of the values (the GPU sums index sets
 *     chosen without looking at the values: strided slices, tiles, trees)
 *     exceeds 2^24 with probability below 2 exp(-2^49 / (m (2K)^2))
 *     (Hoeffding): 2 e^-256 for m <= 2^31 + 1, 2 e^-32 for m <= 2^34, the
 *     largest --n. In sequential order the largest partial sum of the 2^31+1
 *     values of the default seed is checked in the unit tests.
 *   double: |any partial sum| <= K n <= 2^18 * 2^34 = 2^52 < 2^53: exact for
 *     every n the samples accept, in any order, with certainty.
 *   int: accumulated in long long: |sum| <= 100 n < 2^41, exact.
 * Shared by 0_Simple/reduction and 6_Advanced/threadFenceReduction.
 */
#ifndef REDUCE_INPUT_H
#define REDUCE_INPUT_H

#include <stdint.h>
#include "rng.h"

#define RED_K_F32 16
#define RED_K_F64 (1 << 18)
#define RED_K_I32 100

/* A nonzero integer uniform over -k..-1, 1..k (k <= 2^30) from hash h. */
RNG_HD int red_nonzero_int(uint64_t h, int k)
{
    int m = (int)((h >> 32) % (uint64_t)(2 * k));   /* 0 .. 2k-1 */
    return m < k ? m - k : m - k + 1;
}

RNG_HD float red_input_f32(uint64_t seed, uint64_t i)
{
    return (float)red_nonzero_int(rng_hash(seed, RNG_STREAM_A, i), RED_K_F32);
}

RNG_HD double red_input_f64(uint64_t seed, uint64_t i)
{
    return (double)red_nonzero_int(rng_hash(seed, RNG_STREAM_A, i), RED_K_F64);
}

RNG_HD int red_input_i32(uint64_t seed, uint64_t i)
{
    return red_nonzero_int(rng_hash(seed, RNG_STREAM_A, i), RED_K_I32);
}

/* The same element as an integer, whatever the type (the CPU reference sums
 * these exactly in 64-bit integers). */
RNG_HD long long red_input_exact(int type_k, uint64_t seed, uint64_t i)
{
    return (long long)red_nonzero_int(rng_hash(seed, RNG_STREAM_A, i), type_k);
}

#endif /* REDUCE_INPUT_H */
