/* sanitize.h: the harness's pieces, each unit-tested on the CPU.
 *
 *   sz_report.c   a compute-sanitizer XML report -> detections (kind, kernel,
 *                 file:line, thread/block, count)
 *   sz_expect.c   the sanitize.expect format, matching and the verdict
 *   sz_text.c     the cleaning of every string that reaches a terminal or file
 *   sz_output.c   the terminal table, the JSON report, JUnit XML
 *   sz_proc.c     running one command contained (pid and network namespaces,
 *                 else a subreaper), with a time limit and a capped output pipe;
 *                 splitting an argument string
 *   main.c        command line, suite discovery, the output folder, workers
 * They use each other without a cycle (A <- B: B uses A):
 *   sz_text <- sz_proc, sz_report (and xml) <- sz_expect <- sz_output <- main
 * (tests/test_layering.sh reads it from the objects' symbols).
 * Host-only C11 (Linux for sz_proc.c).
 */
#ifndef SANITIZE_H
#define SANITIZE_H

#include <stddef.h>
#include <stdio.h>

#include "xml.h"

/* ---- tools ---------------------------------------------------------- */
enum { SZ_MEMCHECK, SZ_RACECHECK, SZ_INITCHECK, SZ_SYNCCHECK, SZ_N_TOOLS };
const char *sz_tool_name(int tool);
int sz_tool_parse(const char *name); /* -1 if unknown */

/* The exit code compute-sanitizer is told to return when it finds errors. */
#define SZ_ERROR_EXITCODE 86

/* Caps (README.md, "Guarantees"): a report larger than this is not read
 * (--max-report), a run's output beyond this is dropped from its log
 * (--max-log), records fold into at most this many distinct detections,
 * and one record may hold at most this many elements. */
#define SZ_DEFAULT_MAX_REPORT ((size_t)64 << 20)
#define SZ_DEFAULT_MAX_LOG ((size_t)16 << 20)
#define SZ_MAX_DETECTIONS 10000
#define SZ_MAX_RECORD_ELEMENTS 10000

/* ---- text (sz_text.c) --------------------------------------------------- */
/* The length of the valid UTF-8 sequence at p (at most avail bytes), its
 * code point in *cp; 0 if the bytes there are not one. */
size_t sz_utf8_seq(const unsigned char *p, size_t avail, unsigned *cp);
/* 1 for a code point a terminal acts on or that reorders text (C0, DEL, C1,
 * bidirectional controls, U+FFFE/U+FFFF). */
int sz_is_control(unsigned cp);
/* Copy src into dst (len bytes with the NUL) as valid UTF-8 without
 * terminal controls: each byte that is not part of valid UTF-8 and each C0
 * or C1 control, DEL, bidirectional override or isolate becomes '?' (tab,
 * CR and newline become a space); the copy is cut at a character boundary.
 * Returns the bytes written. */
