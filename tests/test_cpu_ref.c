/* test_cpu_ref.c: the CPU baselines against answers worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpu_ref.h"
#include "rng.h"

static void vector_add_adds(void **state)
{
    (void)state;
    float a[5] = {1, -2, 0.5f, 1e30f, -0.0f}, b[5] = {2, 2, 0.25f, 1e30f, 0.0f}, c[5];
    cpu_vector_add(a, b, c, 5);
    assert_true(c[0] == 3 && c[1] == 0 && c[2] == 0.75f && c[3] == 2e30f && c[4] == 0.0f);
}

static void sgemm_small_known_answer(void **state)
{
    (void)state;
    /* A 2x3, B 3x2: [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]] */
    float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {7, 8, 9, 10, 11, 12};
    double C[4];
    cpu_sgemm_f64(2, 2, 3, 1.0, A, 3, B, 2, 0.0, NULL, C, 2);
    assert_true(C[0] == 58 && C[1] == 64 && C[2] == 139 && C[3] == 154);
    /* alpha and beta: C = 2*AB - 1*C_in */
    float Cin[4] = {58, 64, 139, 154};
    cpu_sgemm_f64(2, 2, 3, 2.0, A, 3, B, 2, -1.0, Cin, C, 2);
    assert_true(C[0] == 58 && C[1] == 64 && C[2] == 139 && C[3] == 154);
}

static void sgemm_beta_zero_ignores_nan_in_c(void **state)
{
    (void)state;
    float A[1] = {2}, B[1] = {3}, Cin[1] = {NAN};
    double C[1];
    cpu_sgemm_f64(1, 1, 1, 1.0, A, 1, B, 1, 0.0, Cin, C, 1);
    assert_true(C[0] == 6);
}

static void sgemm_respects_leading_dimensions(void **state)
{
    (void)state;
    /* A is 2x2 inside a 2x4 buffer, B 2x1 inside 2x3, C 2x1 inside 2x2. */
    float A[8] = {1, 2, 99, 99, 3, 4, 99, 99}, B[6] = {5, 99, 99, 6, 99, 99};
    double C[4] = {0, -7, 0, -7};
    cpu_sgemm_f64(2, 1, 2, 1.0, A, 4, B, 3, 0.0, NULL, C, 2);
    assert_true(C[0] == 17 && C[2] == 39);
    assert_true(C[1] == -7 && C[3] == -7);     /* padding untouched */
}

static void sgemm_accumulates_in_double(void **state)
{
    (void)state;
    /* 1e8 + 1 - 1e8 in float order loses the 1; a double accumulator keeps it. */
    float A[3] = {1e8f, 1, -1e8f}, B[3] = {1, 1, 1};
    double C[1];
    cpu_sgemm_f64(1, 1, 3, 1.0, A, 3, B, 1, 0.0, NULL, C, 1);
    assert_true(C[0] == 1.0);
}

static void sums_are_compensated(void **state)
{
    (void)state;
    /* 1 + 1e-16 * 1e6 terms: plain double addition of each tiny term to 1 is
     * lost; the compensated sum keeps it. */
    size_t n = 1000001;
    double *x = malloc(n * sizeof *x);
    x[0] = 1.0;
    for (size_t i = 1; i < n; i++) x[i] = 1e-16;
    double s = cpu_sum_f64(x, n);
    assert_true(fabs(s - (1.0 + 1e-10)) < 1e-15);
    free(x);
    /* Neumaier also handles a big term after small ones. */
    double y[4] = {1.0, 1e100, 1.0, -1e100};
    assert_true(cpu_sum_f64(y, 4) == 2.0);
    float f[3] = {0.1f, 0.2f, 0.3f};
    assert_true(fabs(cpu_sum_f32(f, 3) - ((double)0.1f + (double)0.2f + (double)0.3f)) < 1e-17);
    assert_true(cpu_sum_f32(f, 0) == 0.0);
}

