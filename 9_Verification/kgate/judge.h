/* judge.h: the judge, a process of the gate that never runs candidate code.
 *
 * The gate starts one judge per device (a child with its own CUDA context)
 * and, for each candidate whose static scan and compile passed, sends it a
 * session: the task, the seed, and (as file descriptors) the command socket,
 * the reply pipe and the small-shape memory of that candidate's harness. The
 * judge drives the harness (proto.h), checks what comes back against its CPU
 * references (small shapes) and its own GPU references (mid and large
 * sizes), times the reference and the candidate with its own clocks, and
 * sends the gate one verdict record. The gate validates that record too.
 */
#ifndef KGATE_JUDGE_H
#define KGATE_JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "dynamic.h"
#include "proto.h"
#include "tasks.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KG_SESSION_MAGIC 0x6b677373u
#define KG_JUDGE_MAGIC 0x6b676a64u

typedef struct {
    uint32_t magic;
    int32_t task;                 /* index in the task table */
    uint64_t seed;
    int32_t no_timing, dry;
    double timeout_s;
    int32_t torch;                /* a PyTorch candidate: its adapter's hooks are honoured */
} kg_session_req;

/* The judge's record to the gate: progress (final = 0) or the verdict. */
typedef struct {
    uint32_t magic;
    int32_t final;
    int32_t verdict;              /* kg_verdict, when final */
    int32_t lost;                 /* the harness died, hung or broke the protocol */
    int32_t timed_out;            /* ... by the session's deadline */
    int32_t judge_failed;         /* the judge's own CUDA work failed: start a new judge */
    char stage[96];               /* what the session was doing */
    char detail[320];             /* the reason for the verdict */
    double cand_ms_mid, ref_ms_mid, cand_ms_large, ref_ms_large;
    int32_t shapes_checked;
    double t_io;                  /* seconds of data movement and protocol waits */
    double t_session;
    /* the candidate's times are the judge's clock (kg_judge_timed_size): the
     * calibrated allowance of a mid-size batch (ms), how many timed batches
     * the figures come from (all on the judge's clock: wall_batches =
     * timed_batches), and what the harness's own events said */
    double allow_ms;
    int32_t wall_batches, timed_batches;
    double rep_ms_mid, rep_ms_large;  /* the harness's own event times (median per call), for comparison */
    double gpu_wait_s;            /* the wait for the GPU's memory to come back before the session */
    /* the first failing shape and its first mismatches (L3), for the feedback */
    char mm_shape[96];
    uint64_t mm_count;            /* wrong elements (of mm_checked) */
    uint64_t mm_checked;
    int32_t mm_n;                 /* 0..KG_MAX_MISMATCH */
    int64_t mm_index[KG_MAX_MISMATCH];
    double mm_expected[KG_MAX_MISMATCH], mm_got[KG_MAX_MISMATCH];
} kg_judge_msg;

/* 1 when well-formed (magic, verdict in range, strings NUL-terminated and
 * printable, times finite); the gate uses nothing else. */
int kg_judge_msg_valid(kg_judge_msg *m);

struct kg_judge;

/* One of the timed sizes (mid, large), seen from the judge's host code. The
 * arena holds `slots` calls' buffers (kg_slot_layout); a timed batch uses
 * the first `calls` of them. */
typedef struct kg_size_run {
    kg_shape s;
    int is_large;
    char which[8], shp[96];
    kg_slot_layout L;
    size_t arena_base;            /* where this size's slot 0 starts in the arena */
    int slots, calls;
    double ref_one_ms;            /* the reference, one call (its events) */
    double ref_ms;                /* the reference per call: median of 5 batches of `calls` */
    double allow_ms;              /* what a timed batch of `calls` costs beyond its calls (calibrated) */
    double copy_ms;               /* PyTorch: the judge's own copy of `calls` results (subtracted) */
    double cand_ms, rep_ms;       /* the candidate per call: the judge's figure; the harness's events */
    int timed;                    /* batches the candidate's figure comes from */
} kg_size_run;

/* What the judge does on its GPU around a timed batch. judge.cu implements
 * them with CUDA; the tests model them on host memory. Each returns -1, or a
 * verdict with j->m->detail set. */
