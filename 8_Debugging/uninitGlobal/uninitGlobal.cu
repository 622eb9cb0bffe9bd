/* uninitGlobal: device memory read before it was written, because a
 * cudaMemset was given a count of elements where it takes bytes.
 *
 * A stream of sensor readings arrives in chunks; one thread per sensor keeps
 * the running minimum of its readings in device memory across the chunks
 * (one launch per chunk). The running minimum must start at UINT_MAX, and
 * 0xFF bytes are UINT_MAX, so the start value is set with
 *     cudaMemset(d_min, 0xFF, sensors)                      // bytes!
 * which sets the first `sensors` BYTES: the first sensors/4 minima. The
 * other 3/4 start from whatever the allocation held, and the first launch
 * reads them.
 *   initcheck: reports "Uninitialized __global__ memory read of size 4
 *              bytes" at the read of the running minimum, once per thread of
 *              the first launch whose sensor is past sensors/4 (225 of 300
 *              by default); later launches read what the first one wrote;
 *   memcheck:  silent: every access is inside the allocation.
 * Without tools: the minima of those sensors come out as min(garbage,
 * readings): a fresh allocation is often zero-filled, so they read 0 (the
 * readings are never 0), and the comparison with the CPU fails. Not zero but
 * poisoned as the suite poisons outputs (0xFF) it would PASS: the poison
 * would be exactly the intended start value. See README.md.
 * The fixed form passes sensors * sizeof(unsigned int).
 *
 * Build:  make -C 8_Debugging/uninitGlobal  (bin/uninitGlobal_buggy, bin/uninitGlobal_fixed)
 * Run:    bin/uninitGlobal_buggy --quick                          wrong minima
 *         compute-sanitizer --tool initcheck --error-exitcode 1 bin/uninitGlobal_buggy --quick
 *         bin/uninitGlobal_fixed --quick                          PASS
 * Walkthrough: README.md.
 */
#include <limits.h>
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

#define NAME CASE_NAME("uninitGlobal")
#define BLOCK 128

/* Reading j of sensor s in chunk c: a seeded value in [1, 2^32 - 1], never
 * 0 and never UINT_MAX, so neither a zero start nor a lost minimum can
 * match by luck. */
static unsigned int reading(unsigned long long seed, int c, int s, int j, int per_chunk, int sensors)
{
    unsigned long long idx = ((unsigned long long)c * sensors + s) * per_chunk + j;
    unsigned int v = rng_u32(seed, RNG_STREAM_A, idx);
    return v == 0u ? 1u : v == UINT_MAX ? UINT_MAX - 1u : v;
}

/* ---- CPU reference ----------------------------------------------------- */

static void cpu_minima(const unsigned int *readings, int chunks, int sensors, int per_chunk,
                       unsigned int *out)
{
    for (int s = 0; s < sensors; s++) out[s] = UINT_MAX;
    for (int c = 0; c < chunks; c++)
        for (int s = 0; s < sensors; s++)
            for (int j = 0; j < per_chunk; j++) {
                unsigned int v = readings[((size_t)c * sensors + s) * per_chunk + j];
                if (v < out[s]) out[s] = v;
            }
}

/* ---- kernel ------------------------------------------------------------ */

/* One thread per sensor: fold this chunk's readings into the running
 * minimum kept in device memory between launches. */
__global__ void fold_chunk(const unsigned int *chunk, int sensors, int per_chunk, unsigned int *run_min)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= sensors) return;
    unsigned int m = run_min[s];  // REPORTED: uninit-global-read (sensors past sensors/4, first chunk)
    for (int j = 0; j < per_chunk; j++) m = min(m, chunk[(size_t)s * per_chunk + j]);
    run_min[s] = m;
}

/* ---- options ----------------------------------------------------------- */

