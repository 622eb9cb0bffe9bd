/* judge.h: the judge, a process of the gate that never runs candidate code.
 *
 * The gate starts one judge per run (a child with its own CUDA context) and,
 * for each candidate whose static scan and compile passed, sends it a
 * session: the task, the seed, and (as file descriptors) the pipes and the
 * shared memory of that candidate's harness. The judge drives the harness
 * (proto.h), checks what comes back against its CPU references (small
 * shapes) and its own GPU references (mid and large sizes), times its
 * reference itself, bounds the harness's reported times by its own clock,
 * and sends the gate one verdict record. The gate validates that record too.
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
    /* how the candidate's times were bounded (kg_judge_bound): the round-trip
     * allowance (ms; -1: not calibrated, the ping was used) and how many of the
     * timed batches took the judge's figure instead of the harness's */
    double allow_ms;
    int32_t wall_batches, timed_batches;
    double rep_ms_mid, rep_ms_large;  /* the harness's own event times (median per call), for comparison */
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

/* One session, seen from the judge. */
typedef struct kg_judge {
    int cmd_fd, rep_fd, sock;     /* to the harness, from it, to the gate (progress) */
    unsigned char *shm;
    size_t shm_bytes;
    uint32_t seq;
    double deadline;              /* CLOCK_MONOTONIC seconds */
    const kg_task *t;
    int task;
    kg_judge_msg *m;
    double t_io;                  /* accumulated into m->t_io */
    double ping_ms;               /* the judge-measured round trip of an empty command */
    int calibrated;               /* 1: allow_ms below was measured (kg_judge_calibrate) */
    double allow_ms;              /* round trip of an honest batch beyond its GPU time */
    const char *(*err_name)(int); /* CUDA error names (the judge's own table) */
    /* the judge's own GPU work before every timed batch (its L2 flush); the
     * calibration does it too, so the allowance holds what a timed batch
     * really pays around the candidate's calls. -1: done; else a verdict */
    int (*before_batch)(struct kg_judge *j);
} kg_judge;

/* Set the stage and tell the gate (a progress record). */
void kg_judge_stage(kg_judge *j, const char *fmt, ...);

/* Send a command, wait for its reply under the deadline and validate it.
 * 0: r holds a valid reply (its status may be an error); wall_ms (may be
 * NULL) the judge-measured round trip. -1: the harness is lost (died, hung,
 * malformed reply): m->lost, m->timed_out and m->detail say so. */
int kg_judge_call(kg_judge *j, kg_cmd *c, kg_rep *r, double *wall_ms);

/* Timing the candidate as fairly as the reference (README.md, "Timing").
 * The harness's CUDA-event time for a batch is what counts, as the judge's
 * event time does for the reference, unless the judge's own clock
 * contradicts it: more than the judge's wall time is tampering (L2); less
 * than the wall time minus the round-trip allowance (by more than 5% or
 * 0.05 ms) gives the judge's figure, wall - allowance. The allowance is
 * what an honest batch costs beyond its GPU time (pipe hops, wake-ups, CUDA's
 * submission and synchronisation): kg_judge_calibrate measures it in the
 * same harness, before any candidate code is loaded there (so a candidate
 * cannot inflate it), with batches of the gate's own delay kernel (10 and
 * 64 calls of 20 us, 10 of 200 us, one of 5 ms), each after the judge's L2
 * flush as a timed batch is, the median of three for each, the largest of
 * those (at most 2 ms). Uncalibrated, the least of three pings is the
 * allowance (which undercounts: the H200 finding, README.md). This is one
 * batch's figure; over a size's 5 batches, kg_judge_per_call decides.
 * *out: the figure to use; returns -1, or KG_V_L2 with the detail set. */
int kg_judge_bound(kg_judge *j, double reported, double wall, double *out);
/* The candidate's time per call from n timed batches: the median of the
 * harness's figures (reported[i], per call), unless even the least of the
 * judge's (judged[i] from kg_judge_bound, per call) is above it. Delays that
 * are no fault of the candidate (the machine busy with the other candidates'
 * compiles, a late wake-up) only ever add to the judge's clock, so its least
 * batch is its cleanest: an honest harness has a batch the clock agrees
 * with; a harness that under-reports has none, and gets the judge's least.
 * On the H200 (b184e9e), charging every contradicted batch rejected two good
 * candidates whose events read 64% and 69% of the reference. */
double kg_judge_per_call(const double *judged, const double *reported, int n);
/* -1 (calibrated, or not: then j->calibrated = 0), or KG_V_L2 when the
 * harness is lost. Must come before kg_judge_load. */
int kg_judge_calibrate(kg_judge *j);

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
 * harness returns KG_V_L2 with m->lost set. */
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
