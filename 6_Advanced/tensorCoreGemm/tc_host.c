/* tc_host.c: see tc_host.h. */
#include "tc_host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

int tc_check_dim(const char *opt, long long v, char *err, size_t errlen)
{
    if (v < 1 || v > TC_MAX_DIM) {
        snprintf(err, errlen, "--%s=%lld: must be between 1 and %d", opt, v, TC_MAX_DIM);
        return -1;
    }
    return 0;
}

int tc_tma_shape_ok(long long N, long long K, char *why, size_t whylen)
{
    if (K % 8 == 0 && N % 8 == 0) return 1;
    snprintf(why, whylen,
             "--n=%lld --k=%lld: the TMA variants need N and K to be multiples of 8: a "
             "tensor map's row stride (K*2 bytes for A, N*2 bytes for B) must be a "
             "multiple of 16 bytes",
             N, K);
    return 0;
}

size_t tc_device_bytes(long long M, long long N, long long K, unsigned long long limit,
                       char *err, size_t errlen)
{
    if (M < 1 || N < 1 || K < 1 || M > TC_MAX_DIM || N > TC_MAX_DIM || K > TC_MAX_DIM) {
        snprintf(err, errlen, "--m=%lld --n=%lld --k=%lld: each must be between 1 and %d", M,
                 N, K, TC_MAX_DIM);
        return 0;
    }
    /* each product of two dimensions is at most 2^30: no overflow below */
    unsigned long long mk = (unsigned long long)M * K, kn = (unsigned long long)K * N,
                       mn = (unsigned long long)M * N;
    unsigned long long bytes = 2ULL * 2ULL * (mk + kn) /* A, B and |A|, |B| in BF16 */
                               + 3ULL * 4ULL * mn;     /* C, cuBLAS's C, S in FP32 */
    if (bytes > limit || bytes > (unsigned long long)SIZE_MAX) {
        snprintf(err, errlen,
                 "--m=%lld --n=%lld --k=%lld: the matrices need %llu bytes, more than %llu",
                 M, N, K, bytes, limit);
        return 0;
    }
    return (size_t)bytes;
}

double tc_gflops(long long M, long long N, long long K, double ms)
{
    if (!(ms > 0)) return 0;
    return 2.0 * (double)M * (double)N * (double)K / (ms * 1e6);
}

uint16_t tc_f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu)) /* NaN: keep it a NaN */
        return (uint16_t)((u >> 16) | 0x0040u);
    uint32_t round = 0x7FFFu + ((u >> 16) & 1u); /* to nearest, ties to even */
    return (uint16_t)((u + round) >> 16);
}

float tc_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

void tc_fill(uint16_t *x, int rows, int cols, tc_data kind, uint64_t seed, uint64_t stream)
{
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            size_t i = (size_t)r * cols + c;
            float v = 0;
            switch (kind) {
            case TC_DATA_INT:
                v = (float)((int)(rng_u32(seed, stream, i) % (2 * TC_INT_MAX + 1)) - TC_INT_MAX);
                break;
            case TC_DATA_REAL: v = rng_uniform(seed, stream, i, -1.0f, 1.0f); break;
            case TC_DATA_IDENT: v = r == c ? 1.0f : 0.0f; break;
            case TC_DATA_PATTERN: v = (float)((r % 16) * 16 + (c % 16)); break;
            }
            x[i] = tc_f32_to_bf16(v);
        }
}

const char *tc_data_name(tc_data kind)
{
    switch (kind) {
    case TC_DATA_INT: return "int";
    case TC_DATA_REAL: return "real";
    case TC_DATA_IDENT: return "identity";
    case TC_DATA_PATTERN: return "pattern";
    }
    return "?";
}

void tc_gemm_ref(int M, int N, int K, const uint16_t *A, const uint16_t *B, double *C,
                 double *S)
{
    /* B converted once; rows of C accumulated in double, i-k-j order so the
     * inner loop streams a row of B (the compiler vectorizes it). */
    float *bf = (float *)malloc((size_t)K * N * sizeof(float));
    if (!bf) { /* no memory for the copy: the slow way, one dot product each */
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                C[(size_t)i * N + j] = tc_dot_ref(i, j, N, K, A, B, S ? &S[(size_t)i * N + j] : NULL);
        return;
    }
    for (size_t t = 0; t < (size_t)K * N; t++) bf[t] = tc_bf16_to_f32(B[t]);
    for (int i = 0; i < M; i++) {
        double *crow = C + (size_t)i * N, *srow = S ? S + (size_t)i * N : NULL;
        for (int j = 0; j < N; j++) crow[j] = 0.0;
        if (srow)
            for (int j = 0; j < N; j++) srow[j] = 0.0;
        for (int k = 0; k < K; k++) {
            double a = tc_bf16_to_f32(A[(size_t)i * K + k]);
            if (a == 0.0) continue;
            const float *brow = bf + (size_t)k * N;
            for (int j = 0; j < N; j++) crow[j] += a * (double)brow[j];
            if (srow) {
                double aa = fabs(a);
                for (int j = 0; j < N; j++) srow[j] += aa * fabs((double)brow[j]);
            }
        }
    }
    free(bf);
}

