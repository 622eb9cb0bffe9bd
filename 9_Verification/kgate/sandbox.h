/* sandbox.h: where the gate runs code it does not trust (see README.md,
 * "Sandbox").
 *
 * Three things run on hostile input: the static scan (libclang), nvcc, and
 * the harness that loads the candidate and calls it. Each runs in its own
 * bubblewrap sandbox: a new mount, PID, network, IPC and UTS namespace; the
 * system folders read-only, nothing of the user's (no /home, /root, /run,
 * /var, /work, other candidates' folders); a private scratch folder (read-
 * only for the harness); a size-limited private /tmp; only the device nodes
 * it needs; a cleared environment; no capabilities (as root: an unprivileged
 * uid of its own, one per job slot); resource limits (CPU time, address
 * space or data, file size, open files, processes); and a seccomp filter
 * that hands the interesting system calls (writes, deletes, connects,
 * signals, process creation, exec, setsid, ptrace, mount, ...) to a monitor
 * outside the sandbox. The monitor is trusted code of the gate: it lets the
 * call proceed (the namespaces refuse what is outside the sandbox) or denies
 * it, and records what was tried, so a verdict can say "write to /etc/x
 * refused". Its record, not anything the sandboxed process writes, is what
 * the gate reads back.
 *
 * The monitor is a process of its own per sandbox (forked from the caller):
 * the caller sees one pid and one result pipe. Killing the monitor's process
 * group kills bubblewrap, and bubblewrap's --die-with-parent and PID
 * namespace take every process inside with it, setsid() grandchildren too.
 * Host-only C11; unit-tested in tests/test_sandbox.c without a GPU.
 */
#ifndef KGATE_SANDBOX_H
#define KGATE_SANDBOX_H

/* Job slots: each has a uid of its own per kind of sandbox (4 kinds) when
 * the gate runs as root and switches users. */
#define KG_SB_SLOTS 64

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { KG_SB_SCAN, KG_SB_COMPILE, KG_SB_HARNESS } kg_sb_kind;

#define KG_SB_MAX_RO 48
#define KG_SB_MAX_DEV 32
#define KG_SB_MAX_SYS 32

/* The sandbox of a whole gate run, found once at start. */
typedef struct {
    int enabled;                  /* 0: --no-sandbox (children run unconfined) */
    char bwrap[1024];             /* bubblewrap: $KGATE_BWRAP, else bwrap on PATH */
    char stub[1024];              /* <helperdir>/kgate-sandbox (runs inside, before the target) */
    int as_root;                  /* the gate runs as root: sandboxes switch to their own uid */
    unsigned uid_base;            /* sandbox uid = uid_base + 4 x slot + kind (root only); a
                                     range of this run's own (from its pid), so two gates on
                                     one machine never share a uid or its process limit */
    int drop_uid;                 /* 0 after the GPU fallback (uid 0, no capabilities) */
    int monitor;                  /* 1: the seccomp monitor works here (self-test) */
    int n_ro;
    char ro[KG_SB_MAX_RO][1024];  /* read-only binds (same path inside) */
    int n_link;
    char link[8][2][256];         /* top-level symlinks to recreate (/bin -> usr/bin) */
    int n_dev;
    char dev[KG_SB_MAX_DEV][128]; /* GPU device nodes, bound into the harness only */
    /* /sys for the harness: only what the NVIDIA driver and CUDA read (README.md,
     * "Safety"): the CPU and NUMA topology, the GPUs' own PCI folders (and
     * their /sys/bus/pci/devices links), the driver's module parameters.
     * sys_full (the fallback when CUDA does not start with that): all of /sys
     * read-only with the host's identity hidden (network interfaces and their
     * MAC addresses, DMI serials, firmware tables): sys_mask. */
    int sys_full;
    int n_sys, n_sys_link, n_sys_mask;
    char sys[KG_SB_MAX_SYS][256];
    char sys_link[KG_SB_MAX_SYS][2][256];   /* link path, its target */
    char sys_mask[KG_SB_MAX_SYS][256];
    /* host memory: a memory cgroup per sandbox (memcg 2: cgroup v2
     * memory.max; 1: cgroup v1 memory.limit_in_bytes) under memcg_dir, this
     * run's own; it counts every page the sandbox's processes use, shared
     * mappings, memfd, tmpfs and SysV segments included. memcg 0: none can be
     * made here; the harness's monitor then watches the resident memory of
     * the sandbox's processes and kills it over the limit (sandbox_host.h,
     * kg_memwatch; README.md, "Safety"). */
    int memcg;
    char memcg_dir[1024];
    char path_env[2048], ld_env[4096], cuda_path[1024];
    char desc[512];               /* one line for the start of the report */
    double start_ms;              /* self-test: a sandbox start, spawn to exec (median of 3) */
} kg_sandbox;

