/* uninitLocal: a per-thread local array filled half-way and then read whole.
 *
 * Each thread computes the mean and the variance of a window of 2r+1
 * neighbours around its element. It copies the window into a local array
 * first (two passes read it), and the copy loop's bound is the radius r
 * where the window's length 2r+1 is needed: only the left half plus the
 * centre is filled, then all 2r+1 slots are read. The other r slots hold
 * whatever that thread's local memory (its stack) held before.
 *   initcheck: sees global memory only: it does not report this (the
 *              capture shows a clean run). memcheck does not either: every
 *              access is inside the array.
 * How it is found instead, all in this program:
 *   - the CPU comparison fails (half of every window is not the data);
 *   - a differential run: the same kernel on the same input twice, with a
 *     kernel in between that scribbles a pattern over the local memory of
 *     every thread slot ("poisoning the stack"). A correct kernel gives
 *     bitwise the same output; this one reads the scribble. The program
 *     reports how many outputs changed;
 *   - NOT a -G build (make -C 8_Debugging/uninitLocal dbg): on the H200 its
 *     first run read the same never-used local memory (zeros) as -O3's.
 * The fixed form copies all 2r+1 values; the differential run then changes
 * nothing, and the CPU comparison passes.
 *
 * Build:  make -C 8_Debugging/uninitLocal   (bin/uninitLocal_buggy, bin/uninitLocal_fixed)
 * Run:    bin/uninitLocal_buggy --quick                      wrong result, outputs change
 *         compute-sanitizer --tool initcheck --error-exitcode 1 bin/uninitLocal_buggy --quick --no-check
 *         bin/uninitLocal_fixed --quick                      PASS, no output changes
 * Walkthrough: README.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "check.h"
#include "cuda_check.h"
#include "debug_case.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "rng.h"

#define NAME CASE_NAME("uninitLocal")
#define MAX_RADIUS 16
#define MAX_WINDOW (2 * MAX_RADIUS + 1)
#define BLOCK 128

/* ---- CPU reference ----------------------------------------------------- */

/* For each i: the mean and the (population) variance of x[clamp(i - r + j)],
 * j = 0 .. 2r, indices clamped to [0, n-1]; in double. */
static void cpu_window_stats(const float *x, int n, int r, float *mean, float *var)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0, ss = 0.0;
        for (int j = 0; j <= 2 * r; j++) {
            int k = i - r + j;
            k = k < 0 ? 0 : k >= n ? n - 1 : k;
            s += x[k];
        }
        double m = s / (2 * r + 1);
        for (int j = 0; j <= 2 * r; j++) {
            int k = i - r + j;
            k = k < 0 ? 0 : k >= n ? n - 1 : k;
            ss += (x[k] - m) * (x[k] - m);
        }
        mean[i] = (float)m;
        var[i] = (float)(ss / (2 * r + 1));
    }
}

/* ---- kernels ----------------------------------------------------------- */

/* One thread per element: copy the window into a local array (its index
 * depends on the run-time radius, so the array lives in local memory, the
 * thread's stack), then two passes over it: the mean, then the variance. */
__global__ void window_stats(const float *x, int n, int r, float *mean, float *var)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float window[MAX_WINDOW];
    const int len = 2 * r + 1;
#ifdef FIXED
    for (int j = 0; j < len; j++) window[j] = x[min(max(i - r + j, 0), n - 1)];
#else
    for (int j = 0; j <= r; j++) window[j] = x[min(max(i - r + j, 0), n - 1)];  // BUG: fills r+1 of the 2r+1 slots
#endif
    float s = 0.0f;
    for (int j = 0; j < len; j++) s += window[j];  // reads window[r+1 .. 2r] unwritten in the buggy form
    const float m = s / (float)len;
    float ss = 0.0f;
    for (int j = 0; j < len; j++) ss += (window[j] - m) * (window[j] - m);
    mean[i] = m;
    var[i] = ss / (float)len;
}

/* The stack poisoner: every thread fills a local array as large as the
 * window with `pattern` and sums it. It is built like window_stats (run-time
 * loop bounds), so its array also lives on the stack, at the same place
 * (ptxas -v: 136 bytes of stack frame for both), and the compiler cannot
 * drop the stores: the sum decides a write. Launched over every thread slot
 * of the GPU, it leaves the pattern wherever a thread's stack lies, for the
 * next kernel to find. */
__global__ void __launch_bounds__(BLOCK) scribble_stack(float pattern, int len, int *sink)
{
    float junk[MAX_WINDOW];
    for (int j = 0; j < len; j++) junk[j] = pattern;
    float s = 0.0f;
    for (int j = 0; j < len; j++) s += junk[j];
    if (s == 12345.0f) atomicAdd(sink, 1); /* never true; the compiler cannot know */
}

/* ---- options ----------------------------------------------------------- */

static long long opt_n = 4097, opt_radius = 4;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("n", "N", "elements", &opt_n, 1, 1 << 24),
    OPT_INT_SPEC("radius", "R", "window radius: 2R+1 elements per window", &opt_radius, 1, MAX_RADIUS),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "windowed mean and variance through a local array (8_Debugging case)", case_opts,
    (int)(sizeof case_opts / sizeof case_opts[0]),
    "The buggy form fills r+1 of the 2r+1 slots of a per-thread local array and reads\n"
    "all of them. The program runs the kernel twice on the same input, scribbling over\n"
    "every thread's local memory in between, and reports how many outputs changed\n"
    "(a correct kernel changes none), then compares with the CPU.\n"
    "--quick changes nothing: the default size is already small.",
    0};

