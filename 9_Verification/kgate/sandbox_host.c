/* sandbox_host.c: what a sandbox shows of the host and may use of it
 * (see sandbox.h): the harness's part of /sys, a memory cgroup per sandbox
 * (or the fallback's measurement of CUDA's address space), and the CPU time
 * of a sandbox's processes when the gate kills them. Trusted code of the
 * gate: the monitor (sandbox.c) calls it outside the sandbox. */
#define _GNU_SOURCE
#include "sandbox.h"
#include "sandbox_host.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GiB (1ULL << 30)

/* realpath(3) into a buffer of len bytes (sandbox.c has the same: see there) */
static int real_path_into(const char *p, char *out, size_t len)
{
    char *r = realpath(p, NULL);
    if (!r) return -1;
    size_t n = strlen(r);
    if (n >= len) { free(r); return -1; }
    memcpy(out, r, n + 1);
    free(r);
    return 0;
}

/* What of /sys the harness sees (sandbox.h): the whitelist, and for the
 * fallback the folders that name the host (network interfaces with their
 * MAC addresses, DMI serials, firmware tables). */
void kg_find_sys(kg_sandbox *sb)
{
    static const char *const keep[] = {"/sys/devices/system/cpu", "/sys/devices/system/node",
                                       "/sys/kernel/mm/transparent_hugepage", "/sys/module/nvidia",
                                       "/sys/module/nvidia_uvm", "/sys/bus/pci/drivers/nvidia"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (access(keep[i], F_OK) == 0 && sb->n_sys < KG_SB_MAX_SYS)
            snprintf(sb->sys[sb->n_sys++], sizeof sb->sys[0], "%s", keep[i]);
    /* the GPUs (PCI vendor 0x10de): their device folders and the links to them */
    DIR *d = opendir("/sys/bus/pci/devices");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[250], v[32] = "", link[250], real[PATH_MAX];
        snprintf(p, sizeof p, "/sys/bus/pci/devices/%.200s/vendor", e->d_name);   /* names are short */
        FILE *f = fopen(p, "re");
        if (!f) continue;
        if (!fgets(v, sizeof v, f)) v[0] = 0;
        fclose(f);
        if (strncmp(v, "0x10de", 6) != 0) continue;
        snprintf(link, sizeof link, "/sys/bus/pci/devices/%.200s", e->d_name);
        ssize_t n = readlink(link, p, sizeof p - 1);
        if (n <= 0 || real_path_into(link, real, sizeof real) != 0 || strlen(real) >= sizeof sb->sys[0]) continue;
        p[n] = 0;
        if (sb->n_sys < KG_SB_MAX_SYS) snprintf(sb->sys[sb->n_sys++], sizeof sb->sys[0], "%s", real);
        if (sb->n_sys_link < KG_SB_MAX_SYS) {
            snprintf(sb->sys_link[sb->n_sys_link][0], sizeof sb->sys_link[0][0], "%s", link);
            snprintf(sb->sys_link[sb->n_sys_link][1], sizeof sb->sys_link[0][1], "%s", p);
            sb->n_sys_link++;
        }
    }
    if (d) closedir(d);
    static const char *const mask[] = {"/sys/class/net", "/sys/devices/virtual/net", "/sys/class/dmi",
                                       "/sys/devices/virtual/dmi", "/sys/firmware", "/sys/fs/cgroup",
                                       "/sys/class/ieee80211", "/sys/class/bluetooth", "/sys/kernel/debug",
                                       "/sys/kernel/security"};
    for (size_t i = 0; i < sizeof mask / sizeof mask[0]; i++) {
        struct stat st;
        if (lstat(mask[i], &st) == 0 && S_ISDIR(st.st_mode) && sb->n_sys_mask < KG_SB_MAX_SYS)
            snprintf(sb->sys_mask[sb->n_sys_mask++], sizeof sb->sys_mask[0], "%s", mask[i]);
    }
    /* a physical interface's folder under its PCI device: /sys/devices/pci.../net */
    d = opendir("/sys/class/net");
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char link[512], real[PATH_MAX];
        snprintf(link, sizeof link, "/sys/class/net/%.200s", e->d_name);
        if (real_path_into(link, real, sizeof real) != 0) continue;
        char *sl = strrchr(real, '/');   /* .../net/eth0 -> .../net */
        if (!sl) continue;
        *sl = 0;
        int seen = strncmp(real, "/sys/devices/virtual/", 21) == 0;
        for (int k = 0; k < sb->n_sys_mask && !seen; k++) seen = !strcmp(sb->sys_mask[k], real);
        if (!seen && sb->n_sys_mask < KG_SB_MAX_SYS && strlen(real) < sizeof sb->sys_mask[0])
            snprintf(sb->sys_mask[sb->n_sys_mask++], sizeof sb->sys_mask[0], "%s", real);
    }
    if (d) closedir(d);
}

