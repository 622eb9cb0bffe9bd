/* coop_ref.c: input, tolerance, CPU variant and check of cooperativeGroups (see coop_ref.h). */
#include "coop_ref.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "cpu_ref.h"
#include "rng.h"

void coop_input(uint64_t seed, float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = (float)(1 + rng_u32(seed, RNG_STREAM_A, i) % COOP_INPUT_MAX);
}

double coop_partial_depth(size_t n, unsigned int grid, unsigned int block)
{
    double threads = (double)grid * block;
    return ceil((double)n / threads) + 10.0;
}

double coop_total_depth(unsigned int grid, unsigned int block)
{
    return ceil((double)grid / block) + 10.0;
}

int coop_partials_exact(size_t n, unsigned int grid, unsigned int block)
{
    /* a block reads at most ceil(n / threads) elements per thread */
    double per_block = ceil((double)n / ((double)grid * block)) * block;
    return per_block * COOP_INPUT_MAX < 16777216.0;   /* 2^24 */
}

double coop_partial_rel_tol(size_t n, unsigned int grid, unsigned int block)
{
    if (coop_partials_exact(n, grid, block)) return 0.0;
    return (coop_partial_depth(n, grid, block) + 2.0) * FLT_EPSILON;
}

double coop_sum_rel_tol(size_t n, unsigned int grid, unsigned int block)
{
    /* the partials' own error (none where they are exact) carries into S */
    return coop_partial_rel_tol(n, grid, block) + (coop_total_depth(grid, block) + 2.0) * FLT_EPSILON;
}

double coop_rel_tol(size_t n, unsigned int grid, unsigned int block)
{
    return coop_sum_rel_tol(n, grid, block) + FLT_EPSILON;
}

void coop_block_sums(const float *x, size_t n, unsigned int grid, unsigned int block, double *out)
{
    for (unsigned int b = 0; b < grid; b++) out[b] = 0.0;
    for (size_t i = 0; i < n; i++) out[(i / block) % grid] += x[i];
}

size_t coop_check_partials(const char *what, const float *partials, const double *want,
                           unsigned int grid, double rel_tol)
{
    size_t bad = 0;
    for (unsigned int b = 0; b < grid; b++) {
        if (rel_tol == 0.0 ? (double)partials[b] == want[b] : close_enough(partials[b], want[b], 0.0, rel_tol))
            continue;
        if (bad < CHECK_MAX_REPORTED)
            fprintf(stderr, "  %s[%u]: expected %.9g, got %.9g (%s)\n", what, b, want[b],
                    partials[b], rel_tol == 0.0 ? "exactly: integers below 2^24" : "relative tolerance");
        bad++;
    }
    if (bad) fprintf(stderr, "  %s: %zu of %u block partials wrong\n", what, bad, grid);
    return bad;
}

double coop_cpu_normalise(const float *x, float *y, size_t n)
{
    double S = cpu_sum_f32(x, n);
    for (size_t i = 0; i < n; i++) y[i] = (float)(x[i] / S);
    return S;
}

size_t coop_check(const char *what, const float *x, const float *y, size_t n, double S,
                  double rel_tol)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double want = x[i] / S;
        if (close_enough(y[i], want, 0.0, rel_tol)) continue;
        if (bad < CHECK_MAX_REPORTED)
            fprintf(stderr, "  %s[%zu]: expected %.9g, got %.9g (relative tolerance %.3g)\n", what,
                    i, want, y[i], rel_tol);
        bad++;
    }
    if (bad) fprintf(stderr, "  %s: %zu of %zu elements wrong\n", what, bad, n);
    return bad;
}
