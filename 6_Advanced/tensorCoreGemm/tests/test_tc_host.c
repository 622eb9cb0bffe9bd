/* test_tc_host.c: tensorCoreGemm's host side and the layout arithmetic its
 * kernels share (tc_layout.h), on the CPU:
 *   - sizes, the TMA shape rule and its message, device bytes, GFLOP/s
 *   - BF16 rounding, the seeded inputs, the CPU reference and its S = |A||B|
 *   - the error bound: FP32 accumulation in forward, reverse, pairwise, blocked
 *     and round-toward-zero orders stays inside gamma_K * S, integer inputs are
 *     exact in every order, and a single dropped product breaks the bound
 *   - the comparisons count what they should (NaN, one wrong element, samples)
 *   - tensor-map parameters, expect-tx bytes = the boxes' bytes
 *   - the 128-byte swizzle: a bijection, conflict-free for ldmatrix and stores
 *   - the wgmma descriptors: bit fields, and the canonical K-major and
 *     MN-major layouts they describe land on the bytes TMA wrote
 *   - the grouped tile order is a bijection
 *   - step 17's schedule: every K-step of every tile once, pieces in their slots
 *   - steps 19, 20: the copies' row pitch is the least multiple of 128 bytes
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "rng.h"
#include "tc_host.h"
#include "tc_layout.h"

/* ---- sizes ---------------------------------------------------------------- */

static void dims_are_checked_by_name(void **state)
{
    (void)state;
    char err[200];
    assert_int_equal(tc_check_dim("m", 1, err, sizeof err), 0);
    assert_int_equal(tc_check_dim("m", TC_MAX_DIM, err, sizeof err), 0);
    assert_int_equal(tc_check_dim("k", 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "--k=0"));
    assert_int_equal(tc_check_dim("n", TC_MAX_DIM + 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "--n=32769"));
}

static void tma_shape_rule_names_the_constraint(void **state)
{
    (void)state;
    char why[300];
    assert_int_equal(tc_tma_shape_ok(8192, 8192, why, sizeof why), 1);
    assert_int_equal(tc_tma_shape_ok(8, 8, why, sizeof why), 1);
    assert_int_equal(tc_tma_shape_ok(264, 200, why, sizeof why), 1);
    assert_int_equal(tc_tma_shape_ok(8192, 1001, why, sizeof why), 0);
    assert_non_null(strstr(why, "--k=1001"));
    assert_non_null(strstr(why, "multiples of 8"));
    assert_non_null(strstr(why, "16 bytes"));
    assert_int_equal(tc_tma_shape_ok(12, 64, why, sizeof why), 0);
    assert_non_null(strstr(why, "--n=12"));
    assert_int_equal(tc_tma_shape_ok(1, 1, why, sizeof why), 0);
}

static void device_bytes_and_limits(void **state)
{
    (void)state;
    char err[300];
    /* 8192^3: A, B, |A|, |B| in BF16 (4 x 128 MiB), C, C_ref, S in FP32 (3 x 256 MiB) */
    assert_true(tc_device_bytes(8192, 8192, 8192, 1ULL << 40, err, sizeof err) ==
                (size_t)4 * 8192 * 8192 * 2 + (size_t)3 * 8192 * 8192 * 4);
    assert_true(tc_device_bytes(1, 1, 1, 1ULL << 40, err, sizeof err) == 8 + 12);
    assert_true(tc_device_bytes(32768, 32768, 32768, 1ULL << 33, err, sizeof err) == 0);
    assert_non_null(strstr(err, "--m=32768"));
    assert_true(tc_device_bytes(0, 5, 5, 1ULL << 40, err, sizeof err) == 0);
    assert_true(tc_device_bytes(5, 5, 40000, 1ULL << 40, err, sizeof err) == 0);
}

static void gflops_count_two_per_mac(void **state)
{
    (void)state;
    /* 8192^3 in 1.298 ms: 847 TFLOP/s */
    double g = tc_gflops(8192, 8192, 8192, 1.298);
    assert_true(fabs(g - 2.0 * 8192.0 * 8192.0 * 8192.0 / 1.298e6) < 1e-6);
    assert_true(tc_gflops(1, 1, 1, 0.0) == 0.0);
}

/* ---- BF16 and inputs -------------------------------------------------------- */

static void bf16_rounds_to_nearest_even(void **state)
{
    (void)state;
    for (int i = -256; i <= 256; i++) /* integers up to 256 are exact */
        assert_true(tc_bf16_to_f32(tc_f32_to_bf16((float)i)) == (float)i);
    assert_true(tc_bf16_to_f32(tc_f32_to_bf16(0.5f)) == 0.5f);
    /* 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1) */
    assert_true(tc_bf16_to_f32(tc_f32_to_bf16(1.0f + ldexpf(1.0f, -8))) == 1.0f);
    /* 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties to even (1 + 2^-6) */
    assert_true(tc_bf16_to_f32(tc_f32_to_bf16(1.0f + 3 * ldexpf(1.0f, -8))) ==
                1.0f + ldexpf(1.0f, -6));
    /* just above halfway rounds up */
    assert_true(tc_bf16_to_f32(tc_f32_to_bf16(1.0f + ldexpf(1.0f, -8) + ldexpf(1.0f, -20))) ==
                1.0f + ldexpf(1.0f, -7));
    assert_true(isnan(tc_bf16_to_f32(tc_f32_to_bf16(NAN))));
    assert_true(tc_bf16_to_f32(tc_f32_to_bf16(-3.0f)) == -3.0f);
}

