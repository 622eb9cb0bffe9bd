/* timing.c: CUDA-event timing with warm-ups, medians, an optional L2 flush,
 * variants timed round robin and the clocks read after each run. */
#define _POSIX_C_SOURCE 199309L
#include "timing.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <nvtx3/nvToolsExt.h>

#include "cuda_check.h"

timing_cfg timing_defaults(int reps)
{
    timing_cfg c;
    c.warmups = 3;
    c.reps = reps > 0 ? reps : 20;
    c.flush_l2 = 0;
    c.stream = 0;
    c.nvtx_name = NULL;
    return c;
}

double host_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_median(const double *v, int n)
{
    if (n <= 0) return 0.0;
    double *s = (double *)malloc((size_t)n * sizeof *s);
    if (!s) return 0.0;
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double m = (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

void stats_summary(const double *v, int n, timing_stats *out)
{
    memset(out, 0, sizeof *out);
    out->reps = n;
    if (n <= 0) return;
    double sum = 0, lo = v[0], hi = v[0];
    for (int i = 0; i < n; i++) {
        sum += v[i];
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
    }
    out->median_ms = stats_median(v, n);
    out->min_ms = lo;
    out->max_ms = hi;
    out->mean_ms = sum / n;
}

void host_prefault(void *p, size_t bytes)
{
    if (p && bytes) memset(p, 0, bytes);
}

void nvtx_push(const char *name)
{
    if (name) nvtxRangePushA(name);
}

void nvtx_pop(void)
{
    nvtxRangePop();
}

#define NVTX_MAX_DEPTH 8

int nvtx_split_path(const char *path, char parts[][64], int max)
{
    int n = 0;
    if (!path) return 0;
    const char *p = path;
    while (*p && n < max) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len > 0) {
            if (len > 63) len = 63;
            memcpy(parts[n], p, len);
            parts[n][len] = '\0';
            n++;
        }
        if (!slash) break;
        p = slash + 1;
    }
    return n;
}

int nvtx_push_path(const char *path)
{
    char parts[NVTX_MAX_DEPTH][64];
    int n = nvtx_split_path(path, parts, NVTX_MAX_DEPTH);
    for (int i = 0; i < n; i++) nvtxRangePushA(parts[i]);
    return n;
}

void nvtx_pop_n(int n)
{
    for (int i = 0; i < n; i++) nvtxRangePop();
}

/* A buffer twice the L2 size, written before each timed run: afterwards the
 * L2 holds only its lines, none of the sample's data. One per device,
 * allocated on first use on that device: a pointer of device 0 given to a
 * memset on device 1's stream is cudaErrorInvalidValue (bandwidthTest
 * --device=all found it on two H200s, 2026-11-30). */
#define FLUSH_MAX_DEVICES 64
static void *flush_buf[FLUSH_MAX_DEVICES];
static size_t flush_bytes[FLUSH_MAX_DEVICES];
static int flush_atexit_done = 0;

static void flush_release(void)
{
    /* Freed at exit so compute-sanitizer's leak check stays clean. */
    for (int d = 0; d < FLUSH_MAX_DEVICES; d++) {
        if (!flush_buf[d]) continue;
        if (cudaSetDevice(d) == cudaSuccess) cudaFree(flush_buf[d]);
        flush_buf[d] = NULL;
    }
}

void flush_l2(cudaStream_t s)
{
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    if (dev < 0 || dev >= FLUSH_MAX_DEVICES) {
        fprintf(stderr, "flush_l2: device %d beyond the %d this build flushes\n", dev,
                FLUSH_MAX_DEVICES);
        exit(1);
    }
    if (!flush_buf[dev]) {
        int l2 = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        flush_bytes[dev] = (size_t)(l2 > 0 ? l2 : (1 << 20)) * 2;
        CUDA_CHECK(cudaMalloc(&flush_buf[dev], flush_bytes[dev]));
        if (!flush_atexit_done) {
            atexit(flush_release);
            flush_atexit_done = 1;
        }
    }
    CUDA_CHECK(cudaMemsetAsync(flush_buf[dev], 0, flush_bytes[dev], s));
}

int timing_rr_variant(int rep, int k, int n)
{
    return n > 0 ? (rep + k) % n : 0;
}

