/* check.h: compare results against a reference, and poison outputs first.
 *
 * Floats: an element passes when |got - ref| <= abs_tol + rel_tol * |ref|.
 *   - NaN in `got` never passes (not even against a NaN reference: a
 *     reference that is NaN is a broken test, and fails too).
 *   - +inf/-inf pass only against the same infinity.
 *   - Denormals are ordinary small numbers: they pass through abs_tol.
 * Integers must match exactly.
 * Each check prints, to stderr, the first few mismatches (index, expected,
 * got) and the largest absolute and relative errors, and returns the number
 * of mismatching elements (0 = pass).
 *
 * Tolerances belong to the sample and are written next to its check, scaled
 * with the length of the reduction behind each element; tol_sum_rel() gives
 * the usual scale for a float sum of n terms.
 *
 * Poisoning: every output is filled with 0xFF bytes before a checked run.
 * As float that is NaN, as an integer 0xFFFFFFFF, so an element the kernel
 * never wrote fails the check instead of passing on stale data.
 * Host-only C.
 */
#ifndef COMMON_CHECK_H
#define COMMON_CHECK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CHECK_MAX_REPORTED 5

/* 1 if got is within tolerance of ref, 0 otherwise (NaN never). */
int close_enough(double got, double ref, double abs_tol, double rel_tol);

size_t check_close_f32(const char *what, const float *got, const float *ref, size_t n,
                       double abs_tol, double rel_tol);
/* float results against a double-precision reference */
size_t check_close_f32_f64(const char *what, const float *got, const double *ref, size_t n,
                           double abs_tol, double rel_tol);
size_t check_close_f64(const char *what, const double *got, const double *ref, size_t n,
                       double abs_tol, double rel_tol);

size_t check_exact_u32(const char *what, const unsigned int *got, const unsigned int *ref,
                       size_t n);
size_t check_exact_i32(const char *what, const int *got, const int *ref, size_t n);
size_t check_exact_i64(const char *what, const long long *got, const long long *ref, size_t n);

/* Relative tolerance for a float32 sum of n terms accumulated in a tree or in
 * order: a few ulps times log2(n) for pairwise, sqrt(n) for random rounding.
 * Returns 8 * FLT_EPSILON * sqrt(n), at least 1e-6. */
double tol_sum_rel(double n);

/* Fill host or device memory with 0xFF bytes (NaN as float). */
void poison_host(void *p, size_t bytes);
void poison_device(void *d_p, size_t bytes);   /* exits 1 on a CUDA error */

#ifdef __cplusplus
}
#endif
#endif /* COMMON_CHECK_H */
