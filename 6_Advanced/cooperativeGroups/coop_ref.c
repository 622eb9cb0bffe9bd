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
    rng_fill_uniform(x, n, seed, RNG_STREAM_A, 0.5f, 1.5f);
}

double coop_sum_depth(size_t n, unsigned int grid, unsigned int block)
{
    double threads = (double)grid * block;
    double per_thread = ceil((double)n / threads);
    double partials_per_thread = ceil((double)grid / block);
    return per_thread + 10.0 + partials_per_thread + 10.0;
}

double coop_sum_rel_tol(size_t n, unsigned int grid, unsigned int block)
{
    return (coop_sum_depth(n, grid, block) + 2.0) * FLT_EPSILON;
}

double coop_rel_tol(size_t n, unsigned int grid, unsigned int block)
{
    return coop_sum_rel_tol(n, grid, block) + FLT_EPSILON;
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
