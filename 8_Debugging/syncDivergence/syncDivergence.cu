/* syncDivergence: a __syncthreads() inside a branch that some threads skip.
 *
 * Each block maps 256 codes through a lookup table (LUT) of its own (every
 * block belongs to a channel; each channel has a table of --entries values).
 * The first `entries` threads load the block's table into shared memory,
 * then every thread looks its code up. The barrier that must separate the
 * loads from the lookups was written inside the loaders' branch:
 *     if (tid < entries) { lut[tid] = ...; __syncthreads(); }
 *     out[i] = lut[code];
 * so the other threads never wait: they read the table before it is there
 * (its loads take two trips to memory: the channel, then the table) and
 * get whatever shared memory held. Which threads skip decides what the
 * tools say:
 *   --entries=24 (default): lanes 24..31 of warp 0 skip the barrier while
 *       lanes 0..23 wait at it (part of a warp), and warps 1..7 skip it;
 *   --entries=64: warps 0 and 1 wait, warps 2..7 skip (whole warps only).
 *   synccheck: reports the part-of-a-warp skip (a "Barrier error" at the
 *              barrier line for each of the 24 waiting threads of every block,
 *              --entries=24) and nothing for the whole-warp skip (--entries=64);
 *   racecheck: reports both: the loaders' write of lut[] and the skippers'
 *              read of it are not separated by any barrier (H200 captures).
 * The fixed form takes the barrier out of the branch.
 *
 * Build:  make -C 8_Debugging/syncDivergence   (bin/syncDivergence_buggy, _fixed)
 * Run:    bin/syncDivergence_buggy --quick                    wrong result
 *         compute-sanitizer --tool synccheck --error-exitcode 1 bin/syncDivergence_buggy --quick
 *         compute-sanitizer --tool synccheck --error-exitcode 1 bin/syncDivergence_buggy --quick --entries=64
 *         compute-sanitizer --tool racecheck --error-exitcode 1 bin/syncDivergence_buggy --quick --entries=64
 *         bin/syncDivergence_fixed --quick                    PASS
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

#define NAME CASE_NAME("syncDivergence")
#define BLOCK 256

/* ---- CPU reference ----------------------------------------------------- */

static void cpu_apply_lut(const int *codes, const int *channel, const float *tables, int entries,
                          int n, float *out)
{
    for (int i = 0; i < n; i++) out[i] = tables[(size_t)channel[i / BLOCK] * entries + codes[i]];
}

/* ---- kernel ------------------------------------------------------------ */

/* One block per 256 elements; block b uses the table of channel[b]. */
__global__ void apply_lut(const int *codes, const int *channel, const float *tables, int entries,
                          int n, float *out)
{
    __shared__ float lut[BLOCK];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * BLOCK + tid;
    const int code = i < n ? codes[i] : 0;
#ifdef FIXED
    if (tid < entries) lut[tid] = tables[(size_t)channel[blockIdx.x] * entries + tid];
    __syncthreads();                       /* every thread waits for the table */
#else
    if (tid < entries) {
        lut[tid] = tables[(size_t)channel[blockIdx.x] * entries + tid];  // REPORTED: shared-race (the table's write)
        __syncthreads();                   // BUG: only the loaders wait. REPORTED: barrier-error (--entries=24)
    }
#endif
    if (i < n) out[i] = lut[code];         // REPORTED: shared-race (a lookup that did not wait)
}

/* ---- options ----------------------------------------------------------- */

