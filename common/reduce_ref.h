/* reduce_ref.h: host side of the reduction samples: element types, the CPU
 * reference sum streamed over the generated inputs, the exact check
 * and the stress-size sequence. C11, gcc-built, unit-tested in
 * 0_Simple/reduction/tests/test_reduce_ref.c and
 * 6_Advanced/threadFenceReduction/tests/test_tfr_ref.c. Shared by both
 * reduction samples, so it lives in common/.
 *
 * The check is exact for every type. The inputs are small nonzero integers
 * (reduce_input.h), so the true sum is an integer that float, double and
 * long long all represent, every correct summation order reaches it without
 * rounding, and red_check() demands equality: a lost element, a lost block,
 * a truncated n, a doubled element or a zero result all fail, at any n (the
 * unit tests show it at 2^28 and 2^31+1, with the references streamed).
 *
 * Why not real-valued inputs and a tolerance:
 * for n values uniform in [-1, 1) the sum cancels to about sqrt(n/3) while
 * each addition rounds relative to its partial sum; different orders (CUB,
 * a tree, a grid-stride loop) give different last bits, and the error bound
 * that every correct order meets is eps * (a power of n) * sum|x|. At
 * n = 2^28 the usual statistical tolerance, 8 eps sqrt(n) sum|x|, is about
 * 2e6, while one element is at most 1 and the whole sum about 1e4: a zero
 * result would pass, and so would half of the array. Float rounding is
 * worth seeing (real-valued inputs make the variants disagree in the last
 * bits), but a check that cannot fail must not decide PASS.
 */
#ifndef REDUCE_REF_H
#define REDUCE_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { RED_FLOAT = 0, RED_DOUBLE = 1, RED_INT = 2 } red_type;

/* "float" | "double" | "int" -> type; 0 on success, -1 otherwise. */
int red_type_parse(const char *text, red_type *out);
const char *red_type_name(red_type t);
/* Bytes per input element (4, 8, 4). */
size_t red_type_size(red_type t);
/* Bytes per accumulated value: float, double, long long (4, 8, 8). */
size_t red_acc_size(red_type t);

/* The reference sum of elements 0..n-1 of the generated input. */
typedef struct {
    size_t n;
    long long isum;            /* the exact sum (every type: integer inputs) */
    double sum;                /* the same as a double (exact: |isum| < 2^53) */
    double abs_sum;            /* sum of |x| */
    long long max_abs_prefix;  /* largest |x_0 + ... + x_j|, j < n: how far a
                                  sequential float sum strays from 0 */
} red_ref;

/* References for several prefixes in one streaming pass: stops[] holds the
 * prefix lengths (any order, duplicates allowed, each >= 1); out[k] is the
 * reference for stops[k]. Costs max(stops) element evaluations, no memory. */
void red_ref_prefixes(red_type t, uint64_t seed, const size_t *stops, int nstops, red_ref *out);

/* The magnitude below which every integer, and so every partial sum of the
 * integer inputs, is exact in the accumulator of type t: 2^24 (float),
 * 2^53 (double), 2^63 (int, accumulated in long long). */
double red_exact_limit(red_type t);

/* Check a GPU result: got_fp for float/double, got_int for int. Returns 1 if
 * it equals the exact sum; otherwise 0 and a message (expected, got, how far
 * off). NaN (an unwritten, poisoned result) never passes. */
int red_check(red_type t, const red_ref *ref, double got_fp, long long got_int, char *msg,
              size_t msglen);

/* Stress size k of a seeded sequence: log-uniform in [1, max_n], so tiny
 * sizes (under one warp, one block) appear as often as huge ones. */
size_t red_stress_size(uint64_t seed, uint64_t k, size_t max_n);

/* The CPU baseline variant: the n inputs of `seed` in a host array, summed by
 * common/cpu_ref.c's compensated sums; *ms is the time of the sum alone.
 * Returns NAN if the host array cannot be allocated. */
double red_cpu_baseline(red_type t, size_t n, uint64_t seed, double *ms);

#ifdef __cplusplus
}
#endif
#endif /* REDUCE_REF_H */
