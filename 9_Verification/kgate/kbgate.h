/* kbgate.h: the gate's KernelBench mode (kgate --kernelbench=...).
 *
 * A KernelBench problem (a Python file: Model, get_inputs, get_init_inputs)
 * and a candidate (ModelNew, usually CUDA code built with load_inline) are
 * judged offline: the candidate is built in the compile sandbox and run in a
 * second sandbox by sandboxed/kgate_kb_runner.py; the problem's Model runs in
 * a third, never in the candidate's process. The gate (this C code) draws the
 * seeds, compares the outputs (KernelBench's allclose) and keeps the clock:
 * one timed batch is "run K calls" sent to a runner and the wall time to a
 * reply holding elements of every call's output at positions drawn after
 * the calls were sent (README.md, "KernelBench problems").
 *
 * kb_core.c holds the pure parts (reply lines, dtypes, comparisons, scores,
 * labels), unit-tested in tests/test_kbcore.c; kbgate.c the processes;
 * kb_judge.c the judge of one pair. */
#ifndef KGATE_KBGATE_H
#define KGATE_KBGATE_H
#include <stddef.h>
#include <stdint.h>
#include "kg_report.h"
#include "pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a runner's reply line ---- */
#define KB_MAX_FIELDS 16
#define KB_LINE_MAX 4096
/* the most bytes one reply may carry (a slice of an output, below) */
#define KB_MAX_BYTES (1ull << 30)
/* Outputs are compared slice by slice (SHOW off= len=), this many bytes at a
 * time from each runner: the gate's memory for a comparison stays two
 * slices at any output size (KernelBench's level 1 has outputs of 6.4 GB). */
#define KB_CHUNK (64ll << 20)

typedef struct {
    int ok;                                /* OK or ERR */
    int n;
    char key[KB_MAX_FIELDS][16];
    char val[KB_MAX_FIELDS][128];
    char msg[320];                         /* ERR's text (printable ASCII) */
    long long nbytes;                      /* bytes=N that follow the line, -1: none */
} kb_reply;

/* Parse one reply line (without its newline). Refuses anything but
 * printable ASCII, a first word other than OK or ERR, a field that is not
 * key=value, more than KB_MAX_FIELDS fields, a value too long, bytes= that
 * is not a number in [0, KB_MAX_BYTES]. 0, or -1 with the reason in err. */
int kb_parse_reply(const char *line, kb_reply *r, char *err, size_t errlen);
const char *kb_field(const kb_reply *r, const char *key);
/* a field as a number: 0, or -1 (missing, not a number, out of [lo, hi]) */
int kb_field_ll(const kb_reply *r, const char *key, long long lo, long long hi, long long *out);
int kb_field_ms(const kb_reply *r, const char *key, double *out);   /* finite, >= 0 */

/* ---- outputs ---- */
enum { KB_F32, KB_F16, KB_BF16, KB_F64, KB_I64, KB_I32, KB_I16, KB_I8, KB_U8, KB_BOOL, KB_DTYPES };
int kb_dtype_parse(const char *s);         /* -1 if unknown */
const char *kb_dtype_name(int dt);
size_t kb_dtype_size(int dt);
double kb_elem(const void *data, int dt, size_t i);
/* KernelBench's tolerance (atol = rtol) for an output dtype; 0: exact */
double kb_tolerance(int dt);

#define KB_MAX_DIMS 8
typedef struct {
    int ndim;
    long long dim[KB_MAX_DIMS];
    long long numel;
} kb_shape;
/* "[4,5]", "[]" (a scalar). 0, or -1 (malformed, too many dims, too large) */
int kb_shape_parse(const char *s, kb_shape *sh);
int kb_shape_equal(const kb_shape *a, const kb_shape *b);
void kb_shape_str(const kb_shape *sh, char *buf, size_t len);

