/* scan_cpu.c: see scan_cpu.h. */
#include "scan_cpu.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

void scan_cpu_i32(const int *in, int *out, size_t n, int exclusive)
{
    long long acc = 0;  /* 64-bit: the sum never wraps on the host */
    for (size_t i = 0; i < n; i++) {
        int x = in[i];
        if (exclusive) out[i] = (int)acc;
        acc += x;
        if (!exclusive) out[i] = (int)acc;
    }
}

void scan_cpu_f32(const float *in, float *out, size_t n, int exclusive)
{
    double acc = 0.0;  /* double: a float running sum drops inputs under 1 once it passes 2^25 */
    for (size_t i = 0; i < n; i++) {
        float x = in[i];
        if (exclusive) out[i] = (float)acc;
        acc += x;
        if (!exclusive) out[i] = (float)acc;
    }
}

/* Why this tolerance. Every output of a GPU scan is a chain of float
 * additions: a tree inside the tile (depth log2 of the tile), then one
 * addition per preceding tile (the carry of the tile sums, or the
 * look-back's chain of inclusive prefixes): d <= log2(n) + n / 256 roundings
 * for the smallest tile (256) of this sample. The inputs are positive, so
 * every partial sum is at most the final prefix p, and each rounding moves
 * the result by at most u p (u = 2^-24, half of FLT_EPSILON). The worst case
 * d u p is far too loose to catch anything at 2^28 (6% of p); rounding
 * errors of round-to-nearest have random signs, so they add up like a
 * random walk: each rounding error is at most u p with a standard deviation
 * of about u p / sqrt(3), so d of them sum to about sqrt(d / 3) u p. We
 * allow 8 sqrt(d) u p (some 14 standard deviations) on top of the tree's
 * log2(n) u p. At n = 2^28 this is
 * 4.9e-4 of p, at n = 1000 it is 1.7e-6 of p. At 2^28 a lost element (0.5
 * on average) hides under it once p passes about 1000 (i > 2000), so the
 * int32 checks, exact, are the ones that catch lost and doubled elements at
 * every size; this one catches wrong orders, lost tiles, NaNs and unwritten
 * outputs, and shows how far float rounding moves a long scan. */
double scan_tol_f32(size_t n)
{
    const double u = FLT_EPSILON / 2.0;
    const double d = (double)n / 256.0 + 1.0;
    return (log2((double)n + 1.0) + 8.0 * sqrt(d)) * u;
}

#define SCAN_SHOW 5 /* mismatches printed per check */

size_t scan_check_i32(const char *what, const int *in, const int *got, size_t n, int exclusive)
{
    long long acc = 0;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        long long want = exclusive ? acc : acc + in[i];
        acc += in[i];
        if (want < INT_MIN || want > INT_MAX) {
            if (bad++ < SCAN_SHOW)
                fprintf(stderr, "%s: reference prefix %lld at i=%zu overflows int32: the input "
                        "must keep every prefix in range (another --seed)\n", what, want, i);
            continue;
        }
        if (got[i] != (int)want && bad++ < SCAN_SHOW)
            fprintf(stderr, "%s: mismatch at i=%zu: expected %lld, got %d\n", what, i, want,
                    got[i]);
    }
    if (bad > SCAN_SHOW) fprintf(stderr, "%s: %zu elements wrong in all\n", what, bad);
    return bad;
}

size_t scan_check_f32(const char *what, const float *in, const float *got, size_t n,
                      int exclusive)
{
    const double rel = scan_tol_f32(n);
    double acc = 0.0;  /* double: exact to about 1e-16 of the prefix at these n */
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double want = exclusive ? acc : acc + in[i];
        acc += in[i];
        double g = got[i];
        /* written so that NaN fails */
        if (!(fabs(g - want) <= rel * want + 1e-6) && bad++ < SCAN_SHOW)
            fprintf(stderr, "%s: mismatch at i=%zu: expected %.9g, got %.9g (tolerance %.3g)\n",
                    what, i, want, g, rel * want + 1e-6);
    }
    if (bad > SCAN_SHOW) fprintf(stderr, "%s: %zu elements wrong in all\n", what, bad);
    return bad;
}
