/* kgate's pipeline: one job per candidate (its static scan, its compile,
 * its harnesses, each in a sandbox), the run's GPUs and the gate's state,
 * and the steps that spawn those processes, read their results and
 * compose the verdicts. main.c's loop drives them. */
#ifndef KGATE_PIPELINE_H
#define KGATE_PIPELINE_H
#include <limits.h>
#include "cli.h"
#include "judge.h"
#include "kg_report.h"
#include "proto.h"
#include "sandbox.h"
#include "tasks.h"

enum { J_QUEUED, J_FLIGHT, J_READY, J_DONE };

/* --jobs counts candidates in their first seconds. One still in flight
 * after KG_STEP_ASIDE_S (a PyTorch build, a compile or scan that runs to its
 * limit) steps aside for the next, up to KG_STEP_ASIDE_MAX more in flight. */
#define KG_STEP_ASIDE_S 2.0

/* A scan's or compile's limit (--scan-timeout, ...) is CPU seconds; it gets
 * this many times as many seconds of wall-clock time. Killed at that
 * deadline having used at least half its CPU time, it is the candidate's
 * (L1: a bomb); with less, the machine was too busy: retried once, then
 * SKIPPED as the gate's own failure. */
#define KG_WALL_FACTOR 4
#define KG_STEP_ASIDE_MAX 8

/* One GPU of the run. */
typedef struct {
    int index;                       /* CUDA device index */
    kg_probe_msg probe;
    char arch[8];                    /* its own: "90" */
    char build_arch[8];              /* the build it runs (its own, or the newest listed below) */
    kg_judge_proc judge;
    int n_allow;
    char allow[KG_SB_EVENTS][160];   /* what CUDA's own start-up did in the sandbox (not the candidate) */
    int harness_no_data;             /* the start-up check needed the harness without RLIMIT_DATA */
    char ctx_line[360];
} kg_device;

typedef struct {
    char *source;              /* extracted source; NULL once finished */
    const kg_task *task;
    int external, state, slot, is_torch;
    char dir[1200];            /* the scratch folder, /scratch inside */
    char log[1200];            /* the compiler's output (outside scratch) */
    char hlog[KG_MAX_DEV][1200];   /* each harness's output */
    kg_sb_proc scan, cc, harness[KG_MAX_DEV];
    int scan_on, cc_on, h_on[KG_MAX_DEV];
    double scan_deadline, cc_deadline;
    int scan_killed, cc_killed;
    int scan_tries, cc_tries;  /* retries after a wall-clock kill (at most one each) */
    int scan_fd;               /* the scan's record pipe */
    int cmd_w[KG_MAX_DEV], rep_r[KG_MAX_DEV], shm_fd[KG_MAX_DEV];   /* the harnesses' channels */
    int h_dead[KG_MAX_DEV];    /* the harness ended before its session */
    int h_ready[KG_MAX_DEV];   /* 1: past its start-up (answered the quiesce PING); -1: did not answer */
    int h_pending;             /* its harnesses wait to be started (not while a candidate waits for the GPU) */
    kg_sb_result hrec[KG_MAX_DEV];
    int static_done, static_ok, compile_done, compile_ok, compile_needs_half, compile_needs_bf16;
    int cpp17;                 /* compiling as C++17 (else C++14, retried as 17 on failure) */
    int cc_phase;              /* 0: all architectures; 1 + k: architecture k alone (after a failure) */
    int arch_ok[MAX_ARCH];     /* -1 not known, 0 does not compile for it, 1 compiles */
    char so_name[MAX_ARCH][32];/* the shared object of each architecture, in scratch */
    int env_skip;              /* the build failed for the machine's reasons (PyTorch): SKIPPED */
    int unparsed;              /* clang reported an error in the candidate (KG-PARSE) */
    char parse_msg[300];       /* its first error, in the candidate's own words */
    char entry[64];            /* a PyTorch candidate's entry */
    double t0;
} kg_job;

typedef struct {
    kg_opts *o;
    kg_sandbox *sb;
    char bindir[PATH_MAX], nvcc[PATH_MAX], cuda_home[PATH_MAX];
    char libexec[PATH_MAX];          /* the helpers: kgate-sandbox, kgate-scan, kgate-harness, ... */
    int n_arch;
    char arch[MAX_ARCH][8];          /* the architectures compiled for */
    char arch_list[64];              /* "90,100" */
    int n_dev;
    kg_device dev[KG_MAX_DEV];
    /* PyTorch */
    int torch_wanted, torch_ok;
    char torch_why[300], torch_python[PATH_MAX], torch_lib[PATH_MAX], torch_version[64];
    char torch_includes[4096];       /* colon-separated, for the scan */
    char torch_path_env[3200];       /* PATH=<Python's bin>:<the sandbox's PATH> (ninja, c++) */
    char torch_preload[PATH_MAX + 32];
    int torch_allow_n;
    long torch_mem_kb, torch_file_kb;   /* no cgroup: what the watcher saw of libtorch's harness (-1: not watched) */
    char torch_allow[KG_SB_EVENTS][160];   /* libtorch's start-up in the sandbox */
    char ncu[PATH_MAX];              /* "" without Nsight Compute */
    char kb_runner[PATH_MAX], kb_rules[PATH_MAX];   /* --kernelbench: the runner, the static pass ("": none) */
    kg_judge_main_fn judge_main;     /* the judge's code (kg_judge_main; judge.cu) */
} kg_gate;

extern int slot_used[KG_SB_SLOTS];
extern double quiesce_wait_s;   /* what the barrier cost, for the report */
extern int quiesce_waits;

void close_fd(int *fd);
int arch_of_device(const kg_gate *g, int d);
/* g->arch and g->arch_list from a checked list ("90,100": kg_arch_list_check);
 * kg_arch_join makes g->arch_list again from g->arch. */
void kg_arch_set(kg_gate *g, const char *list);
void kg_arch_join(kg_gate *g);
int spawn_compile(kg_gate *g, kg_job *j, kg_cand *c);
int spawn_harness(kg_gate *g, kg_job *j, int d, const char *so_path, const char *preload);
void end_harness(kg_job *j, int d);
void spawn_harnesses(kg_gate *g, kg_job *j);
int spawn_scan(kg_gate *g, kg_job *j, kg_cand *c);
void static_result(kg_gate *g, kg_job *j, kg_cand *c);
void compile_result(kg_gate *g, kg_job *j, kg_cand *c);
/* A candidate that nvcc compiles and clang could not parse (KG-PARSE): the
 * static track read only what clang recovered, so the gate refuses it (P0
 * under every profile: what the gate cannot read). Returns 1 when it did. */
int parse_stop(kg_job *j, kg_cand *c);
void run_candidate(kg_gate *g, kg_job *j, kg_cand *c, int task_index);
void stop_job(kg_gate *g, kg_job *j);
double quiesce_others(kg_gate *g, kg_job *jobs, int next, int self);
/* After run_candidate: the late-warps run (late_warps.h) of a candidate that
 * passed, when --late-warps asks for it; a stop changes c's verdict. */
void late_warps_check(kg_gate *g, kg_job *j, kg_cand *c, kg_job *jobs, int next, int self, int task_index);

#endif
