/* sandbox_host.h: the host side of a sandbox, internal to sandbox.c and
 * sandbox_host.c (sandbox.h is the interface). */
#ifndef KGATE_SANDBOX_HOST_H
#define KGATE_SANDBOX_HOST_H
#include <stddef.h>
#include <sys/types.h>
#include "sandbox.h"

/* What of /sys the harness sees: the whitelist (sb->sys, sys_link) and
 * what the fallback hides (sb->sys_mask). */
void kg_find_sys(kg_sandbox *sb);

/* Host memory: the run's memory cgroup folder (sb->memcg, memcg_dir; none
 * with KGATE_MEMCG=none or where none can be made). */
void kg_memcg_setup(kg_sandbox *sb);
/* The monitor: one sandbox's cgroup with its limit, before bubblewrap
 * starts (dir "" when there is no cgroup; -1 when it cannot be made); */
int kg_memcg_make(const kg_sandbox *sb, unsigned long long bytes, char *dir, size_t len);
/* bubblewrap's process entering it before its exec; */
int kg_memcg_enter(const char *dir);
/* its OOM kills and peak into r; */
void kg_memcg_stats(const kg_sandbox *sb, const char *dir, kg_sb_result *r);
/* the stats, then the cgroup removed, after the sandbox ended. */
void kg_memcg_finish(const kg_sandbox *sb, const char *dir, kg_sb_result *r);

/* CPU seconds used so far by a process and everything below it (/proc). */
double kg_tree_cpu_s(pid_t root);
/* root first, then every process below it, from /proc (at most max); the count. */
int kg_proc_tree(pid_t root, pid_t *out, int max);
/* Host memory where there is no cgroup: the monitor samples the resident
 * memory of the sandbox's processes (anonymous and shared pages, memfd
 * files held open) every KG_MEMWATCH_MS. The list of processes is read
 * from /proc (a walk for bubblewrap's descendants, about 3 ms with 200
 * processes on the machine) at the first sample, at every
 * KG_MEMWATCH_RESCAN-th, and at every sample while a process the monitor
 * let be created (kg_memwatch_expect) has not been found yet, for at most
 * KG_MEMWATCH_ARMED samples; in between the known ones are read again
 * (about 0.1 ms a process). Returns the KiB held now; peak_kb keeps the
 * most seen. */
#define KG_MEMWATCH_MS 10
#define KG_MEMWATCH_RESCAN 20
#define KG_MEMWATCH_ARMED 100
#define KG_MEMWATCH_MAXP 256
/* File-backed pages (RssFile) that the sandbox's processes may hold, all
 * together, before the watcher counts them: the libraries a harness maps
 * (CUDA's, libtorch's, the candidate's). Managed memory touched on the
 * host shows there too (sandbox_host.c). */
#define KG_MEMWATCH_FILE_SLACK_MIB 2048ULL
typedef struct {
    int n, rescan, expected;
    unsigned tick;
    int pid[KG_MEMWATCH_MAXP];
    long peak_kb, file_peak_kb;   /* the most counted; the most RssFile (all processes), slack not taken off */
} kg_memwatch;
/* file_slack_kb: of the processes' file-backed growth, what is not counted. */
long kg_memwatch_sample(kg_memwatch *w, pid_t root, long file_slack_kb);
/* n processes are being created (0: look at the list again once): the
 * next samples walk /proc until as many new ones are found, or for
 * KG_MEMWATCH_ARMED samples (a creation that failed). */
void kg_memwatch_expect(kg_memwatch *w, int n);
/* Over the limit (and at a deadline): SIGKILL every process below root
 * (bubblewrap's), so that its PID namespace ends and bubblewrap exits on
 * its own once the last of them is gone: the monitor's wait for root is
 * then a wait for them all. Returns how many were signalled. */
int kg_memwatch_kill(kg_memwatch *w, pid_t root);

/* A process's peak address space (VmPeak), KiB. */
long kg_vm_peak_kb(pid_t pid);

#endif
