/* sandbox.c: bubblewrap sandboxes with a seccomp monitor (see sandbox.h). */
#define _GNU_SOURCE
#include "sandbox.h"
#include "sandbox_host.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#if defined(__x86_64__) && __has_include(<linux/seccomp.h>)
#include <linux/seccomp.h>
#include <sys/ioctl.h>

/* realpath(3) into a buffer of len bytes. realpath(p, buf) with a buffer under
 * PATH_MAX aborts under _FORTIFY_SOURCE (the GPU machine's compiler enables it
 * by default): let realpath allocate, then copy. 0 on success, -1 otherwise
 * (including a result that does not fit). */
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
#if defined(SECCOMP_IOCTL_NOTIF_RECV) && defined(SECCOMP_USER_NOTIF_FLAG_CONTINUE)
#define KG_HAVE_NOTIF 1
#endif
#endif
#ifndef KG_HAVE_NOTIF
#define KG_HAVE_NOTIF 0
#endif

double kg_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define GiB (1ULL << 30)
#define MiB (1ULL << 20)

static unsigned long long harness_memory;   /* kg_set_harness_memory (0: the default) */

void kg_set_harness_memory(unsigned long long bytes) { harness_memory = bytes; }

kg_limits kg_default_limits(kg_sb_kind kind, double timeout_s)
{
    kg_limits l;
    memset(&l, 0, sizeof l);
    l.nofile = 256;
    switch (kind) {
    case KG_SB_SCAN:       /* libclang on one file: 0.3-3 s; nvcc -E for hidden code */
        /* the heaviest plain candidate of the corpus (CUB's headers) peaks
         * at 240 MiB resident and parses within 400 MiB of address space;
         * a macro bomb grows by several hundred MiB a second until it meets the
         * limit, so a low one stops it early (about 1.2 s at 1 GiB; at 4 GiB
         * two of them at once on a busy 2-core machine ran out of wall-clock
         * time, twice: SKIPPED instead of L1). A PyTorch candidate's scan
         * reads PyTorch's headers: spawn_scan gives it 4 GiB. */
        l.cpu_s = timeout_s;
        l.as_bytes = 1 * GiB;
        l.mem_bytes = 2 * GiB;   /* libclang and up to six nvcc -E at once */
        l.fsize_bytes = 64 * MiB;
        l.tmp_bytes = 128 * MiB;
        l.nproc = 64;
        break;
    case KG_SB_COMPILE:    /* nvcc and its phases: a few seconds, under 2 GiB */
        l.cpu_s = timeout_s;
        l.as_bytes = 8 * GiB;
        l.mem_bytes = 8 * GiB;
        l.fsize_bytes = 256 * MiB;
        l.tmp_bytes = 512 * MiB;
        l.nproc = 32;
        break;
    case KG_SB_HARNESS:    /* CUDA reserves a huge virtual address space: no
                              RLIMIT_AS; RLIMIT_DATA bounds what the host heap
                              and private mappings can take */
        l.cpu_s = 2 * timeout_s + 30;
        {
            /* 8 GiB, or a quarter of the RAM on a smaller machine */
            long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);
            unsigned long long ram = pages > 0 && psz > 0 ? (unsigned long long)pages * (unsigned long long)psz : 0;
            l.data_bytes = ram && ram / 4 < 8 * GiB ? ram / 4 : 8 * GiB;
            if (harness_memory) l.data_bytes = harness_memory;
            l.mem_bytes = l.data_bytes;   /* every page, shared ones too (sandbox.h, memcg) */
        }
        l.file_slack_bytes = KG_MEMWATCH_FILE_SLACK_MIB * MiB;
        l.fsize_bytes = 16 * MiB;
        l.tmp_bytes = 16 * MiB;
        l.nproc = 64;
        break;
    }
    return l;
}

/* ---- paths -------------------------------------------------------------- */

static int is_under(const char *p, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return 1;
    return strncmp(p, dir, n) == 0 && (p[n] == 0 || p[n] == '/');
}

/* Add a read-only bind (its real path); skipped when missing or already
 * covered by a bind above it. */
static void add_ro(kg_sandbox *sb, const char *path)
{
    char real[PATH_MAX];
    if (!path || !*path || real_path_into(path, real, sizeof real) != 0) return;
    for (int i = 0; i < sb->n_ro; i++)
        if (is_under(real, sb->ro[i])) return;
    /* a new bind above existing ones replaces them */
    int w = 0;
    for (int i = 0; i < sb->n_ro; i++)
        if (!is_under(sb->ro[i], real)) {
            if (w != i) memcpy(sb->ro[w], sb->ro[i], sizeof sb->ro[0]);
            w++;
        }
    sb->n_ro = w;
    if (sb->n_ro < KG_SB_MAX_RO) snprintf(sb->ro[sb->n_ro++], sizeof sb->ro[0], "%.1000s", real);
}

static void add_ro_list(kg_sandbox *sb, const char *list)
{
    if (!list) return;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save))
        add_ro(sb, t);
}

static int find_on_path(const char *name, char *out, size_t len)
{
    const char *path = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char c[PATH_MAX];
        snprintf(c, sizeof c, "%s/%s", *d ? d : ".", name);
        if (access(c, X_OK) == 0) {
            if (real_path_into(c, out, len) != 0) snprintf(out, len, "%.1000s", c);
            return 0;
        }
    }
    return -1;
}

/* ---- the seccomp monitor ------------------------------------------------ */

typedef struct {
    kg_sb_kind kind;
    int scratch_rw;
    char scratch_host[PATH_MAX];
    kg_sb_result *r;
    int execs;                     /* the stub's own exec of the target is expected */
    pid_t target;                  /* the target's pid (seen at that exec) */
    int target_ended, target_status;   /* the target called exit_group(status) */
    int in_startup;                /* 1 until the target's start-up mark (spec->startup_mark) */
    int new_procs;                 /* process creations let through (not threads): the
                                      memory watcher looks for them (kg_memwatch) */
} mon_ctx;

static void add_event(kg_sb_result *r, int violation, const char *fmt, ...)
{
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->n_events++;
    if (violation) r->n_violations++;
    else if (strstr(msg, KG_SB_STARTUP_TAG)) {
        /* start-up events take at most two slots: a candidate's violations
         * must always find room */
        r->n_startup++;
        int used = 0;
        for (int i = 0; i < KG_SB_EVENTS && r->events[i][0]; i++)
            if (strstr(r->events[i], KG_SB_STARTUP_TAG)) {
                used++;
                if (strcmp(r->events[i], msg) == 0) { r->counts[i]++; return; }
            }
        if (used >= 2) return;
    }
    for (int i = 0; i < KG_SB_EVENTS && r->events[i][0]; i++)
        if (strcmp(r->events[i], msg) == 0) {
            r->counts[i]++;
            return;
        }
    for (int i = 0; i < KG_SB_EVENTS; i++)
        if (!r->events[i][0]) {
            snprintf(r->events[i], sizeof r->events[i], "%s", msg);
            r->counts[i] = 1;
            r->is_violation[i] = violation;
            return;
        }
}

#if KG_HAVE_NOTIF
/* An event seen by the monitor: before the target's start-up mark it is the
 * harness's own start-up (tagged, never a violation). */
static void mon_event(mon_ctx *m, int violation, const char *fmt, ...)
{
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (m->in_startup) add_event(m->r, 0, "%.130s%s", msg, KG_SB_STARTUP_TAG);
    else add_event(m->r, violation, "%s", msg);
}

/* Read a NUL-terminated string from the target, page by page (a string near
 * the end of a mapping must not fail the whole read). */
