/* asyncErrorDelay: a kernel reads far out of bounds, and the error is
 * reported by a later, unrelated call.
 *
 * A gather: out[i] = in[idx[i]], where idx uses 0xFFFFFFFF (-1 as an
 * unsigned int) to mean "no source: 0". The buggy kernel forgets to test for
 * it and reads in[4294967295], 16 GiB past the start of `in`: an address
 * nothing is mapped at, so the GPU faults. A kernel runs asynchronously, so
 * its launch has long returned; the fault is reported by the next call that
 * waits for the GPU: here the copy of an unrelated weights array, and the
 * message names that copy's file and line. The program follows the suite's
 * convention (CHECK_LAUNCH after every launch), which catches a launch that
 * could not start, not a fault inside a kernel that started fine.
 * Three ways to pin the error on the gather, each shown in README.md:
 *   --sync-each-launch: a cudaDeviceSynchronize after every launch (what
 *       COMMON_SYNC_AFTER_LAUNCH=1 does to CHECK_LAUNCH in any sample): the
 *       message names the gather's launch line;
 *   CUDA_LAUNCH_BLOCKING=1 in the environment: every launch waits for its
 *       kernel, so the error comes back at the launch;
 *   compute-sanitizer --tool memcheck: the kernel, the source line of the
 *       read, the thread and block, the address and its distance from the
 *       nearest allocation.
 * The fixed form tests for the sentinel.
 *
 * Build:  make -C 8_Debugging/asyncErrorDelay   (bin/asyncErrorDelay_buggy, _fixed)
 * Run:    bin/asyncErrorDelay_buggy --quick                       the misleading message
 *         bin/asyncErrorDelay_buggy --quick --sync-each-launch
 *         CUDA_LAUNCH_BLOCKING=1 bin/asyncErrorDelay_buggy --quick
 *         compute-sanitizer --tool memcheck --error-exitcode 1 bin/asyncErrorDelay_buggy --quick
 *         bin/asyncErrorDelay_fixed --quick                       PASS
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

#define NAME CASE_NAME("asyncErrorDelay")
#define BLOCK 256
#define NO_SOURCE 0xFFFFFFFFu /* idx value: this output has no source */

static int opt_sync_each_launch = 0;

/* After every launch: the suite's CHECK_LAUNCH, and with --sync-each-launch
 * a synchronization too, so that a fault inside the kernel is reported here,
 * at this line, and not by whatever call happens to come next. */
#define LAUNCH_CHECKED()                                                        \
    do {                                                                        \
        CHECK_LAUNCH();                                                         \
        if (opt_sync_each_launch) CUDA_CHECK(cudaDeviceSynchronize());          \
    } while (0)

/* ---- CPU reference ----------------------------------------------------- */

static void cpu_gather(const float *in, const unsigned int *idx, int n, float *out)
{
    for (int i = 0; i < n; i++) out[i] = idx[i] == NO_SOURCE ? 0.0f : in[idx[i]];
}

/* ---- kernels ----------------------------------------------------------- */

__global__ void gather(const float *in, const unsigned int *idx, int n, float *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned int k = idx[i];
#ifdef FIXED
    out[i] = k == NO_SOURCE ? 0.0f : in[k];
#else
    out[i] = in[k];  // BUG: no test for NO_SOURCE. REPORTED: oob-global-read (k = 4294967295)
#endif
}

/* The unrelated work that follows: out[i] *= w[i]. */
__global__ void apply_weights(float *out, const float *w, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] *= w[i];
}

/* ---- options ----------------------------------------------------------- */

static long long opt_n = 4097;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("n", "N", "outputs (every 97th has no source)", &opt_n, 1, 1 << 24),
    OPT_FLAG_SPEC("sync-each-launch", "synchronize after every launch and check, so a fault is "
                  "reported at its launch", &opt_sync_each_launch),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "an out-of-bounds gather whose fault surfaces at a later call (8_Debugging case)",
    case_opts, (int)(sizeof case_opts / sizeof case_opts[0]),
    "out[i] = in[idx[i]], idx[i] = 0xFFFFFFFF meaning 'no source'. The buggy kernel\n"
    "reads in[0xFFFFFFFF], 16 GiB away: the GPU faults, and the error is reported by\n"
    "the next call that waits for the GPU (a copy of unrelated weights).\n"
    "--quick changes nothing: the default size is already small.",
    0};

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int n = (int)opt_n;
    const size_t bytes = (size_t)n * sizeof(float);

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    float *h_in = (float *)malloc(bytes), *h_w = (float *)malloc(bytes);
    float *h_ref = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
    unsigned int *h_idx = (unsigned int *)malloc((size_t)n * sizeof(unsigned int));
    if (!h_in || !h_w || !h_ref || !h_out || !h_idx) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    rng_fill_uniform(h_in, n, o.seed, RNG_STREAM_A, -1.0f, 1.0f);
    rng_fill_uniform(h_w, n, o.seed, RNG_STREAM_B, 0.5f, 1.5f);
    for (int i = 0; i < n; i++)
        h_idx[i] = i % 97 == 96 ? NO_SOURCE : rng_u32(o.seed, RNG_STREAM_C, i) % (unsigned)n;
    cpu_gather(h_in, h_idx, n, h_ref);
    for (int i = 0; i < n; i++) h_ref[i] *= h_w[i];

    float *d_in, *d_out, *d_w;
    unsigned int *d_idx;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_idx, (size_t)n * sizeof(unsigned int)));
    d_out = (float *)guarded_malloc(bytes);
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_idx, h_idx, (size_t)n * sizeof(unsigned int), cudaMemcpyHostToDevice));
    poison_guarded(d_out, bytes);
    report_note("n=%d outputs, %d of them without a source; %s", n, n / 97,
                opt_sync_each_launch ? "synchronizing after every launch"
                                     : "launch errors checked, kernel faults surface later");

    const int blocks = (n + BLOCK - 1) / BLOCK;
    gather<<<blocks, BLOCK>>>(d_in, d_idx, n, d_out);
    LAUNCH_CHECKED();

    /* Later, unrelated: the weights are uploaded and applied. In the buggy
     * form the gather's fault is reported by the first of these calls that
     * comes after it: which one depends on timing (see README.md). */
    CUDA_CHECK(cudaMalloc(&d_w, bytes));
    CUDA_CHECK(cudaMemcpy(d_w, h_w, bytes, cudaMemcpyHostToDevice));
    apply_weights<<<blocks, BLOCK>>>(d_out, d_w, n);
    LAUNCH_CHECKED();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

    if (!case_no_check) {
        /* A copy and one multiplication, the same on both sides: exact. */
        size_t bad = check_close_f32("weighted gather", h_out, h_ref, n, 0.0, 0.0);
        bad += check_guard("weighted gather", d_out, bytes);
        result_rec r;
        rec_begin(&r, "gather");
        rec_int(&r, "n", n);
        rec_int(&r, "mismatches", (long long)bad);
        rec_str(&r, "status", bad ? "FAIL" : "PASS");
        rec_emit(&r);
    }

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_idx));
    CUDA_CHECK(cudaFree(d_w));
    guarded_free(d_out);
    free(h_in);
    free(h_w);
    free(h_ref);
    free(h_out);
    free(h_idx);
    return case_finish(NAME);
}
