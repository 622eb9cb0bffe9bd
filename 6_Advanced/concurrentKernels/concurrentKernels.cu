/* concurrentKernels: independent kernels on several streams running at the
 * same time, shown on a timeline measured by the kernels themselves; and
 * copies overlapped with compute by cutting an array into chunks on
 * several streams, against doing it all in order.
 *
 * What it teaches: work on one stream runs in order; work on different
 * streams may run at the same time, if the GPU has room. Part one: K small
 * kernels (a few blocks each, so one kernel fills a few SMs of many) run
 * one after another on one stream, then one per stream. Each kernel stamps
 * its first block's start and its last block's end with %globaltimer (the
 * GPU's nanosecond clock), and the sample prints both runs as a text
 * timeline. The overlap factor (serial time / concurrent time) is at most
 * K, and less when the kernels' blocks do not all fit at once (SM
 * occupancy), when the launches themselves take longer than a kernel runs,
 * or beyond the device's limit on kernels running at once.
 * Part two: copy an array to the GPU, transform it, copy it back. In order
 * on one stream, the copy engines and the SMs take turns. Cut into chunks
 * on several streams, chunk c+1 is copied in while chunk c is transformed
 * and chunk c-1 is copied out: the speedup is bounded by the slowest stage
 * (copy engines, PCIe and host memory bandwidth), and needs pinned host
 * memory: a copy from pageable memory is staged through a driver buffer and
 * does not overlap (the sample measures that too).
 * Fork and join: every multi-stream variant starts with an event recorded
 * on the main stream that every worker stream waits for (fork) and ends
 * with one event per worker that the main stream waits for (join), so work
 * after it on the main stream (the end of the timing, the checks' copies)
 * waits for all of it.
 *
 * Build:  make -C 6_Advanced/concurrentKernels   (or `make concurrentKernels`)
 * Run:    bin/concurrentKernels                  8 kernels on 8 streams; 64 MiB in 16 chunks on 4 streams
 *         bin/concurrentKernels --blocks=64      bigger kernels: fewer fit at once, less overlap
 *         bin/concurrentKernels --work=200       a heavier transform: compute joins the copies as a stage
 *         bin/concurrentKernels --quick          small sizes, for compute-sanitizer
 * Variants (one table below drives checks, timing and --help):
 *   kernels_serial         K kernels on one stream: the reference of part one
 *   kernels_concurrent     K kernels on K streams (fork/join)
 *   copy_serial            copy in, transform, copy out, whole array, one stream: the reference of part two
 *   copy_overlap           the same in chunks over several streams, pinned host memory
 *   copy_overlap_pageable  the same chunks and streams, pageable host memory
 * No CPU variant: what is measured is concurrency on the GPU (README.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include "check.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "timing.h"

#include "ck_host.h"
#include "ck_work.h"

/* ---- CPU reference ------------------------------------------------------
 * ck_work.h: ck_steps and ck_seed, the same arithmetic on both sides; the
 * expected values are computed once in main. */

/* ---- kernels ------------------------------------------------------------ */

__device__ __forceinline__ unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Part one's kernel: every thread runs `iters` dependent hash steps from a
 * seed of its own and stores the result: arithmetic only, no memory
 * traffic, so a kernel takes the same time alone or beside others as long
 * as its blocks have SMs to run on. Thread 0 of each block stamps the
 * block's start (atomicMin) and, after the block's barrier, its end
 * (atomicMax): stamps[0] ends up the first block's start, stamps[1] the
 * last block's end. The grid covers `out` exactly (blocks x threads). */
__global__ void busy(unsigned int *out, int iters, unsigned long long seed, int kernel,
                     unsigned long long *stamps)
{
    if (threadIdx.x == 0) atomicMin(&stamps[0], global_ns());
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    out[tid] = ck_steps(ck_seed(seed, kernel, tid), iters);
    __syncthreads();
    if (threadIdx.x == 0) atomicMax(&stamps[1], global_ns());
}

