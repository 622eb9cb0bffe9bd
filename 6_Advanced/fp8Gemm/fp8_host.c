/* fp8_host.c: fp8Gemm's host code: e4m3 and BF16 rounding, inputs, the CPU
 * reference, the error bound and the compare (fp8_host.h says what each
 * does; tests/test_fp8_host.c checks them). */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>

#include "fp8_host.h"
#include "rng.h"

uint8_t fp8_e4m3_from_float(float x)
{
    if (isnan(x)) return 0x7F;
    const uint8_t sign = signbit(x) ? 0x80 : 0;
    float a = fabsf(x);
    if (a >= FP8_E4M3_MAX) return sign | 0x7E; /* saturate */
    unsigned code;
    if (a < 1.0f / 64.0f) {
        /* below the smallest normal (2^-6): multiples of 2^-9; q = 8 is code
         * 0x08, the smallest normal, so rounding up into it needs no case */
        code = (unsigned)rintf(a * 512.0f);
    } else {
        int E;
        frexpf(a, &E);           /* a = f 2^E, f in [0.5, 1): a in [2^(E-1), 2^E) */
        const int e = E - 1;     /* a in [2^e, 2^(e+1)), e >= -6 */
        const unsigned q = (unsigned)rintf(ldexpf(a, 3 - e)); /* 8 .. 16 eighths */
        /* q = 16 carries into the next binade: ((e+7) << 3) + 8 = (e+8) << 3 */
        code = ((unsigned)(e + 7) << 3) + (q - 8);
    }
    if (code > 0x7E) code = 0x7E; /* 464 and above rounded to 480: saturate */
    return sign | (uint8_t)code;
}

uint16_t bf16_from_float(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, 4);
    if (isnan(x)) return (uint16_t)((bits >> 16) | 0x40);
    bits += 0x7FFFu + ((bits >> 16) & 1u); /* round to nearest, ties to even */
    return (uint16_t)(bits >> 16);
}

const char *fp8_data_name(fp8_data kind) { return kind == FP8_DATA_INT ? "int" : "real"; }

void fp8_fill(uint8_t *x, size_t rows, size_t cols, fp8_data kind, uint64_t seed, uint64_t stream)
{
    const size_t n = rows * cols;
    for (size_t i = 0; i < n; i++) {
        float v;
        if (kind == FP8_DATA_INT)
            v = (float)(int)(rng_u32(seed, stream, i) % 5u) - 2.0f;
        else
            v = rng_uniform(seed, stream, i, -1.0f, 1.0f);
        x[i] = fp8_e4m3_from_float(v);
    }
}

/* the 256 values of e4m3, decoded once */
static void decode_table(double t[256])
{
    for (int v = 0; v < 256; v++) t[v] = (double)fp8_e4m3_to_float((uint8_t)v);
}

double fp8_dot_ref(int K, const uint8_t *A, const uint8_t *B, int i, int j, double scale)
{
    double t[256];
    decode_table(t);
    const uint8_t *a = A + (size_t)i * K, *b = B + (size_t)j * K;
    double s = 0;
    for (int k = 0; k < K; k++) s += t[a[k]] * t[b[k]];
    return scale * s;
}

void fp8_gemm_ref(int M, int N, int K, const uint8_t *A, const uint8_t *B, double scale,
                  double *ref)
{
    double t[256];
    decode_table(t);
    double *a = (double *)malloc((size_t)K * sizeof(double));
    if (!a) {
        fprintf(stderr, "fp8Gemm: error: cannot allocate %d doubles\n", K);
        exit(1);
    }
    for (int i = 0; i < M; i++) {
        for (int k = 0; k < K; k++) a[k] = t[A[(size_t)i * K + k]];
        for (int j = 0; j < N; j++) {
            const uint8_t *b = B + (size_t)j * K;
            double s = 0;
            for (int k = 0; k < K; k++) s += a[k] * t[b[k]];
            ref[(size_t)i * N + j] = scale * s;
        }
    }
    free(a);
}

double fp8_stat_unit(int K, double rms_ref) { return sqrt((double)K) * FP8_U_ACC * rms_ref; }

double fp8_rms(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i] * x[i];
    return n ? sqrt(s / (double)n) : 0.0;
}

size_t fp8_compare(const char *what, const uint16_t *got, const double *ref, const size_t *idx,
                   size_t n, int N, int K, int exact, double rms_ref, fp8_err *e)
{
    const double unit = fp8_stat_unit(K, rms_ref);
    fp8_err r = {0, 0, rms_ref, 0, 0};
    double sum2 = 0;
    for (size_t s = 0; s < n; s++) {
        const size_t at = idx ? idx[s] : s;
        const double d = (double)bf16_to_float(got[at]), x = ref[s];
        const double err = fabs(d - x);
        int ok;
        double bound;
        if (exact) {
            /* the exact value, rounded once to BF16 (x is an integer times a
             * power of two below 2^24: exact in float) */
            bound = 0;
            ok = got[at] == bf16_from_float((float)x) || (x == 0 && d == 0); /* +0 or -0 */
        } else {
            bound = ldexp(fabs(x), -8) + FP8_STAT_C * unit;
            ok = err <= bound; /* false for NaN */
        }
        if (!(err <= r.max_abs)) r.max_abs = err; /* NaN sticks */
        sum2 += err * err;
        if (unit > 0 && err / unit > r.max_z) r.max_z = err / unit;
        if (!ok) {
            if (r.bad < 5)
                fprintf(stderr, "%s: (%zu, %zu) expected %.9g, got %.9g (bits 0x%04x), bound %.3g\n",
                        what, at / (size_t)N, at % (size_t)N, x, d, got[at], bound);
            r.bad++;
        }
    }
    if (r.bad > 5) fprintf(stderr, "%s: %zu of %zu elements wrong\n", what, r.bad, n);
    r.rms = n ? sqrt(sum2 / (double)n) : 0;
    if (e) *e = r;
    return r.bad;
}

size_t fp8_compare_bf16(const char *what, const uint16_t *got, const uint16_t *ref, size_t n, int N,
                        int K, double rms_ref)
{
    const double slack = 2.0 * FP8_STAT_C * fp8_stat_unit(K, rms_ref);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const double x = bf16_to_float(got[i]), y = bf16_to_float(ref[i]);
        const double bound = ldexp(fmax(fabs(x), fabs(y)), -7) + slack;
        if (!(fabs(x - y) <= bound)) {
            if (bad < 5)
                fprintf(stderr, "%s: (%zu, %zu) expected %.9g, got %.9g (bits 0x%04x), bound %.3g\n",
                        what, i / (size_t)N, i % (size_t)N, y, x, got[i], bound);
            bad++;
        }
    }
    if (bad > 5) fprintf(stderr, "%s: %zu of %zu elements wrong\n", what, bad, n);
    return bad;
}

int fp8_tma_shape_ok(int K, char *why, size_t len)
{
    if (K % 16 == 0) return 1;
    snprintf(why, len,
             "needs K to be a multiple of 16 (K = %d): the TMA variants read A and B through "
             "tensor maps, whose row stride (K bytes) must be a multiple of 16; pad K with zero "
             "columns in both A and B to the next multiple of 16 (the product does not change)",
             K);
    return 0;
}

double fp8_gflops(int M, int N, int K, double ms) { return 2.0 * M * N * (double)K / (ms * 1e6); }
