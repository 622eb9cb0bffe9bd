/* test_blur_host.c: the blur sample's host logic: argument validation, the
 * check geometries, the input image, the tolerance and the output check
 * (every kind of error it must see, and the things it must let pass). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "blur_host.h"
#include "cpu_ref.h"
#include "rng.h"

static blur_request defaults(void)
{
    blur_request r = {32, 8, 16384, 16384, 0, 0, 0, 1};
    return r;
}

/* resolve must fail, with a message holding `mention` */
static void refused(blur_request r, const char *mention)
{
    blur_geom g;
    char err[256] = "";
    assert_int_equal(blur_resolve(&r, &g, err, sizeof err), -1);
    if (!strstr(err, mention)) fail_msg("message '%s' does not name '%s'", err, mention);
}

static void defaults_centre_the_roi(void **state)
{
    (void)state;
    blur_request r = defaults();
    blur_geom g;
    char err[256];
    assert_int_equal(blur_resolve(&r, &g, err, sizeof err), 0);
    assert_int_equal(g.image_width, 32 + 16384 + 32);
    assert_int_equal(g.image_height, 8 + 16384 + 8);
    assert_int_equal(g.x0, 32);
    assert_int_equal(g.y0, 8);
    assert_int_equal(g.width, 16384);
    assert_int_equal(g.height, 16384);
    assert_true(g.pitch == 0);   /* cudaMallocPitch chooses */
    /* about 1.08 GB: 16448 * 4 = 65792 bytes, rounded up to 66048 */
    assert_true(blur_image_bytes(&g) == 66048ULL * 16400);
    /* an explicit image and pitch are kept */
    r.image_width = 20000;
    r.image_height = 17000;
    r.pitch = 80004;
    assert_int_equal(blur_resolve(&r, &g, err, sizeof err), 0);
    assert_int_equal(g.image_width, 20000);
    assert_true(g.pitch == 80004);
    assert_true(blur_image_bytes(&g) == 80004ULL * 17000);
    /* a ROI that is the whole image */
    blur_request w = {0, 0, 7, 5, 7, 5, 28, 1};
    assert_int_equal(blur_resolve(&w, &g, err, sizeof err), 0);
}

static void zero_and_negative_sizes_are_refused(void **state)
{
    (void)state;
    blur_request r = defaults();
    r.width = 0;
    refused(r, "--width=0");
    r = defaults();
    r.height = 0;
    refused(r, "--height=0");
    r = defaults();
    r.width = -5;
    refused(r, "--width=-5");
    r = defaults();
    r.x0 = -1;
    refused(r, "--x0=-1");
    r = defaults();
    r.y0 = -2;
    refused(r, "--y0=-2");
}

static void roi_outside_the_image_is_refused(void **state)
{
    (void)state;
    blur_request r = defaults();
    r.image_width = 16415;   /* columns 32..16415 need 16416 */
    refused(r, "--image-width=16415");
    r = defaults();
    r.image_width = 16416;   /* exactly enough: touches the right border */
    blur_geom g;
    char err[256];
    assert_int_equal(blur_resolve(&r, &g, err, sizeof err), 0);
    r = defaults();
    r.image_height = 100;
    refused(r, "--image-height=100");
    r = defaults();
    r.y0 = 50;
    r.image_height = 16400;
    refused(r, "--y0=50");
    /* the ROI past the largest image */
    r = defaults();
    r.x0 = BLUR_MAX_WIDTH;
    refused(r, "--x0=268435456");
}

static void pitch_must_hold_a_row_of_whole_floats(void **state)
{
    (void)state;
    blur_request r = {0, 0, 100, 10, 100, 10, 399, 1};
    refused(r, "--pitch=399");   /* not a multiple of 4 */
    r.pitch = 396;
    refused(r, "--pitch=396");   /* smaller than 400 bytes */
    r.pitch = 400;               /* exactly a row: allowed (no padding) */
    blur_geom g;
    char err[256];
    assert_int_equal(blur_resolve(&r, &g, err, sizeof err), 0);
    r.pitch = 404;               /* not a multiple of 16: allowed (the 4-byte path) */
    assert_int_equal(blur_resolve(&r, &g, err, sizeof err), 0);
    /* the image's row counts, not the ROI's */
    blur_request s = {10, 0, 100, 10, 0, 0, 400, 1};   /* image 120 wide */
    refused(s, "--pitch=400");
    r.pitch = -16;
    refused(r, "--pitch=-16");
}