double tc_dot_ref(int i, int j, int N, int K, const uint16_t *A, const uint16_t *B, double *s)
{
    double c = 0.0, sa = 0.0;
    for (int k = 0; k < K; k++) {
        double a = tc_bf16_to_f32(A[(size_t)i * K + k]);
        double b = tc_bf16_to_f32(B[(size_t)k * N + j]);
        c += a * b;
        sa += fabs(a * b);
    }
    if (s) *s = sa;
    return c;
}

double tc_bound_factor(long long K)
{
    double ku = (double)K * ldexp(1.0, -23);
    return ku / (1.0 - ku);
}

double tc_bound_factor_vs_ref(long long K)
{
    double g = tc_bound_factor(K);
    return 2.0 * g / (1.0 - g);
}

double tc_stat_unit(long long K, double rms_ref)
{
    return sqrt((double)K) * ldexp(1.0, -24) * rms_ref;
}

double tc_rms_f64(const double *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += x[i] * x[i];
    return n ? sqrt(s / (double)n) : 0.0;
}

double tc_rms_f32(const float *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += (double)x[i] * (double)x[i];
    return n ? sqrt(s / (double)n) : 0.0;
}

int tc_pattern_decode(double v, int *r, int *c)
{
    if (!(v >= 0 && v <= 255) || v != floor(v)) return 0;
    *r = (int)v / 16;
    *c = (int)v % 16;
    return 1;
}

/* Running state of one comparison. */
typedef struct {
    size_t bad, n;
    double worst_ratio; /* largest |diff| / bound (or |diff| when exact) */
    long long worst_at;
    double unit;        /* the statistical unit; 0: no statistical check */
    double max_z, sum_z2;
} cmp_state;

static void cmp_init(cmp_state *st, double unit)
{
    memset(st, 0, sizeof *st);
    st->unit = unit > 0 ? unit : 0.0;
}

/* One element: within bound (the worst case; 0 = exact) and, when the state
 * has a unit, within TC_STAT_C units. */
static void cmp_one(cmp_state *st, const char *what, long long at, int N, double got,
                    double ref, double bound, int decode)
{
    double diff = fabs(got - ref);
    double limit = st->unit > 0 ? TC_STAT_C * st->unit : 0.0;
    int in_bound = diff <= bound, in_limit = st->unit == 0 || diff <= limit;
    int ok = !isnan(got) && !isnan(ref) && in_bound && in_limit;
    double ratio = bound > 0 ? diff / bound : diff;
    st->n++;
    if (!isnan(ratio) && ratio > st->worst_ratio) {
        st->worst_ratio = ratio;
        st->worst_at = at;
    }
    if (st->unit > 0) {
        double z = isnan(diff) ? INFINITY : diff / st->unit;
        if (z > st->max_z) st->max_z = z;
        st->sum_z2 += z * z;
    }
    if (ok) return;
    if (st->bad < TC_MAX_REPORTED) {
        int row = (int)(at / N), col = (int)(at % N);
        char hint[96] = "", why[96];
        int er, ec, gr, gc;
        if (decode && tc_pattern_decode(ref, &er, &ec)) {
            if (tc_pattern_decode(got, &gr, &gc))
                snprintf(hint, sizeof hint, ": holds pattern cell (%d,%d), wanted (%d,%d)", gr,
                         gc, er, ec);
            else
                snprintf(hint, sizeof hint, ": not a pattern value, wanted cell (%d,%d)", er, ec);
        }
        if (!in_bound || isnan(diff))
            snprintf(why, sizeof why, "> bound %.3g", bound);
        else
            snprintf(why, sizeof why, "> statistical limit %.3g = %g sqrt(K) u rms(C)", limit,
                     TC_STAT_C);
        fprintf(stderr, "  %s: C(%d,%d) expected %.9g, got %.9g (|diff| %.3g %s)%s\n", what, row,
                col, ref, got, diff, why, hint);
    }
    st->bad++;
}

static size_t cmp_finish(const cmp_state *st, const char *what, int N, tc_err *err)
{
    double rms_z = st->n ? sqrt(st->sum_z2 / (double)st->n) : 0.0;
    if (err) {
        err->max_z = st->max_z;
        err->rms_z = rms_z;
    }
    if (st->bad) {
        fprintf(stderr, "  %s: %zu of %zu elements outside the bound%s; largest |diff|/bound %.3g "
                        "at C(%lld,%lld)",
                what, st->bad, st->n, st->unit > 0 ? " or the statistical limit" : "",
                st->worst_ratio, st->worst_at / N, st->worst_at % N);
        if (st->unit > 0)
            fprintf(stderr, "; largest |diff| %.3g sqrt(K) u rms(C) (limit %g), rms %.3g",
                    st->max_z, TC_STAT_C, rms_z);
        fprintf(stderr, "\n");
    }
    return st->bad;
}