void timing_group_summary(const timed_run *runs, int n, int reps, timing_stats *out)
{
    double *ms = (double *)malloc((size_t)(reps > 0 ? reps : 1) * sizeof *ms);
    double *mhz = (double *)malloc((size_t)(reps > 0 ? reps : 1) * sizeof *mhz);
    if (!ms || !mhz) {
        fprintf(stderr, "time_gpu: out of host memory\n");
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        int clocked = 0;
        unsigned lowest = 0;
        unsigned long long reasons = 0;
        for (int rep = 0; rep < reps; rep++) {
            /* variant i ran k-th in this repetition */
            int k = 0;
            while (timing_rr_variant(rep, k, n) != i) k++;
            const timed_run *run = &runs[(size_t)rep * n + k];
            ms[rep] = run->ms;
            if (run->clocks.ok) {
                mhz[clocked++] = run->clocks.sm_mhz;
                if (!lowest || run->clocks.sm_mhz < lowest) lowest = run->clocks.sm_mhz;
                reasons |= run->clocks.reasons;
            }
        }
        stats_summary(ms, reps, &out[i]);
        out[i].clock_runs = clocked;
        out[i].sm_mhz = stats_median(mhz, clocked);
        out[i].sm_mhz_min = lowest;
        out[i].clock_reasons = reasons;
    }
    free(ms);
    free(mhz);
}

void timing_rec_clocks(result_rec *r, const timing_stats *t)
{
    if (t->clock_runs <= 0) return;
    char names[REC_VAL_LEN];
    if (gpu_clocks_reason_names(t->clock_reasons, names, sizeof names) < 0)
        snprintf(names, sizeof names, "0x%llx", t->clock_reasons);
    rec_num(r, "sm_mhz", t->sm_mhz);
    rec_int(r, "sm_mhz_min", t->sm_mhz_min);
    rec_str(r, "throttle", names);
}

/* The clocks read by a CUDA host function queued on a side stream behind
 * the run's end event: it runs as soon as the run has ended, and the timed
 * stream does not wait for it (a host function on the timed stream would
 * stop the GPU until it returned, and let the host queue the next run's
 * launches ahead meanwhile: a launch-bound run would then be timed without
 * its launches). */
typedef struct {
    gpu_clocks_dev *g;
    gpu_clocks *into;
} clock_read;

static void CUDART_CB read_clocks(void *p)
{
    clock_read *c = (clock_read *)p;
    gpu_clocks_read(c->g, c->into);
}

double timing_hold_seconds(double enqueue_s)
{
    double h = 2.0 * enqueue_s + TIMING_HOLD_MIN_S;
    return h < TIMING_HOLD_MAX_S ? h : TIMING_HOLD_MAX_S;
}

/* The host function that holds the stream: it sleeps for *seconds. A
 * sleep, not a wait for a signal from the host: should a tool make launches
 * wait for the stream (compute-sanitizer may), a signal that never comes
 * would hang the run, and a sleep only ends it late. */
static void CUDART_CB hold_stream(void *seconds)
{
    double s = *(const double *)seconds;
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        /* interrupted by a signal: sleep for what is left */
    }
}