size_t sz_clean_text(char *dst, size_t len, const char *src);
/* Write n bytes to f the same way, keeping newlines. */
void sz_write_clean(FILE *f, const char *s, size_t n);
/* printf through sz_write_clean. */
void sz_print_clean(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- detections ----------------------------------------------------- */
#define SZ_MAX_LOCS 8
typedef struct {
    char file[256];  /* as the report gives it (full path or file name) */
    int line;
    char func[160];
    int host;        /* 1: a host stack frame (where a leak was allocated) */
} sz_loc;

typedef struct {
    char kind[48];       /* normalised record kind, e.g. "oob-global-read" */
    char raw_kind[48];   /* the report's own <kind> text, e.g. "Precise" */
    char text[200];      /* the report's description, if any */
    char kernel[160];
    sz_loc locs[SZ_MAX_LOCS];  /* device frames first, then host frames */
    int n_locs;
    int thread[3], block[3];
    int has_thread, has_block;
    int count;           /* records folded into this detection */
} sz_detection;

typedef struct {
    sz_detection *d;
    int n, cap;
    int n_records;       /* <record> elements read */
    int *slot, n_slots;  /* hash table of indices into d (folding) */
} sz_found;

/* The record kinds the harness knows (others become "other-<kind>"). */
extern const char *const sz_known_kinds[];
int sz_kind_known(const char *kind);

/* Read a parsed report. 0 on success; -1 with err if the root is not
 * <ComputeSanitizerOutput>. Records of the same kind at the same first
 * location in the same kernel fold into one detection with a count; more
 * than SZ_MAX_DETECTIONS distinct ones is an error. Strings are cleaned
 * (sz_clean_text). */
int sz_report_read(const xml_node *root, sz_found *out, char *err, size_t errlen);
/* The same from text, one record in memory at a time, in time linear in
 * len; deadline (CLOCK_MONOTONIC seconds, as sz_now; 0 none) stops it. */
int sz_report_read_text(const char *text, size_t len, double deadline, sz_found *out, char *err,
                        size_t errlen);
/* A file of at most max_bytes (a regular file, not through a symlink). */
int sz_report_read_file_limited(const char *path, size_t max_bytes, double deadline,
                                sz_found *out, char *err, size_t errlen);
/* The same with SZ_DEFAULT_MAX_REPORT and no deadline. */
int sz_report_read_file(const char *path, sz_found *out, char *err, size_t errlen);
void sz_found_free(sz_found *f);
/* "oob_read.cu:31" for the first location ("?" if none). */
void sz_detection_where(const sz_detection *d, char *buf, size_t len);

/* ---- expectations --------------------------------------------------- */
#define SZ_MAX_EXPECT 16
typedef struct {
    char kind[48];
    char file[256];      /* "" = any file */
    int line;            /* 0 = any line */
} sz_expected;

typedef struct {
    int enabled;         /* run this tool at all ("tools:" line) */
    int detect;          /* 0: clean, 1: the listed detections */
    sz_expected e[SZ_MAX_EXPECT];
    int n;
    char allow[SZ_MAX_EXPECT][48]; /* kinds tolerated, neither required nor UNEXPECTED */
    int n_allow;
} sz_tool_expect;

typedef struct {
    char name[128];      /* label in reports, e.g. "vectorAdd" */
    char folder[256];    /* the folder it was declared in ("" for --binary) */
    char binary[512];    /* relative to the repo root, or absolute */
    char args[512];
    int timeout_s;       /* 0: the harness default */
    int gpus;            /* GPUs the run needs ("gpus:" line; 1 by default) */
    sz_tool_expect tool[SZ_N_TOOLS];
} sz_run_spec;

typedef struct {
    sz_run_spec *runs;
    int n, cap;
} sz_expect_file;

/* The default for a folder with no sanitize.expect: bin/<name> --quick,
 * all four tools clean. Returns 0, -1 on out of memory. */
int sz_expect_default(const char *name, const char *folder, sz_expect_file *out);
/* Parse the text of a sanitize.expect. `name` is the folder's name (for the
 * default run), `where` names the file in messages. 0 on success, -1 with
 * "where:line: message" in err. */
int sz_expect_parse(const char *text, const char *name, const char *folder, const char *where,
                    sz_expect_file *out, char *err, size_t errlen);
/* Load path; a missing file gives the default. */
int sz_expect_load(const char *path, const char *name, const char *folder, sz_expect_file *out,
                   char *err, size_t errlen);
void sz_expect_free(sz_expect_file *f);

/* 1 if detection d satisfies expectation e (same kind; the file's name and
 * the line match one of d's locations, when e names them). */
int sz_matches(const sz_expected *e, const sz_detection *d);
/* 1 if `path` names the same file as `want` (equal, or ends in "/" + want). */
int sz_same_file(const char *path, const char *want);

/* ---- verdicts ------------------------------------------------------- */
/* SKIPPED: the run needs more GPUs than are visible ("gpus:"); not a failure. */
typedef enum { SZ_CLEAN, SZ_DETECTED, SZ_MISSED, SZ_UNEXPECTED, SZ_ERROR, SZ_SKIPPED } sz_verdict;
#define SZ_N_VERDICTS 6
const char *sz_verdict_name(sz_verdict v);

typedef struct {
    char name[128];
    char label[144];     /* name, made unique among the runs ("name#2") */
    char binary[512];
    char args[512];
    int tool;
    sz_tool_expect expect;
    sz_verdict verdict;
    int gpus;            /* devices the run gets ("gpus: N"; 0 or 1: one) */
    double seconds;
    int exit_code;       /* compute-sanitizer's exit status; -1 if killed */
    int timed_out;
    int attempts;        /* 2: the first could not attach and was run again (main.c) */
    char message[512];   /* why ERROR / notes */
    char xml_path[700];
    char log_path[700];
    size_t max_report;   /* 0: SZ_DEFAULT_MAX_REPORT */
    double deadline;     /* the run's time limit, for reading its report (0: none) */
    sz_found found;
    int missed[SZ_MAX_EXPECT];  /* 1: expectation i was not found */
    int *unexpected;            /* per detection: 1 if nothing declared it */
} sz_result;

/* Compare found with expect: fills missed[] / unexpected[] and returns
 * CLEAN, DETECTED, MISSED (something expected is absent; wins over
 * UNEXPECTED) or UNEXPECTED. */
sz_verdict sz_judge(const sz_tool_expect *expect, const sz_found *found, int *missed,
                    int *unexpected);

/* Everything after the process ended: read r->xml_path (if any) and judge.
 * exit_code is compute-sanitizer's status, timed_out 1 if it was killed.
 * Sets r->verdict, r->message, r->found, r->missed, r->unexpected. */
void sz_evaluate(sz_result *r, int exit_code, int timed_out, int timeout_s);
void sz_result_free(sz_result *r);
/* Add "; note" to r->message. */
void sz_note(sz_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- output --------------------------------------------------------- */
typedef struct {
    const char *date;        /* ISO 8601 */
    const char *git;         /* commit, or "" */
    const char *sanitizer;   /* path */
    const char *version;     /* compute-sanitizer --version line, or "" */
    const char *command;     /* how the harness was run */
    const char *containment; /* how runs were contained */
    int workers;
} sz_meta;

void sz_write_table(FILE *f, const sz_result *r, int n);
/* 0 on success. */
int sz_write_json(FILE *f, const sz_result *r, int n, const sz_meta *meta);
int sz_write_junit(FILE *f, const sz_result *r, int n);
/* Counts per verdict (counts[SZ_N_VERDICTS]); returns the number of runs that
 * fail the harness (MISSED + UNEXPECTED + ERROR; SKIPPED does not). */
int sz_count(const sz_result *r, int n, int counts[SZ_N_VERDICTS]);

/* ---- processes ------------------------------------------------------ */
/* Split a command-line string on white space; "..." and '...' group words,
 * backslash escapes the next character outside single quotes. Returns the
 * number of words (argv[n] = NULL), or -1 on an unterminated quote or if
 * more than max - 1 words. Words are malloc'd: free with sz_free_args. */
int sz_split_args(const char *s, char **argv, int max, char *err, size_t errlen);
void sz_free_args(char **argv, int n);

/* How a run and everything it starts are contained (sz_proc.c). */
typedef enum { SZ_CONTAIN_AUTO, SZ_CONTAIN_PIDNS, SZ_CONTAIN_REAPER } sz_contain;
/* Choose for every later sz_proc_start: AUTO tries a pid namespace (a
 * probe run) and falls back to the subreaper. Returns the mode chosen with
 * a description in why ("pid and network namespaces", "pid namespace (no
 * network namespace: ...)", "subreaper (...)"), or -1 (why says why) when
 * PIDNS was asked for and is not available. */
int sz_contain_init(sz_contain want, char *why, size_t len);

typedef struct {
    int pid;             /* the keeper (see sz_proc.c), leader of a session of its own */
    double start;        /* seconds, monotonic */
    double timeout_s;    /* <= 0: none */
    int out_fd;          /* read end of the command's stdout+stderr; -1 at EOF */
    int log_fd;          /* the output goes here (-1: into buf) */
    size_t log_max, log_bytes;         /* cap and bytes kept */
    unsigned long long log_dropped;    /* bytes past the cap */
    char *buf;           /* capture (sz_capture) */
    size_t buf_len, buf_max;
    const char *watch_path;  /* a file whose size is capped (the report) */
    long long watch_max;
    int watch_over;      /* 1: the run was stopped because it passed watch_max */
    const char *const *stop_on; /* strings that end the run when its output holds one */
    const char *stop_hit;       /* the one it held (NULL: none) */
    char stop_tail[128];        /* the last output bytes, to match across reads */
    size_t stop_tail_len;
} sz_proc;

/* Start argv (argv[0] a path, or a name looked up in PATH) contained, in
 * directory cwd (NULL: here), stdout and stderr into a pipe that
 * sz_proc_poll copies to log_fd up to log_max bytes, the environment
 * variable env_name set to env_value when both are given. 0 or -1 (errno). */
int sz_proc_start(sz_proc *p, char *const argv[], const char *cwd, int log_fd, size_t log_max,
                  const char *env_name, const char *env_value, double timeout_s);
/* Stop the run when the file at path grows past max_bytes. */
void sz_proc_watch(sz_proc *p, const char *path, long long max_bytes);
/* Stop the run as soon as its output (all of it, kept in the log or not)
 * holds one of the strings of `needles` (NULL-terminated, each shorter than
 * 128 bytes, kept by the caller); p->stop_hit then points to that string.
 * It is set too when the run had ended by itself with such output. */
void sz_proc_stop_on(sz_proc *p, const char *const *needles);
/* Non-blocking: copies the output so far, checks the limits. Returns 1 when
 * finished (exit code in *code: the exit status, 128 + signal if killed by
 * one, 127 if exec failed, -1 if the harness stopped it; *timed_out set if
 * that was the time limit, p->watch_over if the watched file's size,
 * p->stop_hit if one of the stop_on strings), 0 while running. When it
 * returns 1, every process the run started is gone. */
int sz_proc_poll(sz_proc *p, int *code, int *timed_out);
void sz_proc_close(sz_proc *p);
/* Run argv contained and keep the first len - 1 bytes of its output in out.
 * Returns the exit code, -1 if it could not start or timed out. (argv NULL
 * is sz_contain_init's probe.) */
int sz_capture(char *const argv[], const char *cwd, double timeout_s, char *out, size_t len);
double sz_now(void);

#endif
