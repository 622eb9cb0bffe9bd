/* gridSyncHang: a kernel that never finishes.
 *
 * y = x / max(x), in one kernel of two phases: every block finds the largest
 * value of its part (atomicMax into one word), then every block divides its
 * part by the grid's maximum. The second phase must wait until every block
 * has finished the first: a barrier across the whole grid. The buggy form
 * makes one by hand (each block counts itself in with atomicAdd, then spins
 * until the count reaches gridDim.x) and launches one thread per element,
 * as usual. But a block, once started, keeps its SM until it ends, and the
 * blocks that do not fit wait for a free SM: the blocks that fit spin,
 * waiting for blocks that can only start once they end. The kernel never
 * finishes, and the program never returns: no error, no message, 100% of a
 * CPU core spent in the wait.
 * With a small grid (--n=32K: 128 blocks, each SM holds several) every block
 * is on the GPU at once and the same code gives the right answer: the bug
 * shows only above a size that depends on the GPU (SMs x blocks per SM).
 *   How to find it (README.md): bound the run with `timeout`; attach cuda-gdb
 *     to the hung process (cuda-gdb -p PID): `info cuda kernels`, `info cuda
 *     blocks` (only the blocks the GPU holds are there), `cuda block ...
 *     thread ...`, `bt` (the spin loop) and `print` of the counter. No
 *     compute-sanitizer tool reports a hang.
 *   The program waits --watchdog seconds (default 3) for the kernel, then
 *     says it hangs, FAILs and exits (the kernel ends with the process);
 *     --watchdog=0 waits forever, as a program without such a guard does.
 * The fixed form uses what CUDA provides for this: a cooperative launch
 * (cudaLaunchCooperativeKernel), whose grid is sized to what the GPU holds
 * at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs; a larger
 * one is refused, never left to hang), and grid.sync() as the barrier. The
 * kernel's loops stride over the grid, so any grid covers every element
 * (see also 6_Advanced/cooperativeGroups).
 *
 * Build:  make -C 8_Debugging/gridSyncHang     (bin/gridSyncHang_buggy, _fixed)
 * Run:    bin/gridSyncHang_buggy --quick                    FAIL after 3 s: the kernel hangs
 *         bin/gridSyncHang_buggy --quick --n=32K            PASS: a grid that fits
 *         bin/gridSyncHang_fixed --quick                    PASS
 * Walkthrough: README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include <cooperative_groups.h>

#include "check.h"
#include "cuda_check.h"
#include "debug_case.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "rng.h"
#include "timing.h"

namespace cg = cooperative_groups;

#define NAME CASE_NAME("gridSyncHang")
#define BLOCK 256

/* ---- kernel ------------------------------------------------------------ */

#ifndef FIXED
/* A barrier across the grid, made by hand: each block counts itself in,
 * then waits until every block of the grid has. */
__device__ void grid_barrier(unsigned int *arrived)
{
    __syncthreads();                   /* this block's first phase is done */
    if (threadIdx.x == 0) {
        __threadfence();               /* ...and visible to the other blocks */
        atomicAdd(arrived, 1u);
        while (*(volatile unsigned int *)arrived < gridDim.x) {  // BUG: the blocks that have not started wait for an SM these ones hold
        }
        __threadfence();
    }
    __syncthreads();                   /* the block's other threads wait for thread 0 */
}
#endif

/* y[i] = x[i] / max(x): the grid's maximum, a barrier, the division. */
__global__ void scale_by_max(const unsigned int *x, size_t n, unsigned int *max_all,
                             unsigned int *arrived, float *y)
{
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned int m = 0;
    for (size_t i = first; i < n; i += stride) m = max(m, x[i]);
    m = __reduce_max_sync(0xffffffffu, m);
    if ((threadIdx.x & 31) == 0) atomicMax(max_all, m);

    /* no block may divide before every block's maximum is in */
#ifdef FIXED
    cg::this_grid().sync();
#else
    grid_barrier(arrived);
#endif

    const float mx = (float)*(volatile unsigned int *)max_all;
    for (size_t i = first; i < n; i += stride) y[i] = (float)x[i] / mx;
}

/* ---- options ----------------------------------------------------------- */

static long long opt_n = 1 << 22, opt_watchdog = 3;

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("n", "N", "elements", &opt_n, 1, 1LL << 26),
    OPT_INT_SPEC("watchdog", "S", "seconds to wait for the kernel before calling it hung; 0: "
                 "wait forever", &opt_watchdog, 0, 3600),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "a grid-wide barrier made by hand, which hangs once the grid does not fit (8_Debugging case)",
    case_opts, (int)(sizeof case_opts / sizeof case_opts[0]),
    "y = x / max(x) in one kernel: the maximum, a barrier across the grid, the division.\n"
    "The buggy form's barrier waits for every block of a grid of n / 256 blocks, more\n"
    "than the GPU holds at once: the kernel never ends. After --watchdog seconds the\n"
    "program says so, FAILs and exits; --watchdog=0 waits forever. The result, when\n"
    "there is one, is compared with the CPU's (exactly: one float division each).\n"
    "--quick changes nothing: the default size is already small.",
    0};

