/* scan_cpu.h: scan's host-only code, compiled by gcc and unit-tested on the
 * CPU (tests/test_scan_cpu.c): the inputs, the CPU baseline, and the checks
 * that compare a GPU's prefix sums with a reference computed as they stream
 * by (64-bit integers for int32, double for float32).
 *
 * The inputs are pure functions of (seed, i), the same on the host and on
 * the device (rng.h), so every checked size is a prefix of one array. */
#ifndef SCAN_CPU_H
#define SCAN_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* int32 inputs: nonzero integers in [-8, 8] (zero left out, so that a lost
 * or doubled element always changes every later prefix), mean zero: the
 * prefix sums wander like a random walk, about 3 sqrt(i) from zero, so even
 * at n = 2^31+1 they stay some 10^4 times inside the int32 range and the
 * arithmetic never wraps (the check verifies that it did not). */
RNG_HD int scan_input_i32(uint64_t seed, uint64_t i)
{
    int v = (int)(rng_u32(seed, RNG_STREAM_A, i) % 16u) - 8; /* -8 .. 7 */
    return v >= 0 ? v + 1 : v;                               /* -8..-1, 1..8 */
}

/* float32 inputs: uniform in [0, 1), positive, so a prefix never cancels
 * and its error is small compared with its value (see scan_tol_f32). */
RNG_HD float scan_input_f32(uint64_t seed, uint64_t i)
{
    return rng_uniform(seed, RNG_STREAM_B, i, 0.0f, 1.0f);
}

/* The CPU baseline: out[i] = in[0] + ... + in[i] (inclusive) or
 * in[0] + ... + in[i-1] (exclusive, out[0] = 0), one pass in order.
 * in and out may be the same array. */
void scan_cpu_i32(const int *in, int *out, size_t n, int exclusive);
void scan_cpu_f32(const float *in, float *out, size_t n, int exclusive);

/* The relative tolerance of a float32 scan of n elements (see scan_cpu.c
 * for why it has this form). */
double scan_tol_f32(size_t n);

/* Compare got[0..n) with the scan of in[0..n): exact for int32 (a reference
 * prefix outside the int32 range is a failure too: the input would wrap);
 * for float32 |got - ref| <= scan_tol_f32(n) * ref + 1e-6 (ref >= 0).
 * Prints the first few mismatches on stderr, each line starting with
 * `what`, and returns how many elements are wrong. */
size_t scan_check_i32(const char *what, const int *in, const int *got, size_t n, int exclusive);
size_t scan_check_f32(const char *what, const float *in, const float *got, size_t n,
                      int exclusive);

#ifdef __cplusplus
}
#endif
#endif /* SCAN_CPU_H */