static int read_str(pid_t pid, unsigned long long addr, char *buf, size_t len)
{
    size_t got = 0;
    buf[0] = 0;
    if (!addr) return -1;
    while (got + 1 < len) {
        size_t page_left = 4096 - ((addr + got) & 4095);
        size_t want = len - 1 - got < page_left ? len - 1 - got : page_left;
        struct iovec l = {buf + got, want}, r = {(void *)(uintptr_t)(addr + got), want};
        ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n <= 0) break;
        if (memchr(buf + got, 0, (size_t)n)) return 0;
        got += (size_t)n;
    }
    buf[got < len ? got : len - 1] = 0;
    return got ? 0 : -1;
}

static int read_mem(pid_t pid, unsigned long long addr, void *buf, size_t len)
{
    struct iovec l = {buf, len}, r = {(void *)(uintptr_t)addr, len};
    return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -1;
}

/* Lexical clean-up: //, /./ and /../ (symlinks are the mounts' business:
 * the namespaces refuse the write whatever the text says). */
static void normalize(char *p)
{
    char out[PATH_MAX];
    size_t o = 0;
    const char *s = p;
    while (*s) {
        while (*s == '/') s++;
        if (!*s) break;
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 1 && s[0] == '.') {
        } else if (n == 2 && s[0] == '.' && s[1] == '.') {
            while (o > 0 && out[o - 1] != '/') o--;
            if (o > 0) o--;
        } else if (o + n + 2 < sizeof out) {
            out[o++] = '/';
            memcpy(out + o, s, n);
            o += n;
        }
        s += n;
    }
    if (o == 0) out[o++] = '/';
    out[o] = 0;
    snprintf(p, PATH_MAX, "%s", out);
}

/* The path a *at() call names, as the sandbox sees it. */
static void resolve(mon_ctx *m, pid_t pid, int dirfd, const char *rel, char *out)
{
    char base[PATH_MAX] = "/scratch";
    if (rel[0] == '/') {
        snprintf(out, PATH_MAX, "%s", rel);
    } else {
        char link[64];
        if (dirfd == AT_FDCWD) snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
        else snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, dirfd);
        ssize_t n = readlink(link, base, sizeof base - 1);
        if (n > 0) base[n] = 0;
        else snprintf(base, sizeof base, "/scratch");
        /* the host path of the scratch folder reads as /scratch */
        size_t hl = strlen(m->scratch_host);
        if (hl && strncmp(base, m->scratch_host, hl) == 0 && (base[hl] == 0 || base[hl] == '/')) {
            char t[PATH_MAX];
            snprintf(t, sizeof t, "/scratch%s", base + hl);
            snprintf(base, sizeof base, "%s", t);
        }
        snprintf(out, PATH_MAX, "%s/%s", base, rel);
    }
    normalize(out);
}

/* Places a sandboxed process may write, or whose writes are the runtime's
 * business (the mounts decide what succeeds; this decides what is worth
 * reporting). /dev holds only the minimal nodes and the GPU's; /proc and
 * /sys are the kernel's interfaces, which the CUDA driver uses (their
 * dangerous parts are read-only); /tmp and /dev/shm are private tmpfs. A
 * write anywhere else is an attempt to leave the sandbox. */
static int writable(const mon_ctx *m, const char *p)
{
    static const char *const ok[] = {"/tmp", "/dev", "/proc", "/sys"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (is_under(p, ok[i])) return 1;
    if (m->scratch_rw && is_under(p, "/scratch")) return 1;
    return 0;
}

static void sockaddr_text(pid_t pid, unsigned long long addr, unsigned long long len, char *out,
                          size_t olen, int *inet)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    *inet = 0;
    if (!addr || len < 2 || len > sizeof ss || read_mem(pid, addr, &ss, (size_t)len) != 0) {
        snprintf(out, olen, "an unreadable address");
        return;
    }
    if (ss.ss_family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        snprintf(out, olen, "%s:%u", ip, (unsigned)ntohs(a->sin_port));
        *inet = 1;
    } else if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        char ip[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
        snprintf(out, olen, "[%s]:%u", ip, (unsigned)ntohs(a->sin6_port));
        *inet = 1;
    } else if (ss.ss_family == AF_UNIX) {
        struct sockaddr_un *a = (struct sockaddr_un *)&ss;
        size_t pl = (size_t)len - offsetof(struct sockaddr_un, sun_path);
        if (pl > 0 && a->sun_path[0] == 0) snprintf(out, olen, "unix socket @%.100s", a->sun_path + 1);
        else snprintf(out, olen, "unix socket %.100s", a->sun_path);
    } else {
        snprintf(out, olen, "address family %d", (int)ss.ss_family);
    }
}

/* The target's own thread group id inside its PID namespace (NStgid's last
 * field), so a signal to itself (abort, raise) is not reported. */
