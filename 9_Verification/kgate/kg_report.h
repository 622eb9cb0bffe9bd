/* kg_report.h: per-candidate records, the labels file, the confusion matrix
 * and rates, and the text and JSON reports of the kgate command.
 * Host-only C11; unit-tested in tests/test_report.c. */
#ifndef KGATE_REPORT_H
#define KGATE_REPORT_H

#include <stdio.h>

#include "dynamic.h"
#include "rules.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char file[256];            /* file name as in the labels file */
    char task[32];
    int expected;              /* kg_verdict, -1 if not labeled */
    char defect[256];
    int sanitizer;             /* sanitizer=TOOL: 1 + the tool that must stop it (SZ_MEMCHECK ...), 0 none */
} kg_label;

/* Parse a labels file: one candidate per line, tab-separated
 *     file <TAB> task <TAB> expected verdict <TAB> planted defect [<TAB> sanitizer=TOOL]
 * blank lines and lines starting with '#' are skipped. The optional fifth
 * field names the compute-sanitizer tool (memcheck, racecheck, initcheck,
 * synccheck) that must stop a silent defect: a stop by another tool or
 * another part of the gate is then a mismatch. Returns the number of
 * labels (at most max), or -1 with the line and reason in err. */
int kg_labels_parse(const char *text, kg_label *out, int max, char *err, size_t errlen);
const kg_label *kg_labels_find(const kg_label *l, int n, const char *file);

#define KG_MAX_DEV 8
#define KG_CAND_HITS 48
#define KG_MAX_COMPILE_ERRORS 4

/* One rule hit of the static track (from the scan's validated record). */
typedef struct {
    int rule;                  /* index in rules.c */
    int sev, eff;              /* default severity, severity under the run's policy */
    int line;
    char msg[200];
} kg_hit;

/* The dynamic track on one device. */
typedef struct {
    int device;                /* CUDA device index */
    char name[64];             /* its name */
    char arch[8];              /* "90" */
    int verdict;
    char reason[400];
    double cand_ms_mid, ref_ms_mid, cand_ms_large, ref_ms_large;
    double t_run;
    double allow_ms;           /* the judge's round-trip allowance (-1: not calibrated) */
    int wall_batches, timed_batches;   /* batches timed by the judge's clock, of all */
    double rep_ms_mid, rep_ms_large;   /* the harness's own event times (median per call) */
} kg_dev_result;

/* Nsight Compute figures of one kernel run (an L4 explained). */
typedef struct {
    int ok;                    /* 1: figures below; 0: why says why not */
    char why[200];
    char kernel[96];
    double duration_us, dram_pct, occupancy_pct, bank_conflicts;
    char stall[48];            /* the top stall reason ("long_scoreboard") */
    double stall_ratio;        /* its cycles per issued instruction */
} kg_ncu;

typedef struct {
    char path[512];
    char name[256];            /* base name */
    char task[32];
    int expected;              /* -1 unlabeled */
    char defect[256];
    int verdict;
    char reason[400];
    char rules[600];           /* "RULE(P1)@12 RULE2(P2)@30", possibly truncated */
    int n_p0, n_p1, n_p2;
    int compiled;              /* 1 when nvcc ran and succeeded */
    kg_ptxas ptx;
    double t_static, t_compile, t_run, t_total;   /* seconds */
    double t_sandbox;          /* seconds to start this candidate's sandboxes (spawn to exec, summed) */
    double t_judge;            /* seconds the separate judge added (copies, protocol round trips) */
    /* where the total went (README.md, "Latency"): start to ready (scan and
     * compile done), ready to the GPU (waiting for another candidate's
     * session, then t_quiesce for other harnesses' CUDA start-up or
     * teardown), then waiting for its own harness's start-up */
    double t_ready, t_gpu_wait, t_quiesce, t_own_start;
    char sandbox[400];         /* what the sandbox monitor recorded (attempts refused), if anything */
    double cand_ms_mid, ref_ms_mid, cand_ms_large, ref_ms_large;
    double allow_ms;           /* the timing's round-trip allowance, ms (-1: not calibrated; 0: not timed) */
    int wall_batches, timed_batches;   /* the candidate's batches that took the judge's figure, of all */
    double rep_ms_mid, rep_ms_large;   /* what the harness reported (median per call), 0: not timed in batches */
    /* second stage */
    int policy;                /* the run's policy (rules.h) */
    unsigned policy_stops;     /* bit p: policy p rejects it statically */
    int n_hits, hits_total;    /* hits kept, hits found */
    kg_hit hits[KG_CAND_HITS];
    int n_compile_errors;
    char compile_errors[KG_MAX_COMPILE_ERRORS][240];   /* "name.md:13: error: ..." */
    char mm_shape[96];         /* the first failing shape (L3) */
    unsigned long long mm_count, mm_checked;
    int mm_n;
    long long mm_index[4];
    double mm_expected[4], mm_got[4];
    int n_dev, disagree;       /* the device matrix; disagree: devices gave different verdicts */
    kg_dev_result dev[KG_MAX_DEV];
    kg_ncu ncu_cand, ncu_ref;  /* an L4 explained (ok or why not) */
    int explained;             /* 1: an explanation was attempted */
    int is_torch;
    char notes[300];           /* repairs, a byte-order mark, a label that disagrees */
    int gate_failure;          /* SKIPPED because the gate failed (a scan or compile out of
                                  wall-clock time twice), not for anything of the candidate's */
    /* the sanitizer pass (sanpass.h: kg_san_note_seconds, kg_san_apply). The
     * tools are 1 + SZ_MEMCHECK ..., so that 0 (a zeroed record) is none. */
    int san_label;             /* 1 + the label's sanitizer=TOOL, 0 none */
    int sanitized;             /* 1: the pass ran on it (a PASS of a run with --sanitize) */
    double t_sanitize;         /* its seconds, every tool of the run together */
    int san_stopped_by;        /* 1 + the tool whose run stopped it, 0 none */
    char san_kind[48];         /* the finding's kind ("oob-global-read"), "" when the run failed */
    char san_where[300];       /* the candidate's file:line, "" when the report names none */
    char san_hint[256];
    /* the late-warps run (late_warps.h), before the verdict: its seconds are
     * in t_total */
    int late_state;            /* KG_LATE_NO ... below */
    double t_late;
    char late_note[200];       /* what it found, or why it did not run */
} kg_cand;