/* ---- host memory: a memory cgroup per sandbox ---------------------------- */

/* RLIMIT_DATA counts the heap and private writable mappings only: a
 * MAP_SHARED|MAP_ANONYMOUS mapping, a memfd, a file in a tmpfs or a SysV
 * segment escape it, and RLIMIT_AS cannot be set for a harness without
 * knowing the address space CUDA reserves. A memory cgroup counts every page
 * a process of the sandbox makes resident, whatever kind: each sandbox gets
 * one under a folder of this run (memcg_dir), made by the monitor before
 * bubblewrap starts and entered by bubblewrap's process before its exec,
 * so everything inside is in it from the first instruction. No sandbox sees
 * the cgroup file system (/sys is not bound, or only parts of it, and the
 * cgroup namespace is new), so nothing inside can leave it. */

static int write_text_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int e = errno;
    close(fd);
    errno = e;
    return w == (ssize_t)n ? 0 : -1;
}

static long long read_ll_key(const char *path, const char *key)
{
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    char line[256];
    long long v = -1;
    size_t kl = key ? strlen(key) : 0;
    while (fgets(line, sizeof line, f)) {
        if (!key) { v = atoll(line); break; }
        if (!strncmp(line, key, kl) && (line[kl] == ' ' || line[kl] == '\t')) { v = atoll(line + kl + 1); break; }
    }
    fclose(f);
    return v;
}

/* The mount point of the cgroup hierarchy (v2: "cgroup2"; v1: the one with
 * the memory controller) and this process's path in it. */
static int cgroup_of_self(int v2, char *dir, size_t len)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f) return -1;
    char line[2048], mnt[1024] = "";
    while (fgets(line, sizeof line, f) && !mnt[0]) {
        char *sep = strstr(line, " - ");
        if (!sep) continue;
        char fstype[64] = "", opts[1024] = "", mp[1024] = "";
        if (sscanf(sep + 3, "%63s %*s %1023s", fstype, opts) < 1) continue;
        if (sscanf(line, "%*s %*s %*s %*s %1023s", mp) != 1) continue;
        if (v2 && !strcmp(fstype, "cgroup2")) snprintf(mnt, sizeof mnt, "%s", mp);
        if (!v2 && !strcmp(fstype, "cgroup")) {
            char *save = NULL;
            for (char *t = strtok_r(opts, ",", &save); t; t = strtok_r(NULL, ",", &save))
                if (!strcmp(t, "memory")) snprintf(mnt, sizeof mnt, "%s", mp);
        }
    }
    fclose(f);
    if (!mnt[0]) return -1;
    f = fopen("/proc/self/cgroup", "re");
    if (!f) return -1;
    char path[1024] = "";
    int found = 0;
    while (fgets(line, sizeof line, f) && !found) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c2 = 0;
        const char *ctrl = c1 + 1;
        if (v2 && !strcmp(line, "0") && !*ctrl) found = 1;
        if (!v2) {
            char cl[256];
            snprintf(cl, sizeof cl, "%s", ctrl);
            char *save = NULL;
            for (char *t = strtok_r(cl, ",", &save); t; t = strtok_r(NULL, ",", &save))
                if (!strcmp(t, "memory")) found = 1;
        }
        if (found) snprintf(path, sizeof path, "%s", c2 + 1);
    }
    fclose(f);
    if (!found) return -1;
    snprintf(dir, len, "%s%s", mnt, strcmp(path, "/") ? path : "");
    return 0;
}