static long inner_tgid(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long v = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "NStgid:", 7)) {
            char *save = NULL;
            for (char *t = strtok_r(line + 7, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
                v = atol(t);
            break;
        }
    fclose(f);
    return v;
}

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

static const char *denied_name(long nr)
{
    switch (nr) {
    case SYS_ptrace: return "ptrace";
    case SYS_process_vm_readv: return "process_vm_readv";
    case SYS_process_vm_writev: return "process_vm_writev";
    case SYS_bpf: return "bpf";
    case SYS_perf_event_open: return "perf_event_open";
    case SYS_userfaultfd: return "userfaultfd";
    case SYS_keyctl: return "keyctl";
    case SYS_add_key: return "add_key";
    case SYS_request_key: return "request_key";
    case 425: case 426: case 427: return "io_uring";
    case SYS_unshare: return "unshare";
    case SYS_setns: return "setns";
    case SYS_mount: return "mount";
    case SYS_umount2: return "umount";
    case SYS_pivot_root: return "pivot_root";
    case SYS_chroot: return "chroot";
    case SYS_swapon: return "swapon";
    case SYS_swapoff: return "swapoff";
    case SYS_reboot: return "reboot";
    case SYS_kexec_load: return "kexec_load";
    case SYS_init_module: return "init_module";
    case SYS_finit_module: return "finit_module";
    case SYS_delete_module: return "delete_module";
    case SYS_acct: return "acct";
    case SYS_syslog: return "syslog";
    case SYS_iopl: return "iopl";
    case SYS_ioperm: return "ioperm";
    case 428: case 429: case 430: case 431: case 432: case 433: case 442: return "mount API";
    case SYS_shmget: return "SysV shared memory (shmget)";
    case SYS_msgget: return "SysV message queue (msgget)";
    default: return NULL;
    }
}

/* One notification: record what it is, then let the kernel run the call
 * (CONTINUE: the namespaces and mounts refuse what leaves the sandbox) or
 * deny it outright. */
static void handle(mon_ctx *m, struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
    kg_sb_result *r = m->r;
    pid_t pid = (pid_t)req->pid;
    long nr = req->data.nr;
    const unsigned long long *a = req->data.args;
    int harness = m->kind == KG_SB_HARNESS;
    char p1[PATH_MAX], p2[PATH_MAX], raw[PATH_MAX];
    resp->id = req->id;
    resp->val = 0;
    resp->error = 0;
    resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;

    const char *dn = denied_name(nr);
    if (dn) {
        resp->flags = 0;
        resp->error = (nr >= 425 && nr <= 427) ? -ENOSYS : -EPERM;
        mon_event(m, 1, "%s (denied)", dn);
        return;
    }
    /* paths: (dirfd, path) pairs, or a plain path */
    int dirfd = AT_FDCWD;
    unsigned long long pa = 0, pb = 0;
    int dirfd2 = AT_FDCWD;
    const char *what = NULL;
    switch (nr) {
    case SYS_open: pa = a[0]; what = "write to"; break;
    case SYS_creat: pa = a[0]; what = "write to"; break;
    case SYS_truncate: pa = a[0]; what = "truncate of"; break;
    case SYS_openat: case SYS_openat2: dirfd = (int)a[0]; pa = a[1]; what = "write to"; break;
    case SYS_unlink: pa = a[0]; what = "delete of"; break;
    case SYS_rmdir: pa = a[0]; what = "delete of"; break;
    case SYS_unlinkat: dirfd = (int)a[0]; pa = a[1]; what = "delete of"; break;
    case SYS_mkdir: pa = a[0]; what = "mkdir"; break;
    case SYS_mkdirat: dirfd = (int)a[0]; pa = a[1]; what = "mkdir"; break;
    case SYS_mknod: pa = a[0]; what = "mknod"; break;
    case SYS_mknodat: dirfd = (int)a[0]; pa = a[1]; what = "mknod"; break;
    case SYS_chmod: pa = a[0]; what = "chmod of"; break;
    case SYS_fchmodat: dirfd = (int)a[0]; pa = a[1]; what = "chmod of"; break;
    case SYS_chown: case SYS_lchown: pa = a[0]; what = "chown of"; break;
    case SYS_fchownat: dirfd = (int)a[0]; pa = a[1]; what = "chown of"; break;
    case SYS_rename: pa = a[0]; pb = a[1]; what = "rename of"; break;
    case SYS_renameat: case SYS_renameat2:
        dirfd = (int)a[0]; pa = a[1]; dirfd2 = (int)a[2]; pb = a[3]; what = "rename of"; break;
    case SYS_link: case SYS_symlink: pa = a[0]; pb = a[1]; what = "link to"; break;
    case SYS_linkat: dirfd = (int)a[0]; pa = a[1]; dirfd2 = (int)a[2]; pb = a[3]; what = "link to"; break;
    case SYS_symlinkat: pa = a[0]; dirfd2 = (int)a[1]; pb = a[2]; what = "link to"; break;
    default: break;
    }
    if (what) {
        /* a symlink's target is text, not a place: judge where it is made */
        int check_a = !(nr == SYS_symlink || nr == SYS_symlinkat);
        if (read_str(pid, pa, raw, sizeof raw) != 0) return;
        if (m->in_startup && (nr == SYS_unlink || nr == SYS_unlinkat) && !strcmp(raw, KG_SB_STARTUP_MARK)) {
            m->in_startup = 0;   /* the first mark only: it never comes back */
            r->startup_marked = 1;
            return;
        }
        resolve(m, pid, dirfd, raw, p1);
        p2[0] = 0;
        if (pb && read_str(pid, pb, raw, sizeof raw) == 0) resolve(m, pid, dirfd2, raw, p2);
        int bad1 = check_a && !writable(m, p1);
        int bad2 = p2[0] && !writable(m, p2);
        if (bad1 || bad2)
            mon_event(m, 1, "%s %.120s refused (outside its writable folders)", what, bad1 ? p1 : p2);
        return;
    }
    switch (nr) {
    case SYS_connect: case SYS_sendto: case SYS_sendmsg: {
        unsigned long long addr = 0, len = 0;
        if (nr == SYS_connect) { addr = a[1]; len = a[2]; }
        else if (nr == SYS_sendto) { addr = a[4]; len = a[5]; }
        else {
            struct msghdr mh;
            if (read_mem(pid, a[1], &mh, sizeof mh) != 0) return;
            addr = (unsigned long long)(uintptr_t)mh.msg_name;
            len = mh.msg_namelen;
        }
        if (!addr) return;   /* a connected socket: its connect was reported */
        char t[160];
        int inet;
        sockaddr_text(pid, addr, len, t, sizeof t, &inet);
        /* unix sockets: the driver may look for its daemons; none is bound in */
        if (inet) mon_event(m, 1, "%s %s refused (no network)",
                            nr == SYS_connect ? "connect to" : "send to", t);
        return;
    }
    case SYS_kill: case SYS_tkill: case SYS_tgkill: case SYS_rt_sigqueueinfo:
    case SYS_rt_tgsigqueueinfo: case SYS_pidfd_send_signal: {
        if (nr == SYS_pidfd_send_signal) {
            mon_event(m, 1, "signal %d through a pidfd", (int)a[1]);
            return;
        }
        long target = (long)(int)a[0];
        int sig = (int)(nr == SYS_tgkill || nr == SYS_rt_tgsigqueueinfo ? a[2] : a[1]);
        long self = inner_tgid(pid);
        if (target == self || (nr == SYS_tgkill && (long)(int)a[0] == self) || target == 0) return;
        if (target == -1) mon_event(m, 1, "signal %d to every process it can see (only its own sandbox)", sig);
        else if (target == 1) mon_event(m, 1, "signal %d to pid 1, its parent (the sandbox's init; the gate is out of reach)", sig);
        else mon_event(m, 1, "signal %d to another process (only its own sandbox is visible)", sig);
        return;
    }
    case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork: {
        unsigned long long flags = 0;
        if (nr == SYS_clone) flags = a[0];
        else if (nr == SYS_clone3 && read_mem(pid, a[0], &flags, sizeof flags) != 0) flags = 0;
        if (flags & 0x00010000ULL) return;   /* CLONE_THREAD: a thread */
        if (flags & (0x10000000ULL | 0x20000000ULL | 0x40000000ULL | 0x04000000ULL |
                     0x08000000ULL | 0x02000000ULL | 0x00020000ULL)) {
            /* CLONE_NEWUSER/NEWPID/NEWNET/NEWIPC/NEWUTS/NEWCGROUP/NEWNS */
            resp->flags = 0;
            resp->error = -EPERM;
            mon_event(m, 1, "new namespaces (denied)");
            return;
        }
        m->new_procs++;   /* let through: a process the memory watcher must find */
        if (harness) mon_event(m, 1, "process creation (fork)");
        return;
    }
    case SYS_exit_group:
        if (pid == m->target && m->target) {
            m->target_ended = 1;
            m->target_status = (int)(a[0] & 0xff);
            r->vm_peak_kb = kg_vm_peak_kb(pid);   /* it waits in the call: still all there */
        }
        return;
    case SYS_execve: case SYS_execveat: {
        if (m->execs++ == 0) { m->target = pid; return; }   /* the stub starting the target */
        if (!harness) return;
        unsigned long long pp = nr == SYS_execve ? a[0] : a[1];
        if (read_str(pid, pp, raw, sizeof raw) != 0) snprintf(raw, sizeof raw, "?");
        mon_event(m, 1, "exec of %.120s", raw);
        return;
    }
    case SYS_setsid:
        if (harness) mon_event(m, 1, "setsid() (a new session: still inside its PID namespace)");
        return;
    default:
        return;
    }
}
#endif /* KG_HAVE_NOTIF */

/* ---- spawning ----------------------------------------------------------- */

/* bubblewrap's command line. On a GPU machine it is long (a bind for each
 * device node, each of the GPUs' PCI folders in /sys and their parents);
 * one that does not fit is an error, never a line cut short (the H200 cut
 * the target off a shorter one: "no target"). */
#define KG_ARGV_MAX 2048
#define KG_ARGV_STORE 1024
typedef struct {
    const char *v[KG_ARGV_MAX];
    int n;
    char store[KG_ARGV_STORE][256];
    int ns;
    int dirs[KG_ARGV_STORE];   /* store indexes of the folders made with --dir */
    int nd;
    int overflow;
} argv_t;

static void A(argv_t *a, const char *s)
{
    if (a->n < KG_ARGV_MAX - 1) a->v[a->n++] = s;
    else a->overflow = 1;
    a->v[a->n] = NULL;
}

static const char *F(argv_t *a, const char *fmt, ...)
{
    if (a->ns >= KG_ARGV_STORE) { a->overflow = 1; return ""; }
    char *s = a->store[a->ns++];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s, 256, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= 256) a->overflow = 1;
    return s;
}