static void integer_sum_is_exact_beyond_32_bits(void **state)
{
    (void)state;
    int x[4] = {2147483647, 2147483647, -5, 3};
    assert_true(cpu_sum_i32(x, 4) == 4294967292LL);
}

static void histogram_counts_every_byte(void **state)
{
    (void)state;
    unsigned char d[600];
    for (int i = 0; i < 600; i++) d[i] = (unsigned char)(i % 256);
    unsigned h[256];
    memset(h, 0xFF, sizeof h);
    cpu_histogram256(d, 600, h);
    unsigned total = 0;
    for (int b = 0; b < 256; b++) total += h[b];
    assert_int_equal(total, 600);
    assert_int_equal(h[0], 3);     /* 0, 256, 512 */
    assert_int_equal(h[87], 3);    /* 87, 343, 599 */
    assert_int_equal(h[88], 2);
    assert_int_equal(h[255], 2);
}

static void blur_means_valid_neighbours_with_pitch(void **state)
{
    (void)state;
    /* 3x2 image in rows of pitch 4 (the 4th column is padding = 1000). */
    float in[8] = {1, 2, 3, 1000, 4, 5, 6, 1000};
    float out[10];
    for (int i = 0; i < 10; i++) out[i] = -1;
    cpu_blur3x3_mean(in, 4, out, 5, 3, 2);
    /* corner (0,0): neighbours 1,2,4,5 -> 3; edge (1,0): 1,2,3,4,5,6 -> 3.5 */
    assert_true(fabsf(out[0] - 3.0f) < 1e-6f);
    assert_true(fabsf(out[1] - 3.5f) < 1e-6f);
    assert_true(fabsf(out[2] - 4.0f) < 1e-6f);          /* 2,3,5,6 */
    assert_true(fabsf(out[5] - 3.0f) < 1e-6f);          /* row 1, out pitch 5 */
    assert_true(fabsf(out[7] - 4.0f) < 1e-6f);
    assert_true(out[3] == -1 && out[4] == -1 && out[8] == -1); /* padding not written */
    /* a 1x1 image is its own mean */
    float one = 42, o1 = 0;
    cpu_blur3x3_mean(&one, 1, &o1, 1, 1, 1);
    assert_true(o1 == 42);
}

/* The edge rule of cpu_box_mean_f64, worked out by hand. The ROI lies inside
 * a larger image whose other pixels are 1000 and whose row padding is NaN:
 * neither may reach a result. */
static void box_mean_3x3_inside_a_larger_image(void **state)
{
    (void)state;
    /* 5x4 image, pitch 6 (column 5 is padding), ROI 3x2 at (1, 1):
     *     1 2 3
     *     4 5 6                                                            */
    float img[4 * 6];
    for (int i = 0; i < 24; i++) img[i] = 1000.0f;
    for (int y = 0; y < 4; y++) img[y * 6 + 5] = NAN;
    const float roi[6] = {1, 2, 3, 4, 5, 6};
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++) img[(1 + y) * 6 + 1 + x] = roi[y * 3 + x];
    double out[2 * 4];
    for (int i = 0; i < 8; i++) out[i] = -1;
    assert_int_equal(cpu_box_mean_f64(img + 6 + 1, 6, out, 4, 3, 2, 1), 0);
    /* corners average 4 pixels, the top and bottom edges 6:
     * (0,0) = (1+2+4+5)/4, (1,0) = (1+2+3+4+5+6)/6, (2,0) = (2+3+5+6)/4 */
    assert_true(out[0] == 3.0 && out[1] == 3.5 && out[2] == 4.0);
    assert_true(out[4] == 3.0 && out[5] == 3.5 && out[6] == 4.0);
    assert_true(out[3] == -1 && out[7] == -1);   /* output padding is not written */
}