/* Empty memory cgroups of earlier runs that ended without cleaning up (a
 * killed gate): their pid is gone. */
static void remove_stale(const char *base)
{
    DIR *d = opendir(base);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int pid = 0;
        if (sscanf(e->d_name, "kgate-%d", &pid) != 1 || pid <= 0 || pid == (int)getpid()) continue;
        char p[PATH_MAX];
        snprintf(p, sizeof p, "/proc/%d", pid);
        if (access(p, F_OK) == 0) continue;
        char run[PATH_MAX];
        snprintf(run, sizeof run, "%.2000s/%.200s", base, e->d_name);
        DIR *r = opendir(run);
        struct dirent *k;
        while (r && (k = readdir(r)) != NULL)
            if (!strncmp(k->d_name, "sb-", 3)) {
                snprintf(p, sizeof p, "%.2000s/%.200s", run, k->d_name);
                rmdir(p);
            }
        if (r) closedir(r);
        rmdir(run);
    }
    closedir(d);
}

static pid_t memcg_owner;   /* the process that made memcg_dir (forked children never remove it) */

/* A folder for this run's cgroups: under the gate's own cgroup, or (up: cgroup
 * v2, whose cgroups with processes cannot give their children a controller,
 * so the gate's own cannot) beside it, under its parent, where the parent
 * gives its children the memory controller already. */
static int memcg_try(kg_sandbox *sb, int v2, int up)
{
    char base[1024], dir[1100], probe[1300];
    if (cgroup_of_self(v2, base, sizeof base) != 0) return -1;
    if (up) {
        char *sl = strrchr(base, '/');
        if (!sl || sl == base || !strncmp(base, "/sys/fs/cgroup", strlen(base))) return -1;
        *sl = 0;
        char own_probe[1100];   /* the parent's children have memory.max: so will ours */
        snprintf(own_probe, sizeof own_probe, "%.1000s/%s", base, "cgroup.subtree_control");
        FILE *f = fopen(own_probe, "re");
        char ctl[512] = "";
        if (!f || !fgets(ctl, sizeof ctl, f)) { if (f) fclose(f); return -1; }
        fclose(f);
        if (!strstr(ctl, "memory")) return -1;
    }
    remove_stale(base);
    static int n_setups;   /* each kg_sandbox of this process its own folder */
    snprintf(dir, sizeof dir, "%.1000s/kgate-%d-%d", base, (int)getpid(), n_setups++);
    if (mkdir(dir, 0755) != 0) return -1;
    snprintf(probe, sizeof probe, "%s/%s", dir, v2 ? "memory.max" : "memory.limit_in_bytes");
    if (v2 && !up && access(probe, F_OK) != 0) {
        /* the memory controller for our children: allowed where our own
         * cgroup holds no process (or is the root) */
        char sc[1100];
        snprintf(sc, sizeof sc, "%s/cgroup.subtree_control", base);
        if (write_text_file(sc, "+memory") != 0 || access(probe, F_OK) != 0) { rmdir(dir); return -1; }
    }
    if (access(probe, F_OK) != 0) { rmdir(dir); return -1; }
    if (v2) {
        char sc[1300];
        snprintf(sc, sizeof sc, "%s/cgroup.subtree_control", dir);
        if (write_text_file(sc, "+memory") != 0) { rmdir(dir); return -1; }
    }
    sb->memcg = v2 ? 2 : 1;
    snprintf(sb->memcg_dir, sizeof sb->memcg_dir, "%.1000s", dir);
    memcg_owner = getpid();
    return 0;
}