static void inputs_are_seeded_and_in_range(void **state)
{
    (void)state;
    enum { R = 37, C = 53 };
    uint16_t a[R * C], b[R * C];
    int counts[2 * TC_INT_MAX + 1] = {0};
    tc_fill(a, R, C, TC_DATA_INT, 7, 1);
    tc_fill(b, R, C, TC_DATA_INT, 7, 1);
    assert_memory_equal(a, b, sizeof a); /* same seed, same data */
    for (int i = 0; i < R * C; i++) {
        float v = tc_bf16_to_f32(a[i]);
        assert_true(v == floorf(v) && v >= -TC_INT_MAX && v <= TC_INT_MAX);
        counts[(int)v + TC_INT_MAX]++;
    }
    for (int i = 0; i < 2 * TC_INT_MAX + 1; i++) assert_true(counts[i] > 0); /* every value occurs */
    tc_fill(b, R, C, TC_DATA_INT, 8, 1);
    assert_true(memcmp(a, b, sizeof a) != 0); /* another seed, other data */
    tc_fill(b, R, C, TC_DATA_INT, 7, 2);
    assert_true(memcmp(a, b, sizeof a) != 0); /* another stream, other data */

    tc_fill(a, R, C, TC_DATA_REAL, 7, 1);
    int distinct = 0;
    for (int i = 0; i < R * C; i++) {
        float v = tc_bf16_to_f32(a[i]);
        assert_true(v >= -1.0f && v <= 1.0f);
        assert_true(tc_bf16_to_f32(tc_f32_to_bf16(v)) == v); /* BF16-exact */
        if (i && a[i] != a[i - 1]) distinct++;
    }
    assert_true(distinct > R * C / 2);

    tc_fill(a, R, C, TC_DATA_IDENT, 7, 1);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) assert_true(tc_bf16_to_f32(a[r * C + c]) == (r == c ? 1.0f : 0.0f));
    tc_fill(a, R, C, TC_DATA_PATTERN, 7, 1);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            int pr, pc;
            assert_int_equal(tc_pattern_decode(tc_bf16_to_f32(a[r * C + c]), &pr, &pc), 1);
            assert_int_equal(pr, r % 16);
            assert_int_equal(pc, c % 16);
        }
    int pr, pc;
    assert_int_equal(tc_pattern_decode(2.5, &pr, &pc), 0);
    assert_int_equal(tc_pattern_decode(256.0, &pr, &pc), 0);
    assert_int_equal(tc_pattern_decode(NAN, &pr, &pc), 0);
}

static void reference_multiplies(void **state)
{
    (void)state;
    /* A = [1 2 3; -4 0 1] (2x3), B = [1 0; 0 -1; 2 1] (3x2): C = [7 1; -2 1], S = [7 5; 6 1] */
    const float af[6] = {1, 2, 3, -4, 0, 1}, bf[6] = {1, 0, 0, -1, 2, 1};
    uint16_t A[6], B[6];
    for (int i = 0; i < 6; i++) {
        A[i] = tc_f32_to_bf16(af[i]);
        B[i] = tc_f32_to_bf16(bf[i]);
    }
    double C[4], S[4], s;
    tc_gemm_ref(2, 2, 3, A, B, C, S);
    const double c_want[4] = {7, 1, -2, 1}, s_want[4] = {7, 5, 6, 1};
    for (int i = 0; i < 4; i++) {
        assert_true(C[i] == c_want[i]);
        assert_true(S[i] == s_want[i]);
        assert_true(tc_dot_ref(i / 2, i % 2, 2, 3, A, B, &s) == c_want[i]);
        assert_true(s == s_want[i]);
    }
    tc_gemm_ref(2, 2, 3, A, B, C, NULL); /* S is optional */
    assert_true(C[2] == -2);
}

/* ---- the error bound ---------------------------------------------------------- */

/* float + float rounded toward zero (the worst a truncating adder does) */
static float add_rz(float s, float p)
{
    double t = (double)s + (double)p; /* exact: both are floats within 2^29 of each other here */
    float f = (float)t;
    if (fabs((double)f) > fabs(t)) f = nextafterf(f, 0.0f);
    return f;
}

static float sum_pairwise(const float *p, int n)
{
    if (n == 1) return p[0];
    int h = n / 2;
    return sum_pairwise(p, h) + sum_pairwise(p + h, n - h);
}

/* FP32 sums of the K exact products of one dot product, in several orders. */
static void fp32_sums(const float *prod, int K, float out[5])
{
    float fwd = 0, rev = 0, blk = 0, rz = 0;
    for (int k = 0; k < K; k++) fwd += prod[k];
    for (int k = K - 1; k >= 0; k--) rev += prod[k];
    for (int k0 = 0; k0 < K; k0 += 16) { /* blocks of 16, as an MMA of k16 might */
        float part = 0;
        for (int k = k0; k < K && k < k0 + 16; k++) part += prod[k];
        blk += part;
    }
    for (int k = 0; k < K; k++) rz = add_rz(rz, prod[k]);
    out[0] = fwd;
    out[1] = rev;
    out[2] = sum_pairwise(prod, K);
    out[3] = blk;
    out[4] = rz;
}

static void bound_holds_for_any_fp32_order(void **state)
{
    (void)state;
    enum { K = 4096, ROWS = 24 };
    uint16_t *A = malloc(ROWS * K * 2), *B = malloc(K * 2);
    float *prod = malloc(K * sizeof(float));
    tc_fill(A, ROWS, K, TC_DATA_REAL, 11, 1);
    tc_fill(B, K, 1, TC_DATA_REAL, 11, 2);
    double factor = tc_bound_factor(K);
    double worst = 0;
    for (int i = 0; i < ROWS; i++) {
        double s, exact = tc_dot_ref(i, 0, 1, K, A, B, &s);
        for (int k = 0; k < K; k++) { /* BF16 x BF16 is exact in FP32 */
            float p = tc_bf16_to_f32(A[i * K + k]) * tc_bf16_to_f32(B[k]);
            assert_true((double)p == (double)tc_bf16_to_f32(A[i * K + k]) * (double)tc_bf16_to_f32(B[k]));
            prod[k] = p;
        }
        float sums[5];
        fp32_sums(prod, K, sums);
        for (int o = 0; o < 5; o++) {
            double err = fabs((double)sums[o] - exact);
            assert_true(err <= factor * s);
            if (err / (factor * s) > worst) worst = err / (factor * s);
        }
    }
    assert_true(worst > 0); /* the sums do round: the test is not vacuous */
    free(A);
    free(B);
    free(prod);
}

