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

/* mm_tile_of: every block gets a different tile and every tile is covered
 * (a duplicate would leave a tile of C unwritten), in the promised order. */
static void tile_order_is_a_permutation(void **state)
{
    (void)state;
    static const int dims[][2] = {{1, 1}, {1, 7}, {7, 1}, {3, 3}, {8, 8}, {9, 5},
                                  {17, 3}, {32, 32}, {33, 10}, {256, 256}};
    static const int groups[] = {0, 1, 2, 3, 8, 16, 300};
    static unsigned char seen[256 * 256];
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
            int tm_n = dims[d][0], tn_n = dims[d][1];
            memset(seen, 0, sizeof seen);
            for (int pid = 0; pid < tm_n * tn_n; pid++) {
                int tm = -1, tn = -1;
                mm_tile_of(pid, tm_n, tn_n, groups[g], &tm, &tn);
                assert_true(tm >= 0 && tm < tm_n && tn >= 0 && tn < tn_n);
                assert_int_equal(seen[tm * tn_n + tn], 0);
                seen[tm * tn_n + tn] = 1;
                if (groups[g] <= 1) { /* row by row, like a 2D grid */
                    assert_int_equal(tm, pid / tn_n);
                    assert_int_equal(tn, pid % tn_n);
                }
            }
        }
}

static void tile_order_groups_rows(void **state)
{
    (void)state;
    /* 5 x 4 tiles, bands of 2 rows: rows 0-1 column by column, then rows
     * 2-3, then the last band of one row (4) left to right. */
    static const int want[20][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}, {0, 3},
                                    {1, 3}, {2, 0}, {3, 0}, {2, 1}, {3, 1}, {2, 2}, {3, 2},
                                    {2, 3}, {3, 3}, {4, 0}, {4, 1}, {4, 2}, {4, 3}};
    for (int pid = 0; pid < 20; pid++) {
        int tm, tn;
        mm_tile_of(pid, 5, 4, 2, &tm, &tn);
        assert_int_equal(tm, want[pid][0]);
        assert_int_equal(tn, want[pid][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tolerances_scale_with_k),
        cmocka_unit_test(gflops_counts_two_flops_per_mac),
        cmocka_unit_test(dims_are_checked_by_name),
        cmocka_unit_test(device_bytes_and_limits),
        cmocka_unit_test(names_join_with_bars),
        cmocka_unit_test(tile_order_is_a_permutation),
        cmocka_unit_test(tile_order_groups_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
