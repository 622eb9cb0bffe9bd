/* histogramNoReset: a global histogram that is not zeroed before the next
 * call: right the first time, wrong the second.
 *
 * histogram256() counts the bytes of a frame in two kernels, with no global
 * atomics: every block counts its share in shared memory and writes its 256
 * partial counts, then one block adds the partials of every block into the
 * result, hist[b] += partial sums. The function's contract says the caller
 * zeroes hist before each call (so that it can also accumulate several
 * frames on purpose). The caller here forgot, for both calls:
 *   call 1 (frame 1): hist was never written. If the fresh allocation happens
 *     to be zero-filled, the counts are right, and nothing looks wrong;
 *     initcheck sees it anyway: "Uninitialized __global__ memory read" at
 *     the += of the merge kernel, once per bin (256 reads);
 *   call 2 (frame 2): hist still holds frame 1's counts, and frame 2's are
 *     added on top: every bin is wrong, and the comparison with the CPU
 *     says so. initcheck is silent on this call: the memory was written
 *     (by call 1); it is just stale.
 * The fixed form calls cudaMemset(hist, 0, 256 * sizeof(unsigned)) before
 * each call.
 *
 * Build:  make -C 8_Debugging/histogramNoReset   (bin/histogramNoReset_buggy, _fixed)
 * Run:    bin/histogramNoReset_buggy --quick                     frame 1 right, frame 2 wrong
 *         compute-sanitizer --tool initcheck --error-exitcode 1 bin/histogramNoReset_buggy --quick
 *         bin/histogramNoReset_fixed --quick                     PASS
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

#define NAME CASE_NAME("histogramNoReset")
#define BINS 256
#define BLOCK 256

/* ---- kernels ----------------------------------------------------------- */

/* Pass 1: block b counts its grid-stride share of the bytes in shared
 * memory and writes all 256 of its counts to partial[b * 256 ...]. */
__global__ void count_partials(const unsigned char *data, size_t n, unsigned int *partial)
{
    __shared__ unsigned int h[BINS];
    h[threadIdx.x] = 0;
    __syncthreads();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&h[data[i]], 1u);
    __syncthreads();
    partial[(size_t)blockIdx.x * BINS + threadIdx.x] = h[threadIdx.x];
}

/* Pass 2, one block of 256 threads: bin b adds every block's partial count
 * into hist[b]. hist is the caller's: zeroed by the caller, accumulated here. */
__global__ void merge_partials(const unsigned int *partial, int blocks, unsigned int *hist)
{
    const int b = threadIdx.x;
    unsigned int sum = 0;
    for (int k = 0; k < blocks; k++) sum += partial[(size_t)k * BINS + b];
    hist[b] += sum;  // REPORTED: uninit-global-read (first call: hist never written)
}

/* hist += the histogram of data[0, n). The caller zeroes hist first. */
static void histogram256(const unsigned char *d_data, size_t n, unsigned int *d_partial, int blocks,
                         unsigned int *d_hist)
{
    count_partials<<<blocks, BLOCK>>>(d_data, n, d_partial);
    CHECK_LAUNCH();
    merge_partials<<<1, BINS>>>(d_partial, blocks, d_hist);
    CHECK_LAUNCH();
}

/* ---- options ----------------------------------------------------------- */

static long long opt_n = 100003;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("n", "BYTES", "bytes per frame", &opt_n, 1, 1LL << 30),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "a 256-bin histogram called twice without zeroing it (8_Debugging case)", case_opts,
    (int)(sizeof case_opts / sizeof case_opts[0]),
    "Two frames of seeded random bytes, one histogram256() call each, each result\n"
    "compared with the CPU. The buggy caller never zeroes the histogram: frame 1 is\n"
    "right if the fresh allocation happened to be zero, frame 2 is always wrong.\n"
    "--quick changes nothing: the default size is already small.",
    0};

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const size_t n = (size_t)opt_n;
    const size_t hist_bytes = BINS * sizeof(unsigned int);

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    unsigned char *h_data = (unsigned char *)malloc(n);
    unsigned int h_ref[BINS], h_hist[BINS];
    if (!h_data) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    const int blocks = 2 * dev.sm_count;
    unsigned char *d_data;
    unsigned int *d_partial, *d_hist;
    CUDA_CHECK(cudaMalloc(&d_data, n));
    CUDA_CHECK(cudaMalloc(&d_partial, (size_t)blocks * hist_bytes));
    CUDA_CHECK(cudaMalloc(&d_hist, hist_bytes));
    report_note("%zu bytes per frame, %d blocks of %d threads, then one merging block", n, blocks, BLOCK);

    for (int frame = 1; frame <= 2; frame++) {
        /* Frame f: seeded bytes of its own stream. */
        for (size_t i = 0; i < n; i++)
            h_data[i] = (unsigned char)(rng_u32(o.seed, frame == 1 ? RNG_STREAM_A : RNG_STREAM_B, i) >> 24);
        cpu_histogram256(h_data, n, h_ref);
        CUDA_CHECK(cudaMemcpy(d_data, h_data, n, cudaMemcpyHostToDevice));
#ifdef FIXED
        CUDA_CHECK(cudaMemset(d_hist, 0, hist_bytes));   /* the caller's half of the contract */
#else
        /* BUG: hist is not zeroed before the call (neither the first time nor the second) */
#endif
        histogram256(d_data, n, d_partial, blocks, d_hist);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(h_hist, d_hist, hist_bytes, cudaMemcpyDeviceToHost));
        if (case_no_check) continue;
        unsigned long long total = 0;
        for (int b = 0; b < BINS; b++) total += h_hist[b];
        report_note("frame %d: the histogram counts %llu bytes (the frame has %zu)", frame, total, n);
        char what[32];
        snprintf(what, sizeof what, "frame %d histogram", frame);
        size_t bad = check_exact_u32(what, h_hist, h_ref, BINS);
        result_rec r;
        rec_begin(&r, frame == 1 ? "frame1" : "frame2");
        rec_int(&r, "n", (long long)n);
        rec_int(&r, "wrong_bins", (long long)bad);
        rec_str(&r, "status", bad ? "FAIL" : "PASS");
        rec_emit(&r);
    }

    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFree(d_partial));
    CUDA_CHECK(cudaFree(d_hist));
    free(h_data);
    return case_finish(NAME);
}