typedef struct {
    double cpu_s;                 /* RLIMIT_CPU (soft; hard = soft + 1) */
    unsigned long long as_bytes;  /* RLIMIT_AS (0: not set; CUDA needs a large address space) */
    unsigned long long data_bytes;/* RLIMIT_DATA: heap and private writable mappings */
    unsigned long long mem_bytes; /* host memory of the whole sandbox (its memory cgroup; 0: none) */
    unsigned long long fsize_bytes;
    unsigned long long tmp_bytes; /* size of the private /tmp (tmpfs) */
    unsigned long long file_slack_bytes; /* no cgroup: file-backed pages the harness's
                                     processes may add (its libraries) before the
                                     watcher counts them (sandbox_host.c) */
    int nofile, nproc;
} kg_limits;

/* The resource limits of each kind (README.md lists them). */
kg_limits kg_default_limits(kg_sb_kind kind, double timeout_s);
/* The harness's host memory (RLIMIT_DATA and its memory cgroup), instead
 * of the default (kgate --memory). */
void kg_set_harness_memory(unsigned long long bytes);

#define KG_SB_MAX_FDS 4

typedef struct {
    kg_sb_kind kind;
    const char *scratch;          /* host folder bound at /scratch (cwd inside) */
    int scratch_rw;               /* 1: nvcc writes its .so there */
    const char *const *argv;      /* argv[0]: an absolute path inside (bind-mounted same path) */
    int fds[KG_SB_MAX_FDS];       /* passed to the target as 3, 4, ... */
    int n_fds;
    int out_fd;                   /* the target's stdout and stderr; -1: /dev/null */
    int slot;                     /* job slot, 0 to KG_SB_SLOTS - 1 (its own uid when root) */
    kg_limits lim;
    const char *env[8];           /* extra "NAME=value" */
    int n_env;
    int startup_mark;             /* 1: the target marks the end of its own start-up (below) */
} kg_sb_spec;

/* The end of a target's own start-up. The harness deletes this path (nothing
 * exists there) once, after its CUDA start-up and before it loads any
 * candidate code. For a spec with startup_mark, what the monitor sees before
 * the first such delete is the harness's own doing (CUDA's start-up, the
 * loader's): recorded as a start-up event, never a violation, so it can never
 * become a candidate's verdict. Only the first mark counts: later code
 * cannot move the boundary back, and a later delete of the path is an
 * ordinary refused delete. Without the mark every event counts as before. */
#define KG_SB_STARTUP_MARK "/.kgate-harness-startup-done"
#define KG_SB_STARTUP_TAG " [harness start-up]"

/* The host name every sandbox sees (its own UTS namespace): never the host's. */
#define KG_SB_HOSTNAME "kgate-sandbox"


typedef struct {
    pid_t pid;                    /* the monitor (own process group) */
    int res_fd;                   /* its result record arrives here */
    double t0;
} kg_sb_proc;

#define KG_SB_EVENTS 8

/* The monitor's record of one sandboxed run. Written by trusted code, read
 * whole; the reader still validates it (kg_sb_result_valid). */