size_t tc_compare(const char *what, const float *got, int M, int N, const tc_ref *ref,
                  tc_err *err)
{
    cmp_state st;
    cmp_init(&st, ref->stat_unit);
    size_t n = (size_t)M * N;
    int exact = !ref->s64 && !ref->s32;
    for (size_t i = 0; i < n; i++) {
        double r = ref->ref64 ? ref->ref64[i] : (double)ref->ref32[i];
        double bound = 0.0;
        if (!exact) bound = ref->factor * (ref->s64 ? ref->s64[i] : (double)ref->s32[i]);
        cmp_one(&st, what, (long long)i, N, (double)got[i], r, bound, ref->decode_pattern);
    }
    return cmp_finish(&st, what, N, err);
}

/* Sample s of an M x N result: the four corners first, then random (i, j). */
static long long sample_at(int s, int M, int N, uint64_t seed)
{
    int i, j;
    if (s < 4) { /* the corners: first and last row and column */
        i = (s & 1) ? M - 1 : 0;
        j = (s & 2) ? N - 1 : 0;
    } else {
        uint64_t h = rng_hash(seed, 77, (uint64_t)s);
        i = (int)((h >> 32) % (uint64_t)M);
        j = (int)((h & 0xFFFFFFFFu) % (uint64_t)N);
    }
    return (long long)i * N + j;
}

size_t tc_check_samples(const char *what, const float *got, int M, int N, int K,
                        const uint16_t *A, const uint16_t *B, int nsamples, uint64_t seed,
                        int exact)
{
    double *ref = (double *)malloc((size_t)(nsamples > 0 ? nsamples : 1) * 2 * sizeof(double));
    if (!ref) {
        fprintf(stderr, "  %s: no memory for %d samples\n", what, nsamples);
        return (size_t)(nsamples > 0 ? nsamples : 1);
    }
    double *sabs = ref + (nsamples > 0 ? nsamples : 1);
    for (int s = 0; s < nsamples; s++) {
        long long at = sample_at(s, M, N, seed);
        ref[s] = tc_dot_ref((int)(at / N), (int)(at % N), N, K, A, B, &sabs[s]);
    }
    cmp_state st;
    cmp_init(&st, exact ? 0.0 : tc_stat_unit(K, tc_rms_f64(ref, (size_t)nsamples)));
    double factor = tc_bound_factor(K);
    for (int s = 0; s < nsamples; s++) {
        long long at = sample_at(s, M, N, seed);
        cmp_one(&st, what, at, N, (double)got[at], ref[s], exact ? 0.0 : factor * sabs[s], 0);
    }
    free(ref);
    return cmp_finish(&st, what, N, NULL);
}

int tc_tmap_rowmajor(long long rows, long long cols, int box_rows, int box_cols,
                     tc_tmap *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    unsigned long long stride = (unsigned long long)cols * 2ULL;
    if (rows < 1 || cols < 1 || rows > (1LL << 32) || cols > (1LL << 32)) {
        snprintf(err, errlen, "tensor map %lld x %lld: dimensions must be 1..2^32", rows, cols);
        return -1;
    }
    if (stride % 16 != 0 || stride >= (1ULL << 40)) {
        snprintf(err, errlen,
                 "tensor map %lld x %lld: the row stride %llu bytes must be a multiple of 16 "
                 "(and below 2^40)",
                 rows, cols, stride);
        return -1;
    }
    if (box_rows < 1 || box_rows > 256 || box_cols < 1 || box_cols > 256) {
        snprintf(err, errlen, "box %d x %d: each box dimension must be 1..256", box_rows,
                 box_cols);
        return -1;
    }
    if ((box_cols * 2) % 16 != 0 || box_cols * 2 > 128) {
        snprintf(err, errlen,
                 "box %d x %d: its rows (%d bytes) must be a multiple of 16 bytes and at most "
                 "128 (the 128-byte swizzle span)",
                 box_rows, box_cols, box_cols * 2);
        return -1;
    }
    out->dim[0] = (uint64_t)cols;
    out->dim[1] = (uint64_t)rows;
    out->stride_bytes = stride;
    out->box[0] = (uint32_t)box_cols;
    out->box[1] = (uint32_t)box_rows;
    out->box_bytes = (uint32_t)(box_rows * box_cols * 2);
    return 0;
}

uint32_t tc_stage_tx_bytes(int bm, int bn, int bk)
{
    return (uint32_t)(bm * bk * 2) + (uint32_t)(bn / TC_BOX_COLS) * (uint32_t)(bk * TC_BOX_COLS * 2);
}

int tc_join_names(const char *first, const char *const *names, int n, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0) return -1;
    buf[0] = '\0';
    for (int i = -1; i < n; i++) {
        const char *s = i < 0 ? first : names[i];
        if (!s) continue;
        size_t sl = strlen(s);
        if (used + (used ? 1 : 0) + sl + 1 > len) {
            buf[0] = '\0';
            return -1;
        }
        if (used) buf[used++] = '|';
        memcpy(buf + used, s, sl);
        used += sl;
        buf[used] = '\0';
    }
    return (int)used;
}
