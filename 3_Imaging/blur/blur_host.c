/* blur_host.c: see blur_host.h. */
#include "blur_host.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "rng.h"

int blur_resolve(const blur_request *req, blur_geom *g, char *err, size_t errlen)
{
    const long long W = req->width, H = req->height, x0 = req->x0, y0 = req->y0;
    if (req->radius < 1) {
        snprintf(err, errlen, "--radius=%lld: must be at least 1 (radius 1 is the 3x3 mean)",
                 req->radius);
        return -1;
    }
    if (req->radius > BLUR_MAX_RADIUS) {
        snprintf(err, errlen,
                 "--radius=%lld: larger than the shared-memory tiles hold (at most %d, "
                 "BLUR_MAX_RADIUS)", req->radius, BLUR_MAX_RADIUS);
        return -1;
    }
    if (W < 1 || H < 1) {
        snprintf(err, errlen, "--%s=%lld: the region of interest needs at least one %s",
                 W < 1 ? "width" : "height", W < 1 ? W : H, W < 1 ? "column" : "row");
        return -1;
    }
    if (W > BLUR_MAX_WIDTH) {
        snprintf(err, errlen, "--width=%lld: more than %d columns", W, BLUR_MAX_WIDTH);
        return -1;
    }
    if (H > BLUR_MAX_HEIGHT) {
        snprintf(err, errlen,
                 "--height=%lld: more than %d rows (the grids hold at most 65535 blocks in y)",
                 H, BLUR_MAX_HEIGHT);
        return -1;
    }
    if (x0 < 0 || y0 < 0) {
        snprintf(err, errlen, "--%s=%lld: the ROI cannot start before the image",
                 x0 < 0 ? "x0" : "y0", x0 < 0 ? x0 : y0);
        return -1;
    }
    /* Each of x0, y0, W, H is now below 2^62 and the image limits are far
     * lower, so the sums below cannot overflow a long long. */
    if (x0 + W > BLUR_MAX_WIDTH || y0 + H > BLUR_MAX_HEIGHT) {
        int horiz = x0 + W > BLUR_MAX_WIDTH;
        snprintf(err, errlen, "--%s=%lld --%s=%lld: the ROI ends past the largest image (%d %s)",
                 horiz ? "x0" : "y0", horiz ? x0 : y0, horiz ? "width" : "height",
                 horiz ? W : H, horiz ? BLUR_MAX_WIDTH : BLUR_MAX_HEIGHT,
                 horiz ? "columns" : "rows");
        return -1;
    }
    /* The default image: the ROI with the same margin on the far side as on
     * the near side (clipped at the largest image). */
    long long IW = req->image_width, IH = req->image_height;
    if (IW == 0) IW = x0 + W + x0 < BLUR_MAX_WIDTH ? x0 + W + x0 : BLUR_MAX_WIDTH;
    if (IH == 0) IH = y0 + H + y0 < BLUR_MAX_HEIGHT ? y0 + H + y0 : BLUR_MAX_HEIGHT;
    if (IW < 0 || IW > BLUR_MAX_WIDTH) {
        snprintf(err, errlen, "--image-width=%lld: more than %d columns (or negative)", IW,
                 BLUR_MAX_WIDTH);
        return -1;
    }
    if (IH < 0 || IH > BLUR_MAX_HEIGHT) {
        snprintf(err, errlen, "--image-height=%lld: more than %d rows (or negative)", IH,
                 BLUR_MAX_HEIGHT);
        return -1;
    }
    if (x0 + W > IW) {
        snprintf(err, errlen,
                 "--x0=%lld --width=%lld: the ROI's columns %lld..%lld end past the image "
                 "(--image-width=%lld)", x0, W, x0, x0 + W - 1, IW);
        return -1;
    }
    if (y0 + H > IH) {
        snprintf(err, errlen,
                 "--y0=%lld --height=%lld: the ROI's rows %lld..%lld end past the image "
                 "(--image-height=%lld)", y0, H, y0, y0 + H - 1, IH);
        return -1;
    }
    if (req->pitch != 0) {
        if (req->pitch < 0 || req->pitch % 4 != 0) {
            snprintf(err, errlen,
                     "--pitch=%lld: not a positive multiple of 4 bytes (every row must start "
                     "on a float)", req->pitch);
            return -1;
        }
        if (req->pitch < 4 * IW) {
            snprintf(err, errlen,
                     "--pitch=%lld: smaller than a row of the image, 4 * %lld = %lld bytes",
                     req->pitch, IW, 4 * IW);
            return -1;
        }
        if ((unsigned long long)req->pitch > BLUR_MAX_IMAGE_BYTES / (unsigned long long)IH) {
            snprintf(err, errlen,
                     "--pitch=%lld x %lld rows: an image over the limit of %llu bytes",
                     req->pitch, IH, BLUR_MAX_IMAGE_BYTES);
            return -1;
        }
    }
    g->image_width = (int)IW;
    g->image_height = (int)IH;
    g->pitch = (size_t)req->pitch;
    g->x0 = (int)x0;
    g->y0 = (int)y0;
    g->width = (int)W;
    g->height = (int)H;
    unsigned long long bytes = blur_image_bytes(g);
    if (bytes > BLUR_MAX_IMAGE_BYTES) {
        snprintf(err, errlen,
                 "--image-width=%lld --image-height=%lld: an image of about %llu bytes, over "
                 "the limit of %llu", IW, IH, bytes, BLUR_MAX_IMAGE_BYTES);
        return -1;
    }
    return 0;
}