static void integer_inputs_are_exact_in_any_order(void **state)
{
    (void)state;
    enum { K = 32768 }; /* the largest K: |partial sums| <= 16 K = 2^19 < 2^24 */
    uint16_t *A = malloc(K * 2), *B = malloc(K * 2);
    float *prod = malloc(K * sizeof(float));
    tc_fill(A, 1, K, TC_DATA_INT, 5, 1);
    tc_fill(B, K, 1, TC_DATA_INT, 5, 2);
    double exact = tc_dot_ref(0, 0, 1, K, A, B, NULL);
    for (int k = 0; k < K; k++) prod[k] = tc_bf16_to_f32(A[k]) * tc_bf16_to_f32(B[k]);
    float sums[5];
    fp32_sums(prod, K, sums);
    for (int o = 0; o < 5; o++) assert_true((double)sums[o] == exact);
    assert_true(TC_INT_MAX * TC_INT_MAX * (double)TC_MAX_DIM < 16777216.0);
    free(A);
    free(B);
    free(prod);
}

static void bound_factor_scales_with_k(void **state)
{
    (void)state;
    assert_true(fabs(tc_bound_factor(1) - ldexp(1.0, -23)) < 1e-12);
    assert_true(tc_bound_factor(8192) > 8192 * ldexp(1.0, -23));
    assert_true(tc_bound_factor(8192) < 1.001 * 8192 * ldexp(1.0, -23));
    assert_true(tc_bound_factor(8193) > tc_bound_factor(8192));
    assert_true(tc_bound_factor_vs_ref(4096) > 2 * tc_bound_factor(4096));
    assert_true(tc_bound_factor_vs_ref(4096) < 2.01 * tc_bound_factor(4096));
}

/* ---- comparisons ---------------------------------------------------------------- */

static void compare_counts_mismatches(void **state)
{
    (void)state;
    enum { M = 5, N = 7 };
    double ref[M * N], s[M * N];
    float got[M * N];
    for (int i = 0; i < M * N; i++) {
        ref[i] = i - 10;
        s[i] = 100.0;
        got[i] = (float)ref[i];
    }
    tc_ref exact = {ref, NULL, NULL, NULL, 0.0, 0, 0.0};
    assert_int_equal(tc_compare("t", got, M, N, &exact, NULL), 0);
    got[12] += 1.0f;
    assert_int_equal(tc_compare("t", got, M, N, &exact, NULL), 1);
    got[30] = NAN;
    assert_int_equal(tc_compare("t", got, M, N, &exact, NULL), 2);
    /* with a bound of 0.02 * 100 = 2 the +1 passes, NaN does not */
    tc_ref bound = {ref, NULL, s, NULL, 0.02, 0, 0.0};
    assert_int_equal(tc_compare("t", got, M, N, &bound, NULL), 1);
    got[30] = (float)ref[30] + 2.5f;
    assert_int_equal(tc_compare("t", got, M, N, &bound, NULL), 1);
    /* against a float reference and a float S */
    float ref32[M * N], s32[M * N];
    for (int i = 0; i < M * N; i++) {
        ref32[i] = (float)ref[i];
        s32[i] = 100.0f;
    }
    tc_ref r32 = {NULL, ref32, NULL, s32, 0.02, 0, 0.0};
    assert_int_equal(tc_compare("t", got, M, N, &r32, NULL), 1);
    tc_ref r32x = {NULL, ref32, NULL, NULL, 0.0, 1, 0.0};
    assert_int_equal(tc_compare("t", got, M, N, &r32x, NULL), 2);
}

static void one_dropped_product_breaks_the_bound(void **state)
{
    (void)state;
    enum { M = 9, N = 11, K = 200 };
    uint16_t A[M * K], B[K * N];
    double C[M * N], S[M * N];
    float got[M * N];
    tc_fill(A, M, K, TC_DATA_REAL, 3, 1);
    tc_fill(B, K, N, TC_DATA_REAL, 3, 2);
    tc_gemm_ref(M, N, K, A, B, C, S);
    for (int i = 0; i < M * N; i++) got[i] = (float)C[i];
    tc_ref ref = {C, NULL, S, NULL, tc_bound_factor(K), 0, 0.0};
    assert_int_equal(tc_compare("t", got, M, N, &ref, NULL), 0);
    /* element (4, 6) without its last product (a K tail lost) */
    double last = (double)tc_bf16_to_f32(A[4 * K + K - 1]) * tc_bf16_to_f32(B[(K - 1) * N + 6]);
    assert_true(fabs(last) > tc_bound_factor(K) * S[4 * N + 6]);
    got[4 * N + 6] = (float)(C[4 * N + 6] - last);
    assert_int_equal(tc_compare("t", got, M, N, &ref, NULL), 1);
}

/* ---- the statistical check ---------------------------------------------------- */

/* float + double rounded toward zero (a truncating adder; blocks of exact
 * products are added as one double) */
static float add_rz_d(float s, double p)
{
    double t = (double)s + p;
    float f = (float)t;
    if (fabs((double)f) > fabs(t)) f = nextafterf(f, 0.0f);
    return f;
}

/* acc = sum of blocks of b exact products, each block added to the FP32
 * accumulator in one rounding, to nearest (rz = 0) or toward zero */
static float sum_blocked(const float *p, int K, int b, int rz)
{
    float acc = 0;
    for (int k0 = 0; k0 < K; k0 += b) {
        double part = 0;
        for (int k = k0; k < K && k < k0 + b; k++) part += p[k];
        acc = rz ? add_rz_d(acc, part) : (float)((double)acc + part);
    }
    return acc;
}

