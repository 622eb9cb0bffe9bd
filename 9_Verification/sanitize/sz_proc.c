/* sz_proc.c: run one command, contained, with a time limit, its output
 * captured through a pipe with a size cap; and split an argument string
 * into words. Linux (unshare, prctl); no shell anywhere: every command is an
 * argv given to execvp.
 *
 * Containment: everything a run starts must end with it, even a grandchild
 * that called setsid() (a new session and process group, so killing the
 * group misses it), and even when the harness itself is killed. Each run
 * gets a keeper process K, the harness's child, which dies with the harness
 * (PR_SET_PDEATHSIG) and ends everything below it before it exits:
 *
 *   pid namespace (--contain=pidns, the default where unshare works: root,
 *   or a kernel that lets users create namespaces): K unshares a PID, a
 *   mount and a network namespace and forks G, the namespace's init (pid 1),
 *   which mounts a /proc of its own and forks the command P. Every
 *   descendant of P, setsid or not, lives in the namespace; when G exits
 *   (after P, or killed because K died) the kernel kills every process left
 *   in it, and G is only reaped once they are gone. Nothing can escape.
 *
 *   The network namespace keeps runs at once apart. compute-sanitizer finds
 *   the program it launched through abstract Unix sockets (main.c, above
 *   SANITIZER_PORT_BASE), which belong to the network namespace, and
 *   matches it by pid, which repeats across PID namespaces: with one network
 *   namespace for all, two runs started together on the H200 missed their
 *   targets even with a port range per worker (2026-11-30:
 *   matrixMul memcheck "Target application terminated before first
 *   instrumented API call" after 14.9 s, matrixMul racecheck silent after
 *   "========= COMPUTE-SANITIZER" until its 300 s limit; most likely each
 *   reached the other's socket). In a namespace of its own a run sees no
 *   abstract socket but its own, whatever the tool and its target make of
 *   the ranges. K brings the namespace's lo up (it starts
 *   down), so TCP on 127.0.0.1 works in a run (NCCL's bootstrap would use it);
 *   if that fails the run's log says so and the run goes on. Where
 *   CLONE_NEWNET is refused (an old or restricted kernel, a limit on
 *   namespaces) K makes the PID and mount namespaces only, says so in the
 *   run's log, and the runs rely on their port ranges; the probe reports
 *   which (the header line: "pid and network namespaces" or "pid namespace
 *   (no network namespace: ...)").
 *
 *   subreaper (--contain=reaper, the fallback): K is a child subreaper
 *   (PR_SET_CHILD_SUBREAPER), so orphaned descendants are re-parented to K
 *   instead of init; when P ends, or K is told to stop, K stops (SIGSTOP)
 *   and kills (SIGKILL) every process whose parent chain leads to K, read
 *   from /proc, until none is left. If K itself is killed with SIGKILL,
 *   its descendants survive: only the namespace survives that. The runs
 *   share the harness's network namespace: nothing but their port ranges
 *   keeps two runs' rendezvous apart.
 */
#define _GNU_SOURCE
#include "sanitize.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double sz_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

void sz_free_args(char **argv, int n)
{
    for (int i = 0; i < n; i++) free(argv[i]);
}

int sz_split_args(const char *s, char **argv, int max, char *err, size_t errlen)
{
    int n = 0;
    size_t len = strlen(s);
    char *w = malloc(len + 1);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        if (!*p) break;
        size_t k = 0;
        char q = 0;
        while (*p && (q || !(*p == ' ' || *p == '\t' || *p == '\n'))) {
            if (q) {
                if (*p == q) q = 0;
                else if (*p == '\\' && q == '"' && p[1]) w[k++] = *++p;
                else w[k++] = *p;
            } else if (*p == '"' || *p == '\'') {
                q = *p;
            } else if (*p == '\\' && p[1]) {
                w[k++] = *++p;
            } else {
                w[k++] = *p;
            }
            p++;
        }
        if (q) {
            snprintf(err, errlen, "unterminated %c quote in '%s'", q, s);
            goto fail;
        }
        if (n + 1 >= max) {
            snprintf(err, errlen, "more than %d words in '%s'", max - 1, s);
            goto fail;
        }
        w[k] = '\0';
        argv[n] = strdup(w);
        if (!argv[n]) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        n++;
    }
    argv[n] = NULL;
    free(w);
    return n;
fail:
    free(w);
    sz_free_args(argv, n);
    return -1;
}