/* The parents of a bind, made 0755 (bubblewrap would make them 0700,
 * closed to the sandbox's uid), each folder once. */
static void parents(argv_t *a, const char *path)
{
    for (const char *q = strchr(path + 1, '/'); q; q = strchr(q + 1, '/')) {
        int len = (int)(q - path), seen = 0;
        for (int k = 0; k < a->nd && !seen; k++)
            seen = (int)strlen(a->store[a->dirs[k]]) == len && !strncmp(a->store[a->dirs[k]], path, (size_t)len);
        if (seen) continue;
        const char *d = F(a, "%.*s", len, path);
        if (a->nd < KG_ARGV_STORE) a->dirs[a->nd++] = a->ns - 1;
        A(a, "--perms"); A(a, "0755");
        A(a, "--dir"); A(a, d);
    }
}

/* Files under /etc the sandbox never needs and must not read: secrets, and
 * what names the host or its network (its name, its machine id, its
 * addresses and interfaces; the UTS namespace gives the sandbox a host name
 * of its own, KG_SB_HOSTNAME). Regular files become empty, folders empty;
 * a symlink is left alone (its target, under /run, is not in the sandbox). */
static const char *const etc_masked[] = {"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
                                         "/etc/sudoers", "/etc/master.passwd", "/etc/hostname", "/etc/hosts",
                                         "/etc/machine-id", "/etc/hostid", "/etc/mailname", "/etc/resolv.conf",
                                         "/etc/ethers", "/etc/motd"};
static const char *const etc_dirs_masked[] = {"/etc/ssh", "/etc/ssl/private", "/etc/sudoers.d", "/etc/netplan",
                                              "/etc/network", "/etc/NetworkManager", "/etc/systemd/network",
                                              "/etc/wpa_supplicant", "/etc/cloud", "/etc/slurm", "/etc/munge"};

void kg_sandbox_add_ro(kg_sandbox *sb, const char *path) { add_ro(sb, path); }

unsigned kg_sandbox_uid(const kg_sandbox *sb, int slot, kg_sb_kind kind)
{
    return sb->as_root && sb->drop_uid ? sb->uid_base + (unsigned)slot * 4 + (unsigned)kind : 0;
}

/* bwrap ... stub --sock=N ... -- target argv */
static int build_argv(const kg_sandbox *sb, const kg_sb_spec *s, int sock_fd, argv_t *a,
                       int selftest)
{
    a->n = a->ns = a->nd = a->overflow = 0;
    unsigned uid = kg_sandbox_uid(sb, s->slot, s->kind);
    if (sb->enabled) {
        A(a, sb->bwrap);
        /* the private /tmp first: binds below it (an unpacked toolkit in
         * /tmp/pfx) go on top of it */
        A(a, "--dev"); A(a, "/dev");
        /* /dev is read-only below; POSIX shared memory gets a small tmpfs of
         * its own (bubblewrap's /dev is an unbounded tmpfs) */
        A(a, "--perms"); A(a, "1777");
        A(a, "--size"); A(a, F(a, "%llu", s->lim.tmp_bytes ? s->lim.tmp_bytes : 16 * MiB));
        A(a, "--tmpfs"); A(a, "/dev/shm");
        A(a, "--proc"); A(a, "/proc");
        A(a, "--perms"); A(a, "1777");
        A(a, "--size"); A(a, F(a, "%llu", s->lim.tmp_bytes ? s->lim.tmp_bytes : 16 * MiB));
        A(a, "--tmpfs"); A(a, "/tmp");
        for (int i = 0; i < sb->n_link; i++) {
            A(a, "--symlink"); A(a, sb->link[i][1]); A(a, sb->link[i][0]);
        }
        for (int i = 0; i < sb->n_ro; i++) {
            parents(a, sb->ro[i]);
            A(a, "--ro-bind"); A(a, sb->ro[i]); A(a, sb->ro[i]);
        }
        for (size_t i = 0; i < sizeof etc_masked / sizeof etc_masked[0]; i++) {
            struct stat st;
            if (lstat(etc_masked[i], &st) == 0 && S_ISREG(st.st_mode)) {
                A(a, "--ro-bind"); A(a, "/dev/null"); A(a, etc_masked[i]);
            }
        }
        for (size_t i = 0; i < sizeof etc_dirs_masked / sizeof etc_dirs_masked[0]; i++) {
            struct stat st;
            if (lstat(etc_dirs_masked[i], &st) == 0 && S_ISDIR(st.st_mode)) {
                A(a, "--tmpfs"); A(a, etc_dirs_masked[i]);
                A(a, "--remount-ro"); A(a, etc_dirs_masked[i]);
            }
        }
        if (s->kind == KG_SB_HARNESS) {
            if (sb->sys_full) {
                A(a, "--ro-bind-try"); A(a, "/sys"); A(a, "/sys");
                for (int i = 0; i < sb->n_sys_mask; i++) {
                    A(a, "--tmpfs"); A(a, sb->sys_mask[i]);
                    A(a, "--remount-ro"); A(a, sb->sys_mask[i]);
                }
            } else {
                for (int i = 0; i < sb->n_sys; i++) {
                    parents(a, sb->sys[i]);
                    A(a, "--ro-bind-try"); A(a, sb->sys[i]); A(a, sb->sys[i]);
                }
                for (int i = 0; i < sb->n_sys_link; i++) {
                    A(a, "--symlink"); A(a, sb->sys_link[i][1]); A(a, sb->sys_link[i][0]);
                }
            }
            for (int i = 0; i < sb->n_dev; i++) {
                A(a, "--dev-bind-try"); A(a, sb->dev[i]); A(a, sb->dev[i]);
            }
        }
        A(a, "--remount-ro"); A(a, "/dev");
        if (s->scratch) {
            A(a, s->scratch_rw ? "--bind" : "--ro-bind"); A(a, s->scratch); A(a, "/scratch");
            A(a, "--chdir"); A(a, "/scratch");
        } else {
            A(a, "--chdir"); A(a, "/tmp");
        }
        A(a, "--unshare-pid"); A(a, "--unshare-net"); A(a, "--unshare-ipc");
        A(a, "--unshare-uts"); A(a, "--hostname"); A(a, KG_SB_HOSTNAME);
        A(a, "--unshare-cgroup-try");
        A(a, "--die-with-parent"); A(a, "--new-session");
        A(a, "--clearenv");
        if (sb->as_root) {
            A(a, "--cap-drop"); A(a, "ALL");
            if (uid) {
                A(a, "--cap-add"); A(a, "CAP_SETUID");
                A(a, "--cap-add"); A(a, "CAP_SETGID");
                A(a, "--cap-add"); A(a, "CAP_SETPCAP");
            }
        }
        A(a, "--setenv"); A(a, "PATH"); A(a, sb->path_env);
        A(a, "--setenv"); A(a, "HOME"); A(a, "/tmp");
        A(a, "--setenv"); A(a, "TMPDIR"); A(a, "/tmp");
        A(a, "--setenv"); A(a, "LANG"); A(a, "C");
        if (sb->ld_env[0]) { A(a, "--setenv"); A(a, "LD_LIBRARY_PATH"); A(a, sb->ld_env); }
        /* The GPU the gate was given: the judge numbers devices through these
         * (kgate-harness --device=N), so the harness must see the same list, or
         * on a host with several GPUs the candidate runs on another GPU than
         * the reference (seen on two H200s: the gate under
         * CUDA_VISIBLE_DEVICES=1 timed candidates on GPU 0, shared with other
         * work, and killed good ones as too slow). They select devices and
         * carry no secret. */
        static const char *const gpu_vars[] = {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"};
        for (size_t i = 0; i < sizeof gpu_vars / sizeof gpu_vars[0]; i++) {
            const char *v = getenv(gpu_vars[i]);
            if (v) { A(a, "--setenv"); A(a, gpu_vars[i]); A(a, v); }
        }
        for (int i = 0; i < s->n_env && i < 8; i++) {
            const char *eq = strchr(s->env[i], '=');
            if (!eq) continue;
            A(a, "--setenv");
            A(a, F(a, "%.*s", (int)(eq - s->env[i]), s->env[i]));
            A(a, eq + 1);
        }
        A(a, "--");
    }
    A(a, sb->stub);
    A(a, F(a, "--sock=%d", sock_fd));
    A(a, F(a, "--uid=%u", uid));
    A(a, F(a, "--nfds=%d", s->n_fds));
    A(a, F(a, "--cpu=%.0f", s->lim.cpu_s > 0 ? s->lim.cpu_s : 0.0));
    /* the harness never gets RLIMIT_AS: CUDA's start-up reserves hundreds of
     * GiB of address space (292.6 GiB with a context on the H200, 13 GiB
     * without one), so no fixed figure bounds memory there; where there is
     * no cgroup the monitor watches it instead (kg_memwatch) */
    A(a, F(a, "--as=%llu", s->lim.as_bytes));
    A(a, F(a, "--data=%llu", s->lim.data_bytes));
    A(a, F(a, "--fsize=%llu", s->lim.fsize_bytes));
    A(a, F(a, "--nofile=%d", s->lim.nofile));
    A(a, F(a, "--nproc=%d", s->lim.nproc));
    if (selftest) A(a, "--selftest");
    A(a, "--");
    for (int i = 0; s->argv && s->argv[i]; i++) A(a, s->argv[i]);
    return a->overflow ? -1 : 0;
}

static void close_from(int lo, const int *keep, int nkeep)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        for (int fd = lo; fd < 4096; fd++) {
            int k = 0;
            for (int i = 0; i < nkeep; i++) k |= keep[i] == fd;
            if (!k) close(fd);
        }
        return;
    }
    int fds[1024], n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 1024) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd >= lo && fd != dirfd(d)) fds[n++] = fd;
    }
    closedir(d);
    for (int i = 0; i < n; i++) {
        int k = 0;
        for (int j = 0; j < nkeep; j++) k |= keep[j] == fds[i];
        if (!k) close(fds[i]);
    }
}