enum { ST_K = 8192, ST_ROWS = 256, ST_ORDERS = 9 };
static const char *const st_order_names[ST_ORDERS] = {
    "forward", "reverse", "pairwise", "blocks of 16", "toward zero, one at a time",
    "toward zero, blocks of 4", "toward zero, blocks of 8", "toward zero, blocks of 16",
    "blocks of 8 into 4 partial sums"};

/* ST_ROWS dot products of length ST_K on the timed data's kind of inputs:
 * their products (exact in FP32), exact values and S. */
typedef struct {
    uint16_t *A, *B;
    float *prod; /* ST_ROWS x ST_K */
    double exact[ST_ROWS], S[ST_ROWS];
} st_data;

static void st_make(st_data *d)
{
    d->A = malloc((size_t)ST_ROWS * ST_K * 2);
    d->B = malloc((size_t)ST_K * 2);
    d->prod = malloc((size_t)ST_ROWS * ST_K * sizeof(float));
    assert_non_null(d->A);
    assert_non_null(d->B);
    assert_non_null(d->prod);
    tc_fill(d->A, ST_ROWS, ST_K, TC_DATA_REAL, 21, 1);
    tc_fill(d->B, ST_K, 1, TC_DATA_REAL, 21, 2);
    for (int i = 0; i < ST_ROWS; i++) {
        d->exact[i] = tc_dot_ref(i, 0, 1, ST_K, d->A, d->B, &d->S[i]);
        for (int k = 0; k < ST_K; k++)
            d->prod[(size_t)i * ST_K + k] =
                tc_bf16_to_f32(d->A[(size_t)i * ST_K + k]) * tc_bf16_to_f32(d->B[k]);
    }
}

static void st_free(st_data *d)
{
    free(d->A);
    free(d->B);
    free(d->prod);
}

static float st_sum(const float *p, int order)
{
    float s = 0;
    switch (order) {
    case 0: for (int k = 0; k < ST_K; k++) s += p[k]; break;
    case 1: for (int k = ST_K - 1; k >= 0; k--) s += p[k]; break;
    case 2: s = sum_pairwise(p, ST_K); break;
    case 3: s = sum_blocked(p, ST_K, 16, 0); break;
    case 4: for (int k = 0; k < ST_K; k++) s = add_rz_d(s, p[k]); break;
    case 5: s = sum_blocked(p, ST_K, 4, 1); break;
    case 6: s = sum_blocked(p, ST_K, 8, 1); break;
    case 7: s = sum_blocked(p, ST_K, 16, 1); break;
    case 8: { /* four accumulators, each fed blocks of 8, added at the end */
        float part[4] = {0, 0, 0, 0};
        for (int k0 = 0; k0 < ST_K; k0 += 8) part[(k0 / 8) % 4] += sum_blocked(p + k0, 8, 8, 0);
        s = (part[0] + part[1]) + (part[2] + part[3]);
        break;
    }
    }
    return s;
}

/* Honest FP32 sums in any order pass the statistical check, against the
 * exact values and against each other (the sample compares with cuBLAS). */
static void statistical_check_passes_honest_sums_in_any_order(void **state)
{
    (void)state;
    st_data d;
    st_make(&d);
    float got[ST_ORDERS][ST_ROWS];
    for (int o = 0; o < ST_ORDERS; o++)
        for (int i = 0; i < ST_ROWS; i++) got[o][i] = st_sum(d.prod + (size_t)i * ST_K, o);
    const double unit = tc_stat_unit(ST_K, tc_rms_f64(d.exact, ST_ROWS));
    /* the unit is what the header says: about 1.6e-4 at K = 8192, |C| about 30 */
    assert_true(unit > 1.4e-4 && unit < 1.9e-4);
    tc_ref exact = {d.exact, NULL, d.S, NULL, tc_bound_factor(ST_K), 0, unit};
    double worst_blocked = 0, worst_rz1 = 0, worst_rn = 0;
    for (int o = 0; o < ST_ORDERS; o++) {
        tc_err e;
        assert_int_equal(tc_compare(st_order_names[o], got[o], ST_ROWS, 1, &exact, &e), 0);
        assert_true(e.max_z > 0); /* the sums do round: the test is not vacuous */
        if (o == 4) worst_rz1 = e.max_z;
        else if (o >= 5) worst_blocked = fmax(worst_blocked, e.max_z);
        else worst_rn = fmax(worst_rn, e.max_z);
        print_message("  %-30s max %.2f, rms %.2f units\n", st_order_names[o], e.max_z, e.rms_z);
    }
    /* the figures tc_host.h quotes */
    assert_true(worst_rn < 1);
    assert_true(worst_blocked < 15);
    assert_true(worst_rz1 < 23);
    /* one honest order against another, as a variant against cuBLAS */
    for (int o = 0; o < ST_ORDERS; o++)
        for (int r = 0; r < ST_ORDERS; r++) {
            float S32[ST_ROWS];
            for (int i = 0; i < ST_ROWS; i++) S32[i] = (float)d.S[i];
            tc_ref vs = {NULL, got[r], NULL, S32, tc_bound_factor_vs_ref(ST_K), 0,
                         tc_stat_unit(ST_K, tc_rms_f32(got[r], ST_ROWS))};
            assert_int_equal(tc_compare("order vs order", got[o], ST_ROWS, 1, &vs, NULL), 0);
        }
    st_free(&d);
}

/* One product lost or doubled in each dot product at K = 8192: the worst-case
 * bound passes every one of them (that is why the statistical check exists),
 * the statistical check fails every one whose product is above its limit,
 * which is nearly all of them. */
