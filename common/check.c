/* check.c: tolerance and exact comparisons with a readable mismatch report. */
#include "check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "rng.h"

int close_enough(double got, double ref, double abs_tol, double rel_tol)
{
    if (isnan(got) || isnan(ref)) return 0;
    if (isinf(got) || isinf(ref)) return got == ref;
    return fabs(got - ref) <= abs_tol + rel_tol * fabs(ref);
}

double tol_sum_rel(double n)
{
    double t = 8.0 * FLT_EPSILON * sqrt(n > 1 ? n : 1);
    return t > 1e-6 ? t : 1e-6;
}

/* Running state of one comparison: count, worst errors, first few indices. */
typedef struct {
    size_t bad;
    double max_abs, max_rel;
    size_t worst_i;
} check_acc;

static void acc_add(check_acc *a, const char *what, size_t i, double got, double ref,
                    double abs_tol, double rel_tol)
{
    int ok = close_enough(got, ref, abs_tol, rel_tol);
    double ae = fabs(got - ref);
    if (!isnan(ae) && !isinf(ae)) {
        double re = ref != 0 ? ae / fabs(ref) : (ae > 0 ? INFINITY : 0);
        if (ae > a->max_abs) { a->max_abs = ae; a->worst_i = i; }
        if (re > a->max_rel) a->max_rel = re;
    }
    if (!ok) {
        if (a->bad < CHECK_MAX_REPORTED)
            fprintf(stderr, "  %s[%zu]: expected %.9g, got %.9g (|diff| %.3g, allowed %.3g)\n",
                    what, i, ref, got, ae, abs_tol + rel_tol * fabs(ref));
        a->bad++;
    }
}

static size_t acc_finish(const check_acc *a, const char *what, size_t n, double abs_tol,
                         double rel_tol)
{
    if (a->bad)
        fprintf(stderr, "  %s: %zu of %zu elements outside abs %.3g + rel %.3g; max abs err "
                        "%.3g (at %zu), max rel err %.3g\n",
                what, a->bad, n, abs_tol, rel_tol, a->max_abs, a->worst_i, a->max_rel);
    return a->bad;
}

#define DEFINE_CLOSE_CHECK(fname, TGOT, TREF)                                               \
    size_t fname(const char *what, const TGOT *got, const TREF *ref, size_t n,              \
                 double abs_tol, double rel_tol)                                            \
    {                                                                                       \
        check_acc a;                                                                        \
        memset(&a, 0, sizeof a);                                                            \
        for (size_t i = 0; i < n; i++)                                                      \
            acc_add(&a, what, i, (double)got[i], (double)ref[i], abs_tol, rel_tol);         \
        return acc_finish(&a, what, n, abs_tol, rel_tol);                                  \
    }

DEFINE_CLOSE_CHECK(check_close_f32, float, float)
DEFINE_CLOSE_CHECK(check_close_f32_f64, float, double)
DEFINE_CLOSE_CHECK(check_close_f64, double, double)

#define DEFINE_EXACT_CHECK(fname, T, FMT, CAST)                                             \
    size_t fname(const char *what, const T *got, const T *ref, size_t n)                    \
    {                                                                                       \
        size_t bad = 0;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                    \
            if (got[i] == ref[i]) continue;                                                 \
            if (bad < CHECK_MAX_REPORTED)                                                   \
                fprintf(stderr, "  %s[%zu]: expected " FMT ", got " FMT "\n", what, i,      \
                        (CAST)ref[i], (CAST)got[i]);                                        \
            bad++;                                                                          \
        }                                                                                   \
        if (bad) fprintf(stderr, "  %s: %zu of %zu elements differ\n", what, bad, n);       \
        return bad;                                                                         \
    }

DEFINE_EXACT_CHECK(check_exact_u32, unsigned int, "%u", unsigned int)
DEFINE_EXACT_CHECK(check_exact_i32, int, "%d", int)
DEFINE_EXACT_CHECK(check_exact_i64, long long, "%lld", long long)

void poison_host(void *p, size_t bytes)
{
    memset(p, 0xFF, bytes);
}