typedef struct kg_gpu_ops {
    /* fresh inputs (from seed) for calls [0, calls) of z, their outputs'
     * guard zones reset, call 0's output poisoned when poison0; then the L2
     * flush; waited for */
    int (*refill)(struct kg_judge *j, kg_size_run *z, int calls, uint64_t seed, int poison0);
    /* KG_SAMPLE elements of the outputs of calls sel[0..m) (indices from
     * seed), read now on the judge's stream and waited for: the instant
     * the judge's clock stops */
    int (*snapshot)(struct kg_judge *j, kg_size_run *z, const int *sel, int m, uint64_t seed);
    /* the calls sel[0..m) of the batch checked in full, off the clock:
     * inputs unchanged, output against the reference (on inputs the judge
     * regenerates from seed), guard zone intact, and the sampled elements
     * unchanged since the snapshot (sseed: the snapshot's indices); batch:
     * 0 the checked call, else the timed batch's number */
    int (*verify)(struct kg_judge *j, kg_size_run *z, uint64_t seed, const int *sel, int m, uint64_t sseed,
                  int batch);
} kg_gpu_ops;

/* One session, seen from the judge. */
typedef struct kg_judge {
    int cmd_fd, rep_fd, sock;     /* to the harness, from it, to the gate (progress) */
    int shm_fd;                   /* the small-shape memory (never mapped here) */
    size_t shm_bytes;
    uint32_t seq;
    double deadline;              /* CLOCK_MONOTONIC seconds */
    const kg_task *t;
    int task;
    int torch;                    /* a PyTorch candidate */
    int loaded;                   /* LOAD was sent: candidate code may run in the harness */
    kg_judge_msg *m;
    double t_io;                  /* accumulated into m->t_io */
    double ping_ms;               /* the judge-measured round trip of an empty command */
    uint64_t rng;                 /* the judge's own randomness (never the harness's) */
    double spin_s;                /* poll replies without sleeping this long (0: block) */
    const char *(*err_name)(int); /* CUDA error names (the judge's own table) */
    const kg_gpu_ops *gpu;
    void *gpu_ctx;                /* the ops' own state */
} kg_judge;

uint64_t kg_judge_rand(kg_judge *j);

/* Set the stage and tell the gate (a progress record). */
void kg_judge_stage(kg_judge *j, const char *fmt, ...);

/* Send a command (with the descriptor fd when fd >= 0), wait for its reply
 * under the deadline and validate it. 0: r holds a valid reply (its status
 * may be an error); wall_ms (may be NULL) the judge-measured round trip.
 * -1: the harness is lost (died, hung, malformed reply): m->lost,
 * m->timed_out and m->detail say so. */
int kg_judge_call(kg_judge *j, kg_cmd *c, kg_rep *r, double *wall_ms);
int kg_judge_call_fd(kg_judge *j, kg_cmd *c, kg_rep *r, double *wall_ms, int fd);

/* The timing (README.md, "Timing"). Nothing the harness reports decides it.
 * One timed batch is one cycle of the judge's clock: from before the judge
 * writes the batch's fresh inputs (so no work on them can start earlier)
 * to the moment its snapshot of the outputs has been read on its own
 * stream, after the harness's reply (so every element that counts was
 * written before the clock stopped; one written later differs from the
 * snapshot and fails the candidate). Which calls are checked in full is
 * drawn after the reply. The figure per call is (wall - allowance - PyTorch
 * copy) / calls; over the timed batches the least counts (delays that are
 * no fault of the candidate only add to the wall time). The allowance is
 * the same cycle with the gate's own delay kernel in place of the calls,
 * measured in the same harness before the candidate is loaded (so it
 * cannot inflate it): the least of 3 of wall - events (the least, as for
 * the candidate: an allowance too large would be time given away).
 *
 * kg_judge_cycle: one cycle of op (KG_OP_CHECK: call 0 alone, poisoned;
 * KG_OP_BATCH; KG_OP_CALIBRATE: ns per delay kernel) with `calls` calls.
 * wall_ms: the judge's clock; rep_ms: the harness's events (information).
 * -1, or the verdict (L2 lost or an error status, L3 from verify). */
int kg_judge_cycle(kg_judge *j, kg_size_run *z, int op, int calls, int batch, uint64_t ns, double *wall_ms,
                   double *rep_ms);
