/* blurPitch: a 3x3 blur of a region of interest whose row index uses the
 * wrong row length: a width where the buffer's pitch is needed.
 *
 * The program cuts a region of interest (ROI) out of an image into a buffer
 * of its own, whose rows are padded to a multiple of 128 floats (512 bytes,
 * as cudaMallocPitch pads them), then blurs that buffer with a kernel that
 * takes the row length as a parameter. The buggy launch passes the IMAGE's
 * width, the row length the kernel was first written for; the buffer's rows
 * are `pitch` floats apart. One wrong number, two faces:
 *   image width > pitch (default, --roi-w=890: pitch 896 < 900): the reads of
 *     the last ROI rows run past the end of the buffer; memcheck reports them
 *     (oob-global-read at the read line below), 0 to 84 bytes after it;
 *   image width < pitch (--roi-w=897: pitch 1024 > 900): every read lands
 *     inside the buffer, on the wrong row or in the padding; memcheck cannot
 *     see that. Only the comparison with the CPU catches it.
 * The fixed form passes the buffer's pitch.
 *
 * Build:  make -C 8_Debugging/blurPitch      (bin/blurPitch_buggy, bin/blurPitch_fixed)
 * Run:    bin/blurPitch_buggy --quick                 face A: wrong result
 *         compute-sanitizer --tool memcheck --error-exitcode 1 bin/blurPitch_buggy --quick
 *         bin/blurPitch_buggy --quick --roi-w=897     face B: wrong result, memcheck silent
 *         bin/blurPitch_fixed --quick                 PASS, clean under all four tools
 * Walkthrough: README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "check.h"
#include "cpu_ref.h"
#include "cuda_check.h"
#include "debug_case.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "rng.h"

#define NAME CASE_NAME("blurPitch")

/* Rows of the ROI buffer are padded to this many floats (512 bytes). */
#define PITCH_ALIGN_FLOATS 128

/* ---- kernel ------------------------------------------------------------ */

/* One thread per pixel of a w x h image whose rows start in_row floats
 * apart: the mean of the in-image pixels among its 9 neighbours (4 at the
 * corners, 6 on the edges), written to a buffer whose rows are out_row apart.
 * The kernel is correct; what it is given decides everything. */
__global__ void blur3x3(const float *in, size_t in_row, float *out, size_t out_row, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float sum = 0.0f;
    int count = 0;
    for (int yy = max(y - 1, 0); yy <= min(y + 1, h - 1); yy++) {
        for (int xx = max(x - 1, 0); xx <= min(x + 1, w - 1); xx++) {
            sum += in[(size_t)yy * in_row + xx];  // REPORTED: oob-global-read (face A: in_row too long)
            count++;
        }
    }
    out[(size_t)y * out_row + x] = sum / (float)count;
}

/* ---- options ----------------------------------------------------------- */

