/* missingThreadfence: the single-pass cross-block reduction without
 * __threadfence().
 *
 * Every block sums its share, thread 0 stores the block's partial sum to
 * global memory and draws a ticket with atomicAdd; the block that draws the
 * last ticket sums every partial (read from L2 with __ldcg) and resets the
 * counter for the next launch (6_Advanced/threadFenceReduction explains the
 * scheme). Nothing orders thread 0's store of its partial before its atomic
 * as another SM sees them, unless a __threadfence() stands between the two
 * (and a second one on the last block's side, before it reads). Without
 * them the last block may sum a partial that is not there yet: the previous
 * launch's value. Whether that ever happens depends on the GPU's memory
 * system and on timing:
 *   compute-sanitizer: none of the four tools checks memory ordering across
 *     blocks; the capture shows all four clean on the buggy form;
 *   a stress run: --launches=N back-to-back launches of seeded sizes and
 *     offsets, every result checked (integers: exact). The program prints how
 *     many launches came out wrong. On the H200 it did not reproduce (0 wrong
 *     in 100000 + 1000000 launches); a run with 0 wrong proves nothing.
 * The fixed form has both fences.
 *
 * Build:  make -C 8_Debugging/missingThreadfence   (bin/missingThreadfence_buggy, _fixed)
 * Run:    bin/missingThreadfence_buggy                      stress: 100000 launches
 *         bin/missingThreadfence_buggy --launches=1000000   longer
 *         bin/missingThreadfence_buggy --quick              4 launches, one block per SM (sanitizer runs)
 *         bin/missingThreadfence_buggy --blocks=8192        a grid of several waves (8 blocks per SM fit)
 *         bin/missingThreadfence_fixed                      PASS
 * Walkthrough: README.md.
 */
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

#define NAME CASE_NAME("missingThreadfence")
#define BLOCK 256

/* ---- kernel ------------------------------------------------------------ */

/* Sum over the block (all BLOCK threads call it); valid in thread 0. */
__device__ long long block_sum(long long v)
{
    __shared__ long long warp_part[BLOCK / 32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) warp_part[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < BLOCK / 32 ? warp_part[threadIdx.x] : 0;
    if (threadIdx.x < 32)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    __syncthreads(); /* warp_part may be reused by the next call */
    return v;
}

/* results[launch] = sum of in[0, n), in one launch of any grid size. */
__global__ void __launch_bounds__(BLOCK) sum_single_pass(const int *in, int n, long long *partials,
                                                         unsigned int *retired, long long *results,
                                                         int launch)
{
    __shared__ bool am_last;
    long long v = 0;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) v += in[i];
    v = block_sum(v);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
#ifdef FIXED
        __threadfence();          /* release: the partial is visible before the ticket */
#else
        /* BUG: no __threadfence(): the ticket may be seen before the partial */
#endif
        const unsigned int ticket = atomicAdd(retired, 1u);
        am_last = ticket == gridDim.x - 1;
#ifdef FIXED
        if (am_last) __threadfence(); /* acquire: read the partials only after the last ticket */
#endif
    }
    __syncthreads();
    if (am_last) {
        long long w = 0;
        for (int k = threadIdx.x; k < (int)gridDim.x; k += BLOCK) w += __ldcg(&partials[k]);
        w = block_sum(w);
        if (threadIdx.x == 0) {
            results[launch] = w;
            *retired = 0;         /* for the next launch */
        }
    }
}

/* ---- options ----------------------------------------------------------- */

static long long opt_launches = 100000;
static long long opt_blocks = 0;

/* At most this many blocks per launch: the input (5 x blocks x BLOCK ints)
 * and its prefix sums stay under 100 MB of host memory. */
#define MAX_BLOCKS 8192

static const opt_spec case_opts[] = {
    OPT_INT_SPEC("launches", "N", "back-to-back launches, each result checked (--quick: 4, one block per SM)",
                 &opt_launches, 1, 10000000),
    OPT_INT_SPEC("blocks", "N", "blocks per launch (0: fill the GPU once; --quick: one per SM)",
                 &opt_blocks, 0, MAX_BLOCKS),
    CASE_OPTS,
};