static void radius_must_fit_the_tiles(void **state)
{
    (void)state;
    blur_request r = defaults();
    r.radius = 0;
    refused(r, "--radius=0");
    r.radius = BLUR_MAX_RADIUS + 1;
    refused(r, "--radius=9");
    r.radius = BLUR_MAX_RADIUS;
    blur_geom g;
    char err[256];
    assert_int_equal(blur_resolve(&r, &g, err, sizeof err), 0);
}

static void huge_sizes_are_refused_without_overflow(void **state)
{
    (void)state;
    blur_request r = defaults();
    r.width = 1LL << 40;
    refused(r, "--width=1099511627776");
    r = defaults();
    r.height = 1LL << 62;
    refused(r, "--height=4611686018427387904");
    r = defaults();
    r.x0 = 1LL << 62;   /* x0 + width would overflow a naive int */
    refused(r, "--x0=4611686018427387904");
    r = defaults();
    r.image_width = 1LL << 62;
    refused(r, "--image-width=4611686018427387904");
    r = defaults();
    r.radius = 1LL << 62;
    refused(r, "--radius=4611686018427387904");
    /* within every dimension's limit, but over the bytes of one image:
     * 2^28 columns x 2^17 rows x 4 bytes = 2^47 */
    blur_request big = {0, 0, BLUR_MAX_WIDTH, BLUR_MAX_HEIGHT, 0, 0, 0, 1};
    refused(big, "over the limit");
    /* a pitch whose product with the rows would overflow 64 bits */
    blur_request p = {0, 0, 10, 100000, 0, 0, 1LL << 60, 1};
    refused(p, "--pitch=1152921504606846976");
}

static void check_cases_cover_the_issue_list(void **state)
{
    (void)state;
    blur_case c[32];
    int n = blur_check_cases(0, c, 32);
    int q = blur_check_cases(1, c + 0, 32);
    assert_true(n > q);
    n = blur_check_cases(0, c, 32);
    const char *want[] = {"1x1", "1x1080", "1080x1", "1920x1080", "4097x3001", "whole image",
                          "top-left corner", "bottom-right corner", "pitch not a multiple of 16"};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        int found = 0;
        for (int i = 0; i < n; i++) found |= strcmp(c[i].label, want[w]) == 0;
        if (!found) fail_msg("no check case '%s'", want[w]);
    }
    int touches[4] = {0, 0, 0, 0};   /* left, right, top, bottom */
    int unaligned = 0;
    for (int i = 0; i < n; i++) {
        const blur_geom *g = &c[i].g;
        /* the ROI fits, and the image's rows have padding after them */
        assert_true(g->x0 >= 0 && g->y0 >= 0 && g->width >= 1 && g->height >= 1);
        assert_true(g->x0 + g->width <= g->image_width);
        assert_true(g->y0 + g->height <= g->image_height);
        if (g->pitch == 0)
            assert_true(g->image_width % 2 == 1);   /* 4 * odd: never a multiple of the row alignment */
        else {
            assert_true(g->pitch > 4u * (size_t)g->image_width && g->pitch % 4 == 0);
            unaligned += g->pitch % 16 != 0;
        }
        if (strcmp(c[i].label, "whole image") != 0)
            assert_true(g->width < g->image_width || g->height < g->image_height);
        touches[0] += g->x0 == 0;
        touches[1] += g->x0 + g->width == g->image_width;
        touches[2] += g->y0 == 0;
        touches[3] += g->y0 + g->height == g->image_height;
        char err[64];
        blur_request r = {g->x0, g->y0, g->width, g->height, g->image_width, g->image_height,
                          (long long)g->pitch, 1};
        assert_int_equal(blur_resolve(&r, &(blur_geom){0}, err, sizeof err), 0);
    }
    /* three placements on each border (two corners and the middle), plus the
     * whole image and the unaligned pitch case */
    for (int k = 0; k < 4; k++) assert_true(touches[k] >= 4);
    assert_int_equal(unaligned, 1);
    /* the quick list leaves out only the two large sizes */
    blur_case qc[32];
    q = blur_check_cases(1, qc, 32);
    assert_int_equal(q, n - 2);
    for (int i = 0; i < q; i++)
        assert_true((long long)qc[i].g.width * qc[i].g.height < 1920 * 1080);
    /* max is respected */
    assert_int_equal(blur_check_cases(0, c, 3), 3);
}

