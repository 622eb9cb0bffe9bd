/* sanitize.h: the harness's pieces, each unit-tested on the CPU.
 *
 *   sz_report.c   a compute-sanitizer XML report -> detections (kind, kernel,
 *                 file:line, thread/block, count)
 *   sz_expect.c   the sanitize.expect format, matching and the verdict
 *   sz_output.c   the terminal table, the JSON report, JUnit XML
 *   sz_proc.c     running one command with a timeout in its own process
 *                 group, and splitting an argument string
 *   main.c        command line, suite discovery, workers per GPU
 * Host-only C11.
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
} sz_found;

/* The record kinds the harness knows (others become "other-<kind>"). */
extern const char *const sz_known_kinds[];
int sz_kind_known(const char *kind);

/* Read a parsed report. 0 on success; -1 with err if the root is not
 * <ComputeSanitizerOutput>. Records of the same kind at the same first
 * location in the same kernel fold into one detection with a count. */
int sz_report_read(const xml_node *root, sz_found *out, char *err, size_t errlen);
/* Parse a file and read it. */
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
    char binary[512];
    char args[512];
    int tool;
    sz_tool_expect expect;
    sz_verdict verdict;
    double seconds;
    int exit_code;       /* compute-sanitizer's exit status; -1 if killed */
    int timed_out;
    char message[512];   /* why ERROR / notes */
    char xml_path[700];
    char log_path[700];
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

/* ---- output --------------------------------------------------------- */
typedef struct {
    const char *date;        /* ISO 8601 */
    const char *git;         /* commit, or "" */
    const char *sanitizer;   /* path */
    const char *version;     /* compute-sanitizer --version line, or "" */
    const char *command;     /* how the harness was run */
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

typedef struct {
    int pid;             /* also the process group id */
    double start;        /* seconds, monotonic */
    double timeout_s;    /* <= 0: none */
} sz_proc;

/* Start argv[0] with argv in directory cwd (NULL: here), stdout and stderr
 * into log_path (NULL: inherited), the environment variable env_name set to
 * env_value when both are given, in a new process group. 0 or -1 (errno). */
int sz_proc_start(sz_proc *p, char *const argv[], const char *cwd, const char *log_path,
                  const char *env_name, const char *env_value, double timeout_s);
/* Non-blocking check. Returns 1 when finished (exit code in *code: the exit
 * status, 128 + signal if killed by one, 127 if exec failed; *timed_out set
 * if the harness killed it), 0 while running. On timeout the whole process
 * group gets SIGKILL. */
int sz_proc_poll(sz_proc *p, int *code, int *timed_out);
double sz_now(void);

#endif
