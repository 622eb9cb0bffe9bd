/* coop_ref.h: the host side of cooperativeGroups, in C so it is unit-tested
 * on the CPU (tests/test_coop_ref.c).
 *
 * The algorithm: y[i] = x[i] / S with S = sum of x, for positive x. Two
 * phases that every element of the second needs all of the first: the
 * smallest honest use of a grid-wide barrier.
 *
 * Checks, derived rather than guessed. The inputs are small positive
 * integers (1 to 8), so every partial sum a block makes (a thread's
 * grid-stride share, the tile trees, the block's total) is an integer, and
 * float adds integers exactly while they stay below 2^24. Each block's
 * partial is then exactly the sum of its elements, whatever the order of the
 * additions: the check compares every partial with the CPU's sum of that
 * block's elements, exactly, so one element dropped, doubled or taken from
 * the wrong place fails at every size (coop_partials_exact says where this
 * holds: every size the sample runs by default). Where it does not (a huge
 * --n on a small GPU), each partial gets the tolerance below instead.
 *
 * The total is a float sum of the partials (phase two) and rounds once it
 * passes 2^24. For positive terms every partial sum is at most S, so each
 * float addition adds at most u S of error (u = 2^-24, half of FLT_EPSILON):
 * the error is at most (additions on the longest path) x u x S. The path
 * behind one partial: a thread's grid-stride loop (ceil(n / threads)
 * terms) and two trees of 5 levels (the warp's, the warp sums'); behind the
 * total from the partials: a thread's loop over them (ceil(grid / block))
 * and the same two trees. The division adds one more rounding. The
 * tolerances double that bound (FLT_EPSILON per step instead of u) and add
 * 2 steps.
 */
#ifndef COOP_REF_H
#define COOP_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x[i] an integer from 1 to COOP_INPUT_MAX, seeded. */
#define COOP_INPUT_MAX 8
void coop_input(uint64_t seed, float *x, size_t n);

/* The longest chain of float additions behind one block's partial, and
 * behind the total from the partials (above). */
double coop_partial_depth(size_t n, unsigned int grid, unsigned int block);
double coop_total_depth(unsigned int grid, unsigned int block);

/* 1 when every partial of a grid over n inputs is an integer below 2^24, so
 * the GPU computes it exactly (in any order). */
int coop_partials_exact(size_t n, unsigned int grid, unsigned int block);

/* Relative tolerance of a partial (0 where they are exact), of the GPU's S
 * from the partials, and of each y[i] (one rounding more). */
double coop_partial_rel_tol(size_t n, unsigned int grid, unsigned int block);
double coop_sum_rel_tol(size_t n, unsigned int grid, unsigned int block);
double coop_rel_tol(size_t n, unsigned int grid, unsigned int block);

/* The sum of the elements block b reads (i with (i / block) % grid == b),
 * in double, for b < grid: out[grid]. */
void coop_block_sums(const float *x, size_t n, unsigned int grid, unsigned int block, double *out);

/* Compare the GPU's partials[0..grid) with want (coop_block_sums) within
 * rel_tol (0: exactly): the number wrong (NaN never passes), the first few
 * printed to stderr, named by `what`. */
size_t coop_check_partials(const char *what, const float *partials, const double *want,
                           unsigned int grid, double rel_tol);

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