static const opts_config cfg = {
    NAME, "single-pass sum across blocks, with and without __threadfence (8_Debugging case)",
    case_opts, (int)(sizeof case_opts / sizeof case_opts[0]),
    "A stress run: N launches of seeded sizes and offsets on one stream, every result\n"
    "checked exactly. The grid fills the GPU once (all blocks resident), so blocks\n"
    "finish close together; --blocks=N launches N blocks instead (several waves when\n"
    "N is more than the GPU holds at once). The buggy form has no __threadfence; the\n"
    "program prints how many launches came out wrong (0 proves nothing: the race may\n"
    "not show).",
    0};

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);
    const int launches = o.quick && opt_launches == 100000 ? 4 : (int)opt_launches;

    report_init(NAME, o.json);
    device_info dev;
    device_setup_or_exit(NAME, o.device, o.json, &dev);

    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_single_pass, BLOCK, 0));
    /* The stress run fills the GPU exactly once; --quick (sanitizer runs,
     * which are slow per block) uses one block per SM. --blocks=N sets the
     * grid: more blocks than the GPU holds at once run in waves, and more
     * than BLOCK make the last block's loop over the partials go round
     * more than once (the mutants use that). */
    const int grid = opt_blocks > 0 ? (int)opt_blocks : dev.sm_count * (o.quick ? 1 : per_sm);
    /* Sizes from 1 to 4 elements per thread of the grid, and offsets up to
     * one grid's worth into a shared input: every block's share, and so
     * every partial, differs from one launch to the next. */
    const int max_n = 4 * grid * BLOCK, max_off = grid * BLOCK;
    const int total = max_n + max_off;

    int *h_in = (int *)malloc((size_t)total * sizeof(int));
    long long *prefix = (long long *)malloc(((size_t)total + 1) * sizeof(long long));
    int *h_n = (int *)malloc((size_t)launches * sizeof(int));
    int *h_off = (int *)malloc((size_t)launches * sizeof(int));
    long long *h_res = (long long *)malloc((size_t)launches * sizeof(long long));
    if (!h_in || !prefix || !h_n || !h_off || !h_res) {
        report_fail("cannot allocate host memory");
        return report_finish(); /* FAIL, with or without --no-check */
    }
    prefix[0] = 0;
    for (int i = 0; i < total; i++) {
        h_in[i] = (int)(rng_u32(o.seed, RNG_STREAM_A, i) % 2001u) - 1000;
        prefix[i + 1] = prefix[i] + h_in[i];
    }
    for (int l = 0; l < launches; l++) {
        h_n[l] = 1 + (int)(rng_u32(o.seed, RNG_STREAM_B, l) % (unsigned)max_n);
        h_off[l] = (int)(rng_u32(o.seed, RNG_STREAM_C, l) % (unsigned)(max_off + 1));
    }

    int *d_in;
    long long *d_partials, *d_res;
    unsigned int *d_retired;
    CUDA_CHECK(cudaMalloc(&d_in, (size_t)total * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_partials, (size_t)grid * sizeof(long long)));
    CUDA_CHECK(cudaMalloc(&d_retired, sizeof(unsigned int)));
    d_res = (long long *)guarded_malloc((size_t)launches * sizeof(long long));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, (size_t)total * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_partials, 0, (size_t)grid * sizeof(long long)));
    CUDA_CHECK(cudaMemset(d_retired, 0, sizeof(unsigned int)));
    poison_guarded(d_res, (size_t)launches * sizeof(long long));

    if (opt_blocks > 0)
        report_note("%d launches of %d blocks x %d threads (--blocks; %d fit at once), n from 1 to "
                    "%d at offsets 0..%d", launches, grid, BLOCK, per_sm * dev.sm_count, max_n,
                    max_off);
    else
        report_note("%d launches of %d blocks x %d threads (%d per SM), n from 1 to %d at offsets "
                    "0..%d", launches, grid, BLOCK, grid / dev.sm_count, max_n, max_off);
    cudaEvent_t t0, t1;
    CUDA_CHECK(cudaEventCreate(&t0));
    CUDA_CHECK(cudaEventCreate(&t1));
    CUDA_CHECK(cudaEventRecord(t0));
    for (int l = 0; l < launches; l++) {
        sum_single_pass<<<grid, BLOCK>>>(d_in + h_off[l], h_n[l], d_partials, d_retired, d_res, l);
        CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaEventRecord(t1));
    CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    CUDA_CHECK(cudaMemcpy(h_res, d_res, (size_t)launches * sizeof(long long), cudaMemcpyDeviceToHost));
    unsigned int left = 1;
    CUDA_CHECK(cudaMemcpy(&left, d_retired, sizeof left, cudaMemcpyDeviceToHost));
    report_note("%d launches in %.1f ms (%.2f us each)", launches, ms, 1000.0 * ms / launches);

    if (!case_no_check) {
        long long wrong = 0;
        int shown = 0;
        for (int l = 0; l < launches; l++) {
            long long want = prefix[h_off[l] + h_n[l]] - prefix[h_off[l]];
            if (h_res[l] != want) {
                wrong++;
                if (shown++ < CHECK_MAX_REPORTED)
                    fprintf(stderr, "  launch %d (n=%d, offset %d): got %lld, expected %lld\n", l,
                            h_n[l], h_off[l], h_res[l], want);
            }
        }
        if (left != 0) report_fail("the ticket counter was left at %u, not 0", left);
        report_note("stress: %lld of %d launches wrong", wrong, launches);
        size_t guard_bad = check_guard("results", d_res, (size_t)launches * sizeof(long long));
        result_rec r;
        rec_begin(&r, "stress");
        rec_int(&r, "launches", launches);
        rec_int(&r, "wrong", wrong);
        rec_num(&r, "us_per_launch", 1000.0 * ms / launches);
        rec_str(&r, "status", wrong || guard_bad || left ? "FAIL" : "PASS");
        rec_emit(&r);
    }

    CUDA_CHECK(cudaEventDestroy(t0));
    CUDA_CHECK(cudaEventDestroy(t1));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_partials));
    CUDA_CHECK(cudaFree(d_retired));
    guarded_free(d_res);
    free(h_in);
    free(prefix);
    free(h_n);
    free(h_off);
    free(h_res);
    return case_finish(NAME);
}