static kg_sandbox *cleanup_sb[8];
static void cleanup_at_exit(void)
{
    for (int i = 0; i < 8; i++)
        if (cleanup_sb[i]) kg_sandbox_cleanup(cleanup_sb[i]);
}

/* KGATE_MEMCG=none skips the cgroup (tests of the fallback). */
void kg_memcg_setup(kg_sandbox *sb)
{
    const char *force = getenv("KGATE_MEMCG");
    sb->memcg = 0;
    if (force && !strcmp(force, "none")) return;
    if (memcg_try(sb, 1, 0) != 0 && memcg_try(sb, 1, 1) != 0 && memcg_try(sb, 0, 0) != 0) return;
    static int registered;
    int i = 0;
    while (i < 8 && cleanup_sb[i] && cleanup_sb[i] != sb) i++;
    if (i < 8) cleanup_sb[i] = sb;
    if (!registered++) atexit(cleanup_at_exit);
}

void kg_sandbox_cleanup(kg_sandbox *sb)
{
    if (!sb->memcg || !sb->memcg_dir[0] || getpid() != memcg_owner) return;
    rmdir(sb->memcg_dir);   /* the sandboxes' own are gone with them; empty now */
    sb->memcg_dir[0] = 0;
}

void kg_sandbox_memory_desc(const kg_sandbox *sb, char *buf, size_t len)
{
    kg_limits h = kg_default_limits(KG_SB_HARNESS, 1);
    if (sb->memcg)
        snprintf(buf, len, "host memory: a memory cgroup per sandbox (cgroup v%d, %s; harness %.1f GiB, "
                 "shared mappings, memfd and tmpfs counted)", sb->memcg,
                 sb->memcg == 2 ? "memory.max" : "memory.limit_in_bytes", (double)h.mem_bytes / (double)GiB);
    else
        snprintf(buf, len, "host memory: no memory cgroup here: the gate watches each harness's resident "
                 "memory (anonymous and shared pages, memfd files, file-backed or managed memory past "
                 "%.1f GiB; every %d ms) and kills it over %.1f GiB; SysV shared memory refused",
                 (double)h.file_slack_bytes / (double)GiB, KG_MEMWATCH_MS, (double)h.mem_bytes / (double)GiB);
}

/* The monitor's side: a cgroup for one sandbox, before bubblewrap starts. */
int kg_memcg_make(const kg_sandbox *sb, unsigned long long bytes, char *dir, size_t len)
{
    dir[0] = 0;
    if (!sb->memcg || !bytes) return 0;
    snprintf(dir, len, "%.1000s/sb-%d", sb->memcg_dir, (int)getpid());
    if (mkdir(dir, 0755) != 0) { dir[0] = 0; return -1; }
    char f[1200], v[32];
    snprintf(v, sizeof v, "%llu", bytes);
    int bad = 0;
    if (sb->memcg == 2) {
        snprintf(f, sizeof f, "%s/memory.max", dir);
        bad |= write_text_file(f, v);
        snprintf(f, sizeof f, "%s/memory.swap.max", dir);
        if (access(f, F_OK) == 0) bad |= write_text_file(f, "0");
        snprintf(f, sizeof f, "%s/memory.oom.group", dir);   /* the whole sandbox goes at once */
        if (access(f, F_OK) == 0) write_text_file(f, "1");
    } else {
        snprintf(f, sizeof f, "%s/memory.limit_in_bytes", dir);
        bad |= write_text_file(f, v);
        snprintf(f, sizeof f, "%s/memory.memsw.limit_in_bytes", dir);   /* swap counts too */
        if (access(f, F_OK) == 0) bad |= write_text_file(f, v);
    }
    if (bad) { rmdir(dir); dir[0] = 0; return -1; }
    return 0;
}

