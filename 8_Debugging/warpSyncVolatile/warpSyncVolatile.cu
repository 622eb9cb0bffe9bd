/* warpSyncVolatile: the legacy warp-synchronous reduction tail, which
 * relies on `volatile` shared memory and on the 32 lanes of a warp running
 * in lockstep.
 *
 * Block sums by the classic shared-memory tree: __syncthreads() between the
 * steps while more than one warp is busy, then the last six steps (64 -> 1)
 * inside warp 0 without any barrier, through a volatile pointer:
 *     volatile float *v = s;
 *     for (k = 32; k > 0; k >>= 1) v[tid] += v[tid + k];
 * This was the idiom of NVIDIA's reduction sample until CUDA 9. It assumed
 * that the lanes of a warp execute each statement together, so lane t reads
 * v[t + k] only after lane t + k wrote it in the previous step. Since Volta
 * (independent thread scheduling) that is not guaranteed: lanes of a warp
 * may run apart, and each step reads what another lane writes with nothing
 * ordering the two. `volatile` only stops the compiler from keeping the
 * values in registers; it orders nothing between lanes. It is a data race.
 *   racecheck: reports it (H200 capture: five warnings, every end of them
 *              at the tail's line; 0_Simple/reduction's README says so of its
 *              own volatile version; this case makes it runnable);
 *   without tools: the result was right on the H200 (at --quick and 2^26,
 *              -O3 and -G): a race that a new compiler or GPU can turn into
 *              wrong sums, which is why the tool matters.
 * The fixed form does the tail with register shuffles (__shfl_down_sync,
 * as 0_Simple/reduction's kernels 7 and 8 do); __syncwarp() between the
 * read and the write of every step is the other correct repair (kernels 4-6
 * there).
 *
 * Build:  make -C 8_Debugging/warpSyncVolatile   (bin/warpSyncVolatile_buggy, _fixed)
 * Run:    bin/warpSyncVolatile_buggy --quick
 *         compute-sanitizer --tool racecheck --error-exitcode 1 bin/warpSyncVolatile_buggy --quick
 *         bin/warpSyncVolatile_fixed --quick                  PASS
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

#define NAME CASE_NAME("warpSyncVolatile")
#define BLOCK 256

/* ---- CPU reference ----------------------------------------------------- */

static void cpu_block_sums(const float *x, int n, double *out)
{
    for (int b = 0; b * BLOCK < n; b++) {
        double s = 0.0;
        for (int i = b * BLOCK; i < n && i < (b + 1) * BLOCK; i++) s += x[i];
        out[b] = s;
    }
}

/* ---- kernel ------------------------------------------------------------ */

/* out[b] = sum of the BLOCK elements of block b (threads past n add 0). */
__global__ void block_sums(const float *in, int n, float *out)
{
    __shared__ float s[BLOCK];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * BLOCK + tid;
    s[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int k = BLOCK / 2; k > 32; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid < 32) {
#ifdef FIXED
        float v = s[tid] + s[tid + 32];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (tid == 0) out[blockIdx.x] = v;
#else
        volatile float *v = s;                                   // BUG: assumes the warp's lanes run in lockstep
        for (int k = 32; k > 0; k >>= 1) v[tid] += v[tid + k];   // REPORTED: shared-race (lanes of warp 0)
        if (tid == 0) out[blockIdx.x] = v[0];
#endif
    }
}

/* ---- options ----------------------------------------------------------- */

static long long opt_n = 65539;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("n", "N", "elements (one sum per 256)", &opt_n, 1, 1 << 26),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "block sums with the legacy volatile warp-synchronous tail (8_Debugging case)", case_opts,
    (int)(sizeof case_opts / sizeof case_opts[0]),
    "The buggy form ends each block's tree inside warp 0 with a volatile pointer and\n"
    "no synchronization (a data race since Volta); the fixed form uses shuffles.\n"
    "--quick changes nothing: the default size is already small.",
    0};

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int n = (int)opt_n;
    const int blocks = (n + BLOCK - 1) / BLOCK;

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    float *h_x = (float *)malloc((size_t)n * sizeof(float));
    float *h_out = (float *)malloc((size_t)blocks * sizeof(float));
    double *h_ref = (double *)malloc((size_t)blocks * sizeof(double));
    if (!h_x || !h_out || !h_ref) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    rng_fill_uniform(h_x, n, o.seed, RNG_STREAM_A, 0.0f, 1.0f);
    cpu_block_sums(h_x, n, h_ref);

    float *d_x, *d_out;
    CUDA_CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    d_out = (float *)guarded_malloc((size_t)blocks * sizeof(float));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    poison_guarded(d_out, (size_t)blocks * sizeof(float));
    report_note("n=%d: %d block sums of %d elements", n, blocks, BLOCK);
    block_sums<<<blocks, BLOCK>>>(d_x, n, d_out);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, (size_t)blocks * sizeof(float), cudaMemcpyDeviceToHost));

    if (!case_no_check) {
        /* A float tree of 256 terms in [0, 1) against a double sum: the
         * suite's tol_sum_rel(256) relative, plus 1e-5 absolute. */
        size_t bad = check_close_f32_f64("block sums", h_out, h_ref, blocks, 1e-5, tol_sum_rel(BLOCK));
        bad += check_guard("block sums", d_out, (size_t)blocks * sizeof(float));
        result_rec r;
        rec_begin(&r, "block_sums");
        rec_int(&r, "n", n);
        rec_int(&r, "mismatches", (long long)bad);
        rec_str(&r, "status", bad ? "FAIL" : "PASS");
        rec_emit(&r);
    }

    CUDA_CHECK(cudaFree(d_x));
    guarded_free(d_out);
    free(h_x);
    free(h_out);
    free(h_ref);
    return case_finish(NAME);
}