static int recv_fd(int sock, char *msg, size_t mlen, int *fd_out)
{
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec io = {msg, mlen - 1};
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &io;
    mh.msg_iovlen = 1;
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof cbuf;
    ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
    *fd_out = -1;
    if (n <= 0) return (int)n;
    msg[n] = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            memcpy(fd_out, CMSG_DATA(c), sizeof(int));
    return (int)n;
}

/* The monitor: start bwrap, attach to the stub's seccomp listener, serve
 * notifications until bwrap exits (or SIGTERM: kill it), write the record. */
static void monitor_main(const kg_sandbox *sb, const kg_sb_spec *s, int res_fd, int selftest)
{
    kg_sb_result r;
    memset(&r, 0, sizeof r);
    r.magic = KG_SB_MAGIC;
    r.exit_code = -1;
    mon_ctx m;
    memset(&m, 0, sizeof m);
    m.kind = s->kind;
    m.scratch_rw = s->scratch_rw;
    m.r = &r;
    m.in_startup = s->startup_mark && s->kind == KG_SB_HARNESS;
    if (s->scratch && real_path_into(s->scratch, m.scratch_host, sizeof m.scratch_host) != 0) m.scratch_host[0] = 0;
    double t0 = kg_now();

    sigset_t ss;
    sigemptyset(&ss);
    sigaddset(&ss, SIGTERM);
    sigprocmask(SIG_BLOCK, &ss, NULL);
    int sfd = signalfd(-1, &ss, SFD_CLOEXEC);

    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
        snprintf(r.stub_msg, sizeof r.stub_msg, "gate: socketpair: %s", strerror(errno));
        r.stub_failed = 1;
        ssize_t w = write(res_fd, &r, sizeof r);
        (void)w;
        _exit(0);
    }
    int target_fds = 3 + s->n_fds;   /* the stub's socket comes after the passed fds */
    static argv_t av;   /* 270 KiB: not on the monitor's stack */
    if (build_argv(sb, s, target_fds, &av, selftest) != 0) {
        snprintf(r.stub_msg, sizeof r.stub_msg, "gate: the sandbox's command line does not fit (%d arguments)", av.n);
        r.stub_failed = 1;
        ssize_t w = write(res_fd, &r, sizeof r);
        (void)w;
        _exit(0);
    }
    char cg[1200];
    if (kg_memcg_make(sb, s->lim.mem_bytes, cg, sizeof cg) != 0) {
        /* a limit that cannot be set is not silently dropped */
        snprintf(r.stub_msg, sizeof r.stub_msg, "gate: cannot make the sandbox's memory cgroup: %s", strerror(errno));
        r.stub_failed = 1;
        ssize_t w = write(res_fd, &r, sizeof r);
        (void)w;
        _exit(0);
    }
    pid_t b = fork();
    if (b == 0) {
        if (kg_memcg_enter(cg) != 0) {
            dprintf(s->out_fd >= 0 ? s->out_fd : 2, "kgate: cannot enter the sandbox's memory cgroup: %s\n",
                    strerror(errno));
            _exit(127);
        }
        /* move every fd the target gets to a high number first, then into place */
        int hi[KG_SB_MAX_FDS + 2], nh = 0;
        for (int i = 0; i < s->n_fds; i++) hi[nh++] = fcntl(s->fds[i], F_DUPFD, 200);
        int hsock = fcntl(sp[1], F_DUPFD, 200);
        int hout = s->out_fd >= 0 ? fcntl(s->out_fd, F_DUPFD, 200) : -1;
        int nul = open("/dev/null", O_RDWR);
        dup2(nul, 0);
        dup2(hout >= 0 ? hout : nul, 1);
        dup2(hout >= 0 ? hout : nul, 2);
        for (int i = 0; i < nh; i++) dup2(hi[i], 3 + i);
        dup2(hsock, target_fds);
        int keep[KG_SB_MAX_FDS + 1];
        for (int i = 0; i <= s->n_fds; i++) keep[i] = 3 + i;
        close_from(3, keep, s->n_fds + 1);
        sigprocmask(SIG_UNBLOCK, &ss, NULL);
        execv(av.v[0], (char *const *)av.v);
        dprintf(2, "kgate: cannot start the sandbox %s: %s\n", av.v[0], strerror(errno));
        _exit(127);
    }
    close(sp[1]);
    if (b < 0) {
        if (cg[0]) rmdir(cg);
        r.stub_failed = 1;
        snprintf(r.stub_msg, sizeof r.stub_msg, "gate: fork: %s", strerror(errno));
        ssize_t w = write(res_fd, &r, sizeof r);
        (void)w;
        _exit(0);
    }
    r.ran = 1;
    int pfd = (int)syscall(SYS_pidfd_open, b, 0);
    int lfd = -1, sock = sp[0];
    int killed = 0;
#if KG_HAVE_NOTIF
    struct seccomp_notif_sizes sz;
    struct seccomp_notif *req = NULL;
    struct seccomp_notif_resp *resp = NULL;
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) == 0) {
        req = calloc(1, sz.seccomp_notif > sizeof *req ? sz.seccomp_notif : sizeof *req);
        resp = calloc(1, sz.seccomp_notif_resp > sizeof *resp ? sz.seccomp_notif_resp : sizeof *resp);
    }