/* What the cgroup saw: its OOM kills and its peak. */
void kg_memcg_stats(const kg_sandbox *sb, const char *dir, kg_sb_result *r)
{
    if (!dir[0]) return;
    char f[1200];
    if (sb->memcg == 2) {
        snprintf(f, sizeof f, "%s/memory.events", dir);
        long long k = read_ll_key(f, "oom_kill");
        r->mem_oom = k > 0 ? (int)(k > 1000 ? 1000 : k) : 0;
        snprintf(f, sizeof f, "%s/memory.peak", dir);
        long long pk = read_ll_key(f, NULL);
        r->mem_peak_kb = pk > 0 ? (long)(pk / 1024) : 0;
    } else {
        snprintf(f, sizeof f, "%s/memory.oom_control", dir);
        long long k = read_ll_key(f, "oom_kill");
        r->mem_oom = k > 0 ? (int)(k > 1000 ? 1000 : k) : 0;
        snprintf(f, sizeof f, "%s/memory.max_usage_in_bytes", dir);
        long long pk = read_ll_key(f, NULL);
        r->mem_peak_kb = pk > 0 ? (long)(pk / 1024) : 0;
    }
}

/* After the sandbox ended: its stats, then the cgroup removed (its
 * processes are gone with the PID namespace; a straggler is killed). */
void kg_memcg_finish(const kg_sandbox *sb, const char *dir, kg_sb_result *r)
{
    if (!dir[0]) return;
    kg_memcg_stats(sb, dir, r);
    char f[1200];
    for (int tries = 0; tries < 2000 && rmdir(dir) != 0 && errno == EBUSY; tries++) {
        snprintf(f, sizeof f, "%s/cgroup.procs", dir);
        FILE *p = fopen(f, "re");
        int pid;
        while (p && fscanf(p, "%d", &pid) == 1) kill(pid, SIGKILL);
        if (p) fclose(p);
        usleep(1000);
    }
}

/* bubblewrap's process, before its exec: into the sandbox's cgroup. */
int kg_memcg_enter(const char *dir)
{
    if (!dir[0]) return 0;
    char f[1200], v[32];
    snprintf(f, sizeof f, "%s/cgroup.procs", dir);
    snprintf(v, sizeof v, "%d", (int)getpid());
    return write_text_file(f, v);
}

/* The process table, from /proc: each process's pid, its parent's and (cpu
 * not NULL) its CPU seconds, user + system; at most max; the count. */
static int proc_table(int *pid, int *ppid, double *cpu, int max)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    long hz = sysconf(_SC_CLK_TCK);
    while (d && (e = readdir(d)) != NULL && n < max) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char p[64], buf[1024];
        snprintf(p, sizeof p, "/proc/%.20s/stat", e->d_name);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t g = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (g <= 0) continue;
        buf[g] = 0;
        char *rp = strrchr(buf, ')');   /* the name may hold anything: count fields after it */
        if (!rp) continue;
        unsigned long long ut = 0, st = 0;
        int pp = 0;
        if (sscanf(rp + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &pp, &ut, &st) != 3) continue;
        pid[n] = atoi(e->d_name);
        ppid[n] = pp;
        if (cpu) cpu[n] = (double)(ut + st) / (double)(hz > 0 ? hz : 100);
        n++;
    }
    if (d) closedir(d);
    return n;
}

/* in[i]: whether the table's i-th process is root or below it (the set
 * grown until it stops growing) */
static void proc_below(pid_t root, const int *pid, const int *ppid, int n, char *in)
{
    memset(in, 0, (size_t)n);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < n; i++)
            if (!in[i] && (pid[i] == root || ppid[i] == root)) { in[i] = 1; changed = 1; }
            else if (!in[i])
                for (int k = 0; k < n; k++)
                    if (in[k] && ppid[i] == pid[k]) { in[i] = 1; changed = 1; break; }
    }
}