void time_gpu_group(const timed_variant *v, int n, const timing_cfg *cfg, timing_stats *out)
{
    int reps = cfg->reps > 0 ? cfg->reps : 1;
    size_t runs_n = (size_t)reps * n; /* run order: runs[rep * n + k] */
    cudaEvent_t *ev = (cudaEvent_t *)malloc(2 * runs_n * sizeof *ev);
    timed_run *runs = (timed_run *)calloc(runs_n, sizeof *runs);
    clock_read *reads = (clock_read *)malloc(runs_n * sizeof *reads);
    double *hold_of_run = (double *)calloc(runs_n, sizeof *hold_of_run);
    double *hold = (double *)calloc(n > 0 ? n : 1, sizeof *hold);
    int *short_holds = (int *)calloc(n > 0 ? n : 1, sizeof *short_holds);
    if (n <= 0 || !ev || !runs || !reads || !hold_of_run || !hold || !short_holds) {
        fprintf(stderr, "time_gpu: %s\n", n <= 0 ? "no variant to time" : "out of host memory");
        exit(1);
    }
    for (size_t i = 0; i < 2 * runs_n; i++) CUDA_CHECK(cudaEventCreate(&ev[i]));
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    gpu_clocks_dev *clocks = gpu_clocks_open(dev); /* NULL: no clocks */
    /* Non-blocking: no implicit wait on the legacy default stream, either way. */
    cudaStream_t side = NULL;
    if (clocks) CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));

    /* The warm-ups also measure how long the host takes to queue a run:
     * the hold below must outlast that. */
    for (int i = 0; i < n; i++) {
        int depth = nvtx_push_path(v[i].nvtx_name);
        double enqueue = 0;
        for (int w = 0; w < cfg->warmups; w++) {
            if (v[i].before) v[i].before(v[i].ctx, cfg->stream);
            if (cfg->flush_l2 || v[i].flush_l2) flush_l2(cfg->stream);
            double t0 = host_seconds();
            v[i].fn(v[i].ctx, cfg->stream);
            double took = host_seconds() - t0;
            if (took > enqueue) enqueue = took;
        }
        hold[i] = timing_hold_seconds(enqueue);
        nvtx_pop_n(depth);
    }
    for (int rep = 0; rep < reps; rep++) {
        for (int k = 0; k < n; k++) {
            int vi = timing_rr_variant(rep, k, n);
            const timed_variant *var = &v[vi];
            size_t run = (size_t)rep * n + k;
            int depth = nvtx_push_path(var->nvtx_name);
            if (var->before) var->before(var->ctx, cfg->stream);
            if (cfg->flush_l2 || var->flush_l2) flush_l2(cfg->stream);
            /* Every run starts with an empty queue. Without this, the host
             * queues a launch-bound variant's launches while the variant
             * before it still runs (after a graph replay, say), and the
             * events then time the GPU draining a full queue, not the
             * launches: cudaGraphs' stream chain of 1000 kernels measured
             * 1.967 us a kernel in round robin without it
             * (results/H200/history/cd59140/cudaGraphs.txt, commit cd59140) against 3.241 us
             * with each variant's runs back to back
             * (results/H200/history/1d17e7d/cudaGraphs.txt, commit 1d17e7d);
             * with it, 4.539 us a kernel in round robin
             * (results/H200/cudaGraphs.txt, commit 13f861f): each run now
             * times its own 1000 launches from an empty queue. */
            CUDA_CHECK(cudaStreamSynchronize(cfg->stream));
            /* The hold (timing.h): the stream waits in a host function while
             * the host queues the start event, the run and the end event, so
             * the events time the GPU's work and not the host's. Without it
             * the start event fires at once on the idle stream and the host's
             * work in the call is timed as well: cuBLAS's BF16 GEMM at 4096^3
             * read 0.2314 ms on a day the CPU baselines also ran 22 to 74%
             * slower, against 0.1842 ms
             * (results/H200/history/c5b372b/tensorCoreGemm__m_4096_n_4096_k_4096.txt,
             * commit c5b372b;
             * results/H200/history/cd59140/tensorCoreGemm__m_4096_n_4096_k_4096.txt,
             * commit cd59140), while our kernels moved by 2% at most. */
            int held = !var->with_launches;
            if (held) {
                hold_of_run[run] = hold[vi];
                CUDA_CHECK(cudaLaunchHostFunc(cfg->stream, hold_stream, &hold_of_run[run]));
            }
            CUDA_CHECK(cudaEventRecord(ev[2 * run], cfg->stream));
            var->fn(var->ctx, cfg->stream);
            CUDA_CHECK(cudaEventRecord(ev[2 * run + 1], cfg->stream));
            if (held) {
                /* Still held? Then nothing of the host's work is timed. If
                 * the start event has fired already, the hold was too short:
                 * count the run, and hold twice as long from now on. */
                cudaError_t q = cudaEventQuery(ev[2 * run]);
                if (q == cudaSuccess) {
                    short_holds[vi]++;
                    hold[vi] = timing_hold_seconds(hold[vi]);
                } else if (q != cudaErrorNotReady) {
                    CUDA_CHECK(q);
                } else if (cudaPeekAtLastError() == cudaErrorNotReady) {
                    /* "not ready" is no error: should the runtime keep it as
                     * the last one, a sample's next check of
                     * cudaGetLastError() must not find it (any other error
                     * stays for that check) */
                    (void)cudaGetLastError();
                }
            }
            if (clocks) {
                reads[run].g = clocks;
                reads[run].into = &runs[run].clocks;
                CUDA_CHECK(cudaStreamWaitEvent(side, ev[2 * run + 1], 0));
                CUDA_CHECK(cudaLaunchHostFunc(side, read_clocks, &reads[run]));
            }
            nvtx_pop_n(depth);
        }
    }
    CUDA_CHECK(cudaStreamSynchronize(cfg->stream));
    if (side) {
        CUDA_CHECK(cudaStreamSynchronize(side));   /* every reading is in */
        CUDA_CHECK(cudaStreamDestroy(side));
    }

    for (size_t run = 0; run < runs_n; run++) {
        float t = 0;
        CUDA_CHECK(cudaEventElapsedTime(&t, ev[2 * run], ev[2 * run + 1]));
        runs[run].ms = t;
    }
    timing_group_summary(runs, n, reps, out);
    for (int i = 0; i < n; i++) {
        out[i].short_holds = short_holds[i];
        if (short_holds[i])
            fprintf(stderr, "time_gpu: %s: in %d of %d timed runs the start event fired before the host had "
                    "queued the run (the hold grew to %.3g ms): those runs' times include host work\n",
                    v[i].nvtx_name ? v[i].nvtx_name : "a variant", short_holds[i], reps, 1e3 * hold[i]);
    }
    for (size_t i = 0; i < 2 * runs_n; i++) CUDA_CHECK(cudaEventDestroy(ev[i]));
    free(ev);
    free(runs);
    free(reads);
    free(hold_of_run);
    free(hold);
    free(short_holds);
}

void time_gpu(timed_fn fn, void *ctx, const timing_cfg *cfg, timing_stats *out)
{
    timed_variant one = {fn, ctx, cfg->nvtx_name, 0, NULL, 0};
    time_gpu_group(&one, 1, cfg, out);
}
