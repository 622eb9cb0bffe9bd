/* sz_proc.c: run one command in its own process group with a timeout, and
 * split an argument string into words. POSIX. */
#define _POSIX_C_SOURCE 200809L
#include "sanitize.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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

int sz_proc_start(sz_proc *p, char *const argv[], const char *cwd, const char *log_path,
                  const char *env_name, const char *env_value, double timeout_s)
{
    int fd = -1;
    if (log_path) {
        fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        if (cwd && chdir(cwd) != 0) _exit(127);
        if (env_name && env_value) setenv(env_name, env_value, 1);
        execvp(argv[0], argv);
        dprintf(2, "sanitize: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* both sides, so the group exists before any kill */
    if (fd >= 0) close(fd);
    p->pid = (int)pid;
    p->start = sz_now();
    p->timeout_s = timeout_s;
    return 0;
}

int sz_proc_poll(sz_proc *p, int *code, int *timed_out)
{
    int st;
    pid_t r = waitpid((pid_t)p->pid, &st, WNOHANG);
    if (r == 0) {
        if (p->timeout_s > 0 && sz_now() - p->start > p->timeout_s) {
            kill(-(pid_t)p->pid, SIGKILL);
            waitpid((pid_t)p->pid, &st, 0);
            *code = -1;
            *timed_out = 1;
            return 1;
        }
        return 0;
    }
    *timed_out = 0;
    if (r < 0) {
        *code = -1;
        return 1;
    }
    /* whatever the tool left behind in the group goes too */
    kill(-(pid_t)p->pid, SIGKILL);
    if (WIFEXITED(st)) *code = WEXITSTATUS(st);
    else if (WIFSIGNALED(st)) *code = 128 + WTERMSIG(st);
    else *code = -1;
    return 1;
}
