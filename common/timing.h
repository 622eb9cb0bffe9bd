/* timing.h: time device work the way CONVENTIONS.md says.
 *
 *   static void run_naive(void *ctx, cudaStream_t s) { ... launch on s ... }
 *
 *   timing_cfg  cfg = timing_defaults(opts.reps);   // 3 warm-ups, reps, no flush
 *   cfg.flush_l2 = 1;                               // memory-bound data under 4x L2
 *   cfg.nvtx_name = "vectorAdd/naive";              // the Nsight range
 *   timing_stats t;
 *   time_gpu(run_naive, &ctx, &cfg, &t);            // t.median_ms, t.min_ms
 *
 * Each repetition is bracketed by its own pair of CUDA events on cfg.stream,
 * so the median is of per-run times, not of an average.
 *
 * A variant and its reference are timed together, round robin, so that
 * neither gets the cooler GPU of the first seconds (a GPU that reaches its
 * power limit lowers its clock during a long run). Each run starts on an
 * idle stream, never behind a queue the host filled during the variant
 * before it. Then, by default, a host function holds the stream (it
 * sleeps) while the host queues the start event, the run and the end
 * event, so the events time the GPU's work alone: a library call that does
 * more host work before its kernel starts than our launchers do is not
 * charged for it, and a slow host slows nobody's figure. The hold lasts
 * twice the longest time the host took to queue the variant's warm-ups,
 * plus 50 us; a run whose start event had fired before the host finished
 * queueing it is counted (t.short_holds, and a line on stderr) and the hold
 * doubles. A variant whose time is meant to include the host's work (a
 * chain of launches, allocations, anything that waits for the GPU inside
 * the call) sets with_launches: it starts on the idle stream unheld:
 *
 *   timed_variant v[2] = {{run_ref, &ctx, "vectorAdd/copy"},
 *                         {run_naive, &ctx, "vectorAdd/naive"}};
 *   timing_stats t[2];
 *   time_gpu_group(v, 2, &cfg, t);                  // t[1].median_ms, t[1].sm_mhz
 *
 * Every variant's warm-ups come first; then each repetition runs every
 * variant once, the first one moving along by one each repetition (0 1 2,
 * 1 2 0, 2 0 1, ...), so each variant has the median of its own runs and
 * all of them share the GPU's good and bad moments. Right after each timed
 * run the GPU's SM clock and clock-event reasons are read (gpu_clocks.h,
 * from a CUDA host function on a side stream that waits for the run's end
 * event, so the timed stream never waits for the reading; the next run may
 * have started by then):
 * t.sm_mhz is the median of those readings, t.clock_reasons every reason
 * seen, and timing_rec_clocks() adds them to the variant's RESULT line as
 * sm_mhz=, sm_mhz_min= and throttle=. time_gpu() is a group of one. With flush_l2 a
 * cudaMemsetAsync over a buffer twice the L2 size runs before each
 * repetition, outside the events, so every run starts with a cold L2.
 * The whole timed loop sits in nested NVTX ranges, one per '/'-separated
 * part of cfg.nvtx_name: "vectorAdd/naive" pushes a range "vectorAdd" and
 * inside it a range "naive". Nsight Compute reads '/' in a filter as that
 * nesting, so exactly that variant's kernels are profiled by
 *     ncu --nvtx --nvtx-include "vectorAdd/naive/" bin/vectorAdd --variant=naive
 * (a single range named "vectorAdd/naive" would need the escaped filter
 * "vectorAdd\/naive/": checked on the H200 with ncu 2025.3.1).
 *
 * CPU baselines: a fresh malloc'd buffer has no pages yet, so the first
 * pass over it measures page faults, not the loop (we measured
 * vectorAdd's CPU loop at 2^27 on a 2-core development machine: 2418 ms
 * cold, 336 ms warm). host_prefault() touches every page of an output
 * before the CPU variant is timed.
 * Host-only C (runtime API); stats_median and friends are unit-tested.
 */
#ifndef COMMON_TIMING_H
#define COMMON_TIMING_H

#include <cuda_runtime_api.h>

#include "gpu_clocks.h"
#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*timed_fn)(void *ctx, cudaStream_t stream);

typedef struct {
    int warmups;            /* untimed runs first (>= 3 by convention) */
    int reps;               /* timed runs */
    int flush_l2;           /* 1: cold L2 before each timed run */
    cudaStream_t stream;    /* where fn's work goes (0 = legacy default stream) */
    const char *nvtx_name;  /* "sample/variant": nested NVTX ranges; or NULL */
} timing_cfg;