#endif
    int status = 0, reaped = 0, early = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    /* no memory cgroup: the harness's resident memory is watched from here */
    static kg_memwatch mw;
    memset(&mw, 0, sizeof mw);
    int watch = !cg[0] && s->kind == KG_SB_HARNESS && s->lim.mem_bytes > 0;
    r.mem_watched = watch;
    double next_sample = kg_now();
    while (!reaped) {
        if (watch && !killed && kg_now() >= next_sample) {
            long kb = kg_memwatch_sample(&mw, b, (long)(s->lim.file_slack_bytes / 1024));
            r.mem_peak_kb = mw.peak_kb;
            r.mem_file_kb = mw.file_peak_kb;
            if ((unsigned long long)kb * 1024ULL > s->lim.mem_bytes) {
                r.mem_oom = 1;
                kg_memwatch_kill(&mw, b);   /* bwrap then ends, reaped below */
                if (!sb->enabled) kill(b, SIGKILL);   /* no sandbox: b is the target itself */
                killed = 1;
            }
            next_sample = kg_now() + KG_MEMWATCH_MS * 1e-3;
        }
        struct pollfd pf[4];
        int np = 0, i_l = -1, i_s = -1, i_p = -1, i_t = -1;
        if (lfd >= 0) { pf[np].fd = lfd; pf[np].events = POLLIN; i_l = np++; }
        if (sock >= 0) { pf[np].fd = sock; pf[np].events = POLLIN; i_s = np++; }
        if (pfd >= 0) { pf[np].fd = pfd; pf[np].events = POLLIN; i_p = np++; }
        if (sfd >= 0) { pf[np].fd = sfd; pf[np].events = POLLIN; i_t = np++; }
        int wait_ms = pfd >= 0 ? -1 : 20;
        if (watch && !killed) {
            wait_ms = (int)((next_sample - kg_now()) * 1e3) + 1;
            if (wait_ms < 1) wait_ms = 1;
            if (wait_ms > KG_MEMWATCH_MS) wait_ms = KG_MEMWATCH_MS;
        }
        int pr = poll(pf, (nfds_t)np, wait_ms);
        if (pr < 0 && errno != EINTR) break;
        if (i_t >= 0 && (pf[i_t].revents & POLLIN)) {
            struct signalfd_siginfo si;
            ssize_t g = read(sfd, &si, sizeof si);
            (void)g;
            /* what everything inside had used by now: a process that is
             * killed is never waited for by its parent, so its time would
             * not reach the rusage below (the gate tells a busy candidate
             * from a starved one by it) */
            if (!killed) r.cpu_s = kg_tree_cpu_s(b);
            /* everything below bubblewrap: its PID namespace ends and
             * bubblewrap exits on its own, reaped below, so nothing of the
             * sandbox is still ending when the record is written (without a
             * memory cgroup nothing else waits for them: a bubblewrap killed
             * first left its child ending after the gate had exited);
             * bubblewrap itself when nothing runs below it yet, or when
             * there is no sandbox (b is the target) */
            if (kg_memwatch_kill(&mw, b) == 0 || !sb->enabled) kill(b, SIGKILL);
            killed = 1;
        }
        if (i_s >= 0 && pf[i_s].revents) {
            char msg[200];
            int fd = -1;
            int n = recv_fd(sock, msg, sizeof msg, &fd);
            if (n <= 0) {
                /* EOF: the stub's exec closed the socket (close-on-exec) */
                if (!r.stub_failed) {
                    r.started = 1;
                    r.start_ms = 1e3 * (kg_now() - t0);
                }
                kg_memwatch_expect(&mw, 0);   /* the target runs: a look at its processes now */
                close(sock);
                sock = -1;
            } else {
                if (fd >= 0) { lfd = fd; r.monitored = 1; }
                if (!strncmp(msg, "error:", 6)) {
                    r.stub_failed = 1;
                    snprintf(r.stub_msg, sizeof r.stub_msg, "%.150s", msg + 6);
                }
            }
        }
#if KG_HAVE_NOTIF
        if (i_l >= 0 && (pf[i_l].revents & POLLIN) && req && resp) {
            memset(req, 0, sz.seccomp_notif);
            if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, req) == 0) {
                memset(resp, 0, sz.seccomp_notif_resp);
                handle(&m, req, resp);
                if (m.new_procs) {   /* a process is being made: the samples look for it until found */
                    kg_memwatch_expect(&mw, m.new_procs);
                    m.new_procs = 0;
                }
                if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, resp) != 0 && errno != ENOENT) {
                }
                if (m.target_ended && m.kind == KG_SB_HARNESS && !killed && !early) {
                    /* The harness called exit_group: none of its code runs
                     * again. Report now; what is left is the kernel tearing
                     * down its CUDA context, which nothing waits for. Then
                     * end the sandbox and reap it as usual. */
                    kg_sb_result e = r;
                    e.exit_code = m.target_status;
                    e.term_signal = 0;
                    e.ended_early = 1;
                    e.wall_ms = 1e3 * (kg_now() - t0);
                    kg_memcg_stats(sb, cg, &e);
                    ssize_t w = write(res_fd, &e, sizeof e);
                    (void)w;
                    early = 1;
                }
            }
        } else if (i_l >= 0 && (pf[i_l].revents & (POLLHUP | POLLERR))) {
            close(lfd);
            lfd = -1;
        }
#endif
        if ((i_p >= 0 && (pf[i_p].revents & POLLIN)) || pfd < 0) {
            pid_t w = wait4(b, &status, pfd >= 0 ? 0 : WNOHANG, &ru);
            if (w == b) reaped = 1;
        }
    }
    if (!reaped) { kill(b, SIGKILL); wait4(b, &status, 0, &ru); }
    if (WIFEXITED(status)) {
        int c = WEXITSTATUS(status);
        /* bubblewrap exits 128 + N when its child died of signal N */
        if (sb->enabled && c > 128 && c < 128 + 65) r.term_signal = c - 128;
        else r.exit_code = c;
    } else if (WIFSIGNALED(status)) {
        r.term_signal = WTERMSIG(status);
    }
    if (killed) { r.term_signal = SIGKILL; r.exit_code = -1; }
    double waited_cpu = (double)ru.ru_utime.tv_sec + 1e-6 * ru.ru_utime.tv_usec +
                        (double)ru.ru_stime.tv_sec + 1e-6 * ru.ru_stime.tv_usec;
    if (waited_cpu > r.cpu_s) r.cpu_s = waited_cpu;
    r.maxrss_kb = ru.ru_maxrss;
    r.wall_ms = 1e3 * (kg_now() - t0);
    kg_memcg_finish(sb, cg, &r);
    if (!early) {
        ssize_t w = write(res_fd, &r, sizeof r);
        (void)w;
    }
    _exit(0);
}