/* torch.allclose(ref, got, atol=tol, rtol=tol) as KernelBench calls it:
 * |ref - got| <= tol + tol * |got|, NaN never passes, infinities only match
 * themselves; tol 0: exact. Returns the number of elements that fail; the
 * first one's index in *first (-1 when none). */
long long kb_allclose(const void *ref, const void *got, int dt, long long n, double tol, long long *first);

/* The bytes of one slice: chunk rounded down to whole elements of es bytes,
 * at least one element. */
long long kb_slice_bytes(long long chunk, size_t es);
/* kb_allclose over an output compared slice by slice: the elements that
 * failed so far and the first one (its index in the whole output, -1 when
 * none, and its two values). */
typedef struct {
    long long bad, first;
    double want, got;
} kb_cmp;
void kb_cmp_init(kb_cmp *c);
/* One slice of n elements, the first of them element base of the output. */
void kb_allclose_slice(kb_cmp *c, const void *ref, const void *got, int dt, long long n, long long base, double tol);

/* ---- scores ---- */
/* KernelBench's fast_p: the share of the n candidates that are correct and
 * faster than p times the reference (speedup > p); speedup <= 0: unknown. */
double kb_fast_p(const int *correct, const double *speedup, int n, double p);
/* The judge's figure for one batch: (interval - allowance + charged) / calls,
 * never below 2% of interval / calls (an allowance larger than the interval
 * is noise, not a free call). */
double kb_batch_ms(double interval_ms, double allowance_ms, double charged_ms, int calls);
/* How many calls a timed batch holds: about KB_BATCH_MS of the reference's
 * work by one call's time net of a batch's fixed cost (one_ms, a batch of
 * one call; null_ms, a null batch of one: RUN and DIGEST with nothing to
 * run), at least KB_MIN_CALLS and at most KB_MAX_CALLS, and no more than
 * fit cap_bytes at per_bytes a call (inputs and output; then as few as 1). */
int kb_batch_calls(double one_ms, double null_ms, long long per_bytes, long long cap_bytes);
/* What a timed batch's input preparation (prep_ms) is charged: what it took
 * beyond 1.1 times the larger of base_ms (the candidate's runner's, before
 * its code was loaded) and ref_prep_ms (the reference's runner's, the same
 * inputs in the same place of its batches), plus 0.5 ms; 0 when none. */
double kb_charge(double prep_ms, double base_ms, double ref_prep_ms);
/* One call's own time from two batches' net times (each less its null
 * batch): net1_ms of one call, netk_ms of k calls; the batch's first-call
 * cost (whatever makes a batch's first call dearer than the rest) is in
 * both once, so
 * (netk - net1) / (k - 1), at most netk / k, at least 0. */
double kb_call_ms(double net1_ms, double netk_ms, int k);

/* The median of v (sorted in place; 0 when n is 0). */
double kb_median(double *v, int n);
/* The seconds covered by the intervals [t0[i], t1[i]] together (overlaps
 * counted once; an interval with t1 <= t0 counts nothing); -1: no memory. */
double kb_union_seconds(const double *t0, const double *t1, int n);

/* ---- pairing and labels ---- */
/* The problem a candidate file belongs to: "PROBLEM__NAME.py" -> "PROBLEM".
 * 0, or -1 when the name has no "__" or is not a .py file. */
int kb_problem_of(const char *cand_file, char *out, size_t len);
typedef struct {
    char file[256];
    char problem[128];
    int expected;                          /* kg_verdict; -1 not labeled */
    char defect[256];
} kb_label;
/* file <TAB> problem <TAB> expected verdict [<TAB> defect]; '#' and blank lines
 * skipped. Returns the count, or -1 with the line and reason in err. */
int kb_labels_parse(const char *text, kb_label *out, int max, char *err, size_t errlen);

/* ---- the mode ---- */
/* main.c calls it after the sandbox's set-up (g: the gate, its options,
 * sandbox and helpers); returns the exit code */
int kb_main(kg_gate *g);

#ifdef __cplusplus
}
#endif
#endif
