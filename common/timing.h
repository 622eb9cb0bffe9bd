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
 * so the median is of per-run times, not of an average. With flush_l2 a
 * cudaMemsetAsync over a buffer twice the L2 size runs before each
 * repetition, outside the events, so every run starts with a cold L2.
 * The whole timed loop sits in one NVTX range named cfg.nvtx_name.
 * Host-only C (runtime API); stats_median and friends are unit-tested.
 */
#ifndef COMMON_TIMING_H
#define COMMON_TIMING_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*timed_fn)(void *ctx, cudaStream_t stream);

typedef struct {
    int warmups;            /* untimed runs first (>= 3 by convention) */
    int reps;               /* timed runs */
    int flush_l2;           /* 1: cold L2 before each timed run */
    cudaStream_t stream;    /* where fn's work goes (0 = legacy default stream) */
    const char *nvtx_name;  /* "sample/variant", or NULL */
} timing_cfg;

typedef struct {
    double median_ms, min_ms, max_ms, mean_ms;
    int reps;
} timing_stats;

timing_cfg timing_defaults(int reps);

/* Run fn warmups + reps times; fill *out. Exits 1 on a CUDA error. */
void time_gpu(timed_fn fn, void *ctx, const timing_cfg *cfg, timing_stats *out);

/* Wall-clock seconds from a monotonic clock (for the CPU variant). */
double host_seconds(void);

/* Statistics over n values (the array is not modified). */
double stats_median(const double *v, int n);
void stats_summary(const double *v, int n, timing_stats *out);

/* NVTX range helpers (no-ops when nvtx is not wanted). */
void nvtx_push(const char *name);
void nvtx_pop(void);

#ifdef __cplusplus
}
#endif
#endif /* COMMON_TIMING_H */
