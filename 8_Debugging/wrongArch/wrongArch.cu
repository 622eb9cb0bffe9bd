/* wrongArch: "no kernel image is available for execution on the device".
 *
 * A GPU runs machine code (SASS) built for its own architecture (sm_90 for
 * the H200; code for another major version does not run), or PTX, the
 * portable form, which the driver compiles for it when the program loads.
 * The buggy form is built by its Makefile as a Makefile written for another
 * machine would build it: `-gencode arch=compute_80,code=sm_80`, machine
 * code for an A100 and no PTX. The program is fine, the build is wrong:
 * on the H200 the launch finds no code it can run and is refused with
 * cudaErrorNoKernelImageForDevice, "no kernel image is available for
 * execution on the device". Nothing runs.
 *   The checks: the GPU's compute capability (deviceQuery, or the "# device
 *     0: ..., CC 9.0" line every program of the suite prints) against what
 *     the program carries (`cuobjdump --list-elf` lists the machine code,
 *     `cuobjdump --list-ptx` the PTX); in the program, cudaFuncGetAttributes
 *     asks for the kernel before any launch and fails with the same error.
 * The fixed form is built for the GPU it runs on (the suite's SMS: machine
 * code and PTX for it). The source differs only in what it says it was
 * built for.
 *
 * Build:  make -C 8_Debugging/wrongArch        (bin/wrongArch_buggy, _fixed)
 * Run:    bin/wrongArch_buggy --quick          FAIL: no kernel image is available ...
 *         bin/wrongArch_fixed --quick          PASS
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

#define NAME CASE_NAME("wrongArch")
#define BLOCK 256
#define STR_(x) #x
#define STR(x) STR_(x)

#ifdef FIXED
#define BUILT_FOR "this GPU's architecture (SMS in the Makefile: machine code and PTX)"
#else
/* BUG: the Makefile builds this form for sm_WRONG_SM only, and no PTX */
#define BUILT_FOR "sm_" STR(WRONG_SM) " only (machine code, no PTX)"
#endif

/* ---- kernel ------------------------------------------------------------ */

/* y = a * x + y */
__global__ void saxpy(float a, const float *x, float *y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

/* ---- options ----------------------------------------------------------- */

static long long opt_n = 4097;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("n", "N", "elements", &opt_n, 1, 1 << 24),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "a program built for another GPU than the one it runs on (8_Debugging case)",
    case_opts, (int)(sizeof case_opts / sizeof case_opts[0]),
    "y = a * x + y. The buggy form is built for sm_80 only (machine code, no PTX;\n"
    "sm_90 where the GPU is an 8.x one): on any other GPU its launch is refused,\n"
    "\"no kernel image is available for execution on the device\", a FAIL naming the\n"
    "error. The result is compared with the CPU's.\n"
    "--quick changes nothing: the default size is already small.",
    0};

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int n = (int)opt_n;
    const size_t bytes = (size_t)n * sizeof(float);
    const float a = 2.5f;

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes), *h_ref = (float *)malloc(bytes);
    if (!h_x || !h_y || !h_ref) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    rng_fill_uniform(h_x, n, o.seed, RNG_STREAM_A, -1.0f, 1.0f);
    rng_fill_uniform(h_y, n, o.seed, RNG_STREAM_B, -1.0f, 1.0f);
    for (int i = 0; i < n; i++) h_ref[i] = a * h_x[i] + h_y[i];

    float *d_x, *d_y;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    d_y = (float *)guarded_malloc(bytes);
    CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    poison_guarded(d_y, bytes);
    CUDA_CHECK(cudaMemcpy(d_y, h_y, bytes, cudaMemcpyHostToDevice));

    report_note("n=%d; this program was built for %s; this GPU is compute capability %d.%d",
                n, BUILT_FOR, dev.cc_major, dev.cc_minor);
    /* The check to make before a launch: is there code for this GPU? */
    cudaFuncAttributes attr;
    const cudaError_t query = cudaFuncGetAttributes(&attr, saxpy);
    cudaGetLastError(); /* a refused query must not be taken for the launch's error below */
    if (query == cudaSuccess)
        report_note("cudaFuncGetAttributes: saxpy's machine code is for sm_%d, its PTX for "
                    "compute_%d", attr.binaryVersion, attr.ptxVersion);
    else
        report_note("cudaFuncGetAttributes(saxpy): %s (%s)", cudaGetErrorString(query),
                    cudaGetErrorName(query));

    const int blocks = (n + BLOCK - 1) / BLOCK;
    saxpy<<<blocks, BLOCK>>>(a, d_x, d_y, n);
    const cudaError_t launch = cudaGetLastError();
    result_rec r;
    rec_begin(&r, "saxpy");
    rec_int(&r, "n", n);
    if (launch != cudaSuccess) {
        /* Nothing ran: a FAIL, with or without --no-check (the buffers are
         * still freed below, so a leak check sees only the refused launch). */
        report_fail("the launch of saxpy<<<%d, %d>>> failed: %s (%s)", blocks, BLOCK,
                    cudaGetErrorString(launch), cudaGetErrorName(launch));
        rec_str(&r, "error", cudaGetErrorName(launch));
        rec_str(&r, "status", "FAIL");
        rec_emit(&r);
    } else {
        CUDA_CHECK(cudaDeviceSynchronize());
        float *h_out = h_y; /* the input is no longer needed */
        CUDA_CHECK(cudaMemcpy(h_out, d_y, bytes, cudaMemcpyDeviceToHost));

        if (!case_no_check) {
            /* One multiply and one add on both sides; the GPU may fuse them
             * into one FMA, which skips the rounding of a x: the two differ by
             * at most an ulp of |a x| <= 2.5 and one of the sum, below 1e-6. */
            size_t bad = check_close_f32("saxpy", h_out, h_ref, n, 1e-6, 1e-6);
            bad += check_guard("saxpy", d_y, bytes);
            rec_int(&r, "mismatches", (long long)bad);
            rec_str(&r, "status", bad ? "FAIL" : "PASS");
            rec_emit(&r);
        }
    }

    CUDA_CHECK(cudaFree(d_x));
    guarded_free(d_y);
    free(h_x);
    free(h_y);
    free(h_ref);
    /* a refused launch FAILs even under --no-check: nothing ran */
    return launch != cudaSuccess ? report_finish() : case_finish(NAME);
}
