/* kb_internal.h: what the KernelBench mode's files share (kbgate.c runs the
 * problems and candidates, kb_judge.c judges one pair, kb_report.c reports
 * them): the limits, a runner, and a pair's result as the report reads it.
 * Not for the rest of the gate (kbgate.h is its interface). */
#ifndef KGATE_KB_INTERNAL_H
#define KGATE_KB_INTERNAL_H
#include <limits.h>
#include <stdio.h>

#include "kbgate.h"
#include "sandbox.h"

#define KB_TRIALS 5           /* KernelBench's correctness trials */
#define KB_TRIALS2 2          /* more at the problem's second sizes (kgate_second_shape), when it has them */
#define KB_WARMUP 2           /* batches that warm the GPU up (checked, not counted) */
#define KB_BATCHES 12         /* the warm-up, then 10 timed: the figure is the least of those */
#define KB_CHECKED 6          /* batches, drawn at random, whose drawn call is compared whole */
#define KB_CAL 10             /* null batches for the allowance (the least of them: a fresh
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
    double prep_c_ms, prep_base_ms, prep_rb_ms;   /* the candidate's input preparation: of the batch that
                                                     gave the figure; before its code was loaded (median);
                                                     the reference's, in that batch */
    /* the clock's raw measures (the JSON's "clock"; batches 0 to KB_WARMUP - 1 are the warm-up) */
    double one_ms, null1_ms;                      /* the batch length: a batch of one call; a null one; */
    int probe_calls;                              /* then a batch of probe_calls (0: none), */
    double probe_ms, probe_null_ms;               /* the least of two, and a null one (the least of two) */
    double null_r_ms[KB_CAL], null_c_ms[KB_CAL];  /* each null batch of the two allowances */
    double prep_null_c_ms[KB_CAL];                /* the candidate's null batches' input preparation */
    double int_r_ms[KB_BATCHES], int_c_ms[KB_BATCHES];      /* each timed batch's interval */
    double bprep_r_ms[KB_BATCHES], bprep_c_ms[KB_BATCHES];  /* and its input preparation */
    double t_start, t_total;                      /* its processing's start (kg_now); to its verdict */
    double build_t0, build_t1;                    /* its build's start and end (kg_now; 0: no build) */
} kb_result;

/* ---- kbgate.c: a runner (kgate_kb_runner.py --serve in its sandbox) ---- */
typedef struct {
    kg_sb_proc p;
    int on, cmd_w, rep_r;
    char buf[KB_LINE_MAX + 1];
    size_t have;
    char log[PATH_MAX];
    int hung;                  /* a command went unanswered: killed at its end, not asked to quit */
} kb_runner;
/* A command line to the runner; 0, or -1 (too long, the pipe closed). */
int kb_send(kb_runner *r, const char *fmt, ...);
/* The next reply: its line, then its bytes when it has bytes=N (at most
 * max_bytes, else a protocol violation). -1 with err on a timeout, a closed
 * pipe or a malformed reply. */
int kb_recv(kb_runner *r, double deadline, kb_reply *rep, char **data, long long max_bytes, char *err,
            size_t errlen);

/* The reference's runner of one problem, started once and reused by that
 * problem's candidates: it runs only the problem's own code (the candidate's
 * never runs in it), so what it holds is the problem's Model, loaded once
 * with init_seed (the candidates load theirs with the same seed). */
typedef struct {
    kb_runner r;
    char prob_path[PATH_MAX];  /* the problem it runs ("": none yet) */
    int loaded, second;        /* LOAD answered; the problem has second sizes */
    unsigned long long init_seed;
    int start_failed;          /* its spawn failed: the problem's candidates are SKIPPED */
    kg_sb_result rec;          /* the record of this problem's last runner that ended */
    int have_rec;
    int started;               /* runners started in the whole run */
} kb_ref;

/* ---- kbgate.c ---- */
/* The builds held (on: every process of the builds stopped) or let go (0)
 * while the judge's clock runs; a no-op when already so, or with no builds.
 * kb_hold_seconds: how long they were held in all. */
void kb_builds_hold(int on);
extern double kb_hold_seconds;

/* ---- kb_judge.c ---- */
/* The GPU's memory as the probe saw it (bytes; 0: not known): it bounds a timed batch. */
extern long long kb_gpu_mem;
/* The seed of the judge's draws (the trials' and batches' seeds, the checked calls): --seed. */
void kb_seed(unsigned long long seed);
/* Steps 2 and 3 for one pair: the reference's runner rs (started; its
 * problem loaded here at its first candidate) and the candidate's cr
 * (started, nothing of the candidate loaded yet); res gets the verdict,
 * times and scores. */
void kb_judge(kg_gate *g, kb_result *res, kb_ref *rs, kb_runner *cr);

/* ---- kb_report.c ---- */
/* One pair's lines of the text report. */
void kb_print(FILE *f, const kb_result *r);
/* The JSON report of n pairs (score: KernelBench's scores); 0, or -1 when
 * the file cannot be written. */
int kb_write_json(const char *path, const kb_result *r, int n, const double *score, double t_origin);
/* The summary's line on where the time went. */
void kb_print_time(const kb_result *res, int n, double wall, double build_wait, double held, int jobs, int ref_started);

#endif