static void statistical_check_catches_one_lost_or_doubled_product(void **state)
{
    (void)state;
    st_data d;
    st_make(&d);
    const double unit = tc_stat_unit(ST_K, tc_rms_f64(d.exact, ST_ROWS));
    const double limit = TC_STAT_C * unit;
    tc_ref bound_only = {d.exact, NULL, d.S, NULL, tc_bound_factor(ST_K), 0, 0.0};
    tc_ref both = bound_only;
    both.stat_unit = unit;
    static const int orders[3] = {0, 4, 7}; /* forward, toward zero one at a time and in blocks */
    for (int sign = -1; sign <= 1; sign += 2) { /* -1: lost, +1: doubled */
        for (int oi = 0; oi < 3; oi++) {
            const int o = orders[oi];
            float got[ST_ROWS], got_big[ST_ROWS];
            double exact_big[ST_ROWS], S_big[ST_ROWS];
            int big = 0;
            for (int i = 0; i < ST_ROWS; i++) {
                const float *p = d.prod + (size_t)i * ST_K;
                const int k = (int)(rng_u32(5, 9, (uint64_t)i) % ST_K); /* a different k in each */
                got[i] = (float)((double)st_sum(p, o) + sign * (double)p[k]);
                /* above 1.25 x the limit, the honest error (below 23 units, less
                 * than a fifth of the limit) cannot hide the product */
                if (fabs((double)p[k]) > 1.25 * limit) {
                    got_big[big] = got[i];
                    exact_big[big] = d.exact[i];
                    S_big[big] = d.S[i];
                    big++;
                }
            }
            assert_int_equal(tc_compare("bound alone", got, ST_ROWS, 1, &bound_only, NULL), 0);
            size_t caught = tc_compare("lost or doubled", got, ST_ROWS, 1, &both, NULL);
            tc_ref rb = both;
            rb.ref64 = exact_big;
            rb.s64 = S_big;
            assert_int_equal(tc_compare("the larger products", got_big, big, 1, &rb, NULL), big);
            assert_true(caught >= (size_t)ST_ROWS * 8 / 10); /* most products are above the limit */
            print_message("  %s product, %s: %zu of %d dot products fail (%d products above "
                          "1.25 x the limit %.3g)\n",
                          sign < 0 ? "lost" : "doubled", st_order_names[o], caught, ST_ROWS, big,
                          limit);
        }
    }
    st_free(&d);
}

static void samples_see_corners_and_random_elements(void **state)
{
    (void)state;
    enum { M = 40, N = 24, K = 72 };
    uint16_t A[M * K], B[K * N];
    double C[M * N];
    float got[M * N];
    tc_fill(A, M, K, TC_DATA_INT, 9, 1);
    tc_fill(B, K, N, TC_DATA_INT, 9, 2);
    tc_gemm_ref(M, N, K, A, B, C, NULL);
    for (int i = 0; i < M * N; i++) got[i] = (float)C[i];
    assert_int_equal(tc_check_samples("t", got, M, N, K, A, B, 64, 1, 1), 0);
    got[(M - 1) * N + N - 1] += 1.0f; /* the last corner is always sampled */
    assert_int_equal(tc_check_samples("t", got, M, N, K, A, B, 4, 1, 1), 1);
    got[(M - 1) * N + N - 1] -= 1.0f;
    for (int i = 0; i < M * N; i++) got[i] += 1.0f; /* everything wrong: every sample fails */
    assert_int_equal(tc_check_samples("t", got, M, N, K, A, B, 100, 1, 1), 100);
    /* real inputs within the bound pass */
    tc_fill(A, M, K, TC_DATA_REAL, 9, 1);
    tc_fill(B, K, N, TC_DATA_REAL, 9, 2);
    tc_gemm_ref(M, N, K, A, B, C, NULL);
    for (int i = 0; i < M * N; i++) got[i] = (float)C[i];
    assert_int_equal(tc_check_samples("t", got, M, N, K, A, B, 100, 1, 0), 0);
}

/* ---- tensor maps ------------------------------------------------------------------ */

static void tensor_map_parameters(void **state)
{
    (void)state;
    char err[300];
    tc_tmap a, b;
    /* A: M x K = 8192 x 8192, boxes of 128 rows x 64 */
    assert_int_equal(tc_tmap_rowmajor(8192, 8192, TC_BM, TC_BOX_COLS, &a, err, sizeof err), 0);
    assert_true(a.dim[0] == 8192 && a.dim[1] == 8192);
    assert_true(a.stride_bytes == 16384);
    assert_true(a.box[0] == 64 && a.box[1] == 128);
    assert_int_equal(a.box_bytes, 16384);
    /* B: K x N = 200 x 264, boxes of 64 rows (k) x 64 */
    assert_int_equal(tc_tmap_rowmajor(200, 264, TC_BK, TC_BOX_COLS, &b, err, sizeof err), 0);
    assert_true(b.dim[0] == 264 && b.dim[1] == 200 && b.stride_bytes == 528);
    assert_true(b.box[0] == 64 && b.box[1] == 64 && b.box_bytes == 8192);
    /* the expect-tx count of a stage is what its boxes deliver */
    assert_int_equal(tc_stage_tx_bytes(128, 256, 64), a.box_bytes + 4 * b.box_bytes);
    assert_int_equal(tc_stage_tx_bytes(128, 128, 64), a.box_bytes + 2 * b.box_bytes);
    assert_int_equal(tc_stage_tx_bytes(128, 256, 64), 49152);
    /* broken rules are named */
    assert_int_equal(tc_tmap_rowmajor(8192, 1001, 128, 64, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "multiple of 16"));
    assert_int_equal(tc_tmap_rowmajor(64, 64, 128, 128, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "128"));
    assert_int_equal(tc_tmap_rowmajor(64, 64, 300, 64, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "1..256"));
    assert_int_equal(tc_tmap_rowmajor(64, 64, 64, 4, &a, err, sizeof err), -1); /* 8-byte rows */
    assert_int_equal(tc_tmap_rowmajor(1, 8, 128, 64, &a, err, sizeof err), 0);  /* box > tensor: zero fill */
}

/* ---- the 128-byte swizzle ---------------------------------------------------------- */

