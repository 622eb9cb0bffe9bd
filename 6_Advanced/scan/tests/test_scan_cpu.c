/* test_scan_cpu.c: scan's host code on the CPU (make test builds and runs
 * every <folder>/tests/test_*.c with cmocka): the inputs, the CPU baseline
 * and the checks every GPU result goes through. Each check is shown to fail
 * on a planted error, so a check that cannot fail would show here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "scan_cpu.h"

static void int_inputs_nonzero_in_range(void **state)
{
    (void)state;
    int seen_neg = 0, seen_pos = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        int v = scan_input_i32(2026, i);
        assert_true(v != 0);
        assert_true(v >= -8 && v <= 8);
        seen_neg |= v < 0;
        seen_pos |= v > 0;
    }
    assert_true(seen_neg && seen_pos);
}

static void float_inputs_in_unit_interval(void **state)
{
    (void)state;
    for (uint64_t i = 0; i < 100000; i++) {
        float v = scan_input_f32(2026, i);
        assert_true(v >= 0.0f && v < 1.0f);
    }
}

static void cpu_scans_both_kinds(void **state)
{
    (void)state;
    const int in[5] = {3, -1, 4, -1, 5};
    int inc[6] = {0, 0, 0, 0, 0, -42}, exc[6] = {0, 0, 0, 0, 0, -42};
    scan_cpu_i32(in, inc, 5, 0);
    scan_cpu_i32(in, exc, 5, 1);
    const int want_inc[5] = {3, 2, 6, 5, 10}, want_exc[5] = {0, 3, 2, 6, 5};
    assert_memory_equal(inc, want_inc, sizeof want_inc);
    assert_memory_equal(exc, want_exc, sizeof want_exc);
    assert_int_equal(inc[5], -42);   /* nothing written past n */
    assert_int_equal(exc[5], -42);
    const float fin[3] = {0.5f, 0.25f, 1.0f};
    float finc[3], fexc[3];
    scan_cpu_f32(fin, finc, 3, 0);
    scan_cpu_f32(fin, fexc, 3, 1);
    assert_true(finc[0] == 0.5f && finc[1] == 0.75f && finc[2] == 1.75f);
    assert_true(fexc[0] == 0.0f && fexc[1] == 0.5f && fexc[2] == 0.75f);
}

static void int_check_passes_right_fails_wrong(void **state)
{
    (void)state;
    enum { N = 3000 };
    static int in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = scan_input_i32(7, (uint64_t)i);
    for (int kind = 0; kind < 2; kind++) {
        scan_cpu_i32(in, out, N, kind);
        assert_int_equal(scan_check_i32("test", in, out, N, kind), 0);
        /* the other kind is wrong everywhere */
        assert_int_equal(scan_check_i32("test", in, out, N, !kind), N);
        out[1234] += 1;                  /* one element off by one */
        assert_int_equal(scan_check_i32("test", in, out, N, kind), 1);
        out[1234] -= 1;
        out[N - 1] = -1;                 /* the poison of an unwritten output */
        assert_true(scan_check_i32("test", in, out, N, kind) >= 1);
    }
}

static void int_check_refuses_overflowing_input(void **state)
{
    (void)state;
    const int in[3] = {INT_MAX, 1, 1};
    int out[3] = {INT_MAX, INT_MIN, INT_MIN + 1};   /* what a wrapping GPU would write */
    assert_int_equal(scan_check_i32("test", in, out, 3, 0), 2);
}

static void float_check_tolerance(void **state)
{
    (void)state;
    enum { N = 5000 };
    static float in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = scan_input_f32(7, (uint64_t)i);
    for (int kind = 0; kind < 2; kind++) {
        scan_cpu_f32(in, out, N, kind);
        assert_int_equal(scan_check_f32("test", in, out, N, kind), 0);
        const float keep = out[4000];
        out[4000] = keep * (float)(1.0 + 0.5 * scan_tol_f32(N));   /* inside the tolerance */
        assert_int_equal(scan_check_f32("test", in, out, N, kind), 0);
        out[4000] = keep * (float)(1.0 + 4.0 * scan_tol_f32(N));   /* outside */
        assert_int_equal(scan_check_f32("test", in, out, N, kind), 1);
        out[4000] = NAN;
        assert_int_equal(scan_check_f32("test", in, out, N, kind), 1);
        out[4000] = keep;
        out[10] += 1.0f;                 /* a lost or doubled element early on */
        assert_int_equal(scan_check_f32("test", in, out, N, kind), 1);
        out[10] -= 1.0f;
    }
}

static void float_tolerance_grows_with_n(void **state)
{
    (void)state;
    double prev = 0;
    for (size_t n = 1; n <= ((size_t)1 << 34); n *= 4) {
        double t = scan_tol_f32(n);
        assert_true(t > prev);
        prev = t;
    }
    /* the values the comment in scan_cpu.c quotes */
    assert_true(fabs(scan_tol_f32((size_t)1 << 28) - 4.9e-4) < 0.05e-4);
    assert_true(fabs(scan_tol_f32(1000) - 1.7e-6) < 0.05e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(int_inputs_nonzero_in_range),
        cmocka_unit_test(float_inputs_in_unit_interval),
        cmocka_unit_test(cpu_scans_both_kinds),
        cmocka_unit_test(int_check_passes_right_fails_wrong),
        cmocka_unit_test(int_check_refuses_overflowing_input),
        cmocka_unit_test(float_check_tolerance),
        cmocka_unit_test(float_tolerance_grows_with_n),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
