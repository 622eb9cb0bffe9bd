/* kg_report.h: per-candidate records, the labels file, the confusion matrix
 * and rates, and the text and JSON reports of the kgate command.
 * Host-only C11; unit-tested in tests/test_report.c. */
#ifndef KGATE_REPORT_H
#define KGATE_REPORT_H

#include <stdio.h>

#include "dynamic.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char file[256];            /* file name as in the labels file */
    char task[32];
    int expected;              /* kg_verdict, -1 if not labeled */
    char defect[256];
} kg_label;

/* Parse a labels file: one candidate per line, tab-separated
 *     file <TAB> task <TAB> expected verdict <TAB> planted defect
 * blank lines and lines starting with '#' are skipped. Returns the number of
 * labels (at most max), or -1 with the line and reason in err. */
int kg_labels_parse(const char *text, kg_label *out, int max, char *err, size_t errlen);
const kg_label *kg_labels_find(const kg_label *l, int n, const char *file);

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
    char sandbox[400];         /* what the sandbox monitor recorded (attempts refused), if anything */
    double cand_ms_mid, ref_ms_mid, cand_ms_large, ref_ms_large;
} kg_cand;

typedef struct {
    int m[KG_V_COUNT][KG_V_COUNT];   /* [expected][verdict] */
    int n, n_labeled;
    int bad, bad_stopped, good, good_stopped;
    double interception;             /* bad stopped / bad (NaN when no bad) */
    double false_kill;               /* good stopped / good (NaN when no good) */
    double median_s, wall_s;         /* median total seconds per candidate; whole run */
    double median_overhead_s;        /* median of t_sandbox + t_judge */
    int verdict_count[KG_V_COUNT];
} kg_summary;

/* In a partial run (--static-only: P0; --compile-only, --dry-run: P0, L1)
 * a STATIC-OK verdict is a mismatch for a candidate labeled with a verdict
 * up to this one. */
extern int kg_report_partial_last;

/* Good candidates are labeled PASS or EXTERNAL; bad ones P0, L1..L4. */
int kg_label_is_good(int expected);
void kg_summarize(const kg_cand *c, int n, double wall_s, kg_summary *s);

/* One line per candidate, then the matrix and the rates. */
void kg_print_candidate(FILE *f, const kg_cand *c);
void kg_print_summary(FILE *f, const kg_summary *s);

typedef struct {
    const char *sandbox;       /* the sandbox line printed at the start */
    const char *device;        /* device name, or "none (static only)" */
    const char *arch;
    const char *mode;          /* "full" | "static-only" | "no-timing" */
    unsigned long long seed;
} kg_run_info;

/* The whole report as one JSON document. Returns 0, -1 on a write error. */
int kg_write_json(FILE *f, const kg_run_info *info, const kg_cand *c, int n,
                  const kg_summary *s);

/* JSON string escaping into buf (always NUL-terminated, truncated to fit). */
void kg_json_escape(const char *in, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