/* CPU seconds (user + system) used so far by a process and every process
 * below it, from /proc: a walk of the process table, done once, when the
 * gate kills a sandbox at its wall-clock limit. */
double kg_tree_cpu_s(pid_t root)
{
    enum { MAXP = 8192 };
    static int pid[MAXP], ppid[MAXP];
    static double cpu[MAXP];
    static char in[MAXP];
    int n = proc_table(pid, ppid, cpu, MAXP);
    proc_below(root, pid, ppid, n, in);
    double total = 0;
    for (int i = 0; i < n; i++) total += in[i] ? cpu[i] : 0;
    return total;
}

int kg_proc_tree(pid_t root, pid_t *out, int max)
{
    enum { MAXP = 8192 };
    static int pid[MAXP], ppid[MAXP];
    static char in[MAXP];
    int n = proc_table(pid, ppid, NULL, MAXP), m = 0;
    proc_below(root, pid, ppid, n, in);
    if (max > 0) out[m++] = root;
    for (int i = 0; i < n && m < max; i++)
        if (in[i] && pid[i] != root) out[m++] = pid[i];
    return m;
}

/* ---- host memory without a cgroup: the monitor watches ------------------ */

/* Where no memory cgroup can be made, RLIMIT_DATA still bounds the heap and
 * private mappings, but shared pages escape it, and RLIMIT_AS cannot be
 * set for a harness (CUDA reserves hundreds of GiB of address space, a
 * different amount with and without a context). So the monitor, outside
 * the sandbox, samples what the sandbox's processes hold every
 * KG_MEMWATCH_MS and kills the sandbox over its limit: per process
 * (threads share one), RssAnon + RssShmem from /proc/PID/status (the heap,
 * private and shared anonymous mappings, mapped memfd, tmpfs and SysV
 * pages) plus the allocated size of every memfd it holds open, mapped or
 * not (a mapped one is counted twice: the error is on the safe side);
 * and RssFile (pages of mapped files), summed over the processes, beyond
 * KG_MEMWATCH_FILE_SLACK_MIB for all of them together. Managed memory
 * (cudaMallocManaged) touched on the host is a mapping of /dev/nvidia-uvm:
 * it grows RssFile, not RssAnon or RssShmem (measured on the H200:
 * results/H200/kgate_pinned_probe.txt). The libraries a harness maps
 * (CUDA's, libtorch's, the candidate's) are RssFile too, but a bounded
 * amount: the slack. All of it is counted, from the first page: a base
 * taken when a process is first seen would miss what it mapped before the
 * watcher's first look (a small program maps 48 MiB in less than one
 * sample). A fork counts its parent's libraries again: on the safe side,
 * and no honest candidate forks. Parsing /proc/PID/smaps for the uvm
 * mappings alone would need no slack but reads every mapping of the
 * process (thousands for libtorch's) where status is one read. What it
 * cannot see is README.md's ("Safety"). */

static long long status_kb(const char *buf, const char *key)
{
    const char *p = strstr(buf, key);
    return p ? atoll(p + strlen(key)) : 0;
}

/* The sandbox's processes: a walk of /proc for root's descendants (this
 * kernel may lack /proc/PID/task/TID/children). */
static int tree_scan(pid_t root, int *out, int max)
{
    enum { MAXP = 8192 };
    static int pid[MAXP], ppid[MAXP];
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL && n < MAXP) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char p[64], buf[512];
        snprintf(p, sizeof p, "/proc/%.20s/stat", e->d_name);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t g = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (g <= 0) continue;
        buf[g] = 0;
        char *rp = strrchr(buf, ')');
        int pp = 0;
        if (!rp || sscanf(rp + 2, "%*c %d", &pp) != 1) continue;
        pid[n] = atoi(e->d_name);
        ppid[n++] = pp;
    }
    if (d) closedir(d);
    int k = 0;
    out[k++] = (int)root;
    for (int i = 0; i < k; i++)   /* breadth first: children of out[i] */
        for (int q = 0; q < n && k < max; q++)
            if (ppid[q] == out[i] && pid[q] != (int)root) out[k++] = pid[q];
    return k;
}

