/* leak: device memory allocated in a loop and never freed.
 *
 * A program processes a stream of frames; process_frame() allocates a
 * scratch buffer on the device for each frame, uses it, copies the result
 * back, and returns without cudaFree. Each frame's result is right, so no
 * check of results sees anything; the process just holds one more buffer
 * per frame until it exits (a service that runs for days runs out of
 * memory).
 *   Without tools: the program asks the driver how much device memory is
 *     free before and after the frames (cudaMemGetInfo) and fails if more
 *     than one buffer's worth did not come back;
 *   compute-sanitizer --tool memcheck --leak-check full: one "Leaked N
 *     bytes" record per frame at exit, each with the host backtrace of its
 *     cudaMalloc (process_frame, then main). Without --leak-check full it
 *     says nothing about leaks.
 * The fixed form frees the buffer at the end of process_frame().
 *
 * Build:  make -C 8_Debugging/leak        (bin/leak_buggy, bin/leak_fixed)
 * Run:    bin/leak_buggy --quick                          FAIL: 8 x 4 MiB not returned
 *         compute-sanitizer --tool memcheck --leak-check full --error-exitcode 1 bin/leak_buggy --quick
 *         bin/leak_fixed --quick                          PASS
 * Walkthrough: README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#include "check.h"
#include "cuda_check.h"
#include "debug_case.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "rng.h"

#define NAME CASE_NAME("leak")
#define BLOCK 256

/* ---- kernel ------------------------------------------------------------ */

/* y[i] = s * x[i] */
__global__ void scale(const float *x, float s, float *y, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = s * x[i];
}

/* One frame: a scratch buffer for the result, the kernel, the copy back.
 * noinline, so that the leak report's host backtrace shows it by name. */
static __attribute__((noinline)) void process_frame(const float *d_x, size_t n, int frame, float *h_y)
{
    float *d_scratch;
    CUDA_CHECK(cudaMalloc(&d_scratch, n * sizeof(float)));  // REPORTED: leak (one allocation per frame)
    scale<<<(unsigned)((n + BLOCK - 1) / BLOCK), BLOCK>>>(d_x, (float)(frame + 1), d_scratch, n);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(h_y, d_scratch, n * sizeof(float), cudaMemcpyDeviceToHost));
#ifdef FIXED
    CUDA_CHECK(cudaFree(d_scratch));
#else
    /* BUG: no cudaFree(d_scratch): every frame keeps its buffer until the process exits */
#endif
}

/* ---- options ----------------------------------------------------------- */

static long long opt_frames = 8, opt_mib = 4;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("frames", "F", "frames to process (one scratch buffer each)", &opt_frames, 1, 1000),
    OPT_INT_SPEC("mib", "M", "scratch buffer size in MiB", &opt_mib, 1, 256),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "a scratch buffer allocated per frame and never freed (8_Debugging case)", case_opts,
    (int)(sizeof case_opts / sizeof case_opts[0]),
    "Each frame's result is checked, and the device memory that is free before and\n"
    "after all the frames is compared (cudaMemGetInfo): more than one buffer's worth\n"
    "missing at the end is a FAIL.\n"
    "--quick changes nothing: the default sizes are already small.",
    0};

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int frames = (int)opt_frames;
    const size_t buf_bytes = (size_t)opt_mib << 20, n = buf_bytes / sizeof(float);

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    float *h_x = (float *)malloc(buf_bytes), *h_y = (float *)malloc(buf_bytes);
    if (!h_x || !h_y) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    rng_fill_uniform(h_x, n, o.seed, RNG_STREAM_A, -1.0f, 1.0f);
    float *d_x;
    CUDA_CHECK(cudaMalloc(&d_x, buf_bytes));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, buf_bytes, cudaMemcpyHostToDevice));

    size_t free_before = 0, free_after = 0, total = 0;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
    size_t bad = 0;
    for (int f = 0; f < frames; f++) {
        process_frame(d_x, n, f, h_y);
        if (case_no_check) continue;
        /* One float multiplication on both sides, one rounding: exact. */
        size_t b = 0;
        for (size_t i = 0; i < n; i++) b += h_y[i] != (float)(f + 1) * h_x[i];
        if (b) report_fail("frame %d: %zu wrong values", f, b);
        bad += b;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemGetInfo(&free_after, &total));
    const double lost_mib = ((double)free_before - (double)free_after) / 1048576.0;
    report_note("%d frames of %zu MiB: device memory free before %.1f MiB, after %.1f MiB: "
                "%.1f MiB not returned", frames, buf_bytes >> 20, free_before / 1048576.0,
                free_after / 1048576.0, lost_mib);

    if (!case_no_check) {
        /* The driver's bookkeeping is not byte-exact (page granularity,
         * its own small allocations): one buffer's worth of slack. */
        const int leaked = lost_mib > (double)(buf_bytes >> 20);
        result_rec r;
        rec_begin(&r, "frames");
        rec_int(&r, "frames", frames);
        rec_int(&r, "wrong_values", (long long)bad);
        rec_num(&r, "mib_not_returned", lost_mib);
        rec_str(&r, "status", bad || leaked ? "FAIL" : "PASS");
        rec_emit(&r);
    }

    CUDA_CHECK(cudaFree(d_x));
    free(h_x);
    free(h_y);
    return case_finish(NAME);
}