/* ---- containment ------------------------------------------------------ */

static sz_contain contain_mode = SZ_CONTAIN_REAPER;

/* In K, right after fork: close every descriptor but 0, 1 and 2. K would
 * otherwise hold the harness's: the other runs' pipes, the lock on --out
 * (held until every copy is closed), the folders' descriptors. */
static void close_other_fds(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        for (int fd = 3; fd < 65536; fd++) close(fd);
        return;
    }
    int self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        int fd = atoi(e->d_name);
        if (fd > 2 && fd != self) close(fd);
    }
    closedir(d);
}

/* The signals the keeper waits for instead of handling them. */
static void keeper_sigset(sigset_t *s)
{
    sigemptyset(s);
    sigaddset(s, SIGCHLD);
    sigaddset(s, SIGTERM);
    sigaddset(s, SIGINT);
    sigaddset(s, SIGHUP);
}

static void say(const char *what, int err)
{
    dprintf(2, "sanitize: %s: %s\n", what, strerror(err));
}

/* In the child that will exec: default signal mask, then exec. */
static void exec_command(char *const argv[])
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execvp(argv[0], argv);
    dprintf(2, "sanitize: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

static int exit_code_of(int st)
{
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return 1;
}

/* The pids of every process whose parent chain reaches `self` (read from
 * /proc); returns how many were put in out (at most max). */
static int descendants(pid_t self, pid_t *out, int max)
{
    enum { CAP = 1 << 16 };
    static pid_t pid[CAP], ppid[CAP];
    int n = 0;
    DIR *d = opendir("/proc");
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < CAP) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t k = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (k <= 0) continue;
        buf[k] = '\0';
        char *rp = strrchr(buf, ')'); /* the command name may hold ')' and spaces */
        long pp;
        if (!rp || sscanf(rp + 1, " %*c %ld", &pp) != 1) continue;
        pid[n] = (pid_t)atol(e->d_name);
        ppid[n] = (pid_t)pp;
        n++;
    }
    closedir(d);
    /* closure: a process is in when its parent is self or in */
    static unsigned char in[CAP];
    memset(in, 0, (size_t)n);
    int found = 0, changed = 1;
    while (changed) {
        changed = 0;
        for (int i = 0; i < n; i++) {
            if (in[i]) continue;
            int parent_in = ppid[i] == self;
            for (int j = 0; j < n && !parent_in; j++) parent_in = in[j] && pid[j] == ppid[i];
            if (parent_in) {
                in[i] = 1;
                changed = 1;
                if (found < max) out[found++] = pid[i];
            }
        }
    }
    return found;
}

/* Reaper mode: stop, then kill, every descendant, and reap them all. */
static void end_descendants(void)
{
    static pid_t list[4096];
    pid_t self = getpid();
    for (int round = 0; round < 2000; round++) {
        int n = descendants(self, list, 4096);
        /* freeze first, so nothing forks between the scan and the kill */
        for (int i = 0; i < n; i++) kill(list[i], SIGSTOP);
        int m = descendants(self, list, 4096);
        for (int i = 0; i < m; i++) kill(list[i], SIGKILL);
        while (waitpid(-1, NULL, WNOHANG) > 0) {}
        if (n == 0 && m == 0 && waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD) return;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
}

/* G: the namespace's init. Mounts its own /proc, runs the command, reaps
 * every orphan, and exits with the command's status; the kernel then kills
 * whatever is left in the namespace. net says which namespaces K made (for
 * the probe). */
static void run_init(char *const argv[], int lifeline, const char *net)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    prctl(PR_SET_NAME, "sanitize-init");
    /* if K is already gone, the death signal was missed: the lifeline's
     * write end closed with K */
    struct pollfd pf = {lifeline, POLLIN, 0};
    if (poll(&pf, 1, 0) > 0) _exit(128 + SIGKILL);
    close(lifeline);
    /* a /proc that shows this namespace (the outer one would show other
     * pids than getpid() returns); private, so it is not seen outside */
    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
        say("cannot mount /proc in the run's pid namespace", errno);
        _exit(127);
    }
    if (!argv) {
        /* the probe (sz_contain_init): this is pid 1 of a namespace whose
         * /proc says so; then what the runs will have */
        char buf[64] = "";
        ssize_t k = readlink("/proc/self", buf, sizeof buf - 1);
        if (k > 0) buf[k] = '\0';
        printf("pid %d /proc/self %s; %s\n", (int)getpid(), buf, net);
        fflush(stdout);
        _exit(getpid() == 1 && !strcmp(buf, "1") ? 0 : 1);
    }
    pid_t p = fork();
    if (p < 0) {
        say("fork", errno);
        _exit(127);
    }
    if (p == 0) exec_command(argv);
    for (;;) {
        int st;
        pid_t w = waitpid(-1, &st, 0);
        if (w == p) _exit(exit_code_of(st));
        if (w < 0 && errno != EINTR) _exit(127);
    }
}

