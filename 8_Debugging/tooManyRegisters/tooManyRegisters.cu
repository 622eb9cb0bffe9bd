/* tooManyRegisters: "too many resources requested for launch".
 *
 * Each thread computes the 8x8 DCT of one tile of 64 floats (the transform
 * of JPEG), with the whole tile in registers: 64 values, plus the partial
 * sums and the addresses. The kernel is launched with 1024 threads per
 * block. An SM has 65536 32-bit registers, and a block must fit on one SM
 * whole: 1024 threads may use at most 64 registers each. Without
 * __launch_bounds__ the compiler does not know the kernel will be launched
 * with 1024 threads and gives it what it needs (more than 64: `nvcc -Xptxas
 * -v` or `cuobjdump --dump-resource-usage` say how many), so no SM can hold
 * such a block and the launch is refused: cudaErrorLaunchOutOfResources,
 * "too many resources requested for launch". Nothing runs; the error comes
 * back from the launch itself (cudaGetLastError right after it).
 *   The check, before the launch: cudaFuncGetAttributes gives the kernel's
 *     numRegs and maxThreadsPerBlock (the most threads a block of THIS
 *     kernel can have: below 1024 here), and
 *     cudaOccupancyMaxActiveBlocksPerMultiprocessor says 0 blocks of 1024
 *     fit on an SM. The program prints both, then launches.
 * The fixed form declares __launch_bounds__(1024): the compiler then keeps
 * the kernel within 64 registers (spilling a few values to local memory if
 * it must). The other fix is fewer threads per block (--threads=256 runs the
 * buggy form too).
 * --smem=BYTES also asks for that much dynamic shared memory per block (the
 * kernel uses none): the other per-block resource, whose limit gives its own
 * error (README.md).
 *
 * Build:  make -C 8_Debugging/tooManyRegisters   (bin/tooManyRegisters_buggy, _fixed)
 * Run:    bin/tooManyRegisters_buggy --quick                  FAIL: too many resources requested for launch
 *         bin/tooManyRegisters_buggy --quick --threads=256    PASS: a smaller block fits
 *         bin/tooManyRegisters_fixed --quick                  PASS
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

#define NAME CASE_NAME("tooManyRegisters")
#define TILE 64 /* an 8x8 tile, row by row */

/* The DCT-II coefficients, c[u * 8 + x] = a(u) cos((2x + 1) u pi / 16). */
__constant__ float c_dct[TILE];

/* ---- kernel ------------------------------------------------------------ */

/* One thread, one tile: rows, then columns, the tile held in registers. */
#ifdef FIXED
__global__ void __launch_bounds__(1024) dct8x8(const float *in, float *out, int tiles)
#else
__global__ void dct8x8(const float *in, float *out, int tiles)  // BUG: launched with 1024 threads, no __launch_bounds__
#endif
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= tiles) return;
    const float4 *src = (const float4 *)(in + (size_t)t * TILE);
    float v[TILE];
#pragma unroll
    for (int i = 0; i < TILE / 4; i++) {
        const float4 q = src[i];
        v[4 * i] = q.x, v[4 * i + 1] = q.y, v[4 * i + 2] = q.z, v[4 * i + 3] = q.w;
    }
#pragma unroll
    for (int r = 0; r < 8; r++) {          /* each row: v[r][.] = C v[r][.] */
        float w[8];
#pragma unroll
        for (int u = 0; u < 8; u++) {
            float s = 0.0f;
#pragma unroll
            for (int x = 0; x < 8; x++) s += c_dct[u * 8 + x] * v[r * 8 + x];
            w[u] = s;
        }
#pragma unroll
        for (int u = 0; u < 8; u++) v[r * 8 + u] = w[u];
    }
    float *dst = out + (size_t)t * TILE;
#pragma unroll
    for (int col = 0; col < 8; col++) {    /* each column: out[.][col] = C v[.][col] */
#pragma unroll
        for (int u = 0; u < 8; u++) {
            float s = 0.0f;
#pragma unroll
            for (int y = 0; y < 8; y++) s += c_dct[u * 8 + y] * v[y * 8 + col];
            dst[u * 8 + col] = s;
        }
    }
}

/* ---- CPU reference ----------------------------------------------------- */

static void dct_coefficients(float *c)
{
    const double pi = 3.14159265358979323846;
    for (int u = 0; u < 8; u++)
        for (int x = 0; x < 8; x++)
            c[u * 8 + x] = (float)((u == 0 ? sqrt(1.0 / 8.0) : sqrt(2.0 / 8.0)) *
                                   cos((2 * x + 1) * u * pi / 16.0));
}