unsigned long long blur_image_bytes(const blur_geom *g)
{
    unsigned long long row = g->pitch;
    if (row == 0) {
        row = 4ULL * (unsigned long long)g->image_width;
        row = (row + BLUR_PITCH_ESTIMATE_ROUND - 1) / BLUR_PITCH_ESTIMATE_ROUND *
              BLUR_PITCH_ESTIMATE_ROUND;
    }
    /* row < 2^41 and image_height <= 2^17 after blur_resolve: no overflow */
    return row * (unsigned long long)g->image_height;
}

/* One case: a ROI of w x h at (x0, y0) in an image of iw x ih, pitch p (0:
 * cudaMallocPitch). Odd image widths: 4 * iw is never a multiple of the
 * allocator's row alignment, so every row has padding after it. */
static void add_case(blur_case *cases, int max, int *n, const char *label, int w, int h, int x0,
                     int y0, int iw, int ih, size_t p)
{
    if (*n >= max) return;
    blur_case *c = &cases[(*n)++];
    c->label = label;
    c->g.image_width = iw;
    c->g.image_height = ih;
    c->g.pitch = p;
    c->g.x0 = x0;
    c->g.y0 = y0;
    c->g.width = w;
    c->g.height = h;
}

int blur_check_cases(int quick, blur_case *cases, int max)
{
    int n = 0;
    add_case(cases, max, &n, "1x1", 1, 1, 1, 1, 3, 3, 0);
    add_case(cases, max, &n, "1x1080", 1, 1080, 2, 1, 5, 1083, 0);
    add_case(cases, max, &n, "1080x1", 1080, 1, 3, 2, 1087, 5, 0);
    if (!quick) {
        add_case(cases, max, &n, "1920x1080", 1920, 1080, 3, 1, 1925, 1083, 0);
        add_case(cases, max, &n, "4097x3001", 4097, 3001, 5, 2, 4105, 3005, 0);
    }
    /* A 67x37 ROI in a 77x45 image: margins of 10 columns and 8 rows, the ROI
     * at each end or in the middle of each: it touches each border and corner. */
    static const char *const where[3][3] = {
        {"top-left corner", "top border", "top-right corner"},
        {"left border", "inside", "right border"},
        {"bottom-left corner", "bottom border", "bottom-right corner"}};
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 3; col++)
            add_case(cases, max, &n, where[row][col], 67, 37, 5 * col, 4 * row, 77, 45, 0);
    add_case(cases, max, &n, "whole image", 67, 37, 0, 0, 67, 37, 0);
    /* Rows 1220 bytes apart: not a multiple of 16, so the window variants
     * take their 4-byte path; the ROI touches the right and bottom borders. */
    add_case(cases, max, &n, "pitch not a multiple of 16", 301, 29, 3, 2, 304, 31, 304 * 4 + 4);
    return n;
}

void blur_fill_input(float *img, const blur_geom *g, uint64_t seed)
{
    for (int y = 0; y < g->image_height; y++) {
        unsigned char *row = (unsigned char *)img + (size_t)y * g->pitch;
        float *px = (float *)row;
        for (int x = 0; x < g->image_width; x++)
            px[x] = rng_uniform(seed, RNG_STREAM_A, (uint64_t)y * g->image_width + x, -1.0f, 1.0f);
        memset(row + (size_t)g->image_width * sizeof(float), 0xFF,
               g->pitch - (size_t)g->image_width * sizeof(float));
    }
}

/* gamma(n) = n u / (1 - n u) */
static double gamma_n(double n, double u)
{
    return n * u / (1.0 - n * u);
}