/* In a new network namespace the loopback interface exists but is down:
 * bring it up, so that a program of the run may still talk TCP to itself
 * on 127.0.0.1 (NCCL's bootstrap does, with no other interface). Returns 0,
 * or -1 with errno set. */
static int loopback_up(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) return -1;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    int rc = ioctl(s, SIOCGIFFLAGS, &ifr);
    if (rc == 0 && !(ifr.ifr_flags & IFF_UP)) {
        ifr.ifr_flags |= IFF_UP;
        rc = ioctl(s, SIOCSIFFLAGS, &ifr);
    }
    int e = errno;
    close(s);
    errno = e;
    return rc;
}

/* K's namespaces for a run: PID, mount and network; without the network
 * namespace (refused: no CLONE_NEWNET in this kernel, a seccomp filter, a
 * limit on namespaces) PID and mount only, said in the run's log. Writes
 * what was made into net (the probe's description); 0, or -1 (errno) when
 * not even the PID namespace could be made. */
static int make_namespaces(char *net, size_t len)
{
    if (unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET) == 0) {
        snprintf(net, len, "pid and network namespaces");
        if (loopback_up()) {
            int e = errno;
            dprintf(2, "sanitize: the run's network namespace has its loopback down (lo: %s): "
                    "no TCP on 127.0.0.1 in this run\n", strerror(e));
            snprintf(net, len, "pid and network namespaces (loopback down: %s)", strerror(e));
        }
        return 0;
    }
    int e = errno;
    if (unshare(CLONE_NEWPID | CLONE_NEWNS)) return -1;
    dprintf(2, "sanitize: no network namespace: unshare(CLONE_NEWNET): %s; runs at once rely on "
            "their port ranges\n", strerror(e));
    snprintf(net, len, "pid namespace (no network namespace: %s)", strerror(e));
    return 0;
}

/* K: the keeper. Its stdout/stderr, directory and environment are set;
 * never returns. */
static void run_keeper(char *const argv[], pid_t harness, sz_contain mode)
{
    sigset_t set;
    keeper_sigset(&set);
    sigprocmask(SIG_BLOCK, &set, NULL); /* waited for with sigwaitinfo */
    prctl(PR_SET_NAME, "sanitize-keep"); /* as ps shows it */
    /* the harness dying (killed, even with SIGKILL) reaches K as SIGTERM */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != harness) _exit(128 + SIGTERM);
    pid_t child;
    if (mode == SZ_CONTAIN_PIDNS) {
        char net[160];
        if (make_namespaces(net, sizeof net)) {
            say("unshare(CLONE_NEWPID | CLONE_NEWNS)", errno);
            _exit(127);
        }
        int life[2];
        if (pipe(life)) _exit(127);
        child = fork();
        if (child == 0) {
            close(life[1]);
            run_init(argv, life[0], net);
        }
        close(life[0]); /* life[1] stays open as long as K lives */
    } else {
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        if (!argv) _exit(1); /* the probe is for namespaces */
        child = fork();
        if (child == 0) exec_command(argv);
    }
    if (child < 0) {
        say("fork", errno);
        _exit(127);
    }
    int code = -1;
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(&set, &si);
        if (sig < 0) continue;
        if (sig == SIGCHLD) {
            int st;
            pid_t w;
            while ((w = waitpid(-1, &st, WNOHANG)) > 0)
                if (w == child) code = exit_code_of(st);
            if (code < 0) continue;
            /* the command ended: in a namespace its init is gone and the
             * kernel has killed the rest; as a subreaper, end the rest */
            if (mode == SZ_CONTAIN_REAPER) end_descendants();
            _exit(code);
        }
        /* told to stop (timeout, or the harness died) */
        if (mode == SZ_CONTAIN_PIDNS) {
            kill(child, SIGKILL);
            /* the init is reaped only once every process of its namespace is */
            while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
        } else {
            end_descendants();
        }
        _exit(128 + sig);
    }
}

