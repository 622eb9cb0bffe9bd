/* reduce_ref.h: host side of the reduction samples: element types, the CPU
 * reference sum streamed over the generated inputs, the tolerance, the check
 * and the stress-size sequence. C11, gcc-built, unit-tested in
 * 0_Simple/reduction/tests/test_reduce_ref.c and
 * 6_Advanced/threadFenceReduction/tests/test_tfr_ref.c. Shared by both
 * reduction samples, so it lives in common/.
 *
 * Tolerance (float and double; int must match exactly):
 *     |got - ref| <= 8 * eps * sqrt(n) * sum(|x_i|)
 * eps is FLT_EPSILON or DBL_EPSILON (for float this is check.h's
 * tol_sum_rel(n) * sum|x|). Why sum|x| and not |sum|: the inputs are
 * uniform in [-1, 1), so the sum cancels to about sqrt(n/3) while the
 * rounding errors of each addition scale with the partial sums, bounded by
 * sum|x|; a tolerance relative to the sum itself would be meaningless. Why
 * sqrt(n): the worst-case bound for any summation order is (n-1) eps sum|x|;
 * rounding errors are independent and of both signs, so in practice they
 * grow like sqrt(n) (Higham, "Accuracy and Stability", sec. 4.2); the factor 8
 * leaves margin. This tolerance is loose for catching a single lost element;
 * that is the job of the int type (exact) and of poisoning (an unwritten
 * partial is NaN for float/double and -1 for int).
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
    double sum;        /* float/double: Neumaier-compensated double sum */
    double abs_sum;    /* sum of |x|, for the tolerance */
    long long isum;    /* int: exact */
} red_ref;

/* References for several prefixes in one streaming pass: stops[] holds the
 * prefix lengths (any order, duplicates allowed, each >= 1); out[k] is the
 * reference for stops[k]. Costs max(stops) element evaluations, no memory. */
void red_ref_prefixes(red_type t, uint64_t seed, const size_t *stops, int nstops, red_ref *out);

/* The absolute tolerance for a float/double sum of n elements (see above);
 * 0 for int. */
double red_tol(red_type t, size_t n, double abs_sum);

/* Check a GPU result: got_fp for float/double, got_int for int. Returns 1 if
 * it passes; otherwise 0 and a message (expected, got, error, tolerance). */
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
