/* test_check.c: tolerance logic (NaN, inf, denormals), exact compares, poison. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"

static void within_abs_plus_rel(void **state)
{
    (void)state;
    assert_true(close_enough(1.0, 1.0, 0, 0));
    assert_true(close_enough(1.0 + 1e-7, 1.0, 0, 1e-6));
    assert_false(close_enough(1.0 + 1e-5, 1.0, 0, 1e-6));
    assert_true(close_enough(1e-9, 0.0, 1e-8, 0));      /* abs part near zero */
    assert_false(close_enough(1e-7, 0.0, 1e-8, 1e-3));  /* rel of zero is zero */
    /* the bound is abs + rel*|ref|, inclusive */
    assert_true(close_enough(1.5, 1.0, 0.25, 0.25));
    assert_false(close_enough(1.5000001, 1.0, 0.25, 0.25));
    /* relative to the reference, not to the result */
    assert_true(close_enough(-100.5, -100.0, 0, 0.005));
}

static void nan_never_passes(void **state)
{
    (void)state;
    assert_false(close_enough(NAN, 1.0, 1e30, 1e30));
    assert_false(close_enough(1.0, NAN, 1e30, 1e30));
    assert_false(close_enough(NAN, NAN, 1e30, 1e30));
    float got[3] = {1, NAN, 3}, ref[3] = {1, 2, 3};
    assert_int_equal(check_close_f32("x", got, ref, 3, 1e30, 1e30), 1);
}

static void infinities_match_only_themselves(void **state)
{
    (void)state;
    assert_true(close_enough(INFINITY, INFINITY, 0, 0));
    assert_true(close_enough(-INFINITY, -INFINITY, 0, 0));
    assert_false(close_enough(INFINITY, -INFINITY, 1e30, 1e30));
    assert_false(close_enough(INFINITY, 1e38, 1e30, 1e30));   /* huge tolerance, still no */
    assert_false(close_enough(FLT_MAX, INFINITY, 1e30, 1e30));
}

static void denormals_are_small_numbers(void **state)
{
    (void)state;
    float d = FLT_TRUE_MIN * 4;      /* a float denormal */
    assert_true(isfinite(d) && d > 0 && d < FLT_MIN);
    assert_true(close_enough(d, 0.0, 1e-30, 0));      /* absorbed by abs_tol */
    assert_false(close_enough(d, 0.0, 0, 1.0));       /* not by rel of zero */
    assert_true(close_enough(d, d, 0, 0));
    assert_true(close_enough(d, 2 * d, 0, 0.5));      /* |d - 2d| = d <= 0.5*2d */
    assert_false(close_enough(d, 3 * d, 0, 0.5));
}

static void counts_mismatches_in_arrays(void **state)
{
    (void)state;
    float ref[6] = {1, 2, 3, 4, 5, 6};
    float got[6] = {1, 2.1f, 3, 4, 5, 7};
    assert_int_equal(check_close_f32("c", got, ref, 6, 0, 0.01), 2);
    assert_int_equal(check_close_f32("c", got, ref, 6, 1.0, 0), 0);
    double refd[2] = {1.0, 1e300};
    double gotd[2] = {1.0, 1e300 * (1 + 1e-12)};
    assert_int_equal(check_close_f64("d", gotd, refd, 2, 0, 1e-11), 0);
    assert_int_equal(check_close_f64("d", gotd, refd, 2, 0, 1e-13), 1);
    /* float output against double reference */
    double r64[2] = {0.1, 1.0 / 3.0};
    float g32[2] = {0.1f, 1.0f / 3.0f};
    assert_int_equal(check_close_f32_f64("m", g32, r64, 2, 0, 1e-7), 0);
    assert_int_equal(check_close_f32_f64("m", g32, r64, 2, 0, 1e-9), 2);
    assert_int_equal(check_close_f32("empty", got, ref, 0, 0, 0), 0);
}

static void integers_match_exactly(void **state)
{
    (void)state;
    unsigned a[4] = {0, 1, 0xFFFFFFFFu, 7}, b[4] = {0, 1, 0xFFFFFFFFu, 7};
    assert_int_equal(check_exact_u32("h", a, b, 4), 0);
    b[3] = 8;
    assert_int_equal(check_exact_u32("h", a, b, 4), 1);
    int ia[3] = {-1, 0, 5}, ib[3] = {-1, 0, 6};
    assert_int_equal(check_exact_i32("i", ia, ib, 3), 1);
    long long la[2] = {1LL << 40, -3}, lb[2] = {(1LL << 40) + 1, -3};
    assert_int_equal(check_exact_i64("l", la, lb, 2), 1);
}

