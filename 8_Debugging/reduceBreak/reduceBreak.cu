/* reduceBreak: a shared-memory tree reduction whose loop gained an early
 * `break`, so threads reach __syncthreads() different numbers of times.
 *
 * Each block sums its elements with the classic tree (halve the active
 * threads at every step, a barrier after every step), then EVERY thread
 * reads the block's sum to centre its own element: out[i] = x[i] - mean of
 * its block. Block-wide sums feeding every thread are everyday code (mean
 * removal, softmax, layer norm). The buggy loop leaves as soon as a thread
 * has nothing left to add:
 *     if (tid >= k) break;
 * which looks like an optimisation and skips the remaining barriers. A
 * thread that breaks goes straight on to read the sum while the threads
 * still in the loop are adding into it: at k = 128, threads 128..255 leave
 * before the first step has even finished. Most of the block centres its
 * element with a partial sum.
 *   racecheck: reports the hazard between the loop's add (write of s[0])
 *              and the read of s[0] below it;
 *   synccheck: reports nothing on the H200 (the capture: 0 errors), not
 *              even for warp 0, whose lanes 16..31 break at k = 16 while lanes
 *              0..15 go on to the barrier, nor for the whole warps 1..7 that
 *              left earlier. A clean synccheck run does not clear a barrier.
 * The fixed form keeps every thread in the loop (`if (tid < k)` around the
 * add), so every thread passes every barrier.
 *
 * Build:  make -C 8_Debugging/reduceBreak   (bin/reduceBreak_buggy, bin/reduceBreak_fixed)
 * Run:    bin/reduceBreak_buggy --quick                              wrong result
 *         compute-sanitizer --tool racecheck --error-exitcode 1 bin/reduceBreak_buggy --quick
 *         compute-sanitizer --tool synccheck --error-exitcode 1 bin/reduceBreak_buggy --quick
 *         bin/reduceBreak_fixed --quick                              PASS
 * Walkthrough: README.md.
 */
#include <math.h>
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

#define NAME CASE_NAME("reduceBreak")
#define BLOCK 256

/* ---- CPU reference ----------------------------------------------------- */

/* out[i] = x[i] - (sum of x over i's block of BLOCK elements) / (elements in
 * that block), the sum in double. */
static void cpu_center_blocks(const float *x, float *out, int n)
{
    for (int b0 = 0; b0 < n; b0 += BLOCK) {
        int len = n - b0 < BLOCK ? n - b0 : BLOCK;
        double s = 0.0;
        for (int i = 0; i < len; i++) s += x[b0 + i];
        float mean = (float)(s / len);
        for (int i = 0; i < len; i++) out[b0 + i] = x[b0 + i] - mean;
    }
}

/* ---- kernel ------------------------------------------------------------ */

/* One block of BLOCK threads per BLOCK elements; threads past n hold 0 and
 * take part in the sum like everyone else. */
__global__ void center_blocks(const float *in, float *out, int n)
{
    __shared__ float s[BLOCK];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * BLOCK + tid;
    const int len = min(BLOCK, n - (int)blockIdx.x * BLOCK);
    const float x = i < n ? in[i] : 0.0f;
    s[tid] = x;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
#ifdef FIXED
        if (tid < k) s[tid] += s[tid + k];
#else
        if (tid >= k) break;                   // BUG: leaves the loop, skipping every barrier that follows
        s[tid] += s[tid + k];                  // REPORTED: shared-race (writes s[0] while others read it)
#endif
        __syncthreads();                       /* skipped by the threads that broke; synccheck is silent (README.md) */
    }
    const float mean = s[0] / (float)len;      // REPORTED: shared-race (read while the tree still adds)
    if (i < n) out[i] = x - mean;
}

/* ---- options ----------------------------------------------------------- */

static long long opt_n = 1000;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("n", "N", "elements (the last block is partial unless N is a multiple of 256)",
                 &opt_n, 1, 1 << 26),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "block sums by a shared-memory tree with an early break (8_Debugging case)", case_opts,
    (int)(sizeof case_opts / sizeof case_opts[0]),
    "Each block of 256 threads sums its elements in shared memory and every thread\n"
    "subtracts the block's mean from its own element. The buggy loop's `break`\n"
    "lets threads leave the tree early and read the sum before it is complete.\n"
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

    float *h_x = (float *)malloc(bytes), *h_ref = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
    if (!h_x || !h_ref || !h_out) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    /* Values in [0, 1): every block's mean is near 0.5, and a partial sum
     * (a few terms instead of 256) gives a mean far from it. */
    rng_fill_uniform(h_x, n, o.seed, RNG_STREAM_A, 0.0f, 1.0f);
    cpu_center_blocks(h_x, h_ref, n);

    float *d_x, *d_out;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    d_out = (float *)guarded_malloc(bytes);
    CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));
    poison_guarded(d_out, bytes);

    const int blocks = (n + BLOCK - 1) / BLOCK;
    report_note("n=%d, %d blocks of %d threads (the last holds %d elements)", n, blocks, BLOCK,
                n - (blocks - 1) * BLOCK);
    center_blocks<<<blocks, BLOCK>>>(d_x, d_out, n);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

    if (!case_no_check) {
        /* The block's sum is a float tree of at most 256 terms in [0, 1):
         * its error is a few ulps of 256 times log2(256), so the mean's is
         * under 1e-6; the subtraction adds half an ulp of 1. 1e-5 absolute
         * is safe and a partial sum misses it by about 0.5. */
        size_t bad = check_close_f32("centred elements", h_out, h_ref, n, 1e-5, 0.0);
        bad += check_guard("centred elements", d_out, bytes);
        result_rec r;
        rec_begin(&r, "center_blocks");
        rec_int(&r, "n", n);
        rec_int(&r, "mismatches", (long long)bad);
        rec_str(&r, "status", bad ? "FAIL" : "PASS");
        rec_emit(&r);
    }

    CUDA_CHECK(cudaFree(d_x));
    guarded_free(d_out);
    free(h_x);
    free(h_ref);
    free(h_out);
    return case_finish(NAME);
}