static void box_mean_radius2_impulse_counts(void **state)
{
    (void)state;
    /* 4x4 image, one 1 at (0, 0), radius 2. out(x, y) = 1 / count(x, y)
     * where (0, 0) is inside the clipped 5x5 box (x <= 2 and y <= 2), else 0.
     * count = cols(x) * rows(y); for a side of 4 and r = 2 the clipped
     * ranges hold 3, 4, 4, 3 pixels (x = 0: 0..2, x = 1: 0..3, x = 2: 0..3,
     * x = 3: 1..3). */
    float img[16] = {1};
    double out[16];
    assert_int_equal(cpu_box_mean_f64(img, 4, out, 4, 4, 4, 2), 0);
    const double side[4] = {3, 4, 4, 3};
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            double want = (x <= 2 && y <= 2) ? 1.0 / (side[x] * side[y]) : 0.0;
            assert_true(fabs(out[y * 4 + x] - want) < 1e-15);
        }
    assert_true(fabs(out[0] - 1.0 / 9) < 1e-15 && fabs(out[1] - 1.0 / 12) < 1e-15 &&
                fabs(out[5] - 1.0 / 16) < 1e-15 && out[3] == 0.0 && out[15] == 0.0);
}

static void box_mean_thin_images(void **state)
{
    (void)state;
    double out[8];
    /* 1x1: its own mean, whatever the radius */
    float one = 42.0f;
    assert_int_equal(cpu_box_mean_f64(&one, 1, out, 1, 1, 1, 1), 0);
    assert_true(out[0] == 42.0);
    assert_int_equal(cpu_box_mean_f64(&one, 3, out, 1, 1, 1, 8), 0);
    assert_true(out[0] == 42.0);
    /* a 1x5 column (pitch 2, padding NaN) and a 5x1 row, radius 1:
     * ends average 2 pixels, the rest 3 */
    float col[10] = {1, NAN, 2, NAN, 3, NAN, 4, NAN, 5, NAN};
    const double want[5] = {1.5, 2, 3, 4, 4.5};
    assert_int_equal(cpu_box_mean_f64(col, 2, out, 1, 1, 5, 1), 0);
    for (int i = 0; i < 5; i++) assert_true(out[i] == want[i]);
    float row[5] = {1, 2, 3, 4, 5};
    assert_int_equal(cpu_box_mean_f64(row, 5, out, 5, 5, 1, 1), 0);
    for (int i = 0; i < 5; i++) assert_true(out[i] == want[i]);
    /* radius 2 on the row: (1+2+3)/3, (1+2+3+4)/4, 15/5, (2+3+4+5)/4, (3+4+5)/3 */
    assert_int_equal(cpu_box_mean_f64(row, 5, out, 5, 5, 1, 2), 0);
    assert_true(out[0] == 2 && out[1] == 2.5 && out[2] == 3 && out[3] == 3.5 && out[4] == 4);
}

static void box_mean_radius_past_the_image_is_the_image_mean(void **state)
{
    (void)state;
    float img[6] = {1, 2, 3, 4, 5, 6};
    double out[6];
    assert_int_equal(cpu_box_mean_f64(img, 3, out, 3, 3, 2, 8), 0);
    for (int i = 0; i < 6; i++) assert_true(out[i] == 3.5);
    /* radius 0 copies */
    assert_int_equal(cpu_box_mean_f64(img, 3, out, 3, 3, 2, 0), 0);
    for (int i = 0; i < 6; i++) assert_true(out[i] == img[i]);
}

static void box_mean_radius1_matches_blur3x3(void **state)
{
    (void)state;
    /* 37x23 random pixels, different in and out pitches: radius 1 is
     * cpu_blur3x3_mean's rule; the two double sums differ only in order,
     * so their float roundings differ by at most one ulp (|mean| < 1). */
    enum { W = 37, H = 23, P = 41, Q = 39 };
    float *in = malloc(sizeof(float) * P * H), *f = malloc(sizeof(float) * Q * H);
    double *d = malloc(sizeof(double) * Q * H);
    assert_non_null(in);
    assert_non_null(f);
    assert_non_null(d);
    rng_fill_uniform(in, (size_t)P * H, 11, RNG_STREAM_A, -1, 1);
    cpu_blur3x3_mean(in, P, f, Q, W, H);
    assert_int_equal(cpu_box_mean_f64(in, P, d, Q, W, H, 1), 0);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            assert_true(fabs((double)f[y * Q + x] - d[y * Q + x]) <= ldexp(1.0, -24));
    free(in);
    free(f);
    free(d);
}