/* The allowance of z (before LOAD): -1, or KG_V_L2 when the harness is lost. */
int kg_judge_calibrate_size(kg_judge *j, kg_size_run *z);
/* The candidate at z: the checked call (call 0 alone, its output poisoned,
 * checked in full), one warm-up batch, then KG_TIMED_BATCHES batches, each
 * checked (KG_CHECKED_CALLS of its calls in full, drawn after the reply)
 * and timed by the judge's clock; z->cand_ms the least per-call figure. A
 * candidate over 20 times slower than the reference and over 20 ms a call
 * in three checked calls is timed on the least of them alone. -1 or a
 * verdict. */
#define KG_TIMED_BATCHES 5
int kg_judge_time_size(kg_judge *j, kg_size_run *z, int no_timing);
/* (wall - allowance - copy) per call, never below 0 */
double kg_judge_figure(double wall_ms, double allow_ms, double copy_ms, int calls);
/* The m calls of a batch of `calls` to check in full: distinct, drawn from
 * the judge's randomness (call it only after the reply). */
int kg_judge_pick(kg_judge *j, int calls, int *sel);

/* GPU memory (judge.cu, with these host-side rules): before a session the
 * judge waits, at most KG_GPU_WAIT_S, until the free memory is back within
 * kg_gpu_slack(base) of its baseline (what it saw at its start): a
 * candidate that held or hung the GPU fails only itself, never the next. A
 * candidate may hold at most kg_gpu_limit(total) bytes of GPU memory beyond
 * what it held when it was loaded: a quarter of the device, at least 2 GiB
 * and at most 4 GiB (its data is the judge's; what it needs is scratch: a
 * cuBLAS workspace, CUB's temporary storage, PyTorch's result tensors);
 * more, checked with every verified call, is L2, the memory named. */
#define KG_GPU_WAIT_S 5.0
size_t kg_gpu_slack(size_t base);
size_t kg_gpu_limit(size_t total);

/* Exclusive GPU for a session: every other live harness of the run must be
 * past its start-up (it answers a PING only after it has created its CUDA
 * context), so no other process does GPU work while a candidate and its
 * reference are timed. state[i]: 0 unknown (a PING is sent), 1 ready
 * (skipped), -1 failed (skipped). Harnesses that do not answer a valid
 * reply by the deadline get -1. Returns how many failed in this call. */
#define KG_QUIESCE_SEQ 0x51554945u
int kg_quiesce(const int *cmd_w, const int *rep_r, int *state, int n, double deadline);

/* Record the first failing shape and its first mismatches in j->m. */
void kg_judge_mismatches(kg_judge *j, const char *shape, size_t bad, size_t checked, const kg_mismatches *mm);

/* The verdict for a reply whose status is not OK (detail set). */
int kg_judge_status_verdict(kg_judge *j, const kg_rep *r);

/* The session's steps: -1 to go on, else the verdict (detail set). A lost
 * harness returns KG_V_L2 with m->lost set. kg_judge_map hands the harness
 * the arena (fd, bytes). */
int kg_judge_map(kg_judge *j, int fd, size_t bytes);
int kg_judge_load(kg_judge *j);
int kg_judge_ping(kg_judge *j);
int kg_judge_small(kg_judge *j, int shape_index, unsigned long long seed);
int kg_judge_dry(kg_judge *j);

/* The judge process's loop (judge.cu): create the CUDA context (not when
 * dry), then serve sessions from the gate on sock until EOF. */
void kg_judge_main(int sock, int device, int dry);

/* The gate's side: start the judge; run one session (blocks until the
 * verdict record, with a deadline of timeout + slack); stop the judge. */
typedef void (*kg_judge_main_fn)(int sock, int device, int dry);
typedef struct {
    int pid, sock;
    int dry, device;
    kg_judge_main_fn main;
    double slack_s;               /* the gate waits timeout + slack (10 s) for a verdict */
} kg_judge_proc;
/* fn: kg_judge_main (the tests pass judges of their own). */
int kg_judge_start(kg_judge_proc *jp, kg_judge_main_fn fn, int device, int dry);
/* Hands the harness's three fds to the judge; progress records update *last.
 * Returns 0 with the final record in *out, -1 when the judge failed (out
 * describes it). */
int kg_judge_session(kg_judge_proc *jp, const kg_session_req *req, int cmd_w, int rep_r,
                     int shm_fd, kg_judge_msg *out);
void kg_judge_stop(kg_judge_proc *jp);

#ifdef __cplusplus
}
#endif
#endif