typedef struct {
    unsigned magic;
    int ran;                      /* bubblewrap was started */
    int started;                  /* the stub reached the target's exec */
    int exit_code;                /* the target's, or -1 */
    int term_signal;              /* the signal that ended the target, 0 if none */
    int stub_failed;              /* the stub could not set up (message in stub_msg) */
    int monitored;                /* the seccomp monitor was attached */
    double start_ms;              /* spawn to the target's exec */
    double wall_ms;               /* spawn to the end of everything inside (reaped), or to ended_early */
    int ended_early;              /* a harness's record, written when the target itself called
                                     exit_group (exit_code is its status): its process's teardown
                                     (a CUDA context: about 0.1 s on the H200) is not waited for;
                                     no code of it runs after that call. cpu_s, maxrss_kb: 0 */
    double cpu_s;                 /* user + system time of everything inside */
    long maxrss_kb;
    int n_events, n_violations;   /* events seen; how many break the sandbox policy */
    int mem_oom;                  /* processes killed at the memory cgroup's limit */
    long mem_peak_kb;             /* the memory cgroup's peak, or the watcher's (0: not known) */
    int mem_watched;              /* no cgroup: the monitor watched the sandbox's resident memory
                                     (mem_oom 1: it killed the sandbox over the limit) */
    long mem_file_kb;             /* watched: the most file-backed (and managed) memory its
                                     processes held together (RssFile), slack not taken off */
    long vm_peak_kb;              /* the target's peak address space at its exit_group (VmPeak) */
    int startup_marked;           /* the target made its start-up mark */
    int n_startup;                /* events before the mark (never violations) */
    unsigned counts[KG_SB_EVENTS];
    int is_violation[KG_SB_EVENTS];
    char events[KG_SB_EVENTS][160];
    char stub_msg[160];
} kg_sb_result;

#define KG_SB_MAGIC 0x6b67736bu

/* Find bubblewrap and the stub, build the read-only binds, run the self-test
 * (a start, a write outside refused, a connect refused, the monitor sees
 * them). no_sandbox: enabled = 0 with the warning in desc. Returns 0, or -1
 * with the reason in err (the gate then refuses to run candidates). */
int kg_sandbox_setup(kg_sandbox *sb, const char *helperdir, int no_sandbox, char *err, size_t len);

/* Remove this run's memory cgroups (at the gate's end; idempotent). */
void kg_sandbox_cleanup(kg_sandbox *sb);

/* One line on how host memory is limited, for the report's start. */
void kg_sandbox_memory_desc(const kg_sandbox *sb, char *buf, size_t len);

/* One more read-only bind (e.g. the folder of an nvcc given with --nvcc). */
void kg_sandbox_add_ro(kg_sandbox *sb, const char *path);

/* The uid a sandbox of this slot and kind runs as (0: unchanged). */
unsigned kg_sandbox_uid(const kg_sandbox *sb, int slot, kg_sb_kind kind);

/* Start spec->argv in the sandbox (or unconfined when !sb->enabled). 0 or -1. */
int kg_sb_spawn(const kg_sandbox *sb, const kg_sb_spec *spec, kg_sb_proc *p);

/* Kill everything of this sandbox (the monitor's group; the PID namespace
 * takes the rest). Safe to call twice. */
void kg_sb_kill(kg_sb_proc *p);

/* Wait for the monitor's record until deadline (CLOCK_MONOTONIC seconds; 0:
 * no limit). On timeout: kill, then read what it recorded. Reaps the monitor.
 * Returns 1 when the run ended by itself, 0 when it was killed, -1 when no
 * record came (r says so). */
int kg_sb_wait(kg_sb_proc *p, double deadline, kg_sb_result *r);

/* Monitors that reported early (ended_early) and still end their sandbox:
 * reaped here, without waiting (block = 0) or all of them (block = 1, before
 * the gate exits, so nothing of a sandbox outlives it). */
void kg_sb_reap_lingering(int block);

/* 1 when r is a well-formed record (magic, ranges, NUL-terminated strings). */
int kg_sb_result_valid(const kg_sb_result *r);

/* "write to /etc/x refused (read-only); connect to 127.0.0.1:9 refused (no
 * network)": the violations (or every event when all), for a verdict. */
void kg_sb_describe(const kg_sb_result *r, int all, char *buf, size_t len);

/* What ended the target, in words ("CPU time limit (SIGXCPU)", "killed by
 * signal 9", "exit code 3"). */
void kg_sb_ending(const kg_sb_result *r, const kg_limits *lim, char *buf, size_t len);

double kg_now(void);

#ifdef __cplusplus
}
#endif
#endif