/* The late-warps run of a candidate: not wanted; run, the outputs right
 * again; run, and it stopped the candidate; wanted but not run (the gate's
 * reason, in late_note: the verdict stands). */
enum { KG_LATE_NO = 0, KG_LATE_HELD, KG_LATE_STOPPED, KG_LATE_NOT_RUN };

typedef struct {
    int m[KG_V_COUNT][KG_V_COUNT];   /* [expected][verdict] */
    int n, n_labeled;
    int bad, bad_stopped, good, good_stopped;
    double interception;             /* bad stopped / bad (NaN when no bad) */
    double false_kill;               /* good stopped / good (NaN when no good) */
    double median_s, wall_s;         /* median total seconds per candidate; whole run */
    double median_overhead_s;        /* median of t_sandbox + t_judge */
    int verdict_count[KG_V_COUNT];
    int skipped, disagreements;
    int gate_failures;               /* SKIPPED by the gate's own failure: in no verdict count */
    int beyond_sanitizer;            /* labeled sanitizer=TOOL, TOOL not run (kg_cand_beyond_run): out of the rates */
    int stage_mismatches;            /* labeled sanitizer=TOOL, stopped by something else */
    int san_n;                       /* candidates the sanitizer pass ran on */
    double san_median_s, san_total_s;
    /* what each policy profile would have decided on this run (rules.h):
     * exact for the run's policy and the stricter ones; a laxer one cannot
     * know the dynamic verdict of a candidate the run stopped statically
     * (counted in pol_unknown) */
    int pol_bad_stopped[4], pol_good_stopped[4], pol_unknown[4];
    double pol_median_s[4];
} kg_summary;

/* In a partial run (--static-only: P0; --compile-only, --dry-run: P0, L1)
 * a STATIC-OK verdict is a mismatch for a candidate labeled with a verdict
 * up to this one. */
extern int kg_report_partial_last;

/* The compute-sanitizer tools the run's sanitizer pass runs, one bit per
 * tool (1u << SZ_MEMCHECK ...): 0 without --sanitize, and in partial runs. */
extern unsigned kg_report_san_tools;

/* A candidate labeled sanitizer=TOOL that passed a run whose sanitizer pass
 * does not run TOOL: beyond what this run can see, left out of its rates
 * (as SKIPPED is), neither a hit nor a miss. */
int kg_cand_beyond_run(const kg_cand *c);
/* 1 when the verdict is off the label: a good candidate stopped, a bad one
 * passed, or one labeled sanitizer=TOOL stopped by anything but TOOL's
 * L2 (another tool, another part of the gate). A stop with another stop
 * verdict than the label's is not off the label (both stopped). */
int kg_cand_off_label(const kg_cand *c);

/* Good candidates are labeled PASS or EXTERNAL; bad ones P0, L1..L4. */
int kg_label_is_good(int expected);
void kg_summarize(const kg_cand *c, int n, double wall_s, kg_summary *s);

/* One line per candidate, then the matrix and the rates. */
void kg_print_candidate(FILE *f, const kg_cand *c);
void kg_print_summary(FILE *f, const kg_summary *s);

/* The device matrix: the final verdict of per-device verdicts. All equal:
 * that one. Otherwise the candidate is stopped if any device stops it (the
 * first stop verdict in P0, L1 .. L4 order wins) and *disagree is set. */
int kg_combine_devices(const int *verdicts, int n, int *disagree);

/* Under policy p, the verdict of a candidate of a run under run_policy:
 * P0 when p stops it statically, its verdict when the run judged it past
 * the static track, -1 when unknown (p is laxer than the run's policy and
 * the run stopped it statically). */
int kg_policy_verdict(const kg_cand *c, int p);

typedef struct {
    const char *sandbox;       /* the sandbox line printed at the start */
    const char *device;        /* device name, or "none (static only)" */
    const char *arch;
    const char *mode;          /* "full" | "static-only" | "no-timing" */
    unsigned long long seed;
    const char *policy;        /* "default" ... */
} kg_run_info;

/* The generator's feedback: one JSON object per line and candidate,
 * designed to be pasted into an LLM prompt (README.md, "Feedback"). */
int kg_write_feedback(FILE *f, const kg_cand *c, int n);
/* One candidate's record (the same object), into f. */
void kg_feedback_record(FILE *f, const kg_cand *c);

/* The whole report as one JSON document. Returns 0, -1 on a write error. */
int kg_write_json(FILE *f, const kg_run_info *info, const kg_cand *c, int n,
                  const kg_summary *s);

/* JSON string escaping into buf (always NUL-terminated, truncated to fit,
 * never in the middle of an escape). Control bytes and every non-ASCII byte
 * are written as the text report writes them, \xNN (JSON "\\xNN"). */
void kg_json_escape(const char *in, char *buf, size_t len);

/* What the text report prints of a string that may come from a candidate
 * (its name, a compiler's or its own message): at most max bytes of in,
 * bytes 0x20..0x7e as they are, every other byte as \xNN (ESC, CR, NUL, a
 * newline that would forge a line, the bytes of a bidi override). */
void kg_text_escape(const char *in, size_t max, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
