/* dynamic.h: the gate's dynamic track, host side (compile, ptxas statistics,
 * one child process per candidate with a hard timeout).
 *
 * Nothing here touches CUDA: the gate's own process never initialises a CUDA
 * context, so it can fork a fresh child per candidate (runner.cu holds the
 * child's GPU code). A crash, an illegal address, an abort or a hang kills
 * the child, never the gate. Host-only C11; the parsers are unit-tested.
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
 * what --static-only gives a candidate the static track does not reject. */
typedef enum {
    KG_V_P0, KG_V_L1, KG_V_L2, KG_V_L3, KG_V_L4, KG_V_PASS, KG_V_EXTERNAL, KG_V_STATIC_OK,
    KG_V_COUNT
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

/* Start nvcc on `cu`, building the shared object `so` for sm_<arch>, its
 * stdout and stderr going to `log`. cublas: link -lcublas. cpp17: compile as
 * C++17, else C++14, which nvcc 13 compiles about 30% faster (the CUDA headers
 * pull in less: 0.57 s against 0.82 s for a small candidate here); the caller
 * retries a failed C++14 compile as C++17, so no valid candidate is lost.
 * Returns the pid, or -1 (errno set). */
pid_t kg_compile_spawn(const char *nvcc, const char *arch, const char *cu, const char *so,
                       const char *log, int cublas, int cpp17);
/* 1 if the source looks like it needs C++17 (CUB/Thrust/libcu++, constexpr,
 * std::, attributes, structured bindings): compile it as C++17 at once. */
int kg_needs_cpp17(const char *src);

/* Read a whole file (at most max bytes) into a malloc'd NUL-terminated buffer. */
char *kg_read_file(const char *path, size_t max, size_t *len);

/* ---- the child ---------------------------------------------------------- */

/* One message from the child: progress (final = 0) or the result (final = 1).
 * Written whole to a pipe (smaller than PIPE_BUF, so never interleaved). */
typedef struct {
    int final;
    int verdict;               /* kg_verdict, when final */
    char stage[96];            /* what the child was doing */
    char detail[320];          /* the reason for the verdict */
    double cand_ms_mid, ref_ms_mid, cand_ms_large, ref_ms_large;
    int shapes_checked;
} kg_child_msg;

typedef struct {
    const char *so_path;
    const kg_task *task;
    unsigned long long seed;
    int device;
    int no_timing;             /* 1: correctness only (e.g. --no-timing) */
    int wait_go;               /* 1: set up (CUDA context), then read the .so path
                                  from go_fd ("go"); EOF there: exit at once */
    int go_fd;
} kg_child_args;

/* The child body: runs in the forked process, reports through fd, returns
 * (the caller _exits). */
typedef void (*kg_child_fn)(const kg_child_args *args, int fd);

/* Device probe result, from a child too. */
typedef struct {
    int ok;                    /* 1: a device was found */
    int cc_major, cc_minor, sm_count;
    char name[128];
    char reason[192];          /* why not, when ok == 0 */
} kg_probe_msg;
typedef void (*kg_probe_fn)(int device, int fd);

/* Send one message (the child side). */
void kg_child_send(int fd, const kg_child_msg *m);

typedef struct {
    kg_child_msg last;         /* the final message, or the last progress */
    int got_final;
    int timed_out;
    int term_signal;           /* signal that ended the child, 0 if none */
    int exit_code;
    double seconds;
} kg_child_outcome;

/* Fork a child (own process group, stdout/stderr to log_path), run fn in it,
 * collect its messages; kill the whole group after timeout_s. */
void kg_run_child(kg_child_fn fn, const kg_child_args *args, const char *log_path,
                  double timeout_s, kg_child_outcome *out);

/* The same in two steps, so the child's set-up (CUDA context creation)
 * overlaps the candidate's compile: kg_child_start forks the child with
 * args->wait_go set; kg_child_go sends it the .so path and collects its
 * outcome (the timeout counts from the go); kg_child_cancel ends a child
 * that never got its go (compile failed, static P0). Children close every
 * inherited descriptor they do not need, so pipes see EOF in time. */
typedef struct {
    pid_t pid;
    int res_fd, go_fd;
    int reaped, status;        /* set by a caller that reaped pid itself */
} kg_child;
int kg_child_start(kg_child_fn fn, const kg_child_args *args, const char *log_path, kg_child *h);
void kg_child_go(kg_child *h, const char *so_path, double timeout_s, kg_child_outcome *out);
void kg_child_cancel(kg_child *h);

/* In a freshly forked child: close every descriptor above 2 except keep1, keep2. */
void kg_close_fds_except(int keep1, int keep2);

/* Turn an outcome into a verdict and a one-line reason. */
int kg_outcome_verdict(const kg_child_outcome *o, char *reason, size_t len);

/* Run the probe in a child; 0 on success (p filled), -1 when the child failed. */
int kg_probe_device(kg_probe_fn fn, int device, double timeout_s, kg_probe_msg *p);

#ifdef __cplusplus
}
#endif
#endif