static void box_mean_refuses_bad_arguments(void **state)
{
    (void)state;
    float img[4] = {1, 2, 3, 4};
    double out[4];
    assert_int_equal(cpu_box_mean_f64(img, 2, out, 2, 0, 2, 1), -1);   /* no columns */
    assert_int_equal(cpu_box_mean_f64(img, 2, out, 2, 2, 0, 1), -1);   /* no rows */
    assert_int_equal(cpu_box_mean_f64(img, 2, out, 2, 2, 2, -1), -1);  /* negative radius */
    assert_int_equal(cpu_box_mean_f64(img, 1, out, 2, 2, 2, 1), -1);   /* in pitch < width */
    assert_int_equal(cpu_box_mean_f64(img, 2, out, 1, 2, 2, 1), -1);   /* out pitch < width */
}

static void rng_is_reproducible_and_in_range(void **state)
{
    (void)state;
    float a[1000], b[1000];
    rng_fill_uniform(a, 1000, 7, RNG_STREAM_A, -1, 1);
    rng_fill_uniform(b, 1000, 7, RNG_STREAM_A, -1, 1);
    assert_memory_equal(a, b, sizeof a);
    int differs = 0, neg = 0;
    rng_fill_uniform(b, 1000, 8, RNG_STREAM_A, -1, 1);
    for (int i = 0; i < 1000; i++) {
        assert_true(a[i] >= -1 && a[i] < 1);
        differs += a[i] != b[i];
        neg += a[i] < 0;
    }
    assert_true(differs > 990);          /* another seed, other numbers */
    assert_true(neg > 400 && neg < 600); /* roughly uniform */
    assert_true(rng_u32(1, 1, 0) != rng_u32(1, 2, 0));
}

/* cpu_histogram_add_u64: 256 bins agree with cpu_histogram256; 64 bins are
 * sums of four neighbouring 256-bins (v * 64 / 256 = v >> 2); it adds. */
static void histogram_u64_matches_256_and_merges_for_64(void **state)
{
    (void)state;
    enum { N = 100003 };   /* not a multiple of 4: the scalar tail counts too */
    unsigned char *d = malloc(N);
    assert_non_null(d);
    for (size_t i = 0; i < N; i++) d[i] = (unsigned char)(rng_u32(7, RNG_STREAM_A, i) >> 13);
    unsigned h32[256];
    cpu_histogram256(d, N, h32);
    unsigned long long h256[256], h64[64];
    memset(h256, 0, sizeof h256);
    memset(h64, 0, sizeof h64);
    assert_int_equal(cpu_histogram_add_u64(d, N, 256, h256), 0);
    assert_int_equal(cpu_histogram_add_u64(d, N, 64, h64), 0);
    unsigned long long total = 0;
    for (int b = 0; b < 256; b++) assert_true(h256[b] == h32[b]);
    for (int b = 0; b < 64; b++) {
        assert_true(h64[b] == h256[4 * b] + h256[4 * b + 1] + h256[4 * b + 2] + h256[4 * b + 3]);
        total += h64[b];
    }
    assert_true(total == N);
    /* it adds to what hist holds */
    assert_int_equal(cpu_histogram_add_u64(d, N, 64, h64), 0);
    for (int b = 0; b < 64; b++)
        assert_true(h64[b] == 2 * (h256[4 * b] + h256[4 * b + 1] + h256[4 * b + 2] + h256[4 * b + 3]));
    free(d);
}

