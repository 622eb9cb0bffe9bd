/* test_reduce_ref.c: the host side of the reduction samples: type parsing,
 * the streamed reference against common/cpu_ref.c's sums over a stored array,
 * the tolerance, the check, and the stress-size sequence. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpu_ref.h"
#include "reduce_input.h"
#include "reduce_ref.h"

static void test_types(void **state)
{
    (void)state;
    red_type t;
    assert_int_equal(red_type_parse("float", &t), 0);
    assert_int_equal(t, RED_FLOAT);
    assert_int_equal(red_type_parse("double", &t), 0);
    assert_int_equal(t, RED_DOUBLE);
    assert_int_equal(red_type_parse("int", &t), 0);
    assert_int_equal(t, RED_INT);
    assert_int_equal(red_type_parse("half", &t), -1);
    assert_int_equal(red_type_parse("", &t), -1);
    assert_int_equal(red_type_parse(NULL, &t), -1);
    assert_string_equal(red_type_name(RED_DOUBLE), "double");
    assert_int_equal(red_type_size(RED_FLOAT), 4);
    assert_int_equal(red_type_size(RED_DOUBLE), 8);
    assert_int_equal(red_type_size(RED_INT), 4);
    assert_int_equal(red_acc_size(RED_FLOAT), 4);
    assert_int_equal(red_acc_size(RED_INT), 8);
}

static void test_inputs_in_range(void **state)
{
    (void)state;
    int seen_min = 0, seen_max = 0;
    for (uint64_t i = 0; i < 200000; i++) {
        float f = red_input_f32(7, i);
        double d = red_input_f64(7, i);
        int k = red_input_i32(7, i);
        assert_true(f >= -1.0f && f < 1.0f);
        assert_true(d >= -1.0 && d < 1.0);
        assert_true(k >= -100 && k <= 100);
        seen_min |= k == -100;
        seen_max |= k == 100;
    }
    assert_true(seen_min && seen_max);
    /* Reproducible, and different seeds give different data. */
    assert_true(red_input_f32(1, 5) == red_input_f32(1, 5));
    assert_true(red_input_f32(1, 5) != red_input_f32(2, 5));
}

/* The streamed reference equals the stored-array sums of common/cpu_ref.c. */
static void test_prefixes_match_stored_sums(void **state)
{
    (void)state;
    const size_t n = 100003;
    float *f = malloc(n * sizeof *f);
    double *d = malloc(n * sizeof *d);
    int *k = malloc(n * sizeof *k);
    assert_non_null(f);
    assert_non_null(d);
    assert_non_null(k);
    for (size_t i = 0; i < n; i++) {
        f[i] = red_input_f32(42, i);
        d[i] = red_input_f64(42, i);
        k[i] = red_input_i32(42, i);
    }
    const size_t stops[] = {n, 1, 33, 2, 1000, 31, 1000};   /* any order, duplicates */
    const int ns = (int)(sizeof stops / sizeof stops[0]);
    red_ref rf[7], rd[7], ri[7];
    red_ref_prefixes(RED_FLOAT, 42, stops, ns, rf);
    red_ref_prefixes(RED_DOUBLE, 42, stops, ns, rd);
    red_ref_prefixes(RED_INT, 42, stops, ns, ri);
    for (int s = 0; s < ns; s++) {
        size_t m = stops[s];
        assert_int_equal(rf[s].n, m);
        assert_true(fabs(rf[s].sum - cpu_sum_f32(f, m)) <= 1e-9);
        assert_true(fabs(rd[s].sum - cpu_sum_f64(d, m)) <= 1e-9);
        assert_true(ri[s].isum == cpu_sum_i32(k, m));
        double a = 0;
        for (size_t i = 0; i < m; i++) a += fabs(f[i]);
        assert_true(fabs(rf[s].abs_sum - a) <= 1e-6 * a + 1e-12);
    }
    /* n = 1: the sum is the element itself. */
    assert_true(rf[1].sum == (double)f[0]);
    assert_true(ri[1].isum == k[0]);
    free(f);
    free(d);
    free(k);
}

static void test_tolerance(void **state)
{
    (void)state;
    /* Scales with sqrt(n) and with sum|x|; zero for int. */
    double t1 = red_tol(RED_FLOAT, 1u << 20, 1000.0);
    double t2 = red_tol(RED_FLOAT, 1u << 22, 1000.0);
    assert_true(fabs(t2 / t1 - 2.0) < 1e-9);
    assert_true(fabs(red_tol(RED_FLOAT, 1u << 20, 2000.0) / t1 - 2.0) < 1e-9);
    assert_true(red_tol(RED_DOUBLE, 1u << 20, 1000.0) < t1 * 1e-8);
    assert_true(red_tol(RED_INT, 1u << 20, 1000.0) == 0.0);
    assert_true(fabs(red_tol(RED_FLOAT, 1u << 20, 1000.0) -
                     8.0 * FLT_EPSILON * 1024.0 * 1000.0) < 1e-9);
}

static void test_check(void **state)
{
    (void)state;
    char msg[256];
    red_ref r = {1000, 12.5, 500.0, 0};
    double tol = red_tol(RED_FLOAT, 1000, 500.0);
    assert_int_equal(red_check(RED_FLOAT, &r, 12.5, 0, msg, sizeof msg), 1);
    assert_int_equal(red_check(RED_FLOAT, &r, 12.5 + 0.5 * tol, 0, msg, sizeof msg), 1);
    assert_int_equal(red_check(RED_FLOAT, &r, 12.5 + 2.0 * tol, 0, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "n=1000"));
    assert_int_equal(red_check(RED_FLOAT, &r, NAN, 0, msg, sizeof msg), 0);
    assert_int_equal(red_check(RED_DOUBLE, &r, INFINITY, 0, msg, sizeof msg), 0);
    red_ref ri = {33, -17.0, 900.0, -17};
    assert_int_equal(red_check(RED_INT, &ri, 0, -17, msg, sizeof msg), 1);
    assert_int_equal(red_check(RED_INT, &ri, 0, -18, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "off by -1"));
    assert_int_equal(red_check(RED_INT, &ri, 0, -1, msg, sizeof msg), 0);   /* poison */
}

static void test_stress_sizes(void **state)
{
    (void)state;
    const size_t max_n = (size_t)1 << 28;
    int small = 0, large = 0;
    for (uint64_t k = 0; k < 4000; k++) {
        size_t s = red_stress_size(9, k, max_n);
        assert_true(s >= 1 && s <= max_n);
        assert_true(s == red_stress_size(9, k, max_n));
        small += s < 256;
        large += s > (max_n >> 4);
    }
    /* Log-uniform: about 8/28 of the sizes under 256, 4/28 over max/16. */
    assert_true(small > 700 && small < 1600);
    assert_true(large > 300 && large < 900);
    for (uint64_t k = 0; k < 100; k++) assert_int_equal(red_stress_size(9, k, 1), 1);
    for (uint64_t k = 0; k < 1000; k++) assert_true(red_stress_size(3, k, 2) <= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_inputs_in_range),
        cmocka_unit_test(test_prefixes_match_stored_sums),
        cmocka_unit_test(test_tolerance),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_stress_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