static void swizzle_is_a_conflict_free_bijection(void **state)
{
    (void)state;
    for (int row_bytes = 128; row_bytes <= 256; row_bytes += 128) {
        int chunks = row_bytes / 16;
        for (int r = 0; r < 16; r++) { /* within a row: a permutation of the chunks */
            int seen[16] = {0};
            for (int c = 0; c < chunks; c++) {
                uint32_t p = tc_swz128(r, c);
                assert_true(p < (uint32_t)chunks);
                assert_true((p & 8u) == ((uint32_t)c & 8u)); /* stays in its 128-byte half */
                seen[p]++;
            }
            for (int c = 0; c < chunks; c++) assert_int_equal(seen[c], 1);
        }
        /* ldmatrix: chunk c of 8 consecutive rows (an aligned group) -> 8 different
         * 16-byte bank groups (bytes / 16 mod 8) */
        for (int r0 = 0; r0 < 64; r0 += 8)
            for (int c = 0; c < chunks; c++) {
                int groups[8] = {0};
                for (int r = r0; r < r0 + 8; r++)
                    groups[(tc_swz128_offset(r, c * 8, row_bytes) / 16) % 8]++;
                for (int g = 0; g < 8; g++) assert_int_equal(groups[g], 1);
            }
        /* 16-byte stores: 8 consecutive chunks of one row -> 8 bank groups */
        for (int r = 0; r < 16; r++)
            for (int c0 = 0; c0 < chunks; c0 += 8) {
                int groups[8] = {0};
                for (int c = c0; c < c0 + 8; c++)
                    groups[(tc_swz128_offset(r, c * 8, row_bytes) / 16) % 8]++;
                for (int g = 0; g < 8; g++) assert_int_equal(groups[g], 1);
            }
    }
    /* without the swizzle the same ldmatrix would hit one bank group 8 times */
    int groups[8] = {0};
    for (int r = 0; r < 8; r++) groups[(r * 128 / 16) % 8]++;
    assert_int_equal(groups[0], 8);
}

/* ---- wgmma descriptors and the layouts they describe --------------------------------- */

/* The hardware's 128-byte swizzle of a shared-memory byte address (Swizzle<3,4,3>):
 * bits [4:6] ^= bits [7:9]. */
static uint32_t swizzle_addr(uint32_t a) { return a ^ (((a >> 7) & 7u) << 4); }

/* Where TMA (CU_TENSOR_MAP_SWIZZLE_128B) puts element (row, col) of a box with
 * 128-byte rows that starts at the 1024-byte aligned address base: the box's
 * linear layout, swizzled. Same as tc_swz128_offset (checked below). */
static uint32_t tma_addr(uint32_t base, int row, int col)
{
    return swizzle_addr(base + (uint32_t)row * 128u + (uint32_t)col * 2u);
}

static void descriptor_bit_fields(void **state)
{
    (void)state;
    uint64_t d = tc_wgmma_desc(0x12340, 8192, 1024);
    assert_true(((d & 0x3FFF) << 4) == 0x12340);
    assert_true((((d >> 16) & 0x3FFF) << 4) == 8192);
    assert_true((((d >> 32) & 0x3FFF) << 4) == 1024);
    assert_true(((d >> 49) & 7) == 0); /* base offset 0 */
    assert_true((d >> 62) == 1);       /* 128-byte swizzle */
    assert_true(((d >> 14) & 3) == 0 && ((d >> 30) & 3) == 0 && ((d >> 46) & 7) == 0 &&
                ((d >> 52) & 0x3FF) == 0);
    /* the encoding drops the low 4 bits and keeps 18 address bits */
    assert_true((tc_wgmma_desc(0x3FFF0, 16, 16) & 0x3FFF) == 0x3FFF);
    assert_true(tc_desc_encode(0x40000) == 0); /* beyond the 256 KiB window */
}

static void tma_layout_is_the_swizzle_the_kernels_use(void **state)
{
    (void)state;
    for (int r = 0; r < 64; r++)
        for (int c = 0; c < 64; c++)
            assert_int_equal(tma_addr(4096, r, c), 4096 + tc_swz128_offset(r, c, 128));
}

/* A: the K-major canonical layout ((8,m),(T,2k)):((8T,SBO),(1,T)) (T = 8 BF16)
 * from start address base + 32*kk, swizzled, must address element
 * (m, 16*kk + k) where TMA put it, for the 64 rows of each warpgroup. */
static void k_major_descriptor_reads_what_tma_wrote(void **state)
{
    (void)state;
    const uint32_t base = 3 * 16384; /* a stage: 1024-byte aligned */
    const uint32_t sbo = 1024;
    for (int wg = 0; wg < 2; wg++) {
        uint32_t rows = base + (uint32_t)wg * 64 * 128; /* the kernels' a_rows */
        for (int kk = 0; kk < TC_BK / 16; kk++) {
            uint32_t start = rows + (uint32_t)kk * 32;
            uint64_t desc = tc_wgmma_desc(start, 16, sbo);
            uint32_t d_start = (uint32_t)(desc & 0x3FFF) << 4;
            uint32_t d_sbo = (uint32_t)((desc >> 32) & 0x3FFF) << 4;
            for (int m = 0; m < 64; m++)
                for (int k = 0; k < 16; k++) {
                    uint32_t el = (uint32_t)(m % 8) * 64 + (uint32_t)(k % 8) + (uint32_t)(k / 8) * 8;
                    uint32_t addr = d_start + el * 2 + (uint32_t)(m / 8) * d_sbo;
                    assert_int_equal(swizzle_addr(addr), tma_addr(base, wg * 64 + m, kk * 16 + k));
                }
        }
    }
}

/* B: the MN-major canonical layout ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)) from
 * start address b_stage + 2048*kk, LBO = one 64-column box (8 KiB), SBO = 1024,
 * must address element (16*kk + k, n) where TMA put it: box n/64, row 16kk+k,
 * column n%64. */