/* The bin edges by hand: 64 bins put 0..3 in bin 0, 4 in bin 1, 255 in 63;
 * 2 bins split at 128; one bin holds everything. Equal bytes, an odd count. */
static void histogram_u64_bin_edges_and_equal_bytes(void **state)
{
    (void)state;
    const unsigned char d[6] = {0, 3, 4, 127, 128, 255};
    unsigned long long h64[64] = {0}, h2[2] = {0}, h1[1] = {0};
    assert_int_equal(cpu_histogram_add_u64(d, 6, 64, h64), 0);
    assert_true(h64[0] == 2 && h64[1] == 1 && h64[31] == 1 && h64[32] == 1 && h64[63] == 1);
    assert_int_equal(cpu_histogram_add_u64(d, 6, 2, h2), 0);
    assert_true(h2[0] == 4 && h2[1] == 2);   /* 0 3 4 127 | 128 255 */
    assert_int_equal(cpu_histogram_add_u64(d, 6, 1, h1), 0);
    assert_true(h1[0] == 6);
    unsigned char same[7];
    memset(same, 201, sizeof same);
    unsigned long long h[256] = {0};
    assert_int_equal(cpu_histogram_add_u64(same, 7, 256, h), 0);
    assert_true(h[201] == 7 && h[200] == 0 && h[202] == 0);
    assert_int_equal(cpu_histogram_add_u64(same, 0, 256, h), 0);   /* n = 0 adds nothing */
    assert_true(h[201] == 7);
}

/* Counts are 64-bit: a bin that already holds 2^32 - 2 goes past 2^32. */
static void histogram_u64_counts_past_2_to_the_32(void **state)
{
    (void)state;
    unsigned char d[5] = {9, 9, 9, 9, 9};
    unsigned long long h[256] = {0};
    h[9] = 4294967294ULL;
    assert_int_equal(cpu_histogram_add_u64(d, 5, 256, h), 0);
    assert_true(h[9] == 4294967299ULL);
}

static void histogram_u64_refuses_bad_bin_counts(void **state)
{
    (void)state;
    unsigned char d[1] = {1};
    unsigned long long h[512];
    memset(h, 0x5A, sizeof h);
    const int bad[] = {0, -1, 3, 65, 255, 257, 512};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        assert_int_equal(cpu_histogram_add_u64(d, 1, bad[k], h), -1);
    for (int b = 0; b < 512; b++) assert_true(h[b] == 0x5A5A5A5A5A5A5A5AULL);   /* untouched */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vector_add_adds),
        cmocka_unit_test(sgemm_small_known_answer),
        cmocka_unit_test(sgemm_beta_zero_ignores_nan_in_c),
        cmocka_unit_test(sgemm_respects_leading_dimensions),
        cmocka_unit_test(sgemm_accumulates_in_double),
        cmocka_unit_test(sums_are_compensated),
        cmocka_unit_test(integer_sum_is_exact_beyond_32_bits),
        cmocka_unit_test(histogram_counts_every_byte),
        cmocka_unit_test(histogram_u64_matches_256_and_merges_for_64),
        cmocka_unit_test(histogram_u64_bin_edges_and_equal_bytes),
        cmocka_unit_test(histogram_u64_counts_past_2_to_the_32),
        cmocka_unit_test(histogram_u64_refuses_bad_bin_counts),
        cmocka_unit_test(blur_means_valid_neighbours_with_pitch),
        cmocka_unit_test(box_mean_3x3_inside_a_larger_image),
        cmocka_unit_test(box_mean_radius2_impulse_counts),
        cmocka_unit_test(box_mean_thin_images),
        cmocka_unit_test(box_mean_radius_past_the_image_is_the_image_mean),
        cmocka_unit_test(box_mean_radius1_matches_blur3x3),
        cmocka_unit_test(box_mean_refuses_bad_arguments),
        cmocka_unit_test(rng_is_reproducible_and_in_range),
    };
    return cmocka_run_group_tests_name("cpu_ref", tests, NULL, NULL);
}