static long long opt_n = 4196, opt_entries = 24;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("n", "N", "codes to map (256 per block)", &opt_n, 1, 1 << 24),
    OPT_INT_SPEC("entries", "E", "entries per table, loaded by threads 0..E-1", &opt_entries, 1, BLOCK),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "per-block lookup tables behind a barrier in a branch (8_Debugging case)", case_opts,
    (int)(sizeof case_opts / sizeof case_opts[0]),
    "Threads 0..E-1 load the block's table into shared memory. In the buggy form the\n"
    "barrier is inside their branch, so the other threads read the table unwaited.\n"
    "--entries=24: part of warp 0 skips the barrier (synccheck reports it);\n"
    "--entries=64: only whole warps skip it (synccheck does not).\n"
    "--quick changes nothing: the default size is already small.",
    0};

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int n = (int)opt_n, entries = (int)opt_entries;
    const int blocks = (n + BLOCK - 1) / BLOCK;

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    /* Codes in [0, entries); one channel per block, all different (a
     * shuffle), so a table left in shared memory by another block is the
     * wrong one; table values in [1, 2), never 0. */
    int *h_codes = (int *)malloc((size_t)n * sizeof(int));
    int *h_channel = (int *)malloc((size_t)blocks * sizeof(int));
    float *h_tables = (float *)malloc((size_t)blocks * entries * sizeof(float));
    float *h_ref = (float *)malloc((size_t)n * sizeof(float));
    float *h_out = (float *)malloc((size_t)n * sizeof(float));
    if (!h_codes || !h_channel || !h_tables || !h_ref || !h_out) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    for (int i = 0; i < n; i++) h_codes[i] = (int)(rng_u32(o.seed, RNG_STREAM_A, i) % entries);
    for (int b = 0; b < blocks; b++) h_channel[b] = b;
    for (int b = blocks - 1; b > 0; b--) { /* Fisher-Yates with the seeded generator */
        int k = (int)(rng_u32(o.seed, RNG_STREAM_B, b) % (unsigned)(b + 1));
        int t = h_channel[b];
        h_channel[b] = h_channel[k];
        h_channel[k] = t;
    }
    rng_fill_uniform(h_tables, (size_t)blocks * entries, o.seed, RNG_STREAM_C, 1.0f, 2.0f);
    cpu_apply_lut(h_codes, h_channel, h_tables, entries, n, h_ref);

    int *d_codes, *d_channel;
    float *d_tables, *d_out;
    CUDA_CHECK(cudaMalloc(&d_codes, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_channel, (size_t)blocks * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_tables, (size_t)blocks * entries * sizeof(float)));
    d_out = (float *)guarded_malloc((size_t)n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(d_codes, h_codes, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_channel, h_channel, (size_t)blocks * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_tables, h_tables, (size_t)blocks * entries * sizeof(float),
                          cudaMemcpyHostToDevice));
    poison_guarded(d_out, (size_t)n * sizeof(float));

    report_note("n=%d, %d blocks of %d threads, %d table entries: threads 0..%d load the table; %s",
                n, blocks, BLOCK, entries, entries - 1,
                entries == BLOCK ? "every thread loads"
                : entries % 32 ? "part of a warp does not (and the warps after it)"
                               : "whole warps do not");
    apply_lut<<<blocks, BLOCK>>>(d_codes, d_channel, d_tables, entries, n, d_out);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));

    if (!case_no_check) {
        /* A lookup copies a value: exact. Count the wrong ones among the
         * loaders (tid < entries) and the others. */
        size_t wrong_loaders = 0, wrong_others = 0;
        for (int i = 0; i < n; i++)
            if (h_out[i] != h_ref[i]) {
                if (i % BLOCK < entries) wrong_loaders++;
                else wrong_others++;
            }
        report_note("wrong lookups: %zu by threads that loaded the table, %zu by the others",
                    wrong_loaders, wrong_others);
        size_t bad = check_close_f32("lookups", h_out, h_ref, n, 0.0, 0.0);
        bad += check_guard("lookups", d_out, (size_t)n * sizeof(float));
        result_rec r;
        rec_begin(&r, "apply_lut");
        rec_int(&r, "n", n);
        rec_int(&r, "entries", entries);
        rec_int(&r, "mismatches", (long long)bad);
        rec_str(&r, "status", bad ? "FAIL" : "PASS");
        rec_emit(&r);
    }

    CUDA_CHECK(cudaFree(d_codes));
    CUDA_CHECK(cudaFree(d_channel));
    CUDA_CHECK(cudaFree(d_tables));
    guarded_free(d_out);
    free(h_codes);
    free(h_channel);
    free(h_tables);
    free(h_ref);
    free(h_out);
    return case_finish(NAME);
}
