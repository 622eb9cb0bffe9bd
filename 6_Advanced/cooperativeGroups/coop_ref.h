/* coop_ref.h: the host side of cooperativeGroups, in C so it is unit-tested
 * on the CPU (tests/test_coop_ref.c).
 *
 * The algorithm: y[i] = x[i] / S with S = sum of x, for positive x. Two
 * phases that every element of the second needs all of the first: the
 * smallest honest use of a grid-wide barrier.
 *
 * Tolerance, derived rather than guessed. For positive terms every partial
 * sum is at most S, so each float addition adds at most u S of error
 * (u = 2^-24, half of FLT_EPSILON), and the error of the GPU's S is at most
 * (number of additions on the longest path) x u x S. The path: a thread's
 * grid-stride loop (ceil(n / threads) terms), the warp's tree (5 levels),
 * the warp sums' tree (5), then in phase two a thread's loop over the
 * partials (ceil(grid / block)) and the same two trees (10). The division
 * adds one more rounding. coop_rel_tol doubles that bound (FLT_EPSILON per
 * step instead of u) and adds 2 steps; it is still thousands of times
 * tighter than a sqrt(n) rule at 2^26 elements, so a dropped element shows
 * at every size where it matters.
 */
#ifndef COOP_REF_H
#define COOP_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x[i] in [0.5, 1.5): positive, seeded. */
void coop_input(uint64_t seed, float *x, size_t n);

/* The longest chain of float additions behind one element of y (above). */
double coop_sum_depth(size_t n, unsigned int grid, unsigned int block);

/* Relative tolerance of the GPU's S, and of each y[i] (one rounding more). */
double coop_sum_rel_tol(size_t n, unsigned int grid, unsigned int block);
double coop_rel_tol(size_t n, unsigned int grid, unsigned int block);

/* The CPU variant: S by a compensated sum (common/cpu_ref.h), y = x / S
 * rounded to float. Returns S. */
double coop_cpu_normalise(const float *x, float *y, size_t n);

/* Compare y[0..n) with x[i] / S (S in double): the number of elements
 * outside rel_tol (NaN never passes); the first few are printed to stderr,
 * named by `what`. */
size_t coop_check(const char *what, const float *x, const float *y, size_t n, double S,
                  double rel_tol);

#ifdef __cplusplus
}
#endif
#endif /* COOP_REF_H */