double blur_tolerance(int radius, double max_abs)
{
    double k = (2.0 * radius + 1) * (2.0 * radius + 1);
    return (gamma_n(k + 1, ldexp(1.0, -24)) + gamma_n(k + 1, ldexp(1.0, -53))) * max_abs;
}

/* Index of the first byte in p[0, n) that is not 0xFF, or n. */
static size_t first_unpoisoned(const unsigned char *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (w != ~(uint64_t)0) break;
    }
    for (; i < n; i++)
        if (p[i] != 0xFF) return i;
    return n;
}

/* Count the written bytes in bytes [from, to) of image row y (both
 * multiples of 4), reporting the first few, one line per 4-byte word. */
static size_t scan_outside(const char *what, const unsigned char *row, size_t from, size_t to,
                           int y, const blur_geom *g, size_t *reported)
{
    size_t bad = 0;
    size_t i = from;
    while ((i += first_unpoisoned(row + i, to - i)) < to) {
        size_t word = i / 4 * 4, in_word = 0;
        for (size_t b = word; b < word + 4 && b < to; b++) in_word += row[b] != 0xFF;
        if (*reported < CHECK_MAX_REPORTED) {
            size_t x = word / sizeof(float);
            if (x < (size_t)g->image_width)
                fprintf(stderr, "  %s: image pixel (%zu, %d), outside the ROI, was written "
                                "(bytes %zu..%zu of row %d, poison is 0xff)\n",
                        what, x, y, word, word + 3, y);
            else
                fprintf(stderr, "  %s: the padding after row %d was written (bytes %zu..%zu "
                                "past its last pixel)\n",
                        what, y, word - (size_t)g->image_width * sizeof(float),
                        word + 3 - (size_t)g->image_width * sizeof(float));
            (*reported)++;
        }
        bad += in_word;
        i = word + 4;
    }
    return bad;
}

size_t blur_check_output(const char *what, const unsigned char *img, const blur_geom *g,
                         const double *ref, double abs_tol)
{
    size_t bad_px = 0, bad_bytes = 0, rep_px = 0, rep_bytes = 0;
    double worst = 0;
    int wx = -1, wy = -1;
    const size_t roi_from = (size_t)g->x0 * sizeof(float);
    const size_t roi_to = (size_t)(g->x0 + g->width) * sizeof(float);
    for (int y = 0; y < g->image_height; y++) {
        const unsigned char *row = img + (size_t)y * g->pitch;
        int ry = y - g->y0;
        if (ry < 0 || ry >= g->height) {
            bad_bytes += scan_outside(what, row, 0, g->pitch, y, g, &rep_bytes);
            continue;
        }
        bad_bytes += scan_outside(what, row, 0, roi_from, y, g, &rep_bytes);
        bad_bytes += scan_outside(what, row, roi_to, g->pitch, y, g, &rep_bytes);
        const double *r = ref + (size_t)ry * g->width;
        for (int x = 0; x < g->width; x++) {
            float v;
            memcpy(&v, row + roi_from + (size_t)x * sizeof(float), sizeof v);
            if (close_enough(v, r[x], abs_tol, 0.0)) continue;
            double e = fabs((double)v - r[x]);
            if (!isnan(worst) && (isnan(e) || e > worst)) {   /* NaN counts as the worst */
                worst = e;
                wx = x;
                wy = ry;
            }
            if (rep_px < CHECK_MAX_REPORTED) {
                fprintf(stderr, "  %s: ROI pixel (%d, %d): expected %.9g, got %.9g (tolerance %.3g)\n",
                        what, x, ry, r[x], (double)v, abs_tol);
                rep_px++;
            }
            bad_px++;
        }
    }
    if (bad_px)
        fprintf(stderr, "  %s: %zu of the %lld ROI pixels wrong, the largest error %.3g at (%d, %d)\n",
                what, bad_px, (long long)g->width * g->height, worst, wx, wy);
    if (bad_bytes)
        fprintf(stderr, "  %s: %zu bytes outside the ROI were written (ROI columns %d..%d, rows "
                        "%d..%d of a %dx%d image, rows %zu bytes apart)\n",
                what, bad_bytes, g->x0, g->x0 + g->width - 1, g->y0, g->y0 + g->height - 1,
                g->image_width, g->image_height, g->pitch);
    return bad_px + bad_bytes;
}

int blur_window_groups(int x0, int width, int cols)
{
    return (x0 + width - 1) / cols - x0 / cols + 1;
}

double blur_gbps(long long width, long long height, double ms)
{
    if (!(ms > 0)) return 0;
    return 8.0 * (double)width * (double)height / (ms * 1e6);
}