typedef struct {
    double median_ms, min_ms, max_ms, mean_ms;
    int reps;
    /* The clocks read right after each timed run; clock_runs = 0 where NVML
     * is not there (then the fields below mean nothing). */
    int clock_runs;
    double sm_mhz;                      /* median SM clock, MHz */
    unsigned sm_mhz_min;                /* the lowest reading */
    unsigned long long clock_reasons;   /* every reason seen after any run */
    int short_holds;                    /* timed runs whose hold ended before the host had queued them */
} timing_stats;

/* One member of a group timed round robin. */
typedef struct {
    timed_fn fn;
    void *ctx;
    const char *nvtx_name;  /* "sample/variant": its runs' NVTX ranges; or NULL */
    int flush_l2;           /* 1: cold L2 before this variant's runs (cfg->flush_l2: everyone's) */
    timed_fn before;        /* or NULL: host work before each of its runs, outside the events
                               (state the other variants change, put back as this one needs it) */
    int with_launches;      /* 1: no hold; the time includes the host's work in fn (above) */
} timed_variant;

/* The hold's bounds, and its length from the longest time the host took to
 * queue a run (2 * enqueue_s + TIMING_HOLD_MIN_S, at most TIMING_HOLD_MAX_S;
 * a short hold grows by the same rule applied to itself). */
#define TIMING_HOLD_MIN_S 50e-6
#define TIMING_HOLD_MAX_S 50e-3
double timing_hold_seconds(double enqueue_s);

/* One timed run, as time_gpu_group records it. */
typedef struct {
    double ms;
    gpu_clocks clocks;      /* read right after the run */
} timed_run;

timing_cfg timing_defaults(int reps);

/* Run fn warmups + reps times; fill *out. Exits 1 on a CUDA error. */
void time_gpu(timed_fn fn, void *ctx, const timing_cfg *cfg, timing_stats *out);

/* Time n variants round robin (above): warm-ups of each, then cfg->reps
 * repetitions of every variant once; out[i] for v[i]. cfg->nvtx_name is
 * not used (each variant names its own range). Exits 1 on a CUDA error. */
void time_gpu_group(const timed_variant *v, int n, const timing_cfg *cfg, timing_stats *out);

/* Which variant runs k-th (k = 0..n-1) in repetition rep: (rep + k) % n. */
int timing_rr_variant(int rep, int k, int n);

/* out[i], i < n, from runs[rep * n + k] in the order they ran
 * (timing_rr_variant says whose each was). */
void timing_group_summary(const timed_run *runs, int n, int reps, timing_stats *out);

/* sm_mhz=1980 sm_mhz_min=1965 throttle=sw_power_cap on the record, or
 * nothing when no clocks were read. */
void timing_rec_clocks(result_rec *r, const timing_stats *t);

/* Enqueue on `stream` a write of a buffer twice the L2 size (allocated on
 * first use): afterwards the L2 holds none of the caller's data. time_gpu
 * does this before each run when cfg.flush_l2 is set; samples that time
 * with events of their own (bandwidthTest) call it between trials. */
void flush_l2(cudaStream_t stream);

/* Wall-clock seconds from a monotonic clock (for the CPU variant). */
double host_seconds(void);

/* Write every page of host memory once (zeros), so a CPU baseline timed
 * afterwards does not time the kernel mapping fresh pages. */
void host_prefault(void *p, size_t bytes);

/* Statistics over n values (the array is not modified). */
double stats_median(const double *v, int n);
void stats_summary(const double *v, int n, timing_stats *out);

/* NVTX range helpers (no-ops when name is NULL). */
void nvtx_push(const char *name);
void nvtx_pop(void);
/* "a/b/c": push ranges a, b, c nested; returns how many were pushed (0 for
 * NULL or ""), which nvtx_pop_n() takes back. Empty parts are skipped. */
int nvtx_push_path(const char *path);
void nvtx_pop_n(int n);
/* The parts nvtx_push_path would push, for the tests: writes up to max
 * NUL-terminated parts of at most 63 characters into parts; returns the count. */
int nvtx_split_path(const char *path, char parts[][64], int max);

#ifdef __cplusplus
}
#endif
#endif /* COMMON_TIMING_H */
