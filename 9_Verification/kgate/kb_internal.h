/* kb_internal.h: what the KernelBench mode's two files share (kbgate.c runs
 * the problems and candidates, kb_report.c reports them): the limits, and a
 * pair's result as the report reads it. Not for the rest of the gate
 * (kbgate.h is its interface). */
#ifndef KGATE_KB_INTERNAL_H
#define KGATE_KB_INTERNAL_H
#include <limits.h>
#include <stdio.h>

#include "kbgate.h"

#define KB_TRIALS 5           /* KernelBench's correctness trials */
#define KB_TRIALS2 2          /* more at the problem's second sizes (kgate_second_shape), when it has them */
#define KB_BATCHES 6          /* one warm-up, then the 5 timed */
#define KB_CAL 8              /* null batches for the allowance (the least of them: a fresh
                                 process's first few carry PyTorch's lazy start-up) */
#define KB_BATCH_MS 8.0       /* a timed batch: about this much of the reference's work */
#define KB_MAX_CALLS 64
#define KB_MIN_CALLS 4
#define KB_MAX_PAIRS 1024
#define KB_MAX_BUILDS 32      /* builds at once (--jobs), each with a sandbox slot of its own */
#define KB_FLOOR 0.5          /* slower than half the reference's speed: L4, as the gate's other tasks */

typedef struct {
    char rule[48], sev[4], reason[200], fix[200];
    int line;
} kb_finding;

typedef struct {
    char name[256], problem[128], cand_path[PATH_MAX], prob_path[PATH_MAX];
    int verdict, expected, skipped_gate;   /* skipped_gate: the gate could not judge it */
    char reason[700], defect[256], notes[300];
    int n_find, n_p0;
    kb_finding find[8];
    int correct, calls;
    double cand_ms, ref_ms, speedup;              /* the judge's clock */
    double kb_cand_ms, kb_ref_ms, kb_speedup;     /* KernelBench's events */
    double allow_c_ms, allow_r_ms, charge_ms;
    double prep_c_ms, prep_r_ms;                  /* input preparation of the batch that gave the figure */
    double t_start, t_total;                      /* its processing's start (kg_now); to its verdict */
    double build_t0, build_t1;                    /* its build's start and end (kg_now; 0: no build) */
} kb_result;

/* ---- kb_report.c ---- */
/* One pair's lines of the text report. */
void kb_print(FILE *f, const kb_result *r);
/* The JSON report of n pairs (score: KernelBench's scores); 0, or -1 when
 * the file cannot be written. */
int kb_write_json(const char *path, const kb_result *r, int n, const double *score, double t_origin);
/* The summary's line on where the time went. */
void kb_print_time(const kb_result *res, int n, double wall, double build_wait, int jobs, int ref_started);

#endif
