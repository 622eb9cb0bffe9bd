/* dynamic.h: the gate's dynamic track, host side: verdicts, the nvcc command
 * line, ptxas statistics, the device probe.
 *
 * Nothing here touches CUDA: the gate's own process never initialises a CUDA
 * context, so it can fork its children freely (the judge, judge.cu, and the
 * device probe create theirs; the candidate runs in the harness,
 * build/libexec/kgate/kgate-harness, in the sandbox). Host-only C11; the
 * parsers are unit-tested.
 */
#ifndef KGATE_DYNAMIC_H
#define KGATE_DYNAMIC_H

#include <stddef.h>
#include <sys/types.h>

#include "tasks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Verdicts, in the order the confusion matrix prints them. KG_V_STATIC_OK is
 * what --static-only gives a candidate the static track does not reject;
 * KG_V_SKIPPED what a candidate gets that this machine cannot judge (a
 * PyTorch candidate where PyTorch is absent): neither stopped nor passed,
 * and left out of the rates. */
typedef enum {
    KG_V_P0, KG_V_L1, KG_V_L2, KG_V_L3, KG_V_L4, KG_V_PASS, KG_V_EXTERNAL, KG_V_STATIC_OK,
    KG_V_SKIPPED, KG_V_COUNT
} kg_verdict;

const char *kg_verdict_name(int v);
int kg_verdict_parse(const char *s);          /* -1 if unknown */
int kg_verdict_is_stop(int v);               /* P0, L1..L4: the gate stops the candidate */

/* ptxas -v statistics, summed or maxed over the kernels of one compile. */
typedef struct {
    int n_funcs;
    int max_regs;
    long long smem_bytes;      /* largest static shared memory of one kernel */
    long long stack_bytes;     /* largest stack frame (local memory) */
    long long spill_stores, spill_loads;   /* summed */
    long long lmem_bytes;      /* largest "bytes lmem" */
} kg_ptxas;

/* Parse the text of `nvcc -Xptxas -v`. Returns the number of functions seen. */
int kg_parse_ptxas(const char *text, kg_ptxas *out);

/* First line of a compiler log that says "error" (without the newline), or
 * the first non-empty line, into buf. */
void kg_first_error(const char *log, char *buf, size_t len);

/* The compiler's error lines of a log (at most max), each as
 * "file:line: error: message", the scratch copy (…/cand.cu) renamed to
 * `display` (the candidate's own file: the gate compiles it behind
 * `#line 1 "display"`, so nvcc already names it). Returns the count. */
int kg_compile_errors(const char *log, const char *display, char out[][240], int max);

/* The compiler's log with every diagnostic about a file other than the
 * candidate cut, its quoted lines with it: a header or system file's name
 * stays ("FILE: error or note about this file, not the candidate [its text
 * is cut]"),
 * never its text (nvcc quotes the line it complains about: an #include of
 * /etc/passwd would otherwise show the file). The candidate's file is
 * `display` (the gate compiles it behind #line 1 "display") or the scratch
 * copy (cand.cu, cand.src). Lines of the compiler's own (nvcc, ptxas)
 * stay. Returns a malloc'd string (NULL for NULL). */
char *kg_cut_foreign(const char *log, const char *display);

/* The nvcc command line that builds the shared object `so` from `cu` for
 * sm_<arch>, or for every architecture of a list "90,100" (one -gencode
 * each, in one fat binary; archflag holds those flags, archlen >= 64 per
 * architecture) (argv: at least 32 slots, NULL-terminated). cublas: link
 * -lcublas. cpp17: compile as C++17, else C++14, which nvcc 13 compiles
 * about 30% faster (the CUDA headers pull in less: 0.57 s against 0.82 s for
 * a small candidate here); the caller retries a failed C++14 compile as
 * C++17, so no valid candidate is lost. The gate runs it in the sandbox. */
void kg_compile_argv(const char *nvcc, const char *arch, const char *cu, const char *so, int cublas,
                     int cpp17, const char **argv, char *archflag, size_t archlen);
/* 1 if the source looks like it needs C++17 (CUB/Thrust/libcu++, constexpr,
 * std::, attributes, structured bindings): compile it as C++17 at once. */
int kg_needs_cpp17(const char *src);

/* Read a whole file (at most max bytes) into a malloc'd NUL-terminated buffer. */
char *kg_read_file(const char *path, size_t max, size_t *len);

/* Device probe result, from a child too. */
typedef struct {
    int ok;                    /* 1: a device was found */
    int count;                 /* devices visible */
    int cc_major, cc_minor, sm_count;
    char name[128];
    char reason[192];          /* why not, when ok == 0 */
} kg_probe_msg;
typedef void (*kg_probe_fn)(int device, int fd);

/* In a freshly forked child: close every descriptor above 2 except keep1, keep2. */
void kg_close_fds_except(int keep1, int keep2);

/* Run the probe in a child; 0 on success (p filled), -1 when the child failed. */
int kg_probe_device(kg_probe_fn fn, int device, double timeout_s, kg_probe_msg *p);

#ifdef __cplusplus
}
#endif
#endif
