/* kgate-sandbox: the first program inside each sandbox (a helper of bin/kgate
 * in build/libexec/kgate, not a command: bin/kgate runs it).
 *
 * bubblewrap has built the namespaces and mounts; this stub, trusted code
 * of the gate, finishes the job before the target (the static scan, nvcc or
 * the harness) starts:
 *   1. as root: drop every capability from the bounding set, then switch to
 *      the sandbox's own uid and gid (which clears the rest);
 *   2. no_new_privs; resource limits (CPU, address space or data, file size,
 *      open files, processes; no core files);
 *   3. a seccomp filter whose interesting calls go to the gate's monitor
 *      (SECCOMP_RET_USER_NOTIF): the listener's fd is sent to the monitor
 *      over the socket the gate passed in, so the monitor, outside the
 *      sandbox, sees every write, delete, connect, signal, fork, exec and
 *      denied call of the target and all its descendants;
 *   4. closes every fd it was not told to pass on, then execs the target.
 * The socket is close-on-exec: its EOF tells the monitor the target runs.
 *
 * Usage: kgate-sandbox --sock=FD --uid=U --nfds=N --cpu=S --as=B --data=B
 *                      --fsize=B --nofile=N --nproc=N [--selftest] -- argv...
 * Exit: the target's status once it runs; 126 when the sandbox cannot be
 * finished (the reason goes to the gate's monitor over --sock, and to
 * stderr: run by hand, a bad argument says what it is), 127 when the target
 * cannot be started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <dirent.h>

#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#define KG_SECCOMP 1
#else
#define KG_SECCOMP 0
#endif

static int sock = -1;

static void say(const char *msg, int fd)
{
    struct iovec io = {(void *)msg, strlen(msg)};
    struct msghdr mh;
    char cbuf[CMSG_SPACE(sizeof(int))];
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &io;
    mh.msg_iovlen = 1;
    if (fd >= 0) {
        memset(cbuf, 0, sizeof cbuf);
        mh.msg_control = cbuf;
        mh.msg_controllen = sizeof cbuf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    if (sock >= 0) {
        ssize_t w = sendmsg(sock, &mh, MSG_NOSIGNAL);
        (void)w;
    }
}

static void fail(const char *what)
{
    char m[200];
    snprintf(m, sizeof m, "error:%s: %s", what, strerror(errno));
    say(m, -1);
    fprintf(stderr, "kgate-sandbox: %s: %s (this is bin/kgate's sandbox stub, run by the gate inside "
                    "bubblewrap, not a command)\n", what, strerror(errno));
    _exit(126);
}

#if KG_SECCOMP
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* Calls handed to the monitor every time. (Not sendmsg: the stub itself
 * sends the listener with it, before anyone listens; a UDP send to an
 * address fails in the empty network namespace anyway.) */
static const int notify_always[] = {
    SYS_creat, SYS_truncate, SYS_openat2, SYS_unlink, SYS_unlinkat, SYS_rmdir, SYS_rename,
    SYS_renameat, SYS_renameat2, SYS_link, SYS_linkat, SYS_symlink, SYS_symlinkat, SYS_mkdir,
    SYS_mkdirat, SYS_mknod, SYS_mknodat, SYS_chmod, SYS_fchmodat, SYS_chown, SYS_lchown,
    SYS_fchownat, SYS_connect, SYS_sendto, SYS_kill, SYS_tkill, SYS_tgkill,
    SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo, SYS_pidfd_send_signal, SYS_fork, SYS_vfork,
    SYS_clone3, SYS_execve, SYS_execveat, SYS_setsid,
    /* the target's end: the monitor may report the harness then (sandbox.h, ended_early) */
    SYS_exit_group,
    /* denied by the monitor (and recorded) */
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_bpf, SYS_perf_event_open,
    SYS_userfaultfd, SYS_keyctl, SYS_add_key, SYS_request_key, 425, 426, 427, SYS_unshare,
    SYS_setns, SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_swapon, SYS_swapoff,
    SYS_reboot, SYS_kexec_load, SYS_init_module, SYS_finit_module, SYS_delete_module,
    SYS_acct, SYS_syslog, SYS_iopl, SYS_ioperm, 428, 429, 430, 431, 432, 433, 442,
    /* SysV shared memory and message queues: memory that outlives every
     * mapping, which no process's resident memory shows (the gate's
     * watcher, where there is no memory cgroup, could not see it) */
    SYS_shmget, SYS_msgget,
};

/* open/openat only when they can write (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND) */
#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))

static int build_filter(struct sock_filter *f, int max, unsigned notif_action)
{
    int n = 0;
    int na = (int)(sizeof notify_always / sizeof notify_always[0]);
    if (na + 24 > max) return -1;
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    /* x32 system calls (bit 30) would bypass the numbers below */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
    /* layout after the list (x = its end): open block x..x+3, openat block
     * x+4..x+7, clone block x+8..x+10, ALLOW at x+11, NOTIF at x+12 */
    int tail = 12;
    for (int i = 0; i < na; i++) {
        int to_notif = (na - 1 - i) + tail;   /* instructions to skip to reach NOTIF */
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)notify_always[i],
                                              (unsigned char)to_notif, 0);
    }
    /* open(path, flags): flags in args[1] */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 0, 3);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, WRITE_FLAGS, 9, 8);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);  /* unreachable pad */
    /* openat(dirfd, path, flags): flags in args[2] */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 3);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, WRITE_FLAGS, 5, 4);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    /* clone(flags, ...): a thread (CLONE_THREAD) is fine, a process is reported */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 2);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x00010000u, 0, 1);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);   /* ALLOW */
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, notif_action);        /* NOTIF */
    return n;
}
#endif