void poison_device(void *d_p, size_t bytes)
{
    CUDA_CHECK(cudaMemset(d_p, 0xFF, bytes));
}

void *guarded_malloc(size_t bytes)
{
    void *d = NULL;
    if (bytes > (size_t)-1 - CHECK_GUARD_BYTES) {
        fprintf(stderr, "guarded_malloc: %zu bytes plus the guard overflow size_t\n", bytes);
        exit(1);
    }
    CUDA_CHECK(cudaMalloc(&d, bytes + CHECK_GUARD_BYTES));
    CUDA_CHECK(cudaMemset((char *)d + bytes, 0xFF, CHECK_GUARD_BYTES));
    return d;
}

void guarded_free(void *d_p)
{
    if (d_p) CUDA_CHECK(cudaFree(d_p));
}

void poison_guarded(void *d_p, size_t used_bytes)
{
    CUDA_CHECK(cudaMemset(d_p, 0xFF, used_bytes + CHECK_GUARD_BYTES));
}

size_t check_guard_host(const char *what, const unsigned char *guard, size_t len)
{
    size_t bad = 0;
    for (size_t i = 0; i < len; i++) {
        if (guard[i] == 0xFF) continue;
        if (bad < CHECK_MAX_REPORTED)
            fprintf(stderr, "  %s: byte %zu past the end was written (0x%02x, guard is 0xff)\n",
                    what, i, guard[i]);
        bad++;
    }
    if (bad)
        fprintf(stderr, "  %s: %zu of the %zu guard bytes after the output changed: "
                        "a write past the end\n", what, bad, len);
    return bad;
}

size_t check_guard(const char *what, const void *d_p, size_t used_bytes)
{
    unsigned char *h = (unsigned char *)malloc(CHECK_GUARD_BYTES);
    if (!h) {
        fprintf(stderr, "check_guard: out of host memory\n");
        exit(1);
    }
    CUDA_CHECK(cudaMemcpy(h, (const char *)d_p + used_bytes, CHECK_GUARD_BYTES,
                          cudaMemcpyDeviceToHost));
    size_t bad = check_guard_host(what, h, CHECK_GUARD_BYTES);
    free(h);
    return bad;
}

/* ---- the byte pattern of copy checks ------------------------------------ */

unsigned char byte_pattern_byte(uint64_t seed, uint64_t stream, size_t j)
{
    return (unsigned char)(rng_hash(seed, stream, j / 8) >> (8 * (j % 8)));
}

void byte_pattern_fill(void *buf, size_t bytes, uint64_t seed, uint64_t stream)
{
    unsigned char *p = (unsigned char *)buf;
    size_t words = bytes / 8;
    for (size_t w = 0; w < words; w++) {
        uint64_t v = rng_hash(seed, stream, w);
        memcpy(p + 8 * w, &v, 8);   /* x86 and the GPU are little-endian */
    }
    for (size_t j = 8 * words; j < bytes; j++) p[j] = byte_pattern_byte(seed, stream, j);
}

size_t byte_pattern_check(const char *what, const void *buf, size_t bytes, uint64_t seed,
                        uint64_t stream)
{
    const unsigned char *p = (const unsigned char *)buf;
    size_t words = bytes / 8, bad = 0;
    int shown = 0;
    for (size_t w = 0; w <= words; w++) {
        size_t lo = 8 * w, hi = lo + 8 < bytes ? lo + 8 : bytes;
        if (lo >= bytes) break;
        if (hi - lo == 8) {
            uint64_t v = rng_hash(seed, stream, w), got;
            memcpy(&got, p + lo, 8);
            if (got == v) continue;
        }
        for (size_t j = lo; j < hi; j++) {
            unsigned char e = byte_pattern_byte(seed, stream, j);
            if (p[j] == e) continue;
            bad++;
            if (shown < 5) {
                fprintf(stderr, "  %s: byte %zu: expected 0x%02x, got 0x%02x\n", what, j, e, p[j]);
                shown++;
            }
        }
    }
    if (bad) fprintf(stderr, "  %s: %zu of %zu bytes wrong\n", what, bad, bytes);
    return bad;
}
