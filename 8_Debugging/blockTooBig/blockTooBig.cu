/* blockTooBig: "invalid configuration argument", or "invalid argument".
 *
 * A kernel inverts an 8-bit grayscale image (out = 255 - in), one thread per
 * pixel, in blocks of 64 x 32 threads: wide rows, it seemed, deserve wide
 * blocks. But a block may hold at most 1024 threads (x * y * z <= 1024, and
 * x, y at most 1024, z at most 64: the device's maxThreadsPerBlock and
 * maxThreadsDim), and 64 x 32 is 2048. The launch is refused, nothing runs.
 * The CUDA runtime's documentation names cudaErrorInvalidConfiguration,
 * "invalid configuration argument", for launches that ask for too many
 * threads; on the H200 with CUDA 13.0 this one came back as
 * cudaErrorInvalidValue, "invalid argument" (README.md). Either message
 * names neither the limit nor the dimension; the launch line and the
 * device's limits do. The error comes back from the launch itself
 * (cudaGetLastError right after it), not from a later call.
 *   The check: the launch configuration against the device's limits
 *     (cudaGetDeviceProperties: maxThreadsPerBlock, maxThreadsDim,
 *     maxGridSize; deviceQuery prints them); the program prints both before
 *     it launches.
 * The fixed form launches blocks of 32 x 8 = 256 threads, and the grid
 * grows to cover the image.
 *
 * Build:  make -C 8_Debugging/blockTooBig      (bin/blockTooBig_buggy, _fixed)
 * Run:    bin/blockTooBig_buggy --quick        FAIL: the launch is refused
 *         bin/blockTooBig_fixed --quick        PASS
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

#define NAME CASE_NAME("blockTooBig")

/* ---- kernel ------------------------------------------------------------ */

/* out = 255 - in, for an image of w x h pixels, rows of w bytes */
__global__ void invert(const unsigned char *in, unsigned char *out, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[(size_t)y * w + x] = (unsigned char)(255 - in[(size_t)y * w + x]);
}

/* ---- options ----------------------------------------------------------- */

static long long opt_w = 1000, opt_h = 500;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("width", "W", "image width in pixels", &opt_w, 1, 1 << 15),
    OPT_INT_SPEC("height", "H", "image height in pixels", &opt_h, 1, 1 << 15),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "a launch of 2048 threads per block, over the limit of 1024 (8_Debugging case)",
    case_opts, (int)(sizeof case_opts / sizeof case_opts[0]),
    "out = 255 - in for an 8-bit image, one thread per pixel. The buggy form launches\n"
    "blocks of 64 x 32 = 2048 threads: the launch is refused (\"invalid argument\" or\n"
    "\"invalid configuration argument\"), a FAIL naming the error. Before it, it prints the\n"
    "configuration and the device's limits. The result is compared with the CPU's.\n"
    "--quick changes nothing: the default size is already small.",
    0};

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int w = (int)opt_w, h = (int)opt_h;
    const size_t bytes = (size_t)w * h;

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    unsigned char *h_in = (unsigned char *)malloc(bytes), *h_out = (unsigned char *)malloc(bytes);
    unsigned int *got = (unsigned int *)malloc(bytes * sizeof(unsigned int));
    unsigned int *ref = (unsigned int *)malloc(bytes * sizeof(unsigned int));
    if (!h_in || !h_out || !got || !ref) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    for (size_t i = 0; i < bytes; i++) h_in[i] = (unsigned char)(rng_u32(o.seed, RNG_STREAM_A, i) & 0xFF);

    unsigned char *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    d_out = (unsigned char *)guarded_malloc(bytes);
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    poison_guarded(d_out, bytes);

#ifdef FIXED
    const dim3 block(32, 8);   /* 256 threads */
#else
    const dim3 block(64, 32);  // BUG: 2048 threads per block; the limit is 1024
#endif
    const dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);

    /* The check to make before a launch: the configuration against the limits. */
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, o.device));
    report_note("image %d x %d; launch: grid (%u, %u, %u) of blocks (%u, %u, %u) = %u threads per block",
                w, h, grid.x, grid.y, grid.z, block.x, block.y, block.z, block.x * block.y * block.z);
    report_note("device limits: %d threads per block, block (%d, %d, %d), grid (%d, %d, %d)",
                prop.maxThreadsPerBlock, prop.maxThreadsDim[0], prop.maxThreadsDim[1],
                prop.maxThreadsDim[2], prop.maxGridSize[0], prop.maxGridSize[1], prop.maxGridSize[2]);

    invert<<<grid, block>>>(d_in, d_out, w, h);
    const cudaError_t launch = cudaGetLastError();
    result_rec r;
    rec_begin(&r, "invert");
    rec_int(&r, "width", w);
    rec_int(&r, "height", h);
    rec_int(&r, "threads_per_block", (long long)block.x * block.y * block.z);
    if (launch != cudaSuccess) {
        /* Nothing ran: a FAIL, with or without --no-check (the buffers are
         * still freed below, so a leak check sees only the refused launch). */
        report_fail("the launch of invert<<<(%u, %u), (%u, %u)>>> failed: %s (%s)", grid.x, grid.y,
                    block.x, block.y, cudaGetErrorString(launch), cudaGetErrorName(launch));
        rec_str(&r, "error", cudaGetErrorName(launch));
        rec_str(&r, "status", "FAIL");
        rec_emit(&r);
    } else {
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

        if (!case_no_check) {
            for (size_t i = 0; i < bytes; i++) {
                got[i] = h_out[i];
                ref[i] = 255u - h_in[i];
            }
            size_t bad = check_exact_u32("invert", got, ref, bytes);
            bad += check_guard("invert", d_out, bytes);
            rec_int(&r, "mismatches", (long long)bad);
            rec_str(&r, "status", bad ? "FAIL" : "PASS");
            rec_emit(&r);
        }
    }

    CUDA_CHECK(cudaFree(d_in));
    guarded_free(d_out);
    free(h_in);
    free(h_out);
    free(got);
    free(ref);
    /* a refused launch FAILs even under --no-check: nothing ran */
    return launch != cudaSuccess ? report_finish() : case_finish(NAME);
}