static long long process_kb(int pid, long *file_kb)
{
    char p[64], buf[4096];
    snprintf(p, sizeof p, "/proc/%d/status", pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t g = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (g <= 0) return -1;
    buf[g] = 0;
    long long kb = status_kb(buf, "RssAnon:") + status_kb(buf, "RssShmem:");
    *file_kb = (long)status_kb(buf, "RssFile:");
    /* memfd files it holds open, mapped or not */
    snprintf(p, sizeof p, "/proc/%d/fd", pid);
    DIR *d = opendir(p);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char link[96], to[64];
        snprintf(link, sizeof link, "/proc/%d/fd/%.20s", pid, e->d_name);
        ssize_t l = readlink(link, to, sizeof to - 1);
        if (l < 7 || strncmp(to, "/memfd:", 7) != 0) continue;
        struct stat st;
        if (stat(link, &st) == 0) kb += (long long)st.st_blocks / 2;
    }
    if (d) closedir(d);
    return kb;
}

void kg_memwatch_expect(kg_memwatch *w, int n)
{
    w->expected += n;
    if (w->expected > KG_MEMWATCH_MAXP) w->expected = KG_MEMWATCH_MAXP;
    w->rescan = n > 0 ? KG_MEMWATCH_ARMED : (w->rescan > 1 ? w->rescan : 1);
}

long kg_memwatch_sample(kg_memwatch *w, pid_t root, long file_slack_kb)
{
    if (w->rescan > 0 || w->n == 0 || ++w->tick % KG_MEMWATCH_RESCAN == 0) {
        int old[KG_MEMWATCH_MAXP], n_old = w->n;
        memcpy(old, w->pid, (size_t)n_old * sizeof old[0]);
        w->n = tree_scan(root, w->pid, KG_MEMWATCH_MAXP);
        int fresh = 0;   /* processes not in the last list: the ones expected */
        for (int i = 0; i < w->n; i++) {
            int seen = 0;
            for (int k = 0; k < n_old && !seen; k++) seen = old[k] == w->pid[i];
            fresh += !seen && n_old > 0;
        }
        w->expected = w->expected > fresh ? w->expected - fresh : 0;
        if (w->rescan > 0) w->rescan = w->expected > 0 ? w->rescan - 1 : 0;
    }
    long long total = 0, file_kb = 0;
    int k = 0;
    for (int i = 0; i < w->n; i++) {
        long file = 0;
        long long kb = process_kb(w->pid[i], &file);
        if (kb < 0) continue;   /* gone */
        total += kb;
        file_kb += file;
        w->pid[k++] = w->pid[i];
    }
    w->n = k;
    if (file_kb > w->file_peak_kb) w->file_peak_kb = (long)file_kb;
    if (file_kb > file_slack_kb) total += file_kb - file_slack_kb;
    if (total > w->peak_kb) w->peak_kb = (long)total;
    return (long)total;
}

int kg_memwatch_kill(kg_memwatch *w, pid_t root)
{
    int k = 0;
    w->n = tree_scan(root, w->pid, KG_MEMWATCH_MAXP);
    for (int i = 0; i < w->n; i++)
        if (w->pid[i] != (int)root && kill(w->pid[i], SIGKILL) == 0) k++;
    return k;
}

/* The target's peak address space (VmPeak), read while it waits in exit_group. */
long kg_vm_peak_kb(pid_t pid)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
    long long v = read_ll_key(p, "VmPeak:");
    return v > 0 ? (long)v : 0;
}