static unsigned long long num(const char *s) { return strtoull(s, NULL, 10); }

int main(int argc, char **argv)
{
    int uid = 0, nfds = 0, nofile = 0, nproc = 0, self = 0, i;
    unsigned long long cpu = 0, as = 0, data = 0, fsize = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (!strncmp(a, "--sock=", 7)) sock = atoi(a + 7);
        else if (!strncmp(a, "--uid=", 6)) uid = atoi(a + 6);
        else if (!strncmp(a, "--nfds=", 7)) nfds = atoi(a + 7);
        else if (!strncmp(a, "--cpu=", 6)) cpu = num(a + 6);
        else if (!strncmp(a, "--as=", 5)) as = num(a + 5);
        else if (!strncmp(a, "--data=", 7)) data = num(a + 7);
        else if (!strncmp(a, "--fsize=", 8)) fsize = num(a + 8);
        else if (!strncmp(a, "--nofile=", 9)) nofile = atoi(a + 9);
        else if (!strncmp(a, "--nproc=", 8)) nproc = atoi(a + 8);
        else if (!strcmp(a, "--selftest")) self = 1;
        else { errno = EINVAL; fail(a); }
    }
    if (i >= argc) { errno = EINVAL; fail("no target"); }

    /* 1. capabilities and uid */
    if (uid > 0) {
        for (int c = 0; c < 64; c++)
            if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno == EINVAL) break;
        if (setgroups(0, NULL) != 0) fail("setgroups");
        if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0) fail("setresgid");
        if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) fail("setresuid");
        if (getuid() != (uid_t)uid || geteuid() != (uid_t)uid) { errno = EPERM; fail("uid"); }
        /* inheritable and ambient sets: empty too */
        struct { unsigned version; int pid; } hdr = {0x20080522, 0};
        struct { unsigned eff, perm, inh; } d[2];
        memset(d, 0, sizeof d);
        if (syscall(SYS_capset, &hdr, d) != 0) fail("capset");
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    }
    /* 2. no privileges can be gained; limits */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs");
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = 0;
    setrlimit(RLIMIT_CORE, &rl);
    if (cpu) { rl.rlim_cur = cpu; rl.rlim_max = cpu + 1; if (setrlimit(RLIMIT_CPU, &rl)) fail("RLIMIT_CPU"); }
    if (as) { rl.rlim_cur = rl.rlim_max = as; if (setrlimit(RLIMIT_AS, &rl)) fail("RLIMIT_AS"); }
    if (data) { rl.rlim_cur = rl.rlim_max = data; if (setrlimit(RLIMIT_DATA, &rl)) fail("RLIMIT_DATA"); }
    if (fsize) { rl.rlim_cur = rl.rlim_max = fsize; if (setrlimit(RLIMIT_FSIZE, &rl)) fail("RLIMIT_FSIZE"); }
    if (nofile) { rl.rlim_cur = rl.rlim_max = (rlim_t)nofile; if (setrlimit(RLIMIT_NOFILE, &rl)) fail("RLIMIT_NOFILE"); }
    /* RLIMIT_NPROC counts the uid's processes system-wide: only meaningful
     * for a uid of the sandbox's own */
    if (nproc && uid > 0) { rl.rlim_cur = rl.rlim_max = (rlim_t)nproc; if (setrlimit(RLIMIT_NPROC, &rl)) fail("RLIMIT_NPROC"); }

    /* 3. the filter; its listener goes to the monitor */
    int listener = -1;
#if KG_SECCOMP
    struct sock_filter f[160];
    int n = build_filter(f, 160, SECCOMP_RET_USER_NOTIF);
    struct sock_fprog prog = {(unsigned short)n, f};
    if (n > 0)
        listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (listener < 0) {
        /* no user notification here: deny the dangerous calls, report nothing */
        n = build_filter(f, 160, SECCOMP_RET_ERRNO | EPERM);
        prog.len = (unsigned short)n;
        if (n <= 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) fail("seccomp");
    }
#endif
    say(listener >= 0 ? "ok" : "ok:unmonitored", listener);
    if (listener >= 0) close(listener);

    if (self) {
        /* the gate's self-test: both must be refused, and the monitor must see both */
        int fd = open("/etc/kgate_sandbox_selftest", O_WRONLY | O_CREAT, 0600);
        if (fd >= 0) { errno = 0; fail("selftest: a write outside the sandbox succeeded"); }
        int s = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa;
        memset(&sa, 0, sizeof sa);
        sa.sin_family = AF_INET;
        sa.sin_port = htons(9);
        sa.sin_addr.s_addr = htonl(0x7f000001);
        if (s >= 0 && connect(s, (struct sockaddr *)&sa, sizeof sa) == 0) {
            errno = 0;
            fail("selftest: a loopback connect succeeded");
        }
        if (s >= 0) close(s);
    }

    /* 4. nothing but stdio, the passed fds and the socket survives */
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        int fds[512], k = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL && k < 512)
            if (e->d_name[0] >= '0' && e->d_name[0] <= '9') fds[k++] = atoi(e->d_name);
        int dd = dirfd(d);
        for (int j = 0; j < k; j++)
            if (fds[j] > 2 + nfds && fds[j] != sock && fds[j] != dd) close(fds[j]);
        closedir(d);
    }
    if (sock >= 0) fcntl(sock, F_SETFD, FD_CLOEXEC);
    execvp(argv[i], argv + i);
    char m[300];
    snprintf(m, sizeof m, "error:cannot run %.200s: %s", argv[i], strerror(errno));
    say(m, -1);
    _exit(127);
}
