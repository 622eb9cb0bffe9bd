/* sanpass.h: the gate's sanitizer pass. A candidate that passed the
 * correctness checks runs its harness once more, on the small shapes, under
 * compute-sanitizer; a finding stops it (L2) with the tool, the kind and the
 * candidate's file:line in the reason, and a hint on how to fix that kind.
 *
 * The report is read by the sanitize harness's own reader
 * (9_Verification/sanitize/sz_report.c, compiled in through
 * shared_sz_report.c): one parser, one list of kinds, for both tools.
 * Host-only C11; unit-tested with a fake compute-sanitizer
 * (tests/test_sanpass.c).
 */
#ifndef KGATE_SANPASS_H
#define KGATE_SANPASS_H

#include <stddef.h>

#include "../sanitize/sanitize.h"
#include "kg_report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --sanitize=none|fast|all. fast: memcheck (with leak checking) and
 * racecheck; all: the four tools. */
enum { KG_SAN_NONE, KG_SAN_FAST, KG_SAN_ALL };
int kg_san_mode_parse(const char *s);          /* -1 if unknown */
const char *kg_san_mode_name(int mode);
/* The tools (SZ_MEMCHECK, ...) a mode runs, in order, into tools[]
 * (at least SZ_N_TOOLS slots). Returns their count. */
int kg_san_mode_tools(int mode, int *tools);

/* How to fix a finding of this kind (sz_known_kinds; "other-..." too). */
const char *kg_san_hint(const char *kind);

/* A finding's kind in words ("read out of bounds of global memory"); a kind
 * the sanitize harness does not list: "a finding it does not classify". */
const char *kg_san_phrase(const char *kind);

/* The compute-sanitizer command line for one tool: the same flags as the
 * sanitize harness (README.md there, "How a run is made"), except: at
 * most 100 records (--print-limit), racecheck's analysis report instead of
 * every thread pair, and memcheck with --check-device-heap yes (device
 * malloc() leaks); the report saved
 * to xml, then target[] (NULL-terminated). argv gets at most max entries
 * with the NULL; the numbers are written into num (at least 32 bytes).
 * Returns the count, -1 if max is too small. */
int kg_san_argv(const char *sanitizer, int tool, const char *xml, int port,
                const char *const *target, const char **argv, int max, char *num);

/* One tool's run, judged. */
typedef struct {
    int verdict;          /* KG_V_PASS or KG_V_L2 */
    int tool;
    int n_findings;       /* distinct detections in the report */
    char kind[48];        /* the first finding's kind ("" if none) */
    char where[300];      /* its file:line, the candidate's own when one is given */
    char reason[768];     /* "memcheck: Invalid __global__ read ... at cand.cu:17 [oob-global-read]" */
    char hint[256];
} kg_san_result;

/* Judge a finished compute-sanitizer run: its exit status (-1 if killed),
 * whether it ran out of time, its report at xml_path (read with the sanitize
 * harness's reader, at most max_report bytes; 0: its default), and the
 * candidate's file name `display` (its file:line is preferred among a
 * finding's locations; NULL: the first location). Clean only when the
 * report names nothing and the tool exited 0: the exit code comes from
 * compute-sanitizer itself, so a report the candidate emptied does not
 * hide what the tool counted. */
void kg_san_judge(int tool, int exit_code, int timed_out, const char *xml_path,
                  size_t max_report, const char *display, kg_san_result *r);

/* What the pass records on candidate c (sanitize_run.c calls these).
 * kg_san_apply: tool's run r stopped it (r->verdict is not PASS): L2 on
 * every device, the reason "<r->reason>; fix: <r->hint>", and the finding
 * (tool, kind, file:line, hint) for the report and the feedback. Nothing
 * when r passed. kg_san_note_seconds: the pass ran on c, in `seconds` (all
 * its tools). */
void kg_san_apply(kg_cand *c, int tool, const kg_san_result *r);
void kg_san_note_seconds(kg_cand *c, double seconds);

#ifdef __cplusplus
}
#endif
#endif