/* ---- main -------------------------------------------------------------- */

/* Run the kernel, copy both outputs back. */
static void run_stats(const float *d_x, int n, int r, float *d_mean, float *d_var, float *h_mean,
                      float *h_var)
{
    poison_guarded(d_mean, n * sizeof(float));
    poison_guarded(d_var, n * sizeof(float));
    window_stats<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_x, n, r, d_mean, d_var);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_mean, d_mean, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_var, d_var, n * sizeof(float), cudaMemcpyDeviceToHost));
}

/* Elements whose bits differ between two runs. */
static size_t count_changed(const float *a, const float *b, int n)
{
    size_t c = 0;
    for (int i = 0; i < n; i++) c += memcmp(&a[i], &b[i], sizeof(float)) != 0;
    return c;
}

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int n = (int)opt_n, r = (int)opt_radius;
    const size_t bytes = (size_t)n * sizeof(float);

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    float *h_x = (float *)malloc(bytes);
    float *h_mean_ref = (float *)malloc(bytes), *h_var_ref = (float *)malloc(bytes);
    float *h_mean[2] = {(float *)malloc(bytes), (float *)malloc(bytes)};
    float *h_var[2] = {(float *)malloc(bytes), (float *)malloc(bytes)};
    if (!h_x || !h_mean_ref || !h_var_ref || !h_mean[0] || !h_mean[1] || !h_var[0] || !h_var[1]) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    rng_fill_uniform(h_x, n, o.seed, RNG_STREAM_A, 0.0f, 1.0f);
    cpu_window_stats(h_x, n, r, h_mean_ref, h_var_ref);

    float *d_x, *d_mean, *d_var;
    int *d_sink;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    d_mean = (float *)guarded_malloc(bytes);
    d_var = (float *)guarded_malloc(bytes);
    CUDA_CHECK(cudaMalloc(&d_sink, sizeof(int)));
    CUDA_CHECK(cudaMemset(d_sink, 0, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));

    /* Run 1 on whatever the stacks hold; then scribble over every thread
     * slot of the GPU (enough resident blocks of the same size on every SM);
     * run 2 on the same input. */
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scribble_stack, BLOCK, 0));
    run_stats(d_x, n, r, d_mean, d_var, h_mean[0], h_var[0]);
    scribble_stack<<<dev.sm_count * per_sm, BLOCK>>>(1.0e6f, MAX_WINDOW, d_sink);
    CHECK_LAUNCH();
    run_stats(d_x, n, r, d_mean, d_var, h_mean[1], h_var[1]);

    size_t changed = count_changed(h_mean[0], h_mean[1], n) + count_changed(h_var[0], h_var[1], n);
    report_note("n=%d, window 2*%d+1 = %d, differential run: %zu of %d outputs changed between two "
                "runs of the same input (local memory scribbled with 1e6 in between)",
                n, r, 2 * r + 1, changed, 2 * n);
    report_note("one output, run 1 -> run 2 (CPU): mean[%d] %.6g -> %.6g (%.6g)", n / 2,
                h_mean[0][n / 2], h_mean[1][n / 2], h_mean_ref[n / 2]);

    if (!case_no_check) {
        result_rec rec;
        rec_begin(&rec, "differential");
        rec_int(&rec, "n", n);
        rec_int(&rec, "changed", (long long)changed);
        rec_str(&rec, "status", changed ? "FAIL" : "PASS");
        rec_emit(&rec);
        /* Against the CPU: float sums of at most 33 values in [0, 1)
         * against double ones; 1e-5 is ample, and half a window of garbage
         * misses it by far. Both runs are checked. */
        size_t bad = 0;
        for (int k = 0; k < 2; k++) {
            char what[64];
            snprintf(what, sizeof what, "run %d: mean", k + 1);
            bad += check_close_f32(what, h_mean[k], h_mean_ref, n, 1e-5, 1e-5);
            snprintf(what, sizeof what, "run %d: variance", k + 1);
            bad += check_close_f32(what, h_var[k], h_var_ref, n, 1e-5, 1e-4);
        }
        /* The guard zones after both outputs, as the second run left them. */
        bad += check_guard("mean", d_mean, bytes) + check_guard("variance", d_var, bytes);
        rec_begin(&rec, "window_stats");
        rec_int(&rec, "n", n);
        rec_int(&rec, "radius", r);
        rec_int(&rec, "mismatches", (long long)bad);
        rec_str(&rec, "status", bad ? "FAIL" : "PASS");
        rec_emit(&rec);
    }

    CUDA_CHECK(cudaFree(d_x));
    guarded_free(d_mean);
    guarded_free(d_var);
    CUDA_CHECK(cudaFree(d_sink));
    free(h_x);
    free(h_mean_ref);
    free(h_var_ref);
    for (int k = 0; k < 2; k++) {
        free(h_mean[k]);
        free(h_var[k]);
    }
    return case_finish(NAME);
}