static void input_fills_pixels_and_poisons_padding(void **state)
{
    (void)state;
    blur_geom g = {5, 3, 32, 1, 1, 3, 2};   /* 5x3 image in rows of 32 bytes */
    float img[8 * 3];
    memset(img, 0, sizeof img);
    blur_fill_input(img, &g, 77);
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < 5; x++) {
            float v = img[y * 8 + x];
            assert_true(v >= -1.0f && v < 1.0f);
            assert_true(v == rng_uniform(77, RNG_STREAM_A, (uint64_t)y * 5 + x, -1.0f, 1.0f));
        }
        const unsigned char *pad = (const unsigned char *)&img[y * 8 + 5];
        for (int b = 0; b < 12; b++) assert_int_equal(pad[b], 0xFF);
    }
}

static void tolerance_is_the_rounding_bound(void **state)
{
    (void)state;
    double u = ldexp(1.0, -24);
    /* radius 1: gamma(10) = 10u / (1 - 10u), about 5.96e-7, plus the double's */
    double t1 = blur_tolerance(1, 1.0);
    assert_true(t1 >= 10 * u / (1 - 10 * u) && t1 < 10 * u / (1 - 10 * u) * (1 + 1e-8));
    assert_true(t1 > 5.9e-7 && t1 < 6.0e-7);
    assert_true(blur_tolerance(8, 1.0) > blur_tolerance(2, 1.0));
    assert_true(fabs(blur_tolerance(1, 2.0) - 2 * t1) < 1e-20);
    /* float's rounding of the exact 3x3 mean is inside it; an error of 1e-6 is not */
    assert_true(t1 > u && t1 < 1e-6);
}

/* An output image for the ROI 3x2 at (1, 1) of a 5x4 image, rows 24 bytes
 * apart (one float of padding): poison everywhere, the ROI set to ref. */
enum { OW = 5, OH = 4, OP = 24 };
static const blur_geom og = {OW, OH, OP, 1, 1, 3, 2};
static const double oref[6] = {0.5, -0.25, 1.0 / 3, 0.125, 0.75, -1.0 / 7};

static void make_output(unsigned char *img)
{
    memset(img, 0xFF, OP * OH);
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++) {
            float v = (float)oref[y * 3 + x];
            memcpy(img + (1 + y) * OP + (1 + x) * 4, &v, 4);
        }
}

static void output_check_passes_a_right_image(void **state)
{
    (void)state;
    unsigned char img[OP * OH];
    make_output(img);
    double tol = blur_tolerance(1, 1.0);
    assert_true(blur_check_output("right", img, &og, oref, tol) == 0);
    /* an error inside the bound passes */
    float v = (float)oref[4] + 4e-7f;
    memcpy(img + 2 * OP + 2 * 4, &v, 4);
    assert_true(blur_check_output("within", img, &og, oref, tol) == 0);
}

static void output_check_sees_wrong_and_unwritten_pixels(void **state)
{
    (void)state;
    unsigned char img[OP * OH];
    double tol = blur_tolerance(1, 1.0);
    make_output(img);
    float v = (float)oref[2] * 9.0f / 4.0f;   /* a corner divided by 9 instead of 4 */
    memcpy(img + 1 * OP + 3 * 4, &v, 4);
    assert_true(blur_check_output("wrong", img, &og, oref, tol) == 1);
    make_output(img);
    v = (float)oref[0] + 2e-6f;   /* past the bound */
    memcpy(img + 1 * OP + 1 * 4, &v, 4);
    assert_true(blur_check_output("off", img, &og, oref, tol) == 1);
    make_output(img);
    memset(img + 2 * OP + 3 * 4, 0xFF, 4);   /* never written: NaN */
    assert_true(blur_check_output("unwritten", img, &og, oref, tol) == 1);
}

static void output_check_sees_writes_outside_the_roi(void **state)
{
    (void)state;
    unsigned char img[OP * OH];
    double tol = blur_tolerance(1, 1.0);
    /* the padding after a ROI row */
    make_output(img);
    img[1 * OP + 21] = 0;
    assert_true(blur_check_output("padding", img, &og, oref, tol) == 1);
    /* the padding after a row outside the ROI, and the last byte of the image */
    make_output(img);
    img[3 * OP + 23] = 0x7F;
    assert_true(blur_check_output("last byte", img, &og, oref, tol) == 1);
    /* a pixel left of the ROI, right of it, above it, below it: 4 bytes each */
    make_output(img);
    memset(img + 1 * OP + 0, 0, 4);
    assert_true(blur_check_output("left", img, &og, oref, tol) == 4);
    make_output(img);
    memset(img + 2 * OP + 4 * 4, 0, 4);
    assert_true(blur_check_output("right", img, &og, oref, tol) == 4);
    make_output(img);
    memset(img + 0 * OP + 2 * 4, 0, 4);
    assert_true(blur_check_output("above", img, &og, oref, tol) == 4);
    make_output(img);
    memset(img + 3 * OP + 1 * 4, 0, 4);
    assert_true(blur_check_output("below", img, &og, oref, tol) == 4);
}