static long long opt_sensors = 300, opt_chunks = 3, opt_per_chunk = 64;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("sensors", "N", "sensors (one thread each)", &opt_sensors, 1, 1 << 20),
    OPT_INT_SPEC("chunks", "C", "chunks of readings (one launch each)", &opt_chunks, 1, 1000),
    OPT_INT_SPEC("per-chunk", "R", "readings per sensor per chunk", &opt_per_chunk, 1, 4096),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "running minima in device memory, started by a cudaMemset (8_Debugging case)", case_opts,
    (int)(sizeof case_opts / sizeof case_opts[0]),
    "The start value UINT_MAX is set with cudaMemset(ptr, 0xFF, count). The buggy\n"
    "form passes the number of sensors as the count: bytes, not elements, so 3/4 of\n"
    "the minima start from uninitialized memory.\n"
    "--quick changes nothing: the default sizes are already small.",
    0};

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int sensors = (int)opt_sensors, chunks = (int)opt_chunks, per_chunk = (int)opt_per_chunk;
    size_t all_bytes; /* every chunk's readings, kept on the host for the reference */
    char err[160];
    if (opts_checked_bytes("--sensors x --per-chunk x --chunks", (long long)sensors * per_chunk,
                           sizeof(unsigned int), chunks, 1ULL << 32, &all_bytes, err, sizeof err)) {
        fprintf(stderr, "%s: error: %s\n", NAME, err);
        printf("%s: FAIL (bad argument)\n", NAME);
        return 1;
    }
    /* opts_checked_bytes returns one buffer's size (here one chunk's) after
     * checking that all `chunks` of them fit. */
    const size_t chunk_bytes = all_bytes;
    all_bytes *= (size_t)chunks;
    const size_t min_bytes = (size_t)sensors * sizeof(unsigned int);

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    unsigned int *h_readings = (unsigned int *)malloc(all_bytes);
    unsigned int *h_ref = (unsigned int *)malloc(min_bytes), *h_min = (unsigned int *)malloc(min_bytes);
    if (!h_readings || !h_ref || !h_min) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    for (int c = 0; c < chunks; c++)
        for (int s = 0; s < sensors; s++)
            for (int j = 0; j < per_chunk; j++)
                h_readings[((size_t)c * sensors + s) * per_chunk + j] =
                    reading(o.seed, c, s, j, per_chunk, sensors);
    cpu_minima(h_readings, chunks, sensors, per_chunk, h_ref);

    unsigned int *d_chunk, *d_min;
    CUDA_CHECK(cudaMalloc(&d_chunk, chunk_bytes));
    CUDA_CHECK(cudaMalloc(&d_min, min_bytes));
    /* No poison here, unlike the suite's samples: this memset IS the first
     * write of d_min, and the bug is in it. */
#ifdef FIXED
    CUDA_CHECK(cudaMemset(d_min, 0xFF, (size_t)sensors * sizeof(unsigned int)));
#else
    CUDA_CHECK(cudaMemset(d_min, 0xFF, sensors));  // BUG: a count of elements where bytes are meant
#endif
    report_note("%d sensors, %d chunks of %d readings each: one launch per chunk", sensors, chunks,
                per_chunk);
    for (int c = 0; c < chunks; c++) {
        CUDA_CHECK(cudaMemcpy(d_chunk, h_readings + (size_t)c * sensors * per_chunk, chunk_bytes,
                              cudaMemcpyHostToDevice));
        fold_chunk<<<(sensors + BLOCK - 1) / BLOCK, BLOCK>>>(d_chunk, sensors, per_chunk, d_min);
        CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_min, d_min, min_bytes, cudaMemcpyDeviceToHost));

    if (!case_no_check) {
        size_t zeros = 0;
        for (int s = 0; s < sensors; s++) zeros += h_min[s] == 0u;
        report_note("minima that came out 0 (no reading is 0): %zu of %d", zeros, sensors);
        size_t bad = check_exact_u32("running minima", h_min, h_ref, sensors);
        result_rec r;
        rec_begin(&r, "running_min");
        rec_int(&r, "sensors", sensors);
        rec_int(&r, "mismatches", (long long)bad);
        rec_str(&r, "status", bad ? "FAIL" : "PASS");
        rec_emit(&r);
    }

    CUDA_CHECK(cudaFree(d_chunk));
    CUDA_CHECK(cudaFree(d_min));
    free(h_readings);
    free(h_ref);
    free(h_min);
    return case_finish(NAME);
}