static void mn_major_descriptor_reads_what_tma_wrote(void **state)
{
    (void)state;
    const uint32_t b_stage = 65536 + 2 * 32768; /* a stage: 1024-byte aligned */
    const uint32_t box_bytes = TC_BK * TC_BOX_COLS * 2;  /* the kernels' LBO */
    for (int bn = 128; bn <= 256; bn += 128)
        for (int kk = 0; kk < TC_BK / 16; kk++) {
            uint64_t desc = tc_wgmma_desc(b_stage + (uint32_t)kk * 16 * 128, box_bytes, 1024);
            uint32_t d_start = (uint32_t)(desc & 0x3FFF) << 4;
            uint32_t d_lbo = (uint32_t)((desc >> 16) & 0x3FFF) << 4;
            uint32_t d_sbo = (uint32_t)((desc >> 32) & 0x3FFF) << 4;
            for (int k = 0; k < 16; k++)
                for (int n = 0; n < bn; n++) {
                    uint32_t el = (uint32_t)(n % 8) + (uint32_t)((n / 8) % 8) * 8 + (uint32_t)(k % 8) * 64;
                    uint32_t addr = d_start + el * 2 + (uint32_t)(n / 64) * d_lbo + (uint32_t)(k / 8) * d_sbo;
                    uint32_t box = b_stage + (uint32_t)(n / 64) * box_bytes;
                    assert_int_equal(swizzle_addr(addr), tma_addr(box, kk * 16 + k, n % 64));
                }
        }
}

/* The same check fails for the wrong constants: LBO and SBO swapped, or a K
 * step of 32 bytes (the K-major advance) on the MN-major operand. */
static void mn_major_check_catches_wrong_strides(void **state)
{
    (void)state;
    const uint32_t b_stage = 0, box_bytes = TC_BK * TC_BOX_COLS * 2;
    int bad_swapped = 0, bad_step = 0;
    for (int k = 0; k < 16; k++)
        for (int n = 0; n < 256; n++) {
            uint32_t el = (uint32_t)(n % 8) + (uint32_t)((n / 8) % 8) * 8 + (uint32_t)(k % 8) * 64;
            uint32_t want = tma_addr(b_stage + (uint32_t)(n / 64) * box_bytes, 16 + k, n % 64);
            uint32_t swapped = b_stage + 2048 + el * 2 + (uint32_t)(n / 64) * 1024 + (uint32_t)(k / 8) * box_bytes;
            uint32_t step = b_stage + 32 + el * 2 + (uint32_t)(n / 64) * box_bytes + (uint32_t)(k / 8) * 1024;
            bad_swapped += swizzle_addr(swapped) != want;
            bad_step += swizzle_addr(step) != want;
        }
    assert_true(bad_swapped > 0);
    assert_true(bad_step > 0);
}

/* ---- tile order ------------------------------------------------------------------------ */

static void tile_order_is_a_bijection(void **state)
{
    (void)state;
    const int shapes[][3] = {{1, 1, 16}, {64, 32, 16}, {17, 9, 16}, {3, 5, 8}, {64, 64, 1}, {20, 7, 6}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int tm_n = shapes[s][0], tn_n = shapes[s][1], group = shapes[s][2];
        int *seen = calloc((size_t)tm_n * tn_n, sizeof(int));
        for (int t = 0; t < tm_n * tn_n; t++) {
            int tm, tn;
            tc_tile_of(t, tm_n, tn_n, group, &tm, &tn);
            assert_true(tm >= 0 && tm < tm_n && tn >= 0 && tn < tn_n);
            seen[tm * tn_n + tn]++;
        }
        for (int i = 0; i < tm_n * tn_n; i++) assert_int_equal(seen[i], 1);
        free(seen);
    }
    /* group 1 is row-major; with groups, consecutive tiles walk down a group first */
    int tm, tn;
    tc_tile_of(5, 4, 3, 1, &tm, &tn);
    assert_true(tm == 1 && tn == 2);
    tc_tile_of(1, 64, 32, 16, &tm, &tn);
    assert_true(tm == 1 && tn == 0);
    tc_tile_of(16, 64, 32, 16, &tm, &tn);
    assert_true(tm == 0 && tn == 1);
}

/* Step 17's schedule: over a grid of `grid` blocks, every K-step of every tile
 * is multiplied exactly once, by one block; whole tiles and pieces never share
 * a workspace slot; the rounds a block runs are balanced (the longest block
 * does at most the whole rounds plus one tile's K-steps); and the plan splits
 * where the last round leaves blocks idle. Returns the longest block's K-steps. */
static int check_plan(int ntiles, int grid, int nk)
{
    tc_tail_plan p = tc_tail_split(ntiles, grid, nk);
    assert_true(p.dp_tiles >= 0 && p.split_tiles >= 0 && p.pieces >= 1);
    assert_int_equal(p.dp_tiles + p.split_tiles, ntiles);
    assert_true(p.split_tiles * p.pieces <= grid); /* one piece per block: the workspace slots */
    assert_true(p.pieces <= nk);
    if (p.pieces > 1) assert_int_equal(p.dp_tiles % grid, 0);
    int *seen = calloc((size_t)ntiles * nk, sizeof(int));
    int *slot_used = calloc((size_t)grid, sizeof(int));
    int longest = 0;
    for (int b = 0; b < grid; b++) {
        tc_unit w;
        int steps = 0, u;
        for (u = 0; tc_unit_of(&p, b, u, grid, nk, &w); u++) {
            assert_true(u < ntiles + 1); /* it ends */
            assert_true(w.tile >= 0 && w.tile < ntiles);
            assert_true(w.k0 >= 0 && w.k0 < w.k1 && w.k1 <= nk); /* at least one K-step */
            if (w.slot < 0) {
                assert_true(w.tile < p.dp_tiles);
                assert_true(w.k0 == 0 && w.k1 == nk);
            } else {
                assert_true(w.tile >= p.dp_tiles);
                assert_int_equal(w.slot, b);
                slot_used[w.slot]++;
                /* the fixup reads tail tile r's pieces at slots r*pieces .. r*pieces+pieces-1 */
                assert_int_equal(w.slot / p.pieces, w.tile - p.dp_tiles);
            }
            for (int k = w.k0; k < w.k1; k++) seen[(size_t)w.tile * nk + k]++;
            steps += w.k1 - w.k0;
        }
        if (steps > longest) longest = steps;
    }
    for (size_t i = 0; i < (size_t)ntiles * nk; i++) assert_int_equal(seen[i], 1);
    for (int b = 0; b < grid; b++) assert_true(slot_used[b] <= 1);
    /* the longest block: whole rounds plus at most one more tile */
    assert_true(longest <= (ntiles / grid + 1) * nk);
    free(seen);
    free(slot_used);
    return longest;
}