static void poison_makes_nan_and_all_ones(void **state)
{
    (void)state;
    float f[4];
    unsigned u[4];
    poison_host(f, sizeof f);
    poison_host(u, sizeof u);
    for (int i = 0; i < 4; i++) {
        assert_true(isnan(f[i]));
        assert_true(u[i] == 0xFFFFFFFFu);
    }
    /* a poisoned (unwritten) output always fails the check */
    float ref[4] = {0, 0, 0, 0};
    assert_int_equal(check_close_f32("p", f, ref, 4, 1e30, 1e30), 4);
}

static void sum_tolerance_grows_with_n(void **state)
{
    (void)state;
    assert_true(tol_sum_rel(1) >= 1e-6);
    assert_true(tol_sum_rel(1 << 20) > tol_sum_rel(1 << 10));
    assert_true(tol_sum_rel(1 << 28) < 0.02); /* 8 eps sqrt(2^28) = 0.0156 */
}

/* An intact guard (all 0xFF) passes; a single byte changed anywhere in it,
 * first or last, is a write past the end and counts. */
static void guard_untouched_passes(void **state)
{
    (void)state;
    unsigned char g[256];
    memset(g, 0xFF, sizeof g);
    assert_int_equal(check_guard_host("t", g, sizeof g), 0);
}

static void guard_sees_one_byte_written_past_the_end(void **state)
{
    (void)state;
    unsigned char g[256];
    memset(g, 0xFF, sizeof g);
    g[0] = 0x00;
    assert_int_equal(check_guard_host("t", g, sizeof g), 1);
    g[0] = 0xFF;
    g[255] = 0xFE;
    assert_int_equal(check_guard_host("t", g, sizeof g), 1);
    memset(g, 0, 16);   /* a float4 store of zeros right after the end */
    assert_int_equal(check_guard_host("t", g, sizeof g), 17);
    assert_true(CHECK_GUARD_BYTES >= 1024 * 16);  /* a 1024-thread block of float4 stores */
}

/* The byte pattern of copy checks (bandwidthTest, p2pBandwidthLatencyTest). */
static void byte_pattern_round_trip_and_mismatch(void **state)
{
    (void)state;
    size_t sizes[] = {1, 3, 8, 13, 4097, (1 << 20) + 7};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        unsigned char *b = (unsigned char *)malloc(n);
        assert_non_null(b);
        byte_pattern_fill(b, n, 2026, 5);
        assert_int_equal(byte_pattern_check("t", b, n, 2026, 5), 0);
        for (size_t j = 0; j < n; j += 997) assert_int_equal(b[j], byte_pattern_byte(2026, 5, j));
        /* another stream or seed is a different pattern */
        if (n >= 8) {
            assert_true(byte_pattern_check("other stream", b, n, 2026, 6) > 0);
            assert_true(byte_pattern_check("other seed", b, n, 1, 5) > 0);
        }
        /* a wrong last byte (the tail) and a poisoned copy are caught */
        b[n - 1] ^= 0x40;
        assert_int_equal(byte_pattern_check("tail", b, n, 2026, 5), 1);
        memset(b, 0xFF, n);
        assert_true(byte_pattern_check("poisoned", b, n, 2026, 5) > 0);
        free(b);
    }
}

static void byte_pattern_counts_each_wrong_byte(void **state)
{
    (void)state;
    size_t n = 1003;   /* not a multiple of 8 */
    unsigned char *p = malloc(n);
    byte_pattern_fill(p, n, 2026, 7);
    assert_int_equal(byte_pattern_check("t", p, n, 2026, 7), 0);
    for (size_t j = 0; j < n; j++) assert_int_equal(p[j], byte_pattern_byte(2026, 7, j));
    p[1002] ^= 1;   /* the tail byte */
    p[5] ^= 0x80;
    assert_int_equal(byte_pattern_check("t", p, n, 2026, 7), 2);
    /* another stream or seed is a different pattern almost everywhere */
    byte_pattern_fill(p, n, 2026, 7);
    assert_true(byte_pattern_check("t", p, n, 2026, 8) > n / 2);
    assert_true(byte_pattern_check("t", p, n, 2027, 7) > n / 2);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(within_abs_plus_rel),
        cmocka_unit_test(nan_never_passes),
        cmocka_unit_test(infinities_match_only_themselves),
        cmocka_unit_test(denormals_are_small_numbers),
        cmocka_unit_test(counts_mismatches_in_arrays),
        cmocka_unit_test(integers_match_exactly),
        cmocka_unit_test(poison_makes_nan_and_all_ones),
        cmocka_unit_test(sum_tolerance_grows_with_n),
        cmocka_unit_test(guard_untouched_passes),
        cmocka_unit_test(guard_sees_one_byte_written_past_the_end),
        cmocka_unit_test(byte_pattern_round_trip_and_mismatch),
        cmocka_unit_test(byte_pattern_counts_each_wrong_byte),
    };
    return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