static int spawn_impl(const kg_sandbox *sb, const kg_sb_spec *s, kg_sb_proc *p, int selftest)
{
    int rp[2];
    memset(p, 0, sizeof *p);
    p->pid = -1;
    p->res_fd = -1;
    if (pipe2(rp, O_CLOEXEC) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(rp[0]);
        close(rp[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* the gate dies: so does the sandbox */
        int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGPIPE, SIGCHLD, SIGINT};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
        /* keep only what this sandbox needs (the gate holds other candidates' pipes) */
        int keep[KG_SB_MAX_FDS + 2], nk = 0;
        keep[nk++] = rp[1];
        for (int i = 0; i < s->n_fds; i++) keep[nk++] = s->fds[i];
        if (s->out_fd >= 0) keep[nk++] = s->out_fd;
        close_from(3, keep, nk);
        monitor_main(sb, s, rp[1], selftest);
        _exit(0);
    }
    setpgid(pid, pid);
    close(rp[1]);
    p->pid = pid;
    p->res_fd = rp[0];
    p->t0 = kg_now();
    return 0;
}

int kg_sb_spawn(const kg_sandbox *sb, const kg_sb_spec *spec, kg_sb_proc *p)
{
    return spawn_impl(sb, spec, p, 0);
}

void kg_sb_kill(kg_sb_proc *p)
{
    if (p->pid > 0) kill(p->pid, SIGTERM);   /* the monitor kills bwrap and writes its record */
}

static pid_t lingering[256];
static int n_lingering;

void kg_sb_reap_lingering(int block)
{
    /* blocking: at most 5 s (a teardown takes about 0.1 s), then the
     * monitor's group is killed as kg_sb_wait would have */
    double until = kg_now() + 5.0;
    for (;;) {
        int k = 0;
        for (int i = 0; i < n_lingering; i++) {
            pid_t w = waitpid(lingering[i], NULL, WNOHANG);
            if (w == 0) lingering[k++] = lingering[i];   /* still ending its sandbox */
        }
        n_lingering = k;
        if (!block || !n_lingering) return;
        if (kg_now() > until) {
            for (int i = 0; i < n_lingering; i++) {
                kill(-lingering[i], SIGKILL);
                waitpid(lingering[i], NULL, 0);
            }
            n_lingering = 0;
            return;
        }
        usleep(1000);
    }
}

static void linger(pid_t monitor)
{
    if (n_lingering == (int)(sizeof lingering / sizeof lingering[0])) kg_sb_reap_lingering(1);
    lingering[n_lingering++] = monitor;
}

int kg_sb_wait(kg_sb_proc *p, double deadline, kg_sb_result *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    if (p->pid <= 0) return -1;
    int ended = 1;
    size_t have = 0;
    double hard = 0;
    for (;;) {
        double now = kg_now();
        if (deadline > 0 && now > deadline && ended) {
            kg_sb_kill(p);
            ended = 0;
            hard = now + 2.0;
        }
        if (!ended && now > hard) break;
        int ms = 1000;
        if (deadline > 0 && ended) ms = (int)((deadline - now) * 1000) + 1;
        if (!ended) ms = (int)((hard - now) * 1000) + 1;
        if (ms < 1) ms = 1;
        struct pollfd pf = {p->res_fd, POLLIN, 0};
        int pr = poll(&pf, 1, ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        ssize_t g = read(p->res_fd, (char *)r + have, sizeof *r - have);
        if (g < 0 && errno == EINTR) continue;
        if (g <= 0) break;
        have += (size_t)g;
        if (have == sizeof *r) break;
    }
    if (have == sizeof *r && r->ended_early == 1 && kg_sb_result_valid(r)) {
        linger(p->pid);   /* it reaps its sandbox; the gate reaps it later */
    } else {
        kill(-p->pid, SIGKILL);   /* the monitor's group (bwrap's outer process too) */
        waitpid(p->pid, NULL, 0);
    }
    close(p->res_fd);
    p->res_fd = -1;
    p->pid = -1;
    if (have != sizeof *r || !kg_sb_result_valid(r)) {
        memset(r, 0, sizeof *r);
        r->exit_code = -1;
        r->stub_failed = 1;
        snprintf(r->stub_msg, sizeof r->stub_msg, "gate: the sandbox monitor gave no record");
        return -1;
    }
    return ended;
}

int kg_sb_result_valid(const kg_sb_result *r)
{
    if (r->magic != KG_SB_MAGIC) return 0;
    if (r->n_events < 0 || r->n_violations < 0 || r->n_violations > r->n_events) return 0;
    if (r->n_startup < 0 || r->n_startup > r->n_events - r->n_violations) return 0;
    if (r->startup_marked < 0 || r->startup_marked > 1) return 0;
    if (!(r->wall_ms >= 0)) return 0;
    if (r->ended_early < 0 || r->ended_early > 1) return 0;
    if (r->term_signal < 0 || r->term_signal > 64) return 0;
    if (r->mem_oom < 0 || r->mem_oom > 1000 || r->mem_peak_kb < 0 || r->vm_peak_kb < 0) return 0;
    if (r->mem_watched < 0 || r->mem_watched > 1 || r->mem_file_kb < 0) return 0;
    if (memchr(r->stub_msg, 0, sizeof r->stub_msg) == NULL) return 0;
    for (int i = 0; i < KG_SB_EVENTS; i++)
        if (memchr(r->events[i], 0, sizeof r->events[i]) == NULL) return 0;
    return 1;
}

void kg_sb_describe(const kg_sb_result *r, int all, char *buf, size_t len)
{
    size_t o = 0;
    if (!len) return;
    buf[0] = 0;
    for (int i = 0; i < KG_SB_EVENTS && r->events[i][0]; i++) {
        if (!all && !r->is_violation[i]) continue;
        char cnt[32] = "";
        if (r->counts[i] > 1) snprintf(cnt, sizeof cnt, " (x%u)", r->counts[i]);
        int n = snprintf(buf + o, len - o, "%s%s%s", o ? "; " : "", r->events[i], cnt);
        if (n < 0 || (size_t)n >= len - o) {
            buf[len - 1] = 0;
            return;
        }
        o += (size_t)n;
    }
}

void kg_sb_ending(const kg_sb_result *r, const kg_limits *lim, char *buf, size_t len)
{
    int s = r->term_signal;
    if (r->mem_oom > 0 && r->mem_watched) {
        /* what of it was file-backed or managed memory, past what its libraries may hold */
        double slack = lim ? (double)lim->file_slack_bytes / 1024.0 : 0.0;
        double file = (double)r->mem_file_kb > slack ? (double)r->mem_file_kb - slack : 0.0;
        snprintf(buf, len, "host memory limit (%.1f GiB resident for everything in its sandbox, shared "
                 "pages, memfd files and file-backed or managed memory included, watched by the gate): "
                 "killed at %.1f GiB, %.1f GiB of it file-backed or managed",
                 lim && lim->mem_bytes ? (double)lim->mem_bytes / (double)GiB : 0.0,
                 (double)r->mem_peak_kb / (1024.0 * 1024.0), file / (1024.0 * 1024.0));
    }
    else if (r->mem_oom > 0)
        snprintf(buf, len, "host memory limit (%.1f GiB for everything in its sandbox, shared mappings "
                 "included): killed", lim && lim->mem_bytes ? (double)lim->mem_bytes / (double)GiB : 0.0);
    else if (s == SIGXCPU || (s == SIGKILL && lim && lim->cpu_s > 0 && r->cpu_s >= lim->cpu_s))
        snprintf(buf, len, "CPU time limit (%.0f s)", lim ? lim->cpu_s : 0.0);
    else if (s == SIGXFSZ)
        snprintf(buf, len, "file size limit (%llu MiB)", lim ? lim->fsize_bytes / MiB : 0ULL);
    else if (s)
        snprintf(buf, len, "signal %d (%s)", s, strsignal(s));
    else if (r->exit_code >= 0)
        snprintf(buf, len, "exit code %d", r->exit_code);
    else
        snprintf(buf, len, "no exit status");
    if (lim && r->maxrss_kb > 0) {
        unsigned long long cap = lim->as_bytes ? lim->as_bytes : lim->data_bytes;
        if (cap && (unsigned long long)r->maxrss_kb * 1024ULL >= cap / 10 * 8) {
            size_t l = strlen(buf);
            snprintf(buf + l, len - l, "; peak memory %.1f GiB of the %.0f GiB limit",
                     (double)r->maxrss_kb / (1024.0 * 1024.0), (double)cap / (double)GiB);
        }
    }
}

/* ---- setup and self-test ------------------------------------------------ */

static void find_devices(kg_sandbox *sb)
{
    DIR *d = opendir("/dev");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && sb->n_dev < KG_SB_MAX_DEV)
        if (!strncmp(e->d_name, "nvidia", 6))
            snprintf(sb->dev[sb->n_dev++], sizeof sb->dev[0], "/dev/%.100s", e->d_name);
    closedir(d);
}

#ifndef KGATE_LLVM_LIB
#define KGATE_LLVM_LIB ""
#endif

static int selftest(kg_sandbox *sb, char *err, size_t len)
{
    double starts[3];
    for (int k = 0; k < 3; k++) {
        const char *argv[] = {"/bin/true", NULL};
        kg_sb_spec s;
        memset(&s, 0, sizeof s);
        s.kind = KG_SB_HARNESS;
        s.argv = argv;
        s.out_fd = getenv("KGATE_SANDBOX_DEBUG") ? 2 : -1;
        s.lim = kg_default_limits(KG_SB_SCAN, 10);
        kg_sb_proc p;
        kg_sb_result r;
        /* the last start also tries a write outside and a connect: the monitor must see both */
        if (spawn_impl(sb, &s, &p, k == 2 && sb->enabled) != 0 || kg_sb_wait(&p, kg_now() + 20, &r) < 0) {
            snprintf(err, len, "the sandbox self-test could not start");
            return -1;
        }
        if (!r.started || r.stub_failed || r.exit_code != 0) {
            snprintf(err, len, "the sandbox self-test failed (%s%sexit %d, signal %d): see %s",
                     r.stub_msg, r.stub_msg[0] ? ", " : "", r.exit_code, r.term_signal,
                     sb->enabled ? "bwrap's message above" : "the stub");
            return -1;
        }
        starts[k] = r.start_ms;
        if (k == 2 && sb->enabled) {
            sb->monitor = r.monitored && r.n_violations >= 2;
            if (sb->enabled && !sb->monitor) {
                snprintf(err, len, "the sandbox's seccomp monitor saw %d of the self-test's 2 "
                         "forbidden calls (kernel without seccomp user notification?)",
                         r.n_violations);
                return -1;
            }
        }
    }
    /* median of three */
    double a = starts[0], b = starts[1], c = starts[2];
    sb->start_ms = a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
    return 0;
}

int kg_sandbox_setup(kg_sandbox *sb, const char *helperdir, int no_sandbox, char *err, size_t len)
{
    memset(sb, 0, sizeof *sb);
    sb->enabled = !no_sandbox;
    sb->as_root = geteuid() == 0;
    /* 256 uids of this run's own (KG_SB_SLOTS x 4 kinds): another gate on the
     * same machine has another range, so no sandbox shares a uid, and so a
     * process limit, with another run's */
    sb->uid_base = 100000u + (unsigned)(getpid() % 16384) * 256u;
    sb->drop_uid = 1;
    char bin_real[PATH_MAX];
    if (real_path_into(helperdir, bin_real, sizeof bin_real) == 0) helperdir = bin_real;   /* the sandbox binds absolute paths */
    snprintf(sb->stub, sizeof sb->stub, "%.1000s/kgate-sandbox", helperdir);
    if (access(sb->stub, X_OK) != 0) {
        snprintf(err, len, "%s is missing: build with make -C 9_Verification/kgate", sb->stub);
        return -1;
    }
    const char *cuda = getenv("KGATE_CUDA_PATH");
    if (!cuda || !*cuda) cuda = getenv("CUDA_HOME");
    if (!cuda || !*cuda) cuda = "/usr/local/cuda";
    if (real_path_into(cuda, sb->cuda_path, sizeof sb->cuda_path) != 0) snprintf(sb->cuda_path, sizeof sb->cuda_path, "%s", cuda);
    snprintf(sb->path_env, sizeof sb->path_env, "%s/bin:/usr/local/bin:/usr/bin:/bin", sb->cuda_path);
    const char *ld = getenv("LD_LIBRARY_PATH");
    snprintf(sb->ld_env, sizeof sb->ld_env, "%s/lib64%s%s", sb->cuda_path, ld && *ld ? ":" : "",
             ld && *ld ? ld : "");
    if (!sb->enabled) {
        snprintf(sb->desc, sizeof sb->desc,
                 "NONE (--no-sandbox): candidates run with this user's files, environment and "
                 "network; only resource limits and the monitor apply. UNSAFE for code you do not trust");
        kg_memcg_setup(sb);
        return selftest(sb, err, len);
    }
    const char *bw = getenv("KGATE_BWRAP");
    if (bw && *bw) {
        if (access(bw, X_OK) != 0) {
            snprintf(err, len, "KGATE_BWRAP=%s is not an executable", bw);
            return -1;
        }
        snprintf(sb->bwrap, sizeof sb->bwrap, "%s", bw);
    } else if (find_on_path("bwrap", sb->bwrap, sizeof sb->bwrap) != 0) {
        snprintf(err, len, "bubblewrap (bwrap) not found: install the Debian package bubblewrap, "
                 "or set KGATE_BWRAP to an unpacked copy (or run --no-sandbox, unsafe)");
        return -1;
    }
    /* not /opt: what compiling and running need from there (a toolkit, a
     * Python with PyTorch, Nsight Compute) is bound by name */
    static const char *const sys[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
                                      "/libx32", "/etc"};
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++) {
        struct stat st;
        char t[256];
        ssize_t n;
        if (lstat(sys[i], &st) == 0 && S_ISLNK(st.st_mode) &&
            (n = readlink(sys[i], t, sizeof t - 1)) > 0 && sb->n_link < 8) {
            t[n] = 0;   /* merged /usr: /bin -> usr/bin, recreated inside */
            snprintf(sb->link[sb->n_link][0], sizeof sb->link[0][0], "%s", sys[i]);
            snprintf(sb->link[sb->n_link][1], sizeof sb->link[0][1], "%s", t);
            sb->n_link++;
        }
        add_ro(sb, sys[i]);
    }
    add_ro(sb, helperdir);   /* the helpers only: not bin/, not the work tree */
    add_ro(sb, sb->cuda_path);
    add_ro_list(sb, ld);
    add_ro(sb, getenv("KGATE_CLANG_RESOURCE_DIR"));
    add_ro(sb, KGATE_LLVM_LIB);
    add_ro_list(sb, getenv("KGATE_SANDBOX_RO"));
    /* the bubblewrap binary's own folder (an unpacked .deb) */
    char bwdir[1024];
    snprintf(bwdir, sizeof bwdir, "%s", sb->bwrap);
    char *slash = strrchr(bwdir, '/');
    if (slash) { *slash = 0; add_ro(sb, bwdir); }
    find_devices(sb);
    kg_find_sys(sb);
    kg_memcg_setup(sb);
    if (selftest(sb, err, len) != 0) {
        if (!sb->memcg) return -1;
        kg_sandbox_cleanup(sb);   /* a cgroup that cannot be entered here: the fallback */
        sb->memcg = 0;
        if (selftest(sb, err, len) != 0) return -1;
    }
    snprintf(sb->desc, sizeof sb->desc,
             "bubblewrap (%.200s): new mount, PID, network, IPC and UTS namespaces; system folders "
             "read-only, private /tmp; %s; cleared environment; rlimits; %s; seccomp monitor; "
             "start %.1f ms", sb->bwrap,
             sb->as_root ? "no capabilities, a uid of its own per sandbox" : "unprivileged user namespace",
             sb->memcg ? (sb->memcg == 2 ? "a memory cgroup (v2) per sandbox" : "a memory cgroup (v1) per sandbox")
                       : "no memory cgroup", sb->start_ms);
    return 0;
}