static void tail_split_covers_every_k_step_once(void **state)
{
    (void)state;
    const int cases[][3] = {
        {940, 132, 63},  /* 6000x5000x4000 in 128x256 tiles: 7 rounds + 16 tiles, 8 pieces */
        {2048, 132, 128}, /* 8192^3: 15 rounds + 68 tiles: not split (132/68 = 1) */
        {512, 132, 64},  /* 4096^3: 3 rounds + 116 tiles: not split */
        {6, 132, 4},     /* 257x264x200: 6 tiles, 4 K-steps: 4 pieces each */
        {1, 132, 1},     /* 1x8x8: one K-step, nothing to split */
        {3, 2, 4},       /* the 2-block grid: 1 round + 1 tile in 2 pieces */
        {1, 2, 3},       /* 33x65x129 on 2 blocks: 2 pieces of 1 and 2 K-steps */
        {4, 2, 2},       /* no tail */
        {153, 132, 3},   /* 2100x2200x136: 21 tail tiles, pieces capped at 3 K-steps */
        {7, 3, 5},  {100, 7, 1}, {13, 5, 100}, {0 + 1, 1, 9}, {65, 64, 64},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_plan(cases[i][0], cases[i][1], cases[i][2]);
    for (int ntiles = 1; ntiles <= 40; ntiles++)
        for (int grid = 1; grid <= 12; grid++)
            for (int nk = 1; nk <= 9; nk++) check_plan(ntiles, grid, nk);
}

static void tail_split_shortens_the_last_round(void **state)
{
    (void)state;
    /* 6000x5000x4000: 16 tail tiles in 8 pieces of 7 or 8 K-steps on 128 blocks */
    tc_tail_plan p = tc_tail_split(940, 132, 63);
    assert_int_equal(p.dp_tiles, 924);
    assert_int_equal(p.split_tiles, 16);
    assert_int_equal(p.pieces, 8);
    /* the longest block runs 7 whole tiles and a piece of 8 K-steps, not 8 tiles */
    assert_int_equal(check_plan(940, 132, 63), 7 * 63 + 8);
    tc_unit w;
    assert_int_equal(tc_unit_of(&p, 127, 7, 132, 63, &w), 1);
    assert_true(w.tile == 939 && w.k0 == 55 && w.k1 == 63 && w.slot == 127);
    assert_int_equal(tc_unit_of(&p, 128, 7, 132, 63, &w), 0); /* blocks 128-131: no piece */
    assert_int_equal(tc_unit_of(&p, 0, 8, 132, 63, &w), 0);
    /* 8192^3 and 4096^3: nothing split, the schedule is step 16's */
    p = tc_tail_split(2048, 132, 128);
    assert_true(p.dp_tiles == 2048 && p.split_tiles == 0 && p.pieces == 1);
    assert_int_equal(tc_unit_of(&p, 67, 15, 132, 128, &w), 1);
    assert_int_equal(w.tile, 67 + 15 * 132);
    assert_int_equal(tc_unit_of(&p, 68, 15, 132, 128, &w), 0);
    p = tc_tail_split(512, 132, 64);
    assert_true(p.dp_tiles == 512 && p.pieces == 1);
}

static void names_are_joined(void **state)
{
    (void)state;
    const char *names[] = {"cublas", "wmma"};
    char buf[32];
    assert_int_equal(tc_join_names("all", names, 2, buf, sizeof buf), 15);
    assert_string_equal(buf, "all|cublas|wmma");
    assert_int_equal(tc_join_names("all", names, 2, buf, 10), -1);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dims_are_checked_by_name),
        cmocka_unit_test(tma_shape_rule_names_the_constraint),
        cmocka_unit_test(device_bytes_and_limits),
        cmocka_unit_test(gflops_count_two_per_mac),
        cmocka_unit_test(bf16_rounds_to_nearest_even),
        cmocka_unit_test(inputs_are_seeded_and_in_range),
        cmocka_unit_test(reference_multiplies),
        cmocka_unit_test(bound_holds_for_any_fp32_order),
        cmocka_unit_test(integer_inputs_are_exact_in_any_order),
        cmocka_unit_test(bound_factor_scales_with_k),
        cmocka_unit_test(compare_counts_mismatches),
        cmocka_unit_test(one_dropped_product_breaks_the_bound),
        cmocka_unit_test(statistical_check_passes_honest_sums_in_any_order),
        cmocka_unit_test(statistical_check_catches_one_lost_or_doubled_product),
        cmocka_unit_test(samples_see_corners_and_random_elements),
        cmocka_unit_test(tensor_map_parameters),
        cmocka_unit_test(swizzle_is_a_conflict_free_bijection),
        cmocka_unit_test(descriptor_bit_fields),
        cmocka_unit_test(tma_layout_is_the_swizzle_the_kernels_use),
        cmocka_unit_test(k_major_descriptor_reads_what_tma_wrote),
        cmocka_unit_test(mn_major_descriptor_reads_what_tma_wrote),
        cmocka_unit_test(mn_major_check_catches_wrong_strides),
        cmocka_unit_test(tile_order_is_a_bijection),
        cmocka_unit_test(tail_split_covers_every_k_step_once),
        cmocka_unit_test(tail_split_shortens_the_last_round),
        cmocka_unit_test(names_are_joined),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