static long long opt_width = 900, opt_height = 64;
static long long opt_roi_x = 2, opt_roi_y = 8, opt_roi_w = 890, opt_roi_h = 8;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("width", "W", "image width in floats", &opt_width, 1, 1 << 16),
    OPT_INT_SPEC("height", "H", "image height in rows", &opt_height, 1, 1 << 16),
    OPT_INT_SPEC("roi-x", "X", "first column of the region of interest", &opt_roi_x, 0, 1 << 16),
    OPT_INT_SPEC("roi-y", "Y", "first row of the region of interest", &opt_roi_y, 0, 1 << 16),
    OPT_INT_SPEC("roi-w", "W", "width of the region of interest", &opt_roi_w, 1, 1 << 16),
    OPT_INT_SPEC("roi-h", "H", "height of the region of interest", &opt_roi_h, 1, 1 << 16),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "3x3 blur of a region of interest cut into a pitched buffer (8_Debugging case)",
    case_opts, (int)(sizeof case_opts / sizeof case_opts[0]),
    "The ROI buffer's rows are padded to a multiple of 128 floats. The buggy form\n"
    "indexes it with the image width as row length, the fixed form with its pitch.\n"
    "Face A (default, --roi-w=890): pitch 896 < width 900, the last rows' reads leave\n"
    "the buffer (memcheck reports them). Face B (--roi-w=897): pitch 1024 > width 900,\n"
    "every read stays inside (memcheck cannot see it; the CPU comparison fails).\n"
    "--quick changes nothing: the default sizes are already small.",
    0};

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int W = (int)opt_width, H = (int)opt_height;
    const int rx = (int)opt_roi_x, ry = (int)opt_roi_y, rw = (int)opt_roi_w, rh = (int)opt_roi_h;
    if (rx + rw > W || ry + rh > H) {
        fprintf(stderr, "%s: error: the region of interest (--roi-x=%d --roi-w=%d, --roi-y=%d "
                "--roi-h=%d) must lie inside the %d x %d image\n", NAME, rx, rw, ry, rh, W, H);
        printf("%s: FAIL (bad argument)\n", NAME);
        return 1;
    }
    const size_t pitch = ((size_t)rw + PITCH_ALIGN_FLOATS - 1) / PITCH_ALIGN_FLOATS * PITCH_ALIGN_FLOATS;
    const size_t img_bytes = (size_t)W * H * sizeof(float);
    const size_t roi_bytes = pitch * rh * sizeof(float);

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    /* The image: seeded values in [0, 1); the ROI cut out on the host too,
     * for the CPU reference. */
    float *h_img = (float *)malloc(img_bytes);
    float *h_roi = (float *)malloc((size_t)rw * rh * sizeof(float));
    float *h_ref = (float *)malloc((size_t)rw * rh * sizeof(float));
    float *h_out = (float *)malloc(roi_bytes);
    if (!h_img || !h_roi || !h_ref || !h_out) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    rng_fill_uniform(h_img, (size_t)W * H, o.seed, RNG_STREAM_A, 0.0f, 1.0f);
    for (int y = 0; y < rh; y++)
        memcpy(h_roi + (size_t)y * rw, h_img + (size_t)(ry + y) * W + rx, rw * sizeof(float));
    cpu_blur3x3_mean(h_roi, rw, h_ref, rw, rw, rh);

    /* Device: the image (rows W floats apart), the output (pitched like the
     * ROI buffer, with a guard zone), and the ROI buffer itself, allocated
     * last, so that (as long as the allocator hands out rising addresses)
     * nothing of ours lies right after it: a read that runs past its end into
     * another live allocation would be invisible to memcheck. */
    float *d_img, *d_roi;
    CUDA_CHECK(cudaMalloc(&d_img, img_bytes));
    float *d_out = (float *)guarded_malloc(roi_bytes);
    CUDA_CHECK(cudaMalloc(&d_roi, roi_bytes));
    CUDA_CHECK(cudaMemcpy(d_img, h_img, img_bytes, cudaMemcpyHostToDevice));
    /* The padding is cleared first, as careful code does: reads that land in
     * it are then wrong values, not uninitialized memory. */
    CUDA_CHECK(cudaMemset(d_roi, 0, roi_bytes));
    CUDA_CHECK(cudaMemcpy2D(d_roi, pitch * sizeof(float), d_img + (size_t)ry * W + rx,
                            (size_t)W * sizeof(float), (size_t)rw * sizeof(float), rh,
                            cudaMemcpyDeviceToDevice));
    poison_guarded(d_out, roi_bytes);

    const dim3 block(32, 8);
    const dim3 grid((unsigned)((rw + block.x - 1) / block.x), (unsigned)((rh + block.y - 1) / block.y));
#ifdef FIXED
    const size_t row_length = pitch;           /* the ROI buffer's own row length */
#else
    const size_t row_length = (size_t)W;       // BUG: the image's width, not the ROI buffer's pitch
#endif
    report_note("image %d x %d, ROI %d x %d at (%d, %d), ROI buffer pitch %zu floats (%zu bytes); "
                "the kernel is given row length %zu: %s", W, H, rw, rh, rx, ry, pitch,
                roi_bytes, row_length,
                row_length == pitch ? "right"
                : row_length > pitch ? "too long, the last rows' reads leave the buffer"
                                     : "too short, every read stays inside the buffer");
    blur3x3<<<grid, block>>>(d_roi, row_length, d_out, pitch, rw, rh);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, roi_bytes, cudaMemcpyDeviceToHost));

    if (!case_no_check) {
        /* Every ROI pixel against the CPU (a float sum of at most 9 values in
         * [0, 1) against a double one: 1e-6 absolute is generous), then the
         * padding columns, which the kernel must leave poisoned, then the
         * guard zone after the buffer. */
        float *h_got = (float *)malloc((size_t)rw * rh * sizeof(float));
        if (!h_got) {
            report_fail("cannot allocate host memory");
            return report_finish(); /* FAIL, with or without --no-check */
        }
        for (int y = 0; y < rh; y++)
            memcpy(h_got + (size_t)y * rw, h_out + (size_t)y * pitch, rw * sizeof(float));
        size_t bad = check_close_f32("blurred ROI", h_got, h_ref, (size_t)rw * rh, 1e-6, 1e-5);
        free(h_got);
        size_t pad_touched = 0;
        for (int y = 0; y < rh; y++)
            for (size_t x = rw; x < pitch; x++) {
                unsigned int u;
                memcpy(&u, h_out + (size_t)y * pitch + x, sizeof u);
                pad_touched += u != 0xFFFFFFFFu;
            }
        if (pad_touched) report_fail("%zu padding elements of the output were written", pad_touched);
        bad += pad_touched + check_guard("blur output", d_out, roi_bytes);
        result_rec r;
        rec_begin(&r, "roi");
        rec_int(&r, "width", rw);
        rec_int(&r, "height", rh);
        rec_int(&r, "pitch", (long long)pitch);
        rec_int(&r, "row_length", (long long)row_length);
        rec_int(&r, "mismatches", (long long)bad);
        rec_str(&r, "status", bad ? "FAIL" : "PASS");
        rec_emit(&r);
    }

    CUDA_CHECK(cudaFree(d_img));
    CUDA_CHECK(cudaFree(d_roi));
    guarded_free(d_out);
    free(h_img);
    free(h_roi);
    free(h_ref);
    free(h_out);
    return case_finish(NAME);
}