/* Part two's kernel: out[i] = `work` hash steps of in[i], over one chunk. */
__global__ void transform(const unsigned int *in, unsigned int *out, int n, int work)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = ck_steps(in[i], work);
}

/* ---- launchers ---------------------------------------------------------- */

#define MAX_STREAMS 64

typedef struct {
    /* part one */
    int kernels, blocks, threads, iters;
    unsigned long long seed;
    unsigned int *out;             /* kernels x blocks x threads results (guarded) */
    unsigned long long *stamps;    /* per kernel: first start, last end (ns) */
    /* part two */
    size_t n;
    int chunks, copy_streams, work, block;
    unsigned int *h_in, *h_out;    /* host buffers: pinned or pageable, per variant */
    unsigned int *d_in, *d_out;    /* d_out guarded */
    /* the worker streams and the fork/join events */
    cudaStream_t workers[MAX_STREAMS];
    cudaEvent_t fork, done[MAX_STREAMS];
} ck_ctx;

/* Fork: every worker stream waits for what the main stream holds so far. */
static void fork_workers(const ck_ctx *c, int workers, cudaStream_t s_main)
{
    CUDA_CHECK(cudaEventRecord(c->fork, s_main));
    for (int k = 0; k < workers; k++) CUDA_CHECK(cudaStreamWaitEvent(c->workers[k], c->fork, 0));
}

/* Join: the main stream waits for everything given to the workers. Without
 * it, what comes next on the main stream (the timing's end event, the
 * checks' copies back) would not wait for them. */
static void join_workers(const ck_ctx *c, int workers, cudaStream_t s_main)
{
    for (int k = 0; k < workers; k++) {
        CUDA_CHECK(cudaEventRecord(c->done[k], c->workers[k]));
        CUDA_CHECK(cudaStreamWaitEvent(s_main, c->done[k], 0));
    }
}

static void launch_busy(const ck_ctx *c, int k, cudaStream_t s)
{
    unsigned int *out = c->out + (size_t)k * c->blocks * c->threads;
    busy<<<c->blocks, c->threads, 0, s>>>(out, c->iters, c->seed, k, c->stamps + 2 * k);
    CHECK_LAUNCH();
}

static void run_kernels_serial(void *p, cudaStream_t s)
{
    const ck_ctx *c = (const ck_ctx *)p;
    for (int k = 0; k < c->kernels; k++) launch_busy(c, k, s);
}

static void run_kernels_concurrent(void *p, cudaStream_t s)
{
    const ck_ctx *c = (const ck_ctx *)p;
    fork_workers(c, c->kernels, s);
    for (int k = 0; k < c->kernels; k++) launch_busy(c, k, c->workers[k]);
    join_workers(c, c->kernels, s);
}

/* One chunk through the three stages, in order on stream s. */
static void transform_chunk(const ck_ctx *c, size_t off, size_t len, cudaStream_t s)
{
    size_t bytes = len * sizeof(unsigned int);
    unsigned int grid = (unsigned int)((len + c->block - 1) / c->block);
    CUDA_CHECK(cudaMemcpyAsync(c->d_in + off, c->h_in + off, bytes, cudaMemcpyHostToDevice, s));
    transform<<<grid, c->block, 0, s>>>(c->d_in + off, c->d_out + off, (int)len, c->work);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(c->h_out + off, c->d_out + off, bytes, cudaMemcpyDeviceToHost, s));
}

static void run_copy_serial(void *p, cudaStream_t s)
{
    const ck_ctx *c = (const ck_ctx *)p;
    transform_chunk(c, 0, c->n, s);
}

/* Chunk ch on worker ch % copy_streams: consecutive chunks on different
 * streams, so one's copy in can run beside another's kernel and a third's
 * copy out. */
