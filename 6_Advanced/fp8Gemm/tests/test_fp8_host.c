/* test_fp8_host.c: fp8Gemm's host code on the CPU: the e4m3 and BF16
 * conversions, the reference GEMM, the compare and its bound, the tile
 * order, the wgmma descriptor and the shape rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "fp8_host.h"

/* Known codes: 1.0 is exponent 7, mantissa 0; 448 the largest; 2^-9 the
 * smallest subnormal; 0x7F and 0xFF are NaN. */
static void decode_known_values(void **state)
{
    (void)state;
    assert_true(fp8_e4m3_to_float(0x38) == 1.0f);
    assert_true(fp8_e4m3_to_float(0xB8) == -1.0f);
    assert_true(fp8_e4m3_to_float(0x7E) == 448.0f);
    assert_true(fp8_e4m3_to_float(0x01) == 1.0f / 512.0f);
    assert_true(fp8_e4m3_to_float(0x08) == 1.0f / 64.0f);
    assert_true(fp8_e4m3_to_float(0x3C) == 1.5f);
    assert_true(fp8_e4m3_to_float(0x00) == 0.0f);
    assert_true(isnan(fp8_e4m3_to_float(0x7F)));
    assert_true(isnan(fp8_e4m3_to_float(0xFF)));
}

/* Every finite code survives decode then encode (negative zero included). */
static void every_code_round_trips(void **state)
{
    (void)state;
    for (int v = 0; v < 256; v++) {
        if ((v & 0x7F) == 0x7F) continue;
        uint8_t back = fp8_e4m3_from_float(fp8_e4m3_to_float((uint8_t)v));
        assert_int_equal(back, v);
    }
}

/* Halfway cases round to the even mantissa; beyond 448 saturates; the
 * subnormal range rounds in steps of 2^-9. */
static void encode_rounds_to_nearest_even(void **state)
{
    (void)state;
    assert_int_equal(fp8_e4m3_from_float(1.0625f), 0x38);  /* 1 + 1/16: tie, to 1.0 (even) */
    assert_int_equal(fp8_e4m3_from_float(1.1875f), 0x3A);  /* 1 + 3/16: tie, to 1.25 */
    assert_int_equal(fp8_e4m3_from_float(1.07f), 0x39);    /* above the tie: 1.125 */
    assert_int_equal(fp8_e4m3_from_float(1.96875f), 0x40); /* tie 1.875/2: to 2 (carry) */
    assert_int_equal(fp8_e4m3_from_float(500.0f), 0x7E);
    assert_int_equal(fp8_e4m3_from_float(-1e9f), 0xFE);
    assert_int_equal(fp8_e4m3_from_float(1.5f / 512.0f), 0x02); /* tie 1/2 subnormal: to 2 */
    assert_int_equal(fp8_e4m3_from_float(0.4f / 512.0f), 0x00);
    assert_int_equal(fp8_e4m3_from_float(7.6f / 512.0f), 0x08);  /* rounds up into the normals */
    assert_int_equal(fp8_e4m3_from_float(NAN), 0x7F);
}

/* Against a brute-force nearest search over all finite codes, on a sweep. */
static void encode_matches_brute_force(void **state)
{
    (void)state;
    for (int i = 0; i < 200000; i++) {
        float x = ldexpf((float)(i % 1000) / 1000.0f + 1.0f, i / 1000 % 30 - 15) * ((i & 1) ? -1 : 1);
        if (fabsf(x) > FP8_E4M3_MAX) continue;
        uint8_t got = fp8_e4m3_from_float(x);
        double best = 1e30;
        int code = -1;
        for (int v = 0; v < 256; v++) {
            if ((v & 0x7F) == 0x7F) continue;
            double d = fabs((double)fp8_e4m3_to_float((uint8_t)v) - x);
            /* ties: the even code (mantissa's last bit 0) wins */
            if (d < best || (d == best && (v & 1) == 0 && (code & 1))) {
                if (d == best && ((v ^ code) & 0x80)) continue; /* +0 / -0 */
                best = d;
                code = v;
            }
        }
        assert_true(fabs((double)fp8_e4m3_to_float(got) - x) == best);
    }
}

static void bf16_rounding(void **state)
{
    (void)state;
    assert_int_equal(bf16_from_float(1.0f), 0x3F80);
    assert_true(bf16_to_float(0x3F80) == 1.0f);
    assert_int_equal(bf16_from_float(257.0f), 0x4380);   /* tie between 256 and 258: to 256 */
    assert_int_equal(bf16_from_float(259.0f), 0x4382);   /* tie between 258 and 260: to 260 */
    assert_int_equal(bf16_from_float(257.5f), 0x4381);   /* above the tie: 258 */
}

/* A 2 x 3 x 2 product by hand, with a scale. */
static void gemm_ref_small(void **state)
{
    (void)state;
    const float a[6] = {1, 2, -1, 0.5f, 3, 4};      /* M=2, K=3 */
    const float b[6] = {1, 0, 2, -2, 1, 0.25f};     /* N=2, K=3 */
    uint8_t A[6], B[6];
    for (int i = 0; i < 6; i++) {
        A[i] = fp8_e4m3_from_float(a[i]);
        B[i] = fp8_e4m3_from_float(b[i]);
    }
    double ref[4];
    fp8_gemm_ref(2, 2, 3, A, B, 2.0, ref);
    assert_true(ref[0] == 2.0 * (1 - 2 + 0));
    assert_true(ref[1] == 2.0 * (-2 + 2 - 0.25));
    assert_true(ref[2] == 2.0 * (0.5 + 0 + 8));
    assert_true(ref[3] == 2.0 * (-1 + 3 + 1));
    assert_true(fp8_dot_ref(3, A, B, 1, 0, 2.0) == ref[2]);
}