/* ---- main -------------------------------------------------------------- */

/* Waits for `done`; 1 if it has not come after `seconds` (0: wait forever). */
static int wait_or_give_up(cudaEvent_t done, int seconds)
{
    if (seconds == 0) {
        CUDA_CHECK(cudaEventSynchronize(done));
        return 0;
    }
    const double t0 = host_seconds();
    cudaError_t e;
    while ((e = cudaEventQuery(done)) == cudaErrorNotReady) {
        if (host_seconds() - t0 > seconds) return 1;
        const struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    CUDA_CHECK(e);
    return 0;
}

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const size_t n = (size_t)opt_n;
    const int watchdog = (int)opt_watchdog;

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    unsigned int *h_x = (unsigned int *)malloc(n * sizeof(unsigned int));
    float *h_y = (float *)malloc(n * sizeof(float)), *h_ref = (float *)malloc(n * sizeof(float));
    if (!h_x || !h_y || !h_ref) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    unsigned int mx = 0;
    for (size_t i = 0; i < n; i++) {
        h_x[i] = rng_u32(o.seed, RNG_STREAM_A, i) >> 8; /* 24 bits: exact as a float */
        if (h_x[i] > mx) mx = h_x[i];
    }
    for (size_t i = 0; i < n; i++) h_ref[i] = (float)h_x[i] / (float)mx;

    unsigned int *d_x, *d_max, *d_arrived;
    float *d_y;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc(&d_max, sizeof(unsigned int)));
    CUDA_CHECK(cudaMalloc(&d_arrived, sizeof(unsigned int)));
    d_y = (float *)guarded_malloc(n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, n * sizeof(unsigned int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_max, 0, sizeof(unsigned int)));
    CUDA_CHECK(cudaMemset(d_arrived, 0, sizeof(unsigned int)));
    poison_guarded(d_y, n * sizeof(float));

    const size_t needed = (n + BLOCK - 1) / BLOCK;
#ifdef FIXED
    /* How many blocks of this kernel the GPU holds at once, and a
     * cooperative launch of no more: every block on the GPU at once, or an
     * error (cudaErrorCooperativeLaunchTooLarge), never a hang. */
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scale_by_max, BLOCK, 0));
    const size_t fits = (size_t)per_sm * dev.sm_count;
    const unsigned int grid = (unsigned int)(needed < fits ? needed : fits);
    report_note("n=%zu; the GPU holds %zu blocks of %d threads of this kernel at once (%d SMs x %d); "
                "cooperative launch of %u blocks, grid.sync() as the barrier",
                n, fits, BLOCK, dev.sm_count, per_sm, grid);
    const unsigned int *a_x = d_x;
    size_t a_n = n;
    void *args[] = {(void *)&a_x, (void *)&a_n, (void *)&d_max, (void *)&d_arrived, (void *)&d_y};
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)scale_by_max, dim3(grid), dim3(BLOCK), args, 0, 0));
#else
    /* One thread per element, as usual. */
    const unsigned int grid = (unsigned int)needed;
    report_note("n=%zu; launch of %u blocks of %d threads, a barrier made by hand", n, grid, BLOCK);
    scale_by_max<<<grid, BLOCK>>>(d_x, n, d_max, d_arrived, d_y);
#endif
    CHECK_LAUNCH();
    cudaEvent_t done;
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventRecord(done, 0));
    if (watchdog)
        report_note("waiting at most %d s for the kernel (--watchdog=0: forever)", watchdog);
    else
        report_note("waiting for the kernel, without a limit (--watchdog=0)");

    result_rec r;
    rec_begin(&r, "scale_by_max");
    rec_int(&r, "n", (long long)n);
    rec_int(&r, "blocks", grid);
    if (wait_or_give_up(done, watchdog)) {
        /* A FAIL, with or without --no-check. The kernel still runs: _exit
         * ends the process at once (no atexit handlers, no CUDA runtime
         * teardown, which could wait for the kernel), and the driver ends
         * the kernel with the process, as when it is killed. */
        report_fail("the kernel has not finished after %d s (--watchdog): it is taken to hang",
                    watchdog);
        rec_str(&r, "status", "FAIL");
        rec_emit(&r);
        const int rc = report_finish();
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    CUDA_CHECK(cudaMemcpy(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost));

    if (!case_no_check) {
        /* One float division on both sides, correctly rounded: exact. */
        size_t bad = check_close_f32("scale_by_max", h_y, h_ref, n, 0.0, 0.0);
        bad += check_guard("scale_by_max", d_y, n * sizeof(float));
        rec_int(&r, "mismatches", (long long)bad);
        rec_str(&r, "status", bad ? "FAIL" : "PASS");
        rec_emit(&r);
    }

    CUDA_CHECK(cudaEventDestroy(done));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_max));
    CUDA_CHECK(cudaFree(d_arrived));
    guarded_free(d_y);
    free(h_x);
    free(h_y);
    free(h_ref);
    return case_finish(NAME);
}