int sz_contain_init(sz_contain want, char *why, size_t len)
{
    if (want == SZ_CONTAIN_REAPER) {
        contain_mode = SZ_CONTAIN_REAPER;
        snprintf(why, len, "subreaper (--contain=reaper)");
        return SZ_CONTAIN_REAPER;
    }
    /* try a namespace: its init checks that it is pid 1 and that its /proc
     * says so (sz_capture with no command) */
    char out[256] = "";
    contain_mode = SZ_CONTAIN_PIDNS;
    int code = sz_capture(NULL, NULL, 10, out, sizeof out);
    /* the init's line, after a note of K's if any (no network namespace) */
    const char *line = out;
    while (line && strncmp(line, "pid ", 4)) {
        line = strchr(line, '\n');
        if (line) line++;
    }
    const char *made = line && !strncmp(line, "pid 1 /proc/self 1; ", 20) ? line + 20 : NULL;
    if (code == 0 && made) {
        char desc[200];
        snprintf(desc, sizeof desc, "%.*s", (int)strcspn(made, "\n"), made);
        sz_clean_text(why, len, desc);
        return SZ_CONTAIN_PIDNS;
    }
    /* why not: the last line (K's note on the network namespace may come
     * before the error) */
    size_t n = strlen(out);
    while (n && out[n - 1] == '\n') out[--n] = '\0';
    const char *reason = strrchr(out, '\n') ? strrchr(out, '\n') + 1 : out;
    contain_mode = SZ_CONTAIN_REAPER;
    if (want == SZ_CONTAIN_PIDNS) {
        snprintf(why, len, "no pid namespace here (%s)", reason[0] ? reason : "the probe failed");
        return -1;
    }
    char cut[200];
    sz_clean_text(cut, sizeof cut, reason[0] ? reason : "the probe failed");
    snprintf(why, len, "subreaper (no pid namespace: %s)", cut);
    return SZ_CONTAIN_REAPER;
}

/* ---- one contained command -------------------------------------------- */

int sz_proc_start(sz_proc *p, char *const argv[], const char *cwd, int log_fd, size_t log_max,
                  const char *env_name, const char *env_value, double timeout_s)
{
    memset(p, 0, sizeof *p);
    p->out_fd = -1;
    p->log_fd = log_fd;
    p->log_max = log_max;
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC)) return -1;
    fflush(NULL);
    pid_t harness = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pfd[0]);
        close(pfd[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        /* K: a session of its own, so no controlling terminal: nothing the
         * run starts can write to the terminal around the pipe, and a ^C
         * there reaches only the harness, whose death ends the run */
        setsid();
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        close_other_fds();
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0 && devnull != 0) {
            dup2(devnull, 0);
            close(devnull);
        }
        if (cwd && chdir(cwd) != 0) {
            say(cwd, errno);
            _exit(127);
        }
        if (env_name && env_value) setenv(env_name, env_value, 1);
        run_keeper(argv, harness, contain_mode);
    }
    close(pfd[1]);
    fcntl(pfd[0], F_SETFL, fcntl(pfd[0], F_GETFL) | O_NONBLOCK);
    p->pid = (int)pid;
    p->out_fd = pfd[0];
    p->start = sz_now();
    p->timeout_s = timeout_s;
    return 0;
}

void sz_proc_watch(sz_proc *p, const char *path, long long max_bytes)
{
    p->watch_path = path;
    p->watch_max = max_bytes;
}

void sz_proc_stop_on(sz_proc *p, const char *const *needles)
{
    p->stop_on = needles;
}

/* Look for the stop_on strings in what was just read, and across the seam
 * with what came before: a line can arrive in two reads. Only the last
 * sizeof stop_tail - 1 bytes are carried over, which is why a needle must
 * be shorter than that. The output may hold any byte, NUL included. */
static void scan_output(sz_proc *p, const char *buf, size_t k)
{
    if (!p->stop_on || p->stop_hit) return;
    char seam[2 * sizeof p->stop_tail];
    size_t head = k < sizeof p->stop_tail ? k : sizeof p->stop_tail;
    memcpy(seam, p->stop_tail, p->stop_tail_len);
    memcpy(seam + p->stop_tail_len, buf, head);
    for (int i = 0; p->stop_on[i] && !p->stop_hit; i++) {
        size_t n = strlen(p->stop_on[i]);
        if (memmem(seam, p->stop_tail_len + head, p->stop_on[i], n) ||
            memmem(buf, k, p->stop_on[i], n))
            p->stop_hit = p->stop_on[i];
    }
    /* keep the last bytes for the next read */
    size_t keep = sizeof p->stop_tail - 1;
    if (k >= keep) {
        memcpy(p->stop_tail, buf + k - keep, keep);
        p->stop_tail_len = keep;
    } else {
        size_t total = p->stop_tail_len + k;
        size_t drop = total > keep ? total - keep : 0;
        memmove(p->stop_tail, p->stop_tail + drop, p->stop_tail_len - drop);
        memcpy(p->stop_tail + p->stop_tail_len - drop, buf, k);
        p->stop_tail_len = total - drop;
    }
}