/* The same transform in double, with the same (float) coefficients. */
static void cpu_dct8x8(const float *in, const float *c, int tiles, double *out)
{
    for (int t = 0; t < tiles; t++) {
        const float *v = in + (size_t)t * TILE;
        double rows[TILE];
        for (int r = 0; r < 8; r++)
            for (int u = 0; u < 8; u++) {
                double s = 0.0;
                for (int x = 0; x < 8; x++) s += (double)c[u * 8 + x] * v[r * 8 + x];
                rows[r * 8 + u] = s;
            }
        for (int col = 0; col < 8; col++)
            for (int u = 0; u < 8; u++) {
                double s = 0.0;
                for (int y = 0; y < 8; y++) s += (double)c[u * 8 + y] * rows[y * 8 + col];
                out[(size_t)t * TILE + u * 8 + col] = s;
            }
    }
}

/* ---- options ----------------------------------------------------------- */

static long long opt_tiles = 4097, opt_threads = 1024, opt_smem = 0;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("tiles", "N", "8x8 tiles to transform (one thread each)", &opt_tiles, 1, 1 << 22),
    OPT_INT_SPEC("threads", "T", "threads per block of the launch", &opt_threads, 1, 1024),
    OPT_INT_SPEC("smem", "BYTES", "dynamic shared memory to ask for per block (the kernel uses none)",
                 &opt_smem, 0, 1 << 20),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "a kernel that needs more registers than a block of 1024 threads can have (8_Debugging case)",
    case_opts, (int)(sizeof case_opts / sizeof case_opts[0]),
    "Each thread transforms one 8x8 tile held in registers; the launch asks for 1024\n"
    "threads per block. Before it, the program prints what cudaFuncGetAttributes and\n"
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor say about the kernel; a refused\n"
    "launch is a FAIL naming the error. The result is compared with a CPU transform.\n"
    "--quick changes nothing: the default size is already small.",
    0};

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int tiles = (int)opt_tiles, threads = (int)opt_threads;
    const size_t smem = (size_t)opt_smem, count = (size_t)tiles * TILE, bytes = count * sizeof(float);

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
    double *h_ref = (double *)malloc(count * sizeof(double));
    if (!h_in || !h_out || !h_ref) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    float c[TILE];
    dct_coefficients(c);
    rng_fill_uniform(h_in, count, o.seed, RNG_STREAM_A, -1.0f, 1.0f);
    cpu_dct8x8(h_in, c, tiles, h_ref);

    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    d_out = (float *)guarded_malloc(bytes);
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpyToSymbol(c_dct, c, sizeof c));
    poison_guarded(d_out, bytes);

    /* The check to make before a launch: what this kernel, as compiled, allows. */
    cudaFuncAttributes attr;
    CUDA_CHECK(cudaFuncGetAttributes(&attr, dct8x8));
    int fit = 0;
    const cudaError_t occ = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, dct8x8, threads, smem);
    cudaGetLastError(); /* a refused query must not be taken for the launch's error below */
    const int blocks = (tiles + threads - 1) / threads;
    report_note("%d tiles of 8x8, one thread each: %d blocks of %d threads, %zu bytes of dynamic "
                "shared memory per block", tiles, blocks, threads, smem);
    report_note("cudaFuncGetAttributes: %d registers per thread, at most %d threads per block "
                "for this kernel", attr.numRegs, attr.maxThreadsPerBlock);
    if (occ == cudaSuccess)
        report_note("cudaOccupancyMaxActiveBlocksPerMultiprocessor: %d blocks of this launch's "
                    "shape fit on one SM", fit);
    else
        report_note("cudaOccupancyMaxActiveBlocksPerMultiprocessor: %s (%s)",
                    cudaGetErrorString(occ), cudaGetErrorName(occ));

    dct8x8<<<blocks, threads, smem>>>(d_in, d_out, tiles);
    const cudaError_t launch = cudaGetLastError();
    result_rec r;
    rec_begin(&r, "dct8x8");
    rec_int(&r, "tiles", tiles);
    rec_int(&r, "threads", threads);
    rec_int(&r, "registers", attr.numRegs);
    if (launch != cudaSuccess) {
        /* Nothing ran: a FAIL, with or without --no-check (the buffers are
         * still freed below, so a leak check sees only the refused launch). */
        report_fail("the launch of dct8x8<<<%d, %d>>> failed: %s (%s)", blocks, threads,
                    cudaGetErrorString(launch), cudaGetErrorName(launch));
        rec_str(&r, "error", cudaGetErrorName(launch));
        rec_str(&r, "status", "FAIL");
        rec_emit(&r);
    } else {
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

        if (!case_no_check) {
            /* Sixteen products summed per output, inputs in [-1, 1], outputs up
             * to 8: float rounding stays below 1e-5 absolute. */
            size_t bad = check_close_f32_f64("dct8x8", h_out, h_ref, count, 1e-5, 1e-5);
            bad += check_guard("dct8x8", d_out, bytes);
            rec_int(&r, "mismatches", (long long)bad);
            rec_str(&r, "status", bad ? "FAIL" : "PASS");
            rec_emit(&r);
        }
    }

    CUDA_CHECK(cudaFree(d_in));
    guarded_free(d_out);
    free(h_in);
    free(h_out);
    free(h_ref);
    /* a refused launch FAILs even under --no-check: nothing ran */
    return launch != cudaSuccess ? report_finish() : case_finish(NAME);
}