static void run_copy_overlap(void *p, cudaStream_t s)
{
    const ck_ctx *c = (const ck_ctx *)p;
    fork_workers(c, c->copy_streams, s);
    for (int ch = 0; ch < c->chunks; ch++) {
        size_t off, len;
        ck_chunk(c->n, c->chunks, ch, &off, &len);
        if (len > 0) transform_chunk(c, off, len, c->workers[ch % c->copy_streams]);
    }
    join_workers(c, c->copy_streams, s);
}

/* ---- variant table ------------------------------------------------------ */

typedef enum { PART_KERNELS, PART_COPIES } part_kind;

typedef struct {
    const char *name;
    timed_fn run;
    part_kind part;
    int is_reference;   /* the serial order of its part */
    int pageable;       /* part two: host buffers from malloc instead of cudaMallocHost */
    const char *what;
} variant;

static const variant variants[] = {
    {"kernels_serial", run_kernels_serial, PART_KERNELS, 1, 0,
     "K kernels on one stream (reference of part one)"},
    {"kernels_concurrent", run_kernels_concurrent, PART_KERNELS, 0, 0,
     "K kernels, one per stream, fork/join"},
    {"copy_serial", run_copy_serial, PART_COPIES, 1, 0,
     "copy in, transform, copy out: whole array, one stream (reference of part two)"},
    {"copy_overlap", run_copy_overlap, PART_COPIES, 0, 0,
     "the same in chunks over several streams, pinned host memory"},
    {"copy_overlap_pageable", run_copy_overlap, PART_COPIES, 0, 1,
     "the same chunks and streams, pageable host memory"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ------------------------------------------------------------ */

static long long opt_streams = 8, opt_blocks = 4, opt_threads = 128, opt_iters = 50000;
static long long opt_n = 1LL << 24, opt_chunks = 16, opt_copy_streams = 4, opt_work = 8;
static long long opt_block = 256;
static const char *opt_variant = "all";
static char variant_choices[256];
static char help_notes[2048];

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("streams", "K", "part one: kernels, and streams of the concurrent run", &opt_streams,
                 1, MAX_STREAMS),
    OPT_INT_SPEC("blocks", "B", "part one: blocks per kernel", &opt_blocks, 1, 4096),
    OPT_INT_SPEC("threads", "T", "part one: threads per block (multiple of 32)", &opt_threads, 32,
                 1024),
    OPT_INT_SPEC("iters", "I", "part one: hash steps per thread (a kernel's length)", &opt_iters, 1,
                 10000000),
    OPT_INT_SPEC("n", "N", "part two: elements (4 bytes each) copied in and out", &opt_n, 1,
                 1LL << 30),
    OPT_INT_SPEC("chunks", "C", "part two: chunks of the overlapped runs", &opt_chunks, 1, 1024),
    OPT_INT_SPEC("copy-streams", "S", "part two: streams of the overlapped runs", &opt_copy_streams,
                 1, MAX_STREAMS),
    OPT_INT_SPEC("work", "W", "part two: hash steps per element in the transform", &opt_work, 0,
                 100000),
    OPT_INT_SPEC("block", "THREADS", "part two: threads per block of the transform", &opt_block, 32,
                 1024),
    OPT_STRING_SPEC("variant", "NAME", "time one variant (the serial references always run)",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "concurrentKernels",
    "kernels on several streams overlapping, and copies overlapped with compute, vs serial order",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

static void build_help_from_table(void)
{
    /* "all" without "cpu": no CPU baseline here (README.md says why) */
    opts_join_choices(variant_choices, sizeof variant_choices, "all", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-22s %s\n",
                              variants[v].name, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "No CPU baseline: what is measured is concurrency on the GPU.\n"
             "Timelines of both part-one runs are printed from each kernel's %%globaltimer stamps.\n"
             "--quick: 4 kernels of 2 blocks x 64 threads (same steps); n = 2^17+3 in 8 chunks.");
}

/* ---- checks ------------------------------------------------------------- */

/* The timestamps before a run: start at the largest value (atomicMin brings
 * it down), end at 0 (atomicMax brings it up). */
static void reset_stamps(const ck_ctx *c, unsigned long long *h_stamps)
{
    for (int k = 0; k < c->kernels; k++) {
        h_stamps[2 * k] = ~0ULL;
        h_stamps[2 * k + 1] = 0;
    }
    CUDA_CHECK(cudaMemcpy(c->stamps, h_stamps, 2 * (size_t)c->kernels * sizeof(unsigned long long),
                          cudaMemcpyHostToDevice));
}

/* Part one, checked: outputs poisoned with the guard zone, stamps reset,
 * the device idle before the run (those were legacy-stream calls, and the
 * worker streams are non-blocking: nothing else orders them); then every
 * result compared exactly, the guard checked, and every kernel stamped
 * with a start no later than its end. The copies back are asynchronous, on
 * the main stream, into pinned memory: after the join they wait for every
 * worker, and the host reads them after the main stream is synchronised. */
static int check_kernels(const variant *v, ck_ctx *c, const unsigned int *h_want,
                         unsigned int *h_got, unsigned long long *h_stamps, cudaStream_t s)
{
    size_t count = (size_t)c->kernels * c->blocks * c->threads;
    size_t bytes = count * sizeof(unsigned int);
    poison_guarded(c->out, bytes);
    reset_stamps(c, h_stamps);
    CUDA_CHECK(cudaDeviceSynchronize());
    v->run(c, s);
    poison_host(h_got, bytes);
    CUDA_CHECK(cudaMemcpyAsync(h_got, c->out, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaMemcpyAsync(h_stamps, c->stamps,
                               2 * (size_t)c->kernels * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    char what[96];
    snprintf(what, sizeof what, "%s(%d kernels) out", v->name, c->kernels);
    size_t bad = check_exact_u32(what, h_got, h_want, count);
    bad += check_guard(what, c->out, bytes);
    for (int k = 0; k < c->kernels; k++)
        if (h_stamps[2 * k] == ~0ULL || h_stamps[2 * k + 1] == 0 ||
            h_stamps[2 * k] > h_stamps[2 * k + 1]) {
            fprintf(stderr, "  %s: kernel %d's stamps are wrong (start %llu, end %llu)\n", what,
                    k, h_stamps[2 * k], h_stamps[2 * k + 1]);
            bad++;
        }
    return bad == 0;
}

/* Part two, checked at n elements: d_out poisoned with its guard zone and
 * the host output poisoned, the device idle first (as above); the run; the
 * main stream synchronised (after the join, that is everything); the host
 * output compared exactly and the guard checked. */
static int check_copies(const variant *v, const ck_ctx *c, size_t n, const unsigned int *h_want,
                        cudaStream_t s)
{
    ck_ctx x = *c;
    x.n = n;
    size_t bytes = n * sizeof(unsigned int);
    poison_guarded(x.d_out, bytes);
    poison_host(x.h_out, bytes);
    CUDA_CHECK(cudaDeviceSynchronize());
    v->run(&x, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    char what[96];
    snprintf(what, sizeof what, "%s(n=%zu, %d chunks) out", v->name, n,
             v->run == run_copy_serial ? 1 : x.chunks);
    size_t bad = check_exact_u32(what, x.h_out, h_want, n);
    bad += check_guard(what, x.d_out, bytes);
    return bad == 0;
}

/* ---- measuring helpers -------------------------------------------------- */

/* The serial order's three stages, each between two events: median of 5. */
static void stage_times(const ck_ctx *c, cudaStream_t s, double *h, double *k, double *d)
{
    double th[5], tk[5], td[5];
    cudaEvent_t e[4];
    for (int i = 0; i < 4; i++) CUDA_CHECK(cudaEventCreate(&e[i]));
    unsigned int grid = (unsigned int)((c->n + c->block - 1) / c->block);
    size_t bytes = c->n * sizeof(unsigned int);
    for (int r = 0; r < 5; r++) {
        CUDA_CHECK(cudaEventRecord(e[0], s));
        CUDA_CHECK(cudaMemcpyAsync(c->d_in, c->h_in, bytes, cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaEventRecord(e[1], s));
        transform<<<grid, c->block, 0, s>>>(c->d_in, c->d_out, (int)c->n, c->work);
        CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(e[2], s));
        CUDA_CHECK(cudaMemcpyAsync(c->h_out, c->d_out, bytes, cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaEventRecord(e[3], s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        float a, b, f;
        CUDA_CHECK(cudaEventElapsedTime(&a, e[0], e[1]));
        CUDA_CHECK(cudaEventElapsedTime(&b, e[1], e[2]));
        CUDA_CHECK(cudaEventElapsedTime(&f, e[2], e[3]));
        th[r] = a;
        tk[r] = b;
        td[r] = f;
    }
    for (int i = 0; i < 4; i++) CUDA_CHECK(cudaEventDestroy(e[i]));
    *h = stats_median(th, 5);
    *k = stats_median(tk, 5);
    *d = stats_median(td, 5);
}

/* One more run of a part-one variant after the timing, its stamps printed
 * as a timeline; returns the spread of the kernels' start times (us). */
static double show_timeline(const variant *v, ck_ctx *c, unsigned long long *h_stamps,
                            cudaStream_t s)
{
    reset_stamps(c, h_stamps);
    CUDA_CHECK(cudaDeviceSynchronize());
    char range[80];
    snprintf(range, sizeof range, "concurrentKernels/timeline_%s", v->name);
    int depth = nvtx_push_path(range);
    v->run(c, s);
    CUDA_CHECK(cudaMemcpyAsync(h_stamps, c->stamps,
                               2 * (size_t)c->kernels * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    nvtx_pop_n(depth);
    uint64_t start[MAX_STREAMS], end[MAX_STREAMS];
    char names[MAX_STREAMS][16];
    const char *labels[MAX_STREAMS];
    uint64_t first = ~0ULL, last_start = 0;
    for (int k = 0; k < c->kernels; k++) {
        start[k] = h_stamps[2 * k];
        end[k] = h_stamps[2 * k + 1];
        snprintf(names[k], sizeof names[k], "kernel %d", k);
        labels[k] = names[k];
        if (start[k] < first) first = start[k];
        if (start[k] > last_start) last_start = start[k];
    }
    static char text[MAX_STREAMS * 200];
    report_note("timeline of %s (%%globaltimer: first block's start, last block's end):", v->name);
    if (ck_timeline(start, end, c->kernels, labels, 60, text, sizeof text) == 0) {
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            report_note("  %s", line);
    }
    return last_start >= first ? (double)(last_start - first) / 1e3 : 0.0;
}

/* ---- main --------------------------------------------------------------- */

static void fail_arg(const char *msg)
{
    fprintf(stderr, "concurrentKernels: error: %s\n", msg);
    printf("concurrentKernels: FAIL (bad argument)\n");
    exit(1);
}

static int selected(const variant *v)
{
    return opts_variant_runs(opt_variant, v->name, v->is_reference);
}

int main(int argc, char **argv)
{
    common_opts o;
    build_help_from_table();
    opts_parse_or_exit(&cfg, argc, argv, &o);
    char err[160];
    if (opt_threads % 32 != 0) {
        snprintf(err, sizeof err, "--threads=%lld: must be a multiple of 32", opt_threads);
        fail_arg(err);
    }
    if (opt_block % 32 != 0) {
        snprintf(err, sizeof err, "--block=%lld: must be a multiple of 32", opt_block);
        fail_arg(err);
    }
    ck_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    /* --quick shrinks what was left at its default. */
    ctx.kernels = (int)(o.quick && opt_streams == 8 ? 4 : opt_streams);
    ctx.blocks = (int)(o.quick && opt_blocks == 4 ? 2 : opt_blocks);
    ctx.threads = (int)(o.quick && opt_threads == 128 ? 64 : opt_threads);
    /* --quick keeps the kernels' length: a kernel that outlasts the host's
     * launches by far is what makes an unsynchronised read see it running. */
    ctx.iters = (int)opt_iters;
    ctx.n = (size_t)(o.quick && opt_n == (1LL << 24) ? (1 << 17) + 3 : opt_n);
    ctx.chunks = (int)(o.quick && opt_chunks == 16 ? 8 : opt_chunks);
    ctx.copy_streams = (int)opt_copy_streams;
    ctx.work = (int)opt_work;
    ctx.block = (int)opt_block;
    ctx.seed = o.seed;
    const size_t count = (size_t)ctx.kernels * ctx.blocks * ctx.threads;   /* at most 2^28 */
    size_t bytes;
    if (opts_checked_bytes("--n", (long long)ctx.n, sizeof(unsigned int), 6, 1ULL << 40, &bytes,
                           err, sizeof err))
        fail_arg(err);
    bytes = ctx.n * sizeof(unsigned int);
    const size_t out_bytes = count * sizeof(unsigned int);
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    report_init("concurrentKernels", o.json);
    device_info dev;
    device_setup_or_exit("concurrentKernels", o.device, o.json, &dev);
    int concurrent = 0, engines = 0, per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentKernels, dev.id));
    CUDA_CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, dev.id));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, busy, ctx.threads, 0));

    /* Streams: the main one and the workers, all non-blocking (no implicit
     * ordering with the legacy stream or with each other: the fork and join
     * events are the only order between them), named for Nsight Systems. */
    cudaStream_t s_main;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_main, cudaStreamNonBlocking));
    nvtxNameCudaStreamA(s_main, "main");
    const int n_workers = ctx.kernels > ctx.copy_streams ? ctx.kernels : ctx.copy_streams;
    for (int k = 0; k < n_workers; k++) {
        char name[32];
        CUDA_CHECK(cudaStreamCreateWithFlags(&ctx.workers[k], cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&ctx.done[k], cudaEventDisableTiming));
        snprintf(name, sizeof name, "worker %d", k);
        nvtxNameCudaStreamA(ctx.workers[k], name);
    }
    CUDA_CHECK(cudaEventCreateWithFlags(&ctx.fork, cudaEventDisableTiming));

    /* Part one's buffers and expected values. */
    unsigned int *h_want_k = (unsigned int *)malloc(out_bytes);
    unsigned int *h_want_c = (unsigned int *)malloc(bytes);
    unsigned int *h_in_pg = (unsigned int *)malloc(bytes), *h_out_pg = (unsigned int *)malloc(bytes);
    if (!h_want_k || !h_want_c || !h_in_pg || !h_out_pg) {
        report_fail("out of host memory");
        return report_finish();
    }
    double t_ref = host_seconds();
    for (int k = 0; k < ctx.kernels; k++)
        for (size_t t = 0; t < (size_t)ctx.blocks * ctx.threads; t++)
            h_want_k[(size_t)k * ctx.blocks * ctx.threads + t] =
                ck_steps(ck_seed(o.seed, k, (uint32_t)t), ctx.iters);
    unsigned int *h_got_k;
    unsigned long long *h_stamps;
    CUDA_CHECK(cudaMallocHost(&h_got_k, out_bytes));
    CUDA_CHECK(cudaMallocHost(&h_stamps, 2 * (size_t)ctx.kernels * sizeof(unsigned long long)));
    ctx.out = (unsigned int *)guarded_malloc(out_bytes);
    CUDA_CHECK(cudaMalloc(&ctx.stamps, 2 * (size_t)ctx.kernels * sizeof(unsigned long long)));

    /* Part two's buffers: pinned and pageable copies of the same input. */
    unsigned int *h_in_pin, *h_out_pin;
    CUDA_CHECK(cudaMallocHost(&h_in_pin, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out_pin, bytes));
    for (size_t i = 0; i < ctx.n; i++) h_in_pin[i] = rng_u32(o.seed, RNG_STREAM_A, i);
    memcpy(h_in_pg, h_in_pin, bytes);
    host_prefault(h_out_pg, bytes);
    for (size_t i = 0; i < ctx.n; i++) h_want_c[i] = ck_steps(h_in_pin[i], ctx.work);
    CUDA_CHECK(cudaMalloc(&ctx.d_in, bytes));
    ctx.d_out = (unsigned int *)guarded_malloc(bytes);

    const int at_once = concurrent ? ck_kernels_at_once(ctx.kernels, ctx.blocks, per_sm,
                                                        dev.sm_count, 128)
                                   : 1;
    const double kernel_bound = ck_kernel_overlap_bound(ctx.kernels, at_once);
    report_note("part one: %d kernels of %d blocks x %d threads, %d steps each; %d blocks of busy "
                "fit per SM x %d SMs, so %d kernels at once (limit 128 running kernels%s): best "
                "overlap %.3g", ctx.kernels, ctx.blocks, ctx.threads, ctx.iters, per_sm,
                dev.sm_count, at_once, concurrent ? "" : "; this device runs one at a time",
                kernel_bound);
    report_note("part two: n=%zu (%.1f MiB each way), %d chunks on %d streams, %d steps per element, "
                "%d copy engines; CPU references %.2f s", ctx.n, bytes / 1048576.0, ctx.chunks,
                ctx.copy_streams, ctx.work, engines, host_seconds() - t_ref);

    /* Check every variant first; part two at sizes that are not multiples
     * of the block or of the chunk count too. */
    const size_t small_sizes[] = {1, 1000, 4097};
    int ok[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        ok[v] = 1;
        if (var->part == PART_KERNELS) {
            ok[v] = check_kernels(var, &ctx, h_want_k, h_got_k, h_stamps, s_main);
            continue;
        }
        ck_ctx x = ctx;
        x.h_in = var->pageable ? h_in_pg : h_in_pin;
        x.h_out = var->pageable ? h_out_pg : h_out_pin;
        for (size_t k = 0; k < sizeof small_sizes / sizeof small_sizes[0]; k++)
            if (small_sizes[k] < ctx.n)
                ok[v] &= check_copies(var, &x, small_sizes[k], h_want_c, s_main);
        ok[v] &= check_copies(var, &x, ctx.n, h_want_c, s_main);
    }

    /* The serial order's stages, for part two's bound. */
    ck_ctx pinned = ctx;
    pinned.h_in = h_in_pin;
    pinned.h_out = h_out_pin;
    double th = 0, tk = 0, td = 0;
    stage_times(&pinned, s_main, &th, &tk, &td);
    const double copy_bound = ck_pipeline_bound(th, tk, td, ctx.chunks, engines);
    report_note("part two, serial stages: copy in %.3f ms, transform %.3f ms, copy out %.3f ms: "
                "best speedup in %d chunks with %d copy engine%s %.3g", th, tk, td, ctx.chunks,
                engines, engines == 1 ? "" : "s", copy_bound);

    /* Both parts' variants that passed, with their references, timed round
     * robin (common/timing.h): every ratio is from the same run, at the
     * same clocks. Each variant has its own context (its host buffers). */
    ck_ctx xs[N_VARIANTS];
    timed_variant group[N_VARIANTS];
    timing_stats times[N_VARIANTS];
    char ranges[N_VARIANTS][64];
    int slot[N_VARIANTS], n_group = 0;
    double ref_ms[2] = {0, 0};
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        xs[v] = ctx;
        xs[v].h_in = var->pageable ? h_in_pg : h_in_pin;
        xs[v].h_out = var->pageable ? h_out_pg : h_out_pin;
        slot[v] = -1;
        if (!selected(var) || !ok[v]) continue;
        snprintf(ranges[v], sizeof ranges[v], "concurrentKernels/%s", var->name);
        /* with_launches: the copy variants' pageable copies are host work
         * that waits for the stream inside the call (timing.h), and every
         * variant here is timed alike */
        group[n_group] = (timed_variant){var->run, &xs[v], ranges[v], 0, NULL, 1};
        slot[v] = n_group++;
    }
    if (n_group > 0) {
        timing_cfg tc = timing_defaults(reps);
        tc.stream = s_main;
        time_gpu_group(group, n_group, &tc, times);
    }
    for (int v = 0; v < N_VARIANTS; v++)
        if (variants[v].is_reference && slot[v] >= 0)
            ref_ms[variants[v].part] = times[slot[v]].median_ms;
    double spread_us = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        if (!selected(var)) continue;
        result_rec r;
        rec_begin(&r, var->name);
        ck_ctx x = xs[v];
        if (var->part == PART_KERNELS) {
            rec_int(&r, "kernels", x.kernels);
            rec_int(&r, "blocks", x.blocks);
            rec_int(&r, "threads", x.threads);
            rec_int(&r, "iters", x.iters);
        } else {
            rec_int(&r, "n", (long long)x.n);
            rec_int(&r, "chunks", var->is_reference ? 1 : x.chunks);
        }
        if (!ok[v]) {
            rec_str(&r, "status", "FAIL");
            rec_emit(&r);
            continue;
        }
        const timing_stats t = times[slot[v]];
        const double ref = ref_ms[var->part];
        rec_str(&r, "status", "PASS");
        if (var->part == PART_KERNELS) {
            rec_num(&r, "time_ms", t.median_ms);
            if (!var->is_reference && ref > 0) {
                rec_str(&r, "ref", "kernels_serial");
                rec_num(&r, "pct_ref", 100.0 * ref / t.median_ms);
                rec_num(&r, "overlap", ref / t.median_ms);
                rec_num(&r, "bound", kernel_bound);
            }
            rec_int(&r, "streams", var->is_reference ? 1 : x.kernels);
            spread_us = show_timeline(var, &x, h_stamps, s_main);
            if (!var->is_reference) rec_num(&r, "start_spread_us", spread_us);
        } else {
            double gbps = 8.0 * x.n / (t.median_ms * 1e6);   /* in and out over the bus */
            rec_perf(&r, t.median_ms, "gbps", gbps, 0, var->is_reference ? NULL : "copy_serial",
                     ref > 0 ? 8.0 * x.n / (ref * 1e6) : 0);
            if (var->is_reference) {
                rec_num(&r, "h2d_ms", th);
                rec_num(&r, "kernel_ms", tk);
                rec_num(&r, "d2h_ms", td);
            } else if (ref > 0) {
                rec_num(&r, "speedup", ref / t.median_ms);
                rec_num(&r, "bound", copy_bound);
            }
            rec_int(&r, "streams", var->is_reference ? 1 : x.copy_streams);
            rec_int(&r, "copy_engines", engines);
            rec_str(&r, "host", var->pageable ? "pageable" : "pinned");
        }
        rec_num(&r, "min_ms", t.min_ms);
        timing_rec_clocks(&r, &t);
        rec_emit(&r);
    }

    for (int k = 0; k < n_workers; k++) {
        CUDA_CHECK(cudaStreamDestroy(ctx.workers[k]));
        CUDA_CHECK(cudaEventDestroy(ctx.done[k]));
    }
    CUDA_CHECK(cudaEventDestroy(ctx.fork));
    CUDA_CHECK(cudaStreamDestroy(s_main));
    guarded_free(ctx.out);
    guarded_free(ctx.d_out);
    CUDA_CHECK(cudaFree(ctx.stamps));
    CUDA_CHECK(cudaFree(ctx.d_in));
    CUDA_CHECK(cudaFreeHost(h_got_k));
    CUDA_CHECK(cudaFreeHost(h_stamps));
    CUDA_CHECK(cudaFreeHost(h_in_pin));
    CUDA_CHECK(cudaFreeHost(h_out_pin));
    free(h_want_k);
    free(h_want_c);
    free(h_in_pg);
    free(h_out_pg);
    return report_finish();
}