/* Whatever is in the pipe now: into the log (up to its cap), or into the
 * capture buffer; the rest is counted and dropped. All of it is scanned
 * for the stop_on strings. */
static void drain(sz_proc *p)
{
    char buf[65536];
    while (p->out_fd >= 0) {
        ssize_t k = read(p->out_fd, buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0 || errno != EAGAIN) {
                close(p->out_fd);
                p->out_fd = -1;
            }
            return;
        }
        scan_output(p, buf, (size_t)k);
        size_t room = p->log_max > p->log_bytes ? p->log_max - p->log_bytes : 0;
        size_t keep = (size_t)k < room ? (size_t)k : room;
        if (keep) {
            if (p->log_fd >= 0) {
                ssize_t w = write(p->log_fd, buf, keep);
                (void)w;
            } else if (p->buf && p->buf_len + 1 < p->buf_max) {
                size_t c = p->buf_max - 1 - p->buf_len;
                if (c > keep) c = keep;
                memcpy(p->buf + p->buf_len, buf, c);
                p->buf_len += c;
                p->buf[p->buf_len] = '\0';
            }
        }
        p->log_bytes += keep;
        p->log_dropped += (unsigned long long)((size_t)k - keep);
    }
}

/* Stop K (it ends everything below it), then reap it. */
static void stop_keeper(sz_proc *p)
{
    kill((pid_t)p->pid, SIGTERM);
    for (int i = 0; i < 500; i++) { /* 5 s for K to end its tree */
        if (waitpid((pid_t)p->pid, NULL, WNOHANG) == (pid_t)p->pid) return;
        drain(p);
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill((pid_t)p->pid, SIGKILL);
    while (waitpid((pid_t)p->pid, NULL, 0) < 0 && errno == EINTR) {}
}

int sz_proc_poll(sz_proc *p, int *code, int *timed_out)
{
    drain(p);
    int st;
    pid_t r = waitpid((pid_t)p->pid, &st, WNOHANG);
    if (r == 0) {
        /* the output said the run cannot go on (compute-sanitizer could not
         * attach to its program, main.c): end it now, not at its time limit */
        if (p->stop_hit) {
            stop_keeper(p);
            drain(p);
            *code = -1;
            *timed_out = 0;
            return 1;
        }
        struct stat sb;
        if (p->watch_path && p->watch_max > 0 && lstat(p->watch_path, &sb) == 0 &&
            sb.st_size > p->watch_max) {
            p->watch_over = 1;
            stop_keeper(p);
            drain(p);
            *code = -1;
            *timed_out = 0;
            return 1;
        }
        if (p->timeout_s > 0 && sz_now() - p->start > p->timeout_s) {
            stop_keeper(p);
            drain(p);
            *code = -1;
            *timed_out = 1;
            return 1;
        }
        return 0;
    }
    *timed_out = 0;
    *code = r < 0 ? -1 : exit_code_of(st);
    drain(p); /* every writer is gone: this reads to the end */
    return 1;
}

void sz_proc_close(sz_proc *p)
{
    if (p->out_fd >= 0) close(p->out_fd);
    p->out_fd = -1;
}

int sz_capture(char *const argv[], const char *cwd, double timeout_s, char *out, size_t len)
{
    sz_proc p;
    if (len) out[0] = '\0';
    if (sz_proc_start(&p, argv, cwd, -1, len ? len - 1 : 0, NULL, NULL, timeout_s)) return -1;
    p.buf = out;
    p.buf_max = len;
    int code = -1, to = 0;
    while (!sz_proc_poll(&p, &code, &to)) {
        struct pollfd pf = {p.out_fd, POLLIN, 0};
        poll(&pf, p.out_fd >= 0 ? 1 : 0, 20);
    }
    sz_proc_close(&p);
    return to ? -1 : code;
}
