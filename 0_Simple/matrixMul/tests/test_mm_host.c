/* test_mm_host.c: matrixMul's host arithmetic (tolerances, FLOPs, sizes, names). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "mm_host.h"

static void tolerances_scale_with_k(void **state)
{
    (void)state;
    assert_true(mm_tol_fp32(1) > 1e-6 && mm_tol_fp32(1) < 1e-5);
    assert_true(fabs(mm_tol_fp32(4096) - 4112.0 / 4194304.0) < 1e-12);
    assert_true(mm_tol_fp32(8192) > mm_tol_fp32(4096));
    assert_true(fabs(mm_tol_tf32_abs(4096) - 0.25) < 1e-12);
    assert_true(mm_tol_tf32_abs(1) > mm_tol_fp32(1));
    assert_true(fabs(mm_tol_tf32_rel() - 1.0 / 256) < 1e-15);
}

static void gflops_counts_two_flops_per_mac(void **state)
{
    (void)state;
    /* 4096^3 in 2.746 ms is 50.05 TFLOP/s */
    double g = mm_gflops(4096, 4096, 4096, 2.746);
    assert_true(fabs(g - 2.0 * 4096.0 * 4096.0 * 4096.0 / 2.746e6) < 1e-6);
    assert_true(fabs(mm_gflops(1000, 1000, 1000, 1.0) - 2000.0) < 1e-9);
    assert_true(mm_gflops(1, 1, 1, 0.0) == 0.0);
    assert_true(mm_gflops(1, 1, 1, -1.0) == 0.0);
}

static void dims_are_checked_by_name(void **state)
{
    (void)state;
    char err[160];
    assert_int_equal(mm_check_dim("m", 1, err, sizeof err), 0);
    assert_int_equal(mm_check_dim("m", MM_MAX_DIM, err, sizeof err), 0);
    assert_int_equal(mm_check_dim("k", 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "--k=0"));
    assert_int_equal(mm_check_dim("n", MM_MAX_DIM + 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "--n="));
    assert_int_equal(mm_check_dim("n", -3, err, sizeof err), -1);
}

static void device_bytes_and_limits(void **state)
{
    (void)state;
    char err[200];
    /* 4096^3: A, B, C, C0 = 4 * 64 MiB */
    assert_true(mm_device_bytes(4096, 4096, 4096, 1ULL << 40, err, sizeof err) ==
                (size_t)4 * 4096 * 4096 * 4);
    assert_true(mm_device_bytes(1, 1, 1, 1ULL << 40, err, sizeof err) == 16);
    assert_true(mm_device_bytes(33, 65, 129, 1ULL << 40, err, sizeof err) ==
                (size_t)4 * (33 * 129 + 129 * 65 + 2 * 33 * 65));
    assert_true(mm_device_bytes(32768, 32768, 32768, 1ULL << 30, err, sizeof err) == 0);
    assert_non_null(strstr(err, "--m=32768"));
    assert_true(mm_device_bytes(0, 5, 5, 1ULL << 40, err, sizeof err) == 0);
    assert_true(mm_device_bytes(40000, 5, 5, 1ULL << 40, err, sizeof err) == 0);
}

static void names_join_with_bars(void **state)
{
    (void)state;
    const char *names[] = {"cublas", "naive", "smem_tile32"};
    char buf[64];
    assert_int_equal(mm_join_names("all", names, 3, buf, sizeof buf),
                     (int)strlen("all|cublas|naive|smem_tile32"));
    assert_string_equal(buf, "all|cublas|naive|smem_tile32");
    assert_int_equal(mm_join_names(NULL, names, 2, buf, sizeof buf), 12);
    assert_string_equal(buf, "cublas|naive");
    char small[10];
    assert_int_equal(mm_join_names("all", names, 3, small, sizeof small), -1);
    assert_string_equal(small, "");
    assert_int_equal(mm_join_names("all", names, 0, buf, sizeof buf), 3);
    assert_string_equal(buf, "all");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tolerances_scale_with_k),
        cmocka_unit_test(gflops_counts_two_flops_per_mac),
        cmocka_unit_test(dims_are_checked_by_name),
        cmocka_unit_test(device_bytes_and_limits),
        cmocka_unit_test(names_join_with_bars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