/* The 8_Debugging bug, played on the host: output rows written width*4
 * bytes apart instead of pitch. The check must fail it twice over: ROI
 * pixels unwritten and pixels outside the ROI written. */
static void output_check_fails_rows_strided_by_the_width(void **state)
{
    (void)state;
    enum { W = 29, H = 11, X0 = 3, Y0 = 2, IW = 37, IH = 15, P = 160 };
    blur_geom g = {IW, IH, P, X0, Y0, W, H};
    float *in = malloc(P * IH);
    unsigned char *img = malloc(P * IH);
    double *ref = malloc(sizeof(double) * W * H);
    assert_non_null(in);
    assert_non_null(img);
    assert_non_null(ref);
    blur_fill_input(in, &g, 5);
    assert_int_equal(cpu_box_mean_f64(in + Y0 * (P / 4) + X0, P / 4, ref, W, W, H, 1), 0);
    double tol = blur_tolerance(1, 1.0);
    /* right: rows pitch apart */
    memset(img, 0xFF, P * IH);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float v = (float)ref[y * W + x];
            memcpy(img + (size_t)(Y0 + y) * P + (X0 + x) * 4, &v, 4);
        }
    assert_true(blur_check_output("pitch", img, &g, ref, tol) == 0);
    /* wrong: rows W * 4 bytes apart */
    memset(img, 0xFF, P * IH);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float v = (float)ref[y * W + x];
            memcpy(img + (size_t)(Y0 + y) * W * 4 + (X0 + x) * 4, &v, 4);
        }
    assert_true(blur_check_output("width as stride", img, &g, ref, tol) > (size_t)W * H / 2);
    free(in);
    free(img);
    free(ref);
}

static void window_groups_and_gbps(void **state)
{
    (void)state;
    assert_int_equal(blur_window_groups(0, 1, 4), 1);
    assert_int_equal(blur_window_groups(0, 4, 4), 1);
    assert_int_equal(blur_window_groups(0, 5, 4), 2);
    assert_int_equal(blur_window_groups(3, 2, 4), 2);    /* columns 3 and 4 */
    assert_int_equal(blur_window_groups(4, 4, 4), 1);
    assert_int_equal(blur_window_groups(32, 16384, 4), 4096);
    assert_int_equal(blur_window_groups(5, 517, 8), 66);  /* columns 5..521: groups 0..65 */
    assert_int_equal(blur_window_groups(7, 1, 8), 1);
    /* 16384^2 pixels, 8 bytes each, in 0.5 ms: 4295 GB/s */
    assert_true(fabs(blur_gbps(16384, 16384, 0.5) - 8.0 * 16384 * 16384 / 0.5e6) < 1e-6);
    assert_true(blur_gbps(1, 1, 0) == 0 && blur_gbps(1, 1, -1) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_centre_the_roi),
        cmocka_unit_test(zero_and_negative_sizes_are_refused),
        cmocka_unit_test(roi_outside_the_image_is_refused),
        cmocka_unit_test(pitch_must_hold_a_row_of_whole_floats),
        cmocka_unit_test(radius_must_fit_the_tiles),
        cmocka_unit_test(huge_sizes_are_refused_without_overflow),
        cmocka_unit_test(check_cases_cover_the_issue_list),
        cmocka_unit_test(input_fills_pixels_and_poisons_padding),
        cmocka_unit_test(tolerance_is_the_rounding_bound),
        cmocka_unit_test(output_check_passes_a_right_image),
        cmocka_unit_test(output_check_sees_wrong_and_unwritten_pixels),
        cmocka_unit_test(output_check_sees_writes_outside_the_roi),
        cmocka_unit_test(output_check_fails_rows_strided_by_the_width),
        cmocka_unit_test(window_groups_and_gbps),
    };
    return cmocka_run_group_tests_name("blur_host", tests, NULL, NULL);
}