/* The exact compare takes the reference rounded to BF16 and nothing else:
 * one ulp off fails; the statistical one takes 2^-8 |r| plus the
 * accumulation term, and NaN never passes. */
static void compare_catches_what_it_should(void **state)
{
    (void)state;
    const double ref[3] = {257.0, -3.0, 1000.0};
    uint16_t got[3] = {bf16_from_float(256.0f), bf16_from_float(-3.0f), bf16_from_float(1000.0f)};
    fp8_err e;
    assert_int_equal(fp8_compare("t", got, ref, NULL, 3, 3, 16, 1, 100.0, &e), 0);
    got[1] = (uint16_t)(got[1] + 1);
    assert_int_equal(fp8_compare("t", got, ref, NULL, 3, 3, 16, 1, 100.0, &e), 1);
    /* statistical: K = 16, rms 100: bound 2^-8 + FP8_STAT_C * 4 * 2^-14 * 100
     * (0.199 with FP8_STAT_C = 8); half of it passes, one and a half fails */
    const double r1[1] = {1.0}, bound1 = 1.0 / 256 + FP8_STAT_C * 4.0 / 16384 * 100.0;
    uint16_t g1[1] = {bf16_from_float((float)(1.0 + 0.5 * bound1))};
    assert_int_equal(fp8_compare("t", g1, r1, NULL, 1, 1, 16, 0, 100.0, &e), 0);
    g1[0] = bf16_from_float((float)(1.0 + 1.5 * bound1));
    assert_int_equal(fp8_compare("t", g1, r1, NULL, 1, 1, 16, 0, 100.0, &e), 1);
    g1[0] = 0xFFFF; /* NaN: the poison */
    assert_int_equal(fp8_compare("t", g1, r1, NULL, 1, 1, 16, 0, 100.0, &e), 1);
    /* sampled positions: got[idx[s]] against ref[s] */
    const size_t idx[1] = {2};
    const double r2[1] = {1000.0};
    assert_int_equal(fp8_compare("t", got, r2, idx, 1, 3, 16, 1, 100.0, &e), 0);
    assert_int_equal(fp8_compare_bf16("t", got, got, 3, 3, 16, 1.0), 0);
    uint16_t other[3] = {got[0], got[1], bf16_from_float(1010.0f)};
    assert_int_equal(fp8_compare_bf16("t", other, got, 3, 3, 16, 1.0), 1);
}

/* Every tile exactly once, for shapes whose last group is short. */
static void tile_order_is_a_bijection(void **state)
{
    (void)state;
    const int shapes[][3] = {{1, 1, 16}, {17, 9, 16}, {64, 32, 16}, {33, 5, 8}, {3, 7, 16}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int tm_n = shapes[s][0], tn_n = shapes[s][1], group = shapes[s][2];
        char *seen = calloc((size_t)tm_n * tn_n, 1);
        for (int t = 0; t < tm_n * tn_n; t++) {
            int tm, tn;
            fp8_tile_of(t, tm_n, tn_n, group, &tm, &tn);
            assert_true(tm >= 0 && tm < tm_n && tn >= 0 && tn < tn_n);
            assert_int_equal(seen[tm * tn_n + tn], 0);
            seen[tm * tn_n + tn] = 1;
        }
        free(seen);
    }
}

static void descriptor_fields(void **state)
{
    (void)state;
    uint64_t d = fp8_wgmma_desc(0x12340, 16, 1024);
    assert_int_equal(d & 0x3FFF, 0x12340 >> 4);
    assert_int_equal((d >> 16) & 0x3FFF, 1);
    assert_int_equal((d >> 32) & 0x3FFF, 64);
    assert_int_equal(d >> 62, 1);
}

static void shape_rule(void **state)
{
    (void)state;
    char why[300];
    assert_int_equal(fp8_tma_shape_ok(16, why, sizeof why), 1);
    assert_int_equal(fp8_tma_shape_ok(8192, why, sizeof why), 1);
    assert_int_equal(fp8_tma_shape_ok(100, why, sizeof why), 0);
    assert_non_null(strstr(why, "multiple of 16"));
}

/* The integer inputs are in {-2..2} and the real ones in [-1, 1]. */
static void fill_ranges(void **state)
{
    (void)state;
    uint8_t x[4096];
    int seen[5] = {0};
    fp8_fill(x, 64, 64, FP8_DATA_INT, 7, 1);
    for (int i = 0; i < 4096; i++) {
        float v = fp8_e4m3_to_float(x[i]);
        assert_true(v == rintf(v) && v >= -2 && v <= 2);
        seen[(int)v + 2]++;
    }
    for (int i = 0; i < 5; i++) assert_true(seen[i] > 600);
    fp8_fill(x, 64, 64, FP8_DATA_REAL, 7, 1);
    for (int i = 0; i < 4096; i++) assert_true(fabsf(fp8_e4m3_to_float(x[i])) <= 1.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decode_known_values),
        cmocka_unit_test(every_code_round_trips),
        cmocka_unit_test(encode_rounds_to_nearest_even),
        cmocka_unit_test(encode_matches_brute_force),
        cmocka_unit_test(bf16_rounding),
        cmocka_unit_test(gemm_ref_small),
        cmocka_unit_test(compare_catches_what_it_should),
        cmocka_unit_test(tile_order_is_a_bijection),
        cmocka_unit_test(descriptor_fields),
        cmocka_unit_test(shape_rule),
        cmocka_unit_test(fill_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
