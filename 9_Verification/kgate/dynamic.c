/* dynamic.c: compile candidates, parse ptxas statistics, run each candidate's
 * checks in a child process with a hard timeout (see dynamic.h). */
#define _GNU_SOURCE
#include "dynamic.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *verdict_names[KG_V_COUNT] = {"P0", "L1", "L2", "L3", "L4",
                                                 "PASS", "EXTERNAL", "STATIC-OK", "SKIPPED"};

const char *kg_verdict_name(int v)
{
    return (v >= 0 && v < KG_V_COUNT) ? verdict_names[v] : "?";
}

int kg_verdict_parse(const char *s)
{
    for (int v = 0; v < KG_V_COUNT; v++)
        if (s && strcmp(s, verdict_names[v]) == 0) return v;
    return -1;
}

int kg_verdict_is_stop(int v) { return v >= KG_V_P0 && v <= KG_V_L4; }

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Lines look like (nvcc 12/13):
 *   ptxas info    : Function properties for _Z1kPKfPfi
 *       16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
 *   ptxas info    : Used 40 registers, used 1 barriers, 4224 bytes smem, 380 bytes cmem[0]
 * older ones: "Used 40 registers, 16 bytes lmem, 4224 bytes smem, ...". */
int kg_parse_ptxas(const char *text, kg_ptxas *out)
{
    memset(out, 0, sizeof *out);
    if (!text) return 0;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[512];
        size_t l = len < sizeof line - 1 ? len : sizeof line - 1;
        memcpy(line, p, l);
        line[l] = 0;
        const char *u = strstr(line, "Used ");
        if (u && strstr(line, "registers")) {
            int regs = 0;
            if (sscanf(u, "Used %d registers", &regs) == 1) {
                out->n_funcs++;
                if (regs > out->max_regs) out->max_regs = regs;
            }
            /* scan "<num> bytes <what>" pairs on the line */
            for (const char *q = line; (q = strstr(q, " bytes ")) != NULL; q += 7) {
                const char *s = q;
                while (s > line && (s[-1] >= '0' && s[-1] <= '9')) s--;
                long long v = atoll(s);
                if (strncmp(q + 7, "smem", 4) == 0 && v > out->smem_bytes) out->smem_bytes = v;
                if (strncmp(q + 7, "lmem", 4) == 0 && v > out->lmem_bytes) out->lmem_bytes = v;
            }
        }
        if (strstr(line, "stack frame")) {
            long long st = 0, ss = 0, sl = 0;
            if (sscanf(line, " %lld bytes stack frame, %lld bytes spill stores, %lld bytes spill loads",
                       &st, &ss, &sl) == 3) {
                if (st > out->stack_bytes) out->stack_bytes = st;
                out->spill_stores += ss;
                out->spill_loads += sl;
            }
        }
        if (!eol) break;
        p = eol + 1;
    }
    return out->n_funcs;
}

/* A Python warning in a PyTorch build's log ("<file>.py:180: UserWarning:
 * CUDA initialization: Unexpected error from cudaGetDeviceCount()", which
 * PyTorch prints in the compile sandbox, where there is no GPU): it names an
 * "error" but is not the candidate's. */
static int python_warning(const char *line, size_t n)
{
    const char *py = memmem(line, n, ".py:", 4);
    return py && memmem(py, n - (size_t)(py - line), "Warning:", 8) != NULL;
}

void kg_first_error(const char *log, char *buf, size_t len)
{
    if (!len) return;
    buf[0] = 0;
    if (!log) return;
    const char *first = NULL, *p = log;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        if (n > 0 && !first) first = p;
        /* "error" as nvcc and gcc write it; skip ptxas info lines */
        const char *e = NULL;
        for (const char *q = p; q + 5 <= p + n; q++)
            if (strncmp(q, "error", 5) == 0) { e = q; break; }
        if (e && strncmp(p, "ptxas info", 10) != 0 && !python_warning(p, n)) { first = p; break; }
        if (!eol) break;
        p = eol + 1;
    }
    if (!first) return;
    const char *eol = strchr(first, '\n');
    size_t n = eol ? (size_t)(eol - first) : strlen(first);
    if (n >= len) n = len - 1;
    memcpy(buf, first, n);
    buf[n] = 0;
}

/* "dir/cand.cu" (the scratch copy, inside or outside the sandbox) is the
 * candidate: name it as the user gave it. */
static void unscratch(const char *in, size_t n, const char *display, char *out, size_t len)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%.*s", (int)(n < 590 ? n : 590), in);
    char *c = strstr(tmp, "cand.cu");
    if (c) {
        char *start = c;
        while (start > tmp && start[-1] != ' ' && start[-1] != '"' && start[-1] != '\'' && start[-1] != '(') start--;
        snprintf(out, len, "%.*s%s%s", (int)(start - tmp), tmp, display, c + 7);
    } else {
        snprintf(out, len, "%s", tmp);
    }
}

int kg_compile_errors(const char *log, const char *display, char out[][240], int max)
{
    int n = 0;
    const char *p = log;
    while (p && *p && n < max) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[600];
        unscratch(p, len, display ? display : "candidate", line, sizeof line);
        int is_err = (strstr(line, "error") != NULL || strstr(line, "fatal") != NULL) &&
                     strncmp(line, "ptxas info", 10) != 0 && !python_warning(line, strlen(line));
        int count_line = 0;
        {   /* "1 error detected in the compilation of ..." */
            const char *q = line;
            while (*q >= '0' && *q <= '9') q++;
            count_line = q != line && (!strncmp(q, " error", 6));
        }
        if (is_err && !count_line) {
            char file[300], rest[400];
            int ln = 0, col = 0;
            const char *paren = strstr(line, "): ");
            const char *open = paren ? paren : NULL;
            while (open && open > line && *open != '(') open--;
            char one[240];
            if (paren && open && open > line && sscanf(open + 1, "%d", &ln) == 1) {
                snprintf(file, sizeof file, "%.*s", (int)(open - line), line);
                snprintf(rest, sizeof rest, "%s", paren + 3);
                snprintf(one, sizeof one, "%.100s:%d: %.130s", file, ln, rest);
            } else if (sscanf(line, "%299[^:]:%d:%d: %399[^\n]", file, &ln, &col, rest) == 4) {
                snprintf(one, sizeof one, "%.100s:%d: %.130s", file, ln, rest);
            } else {
                const char *t = line;
                while (*t == ' ' || *t == '\t') t++;
                snprintf(one, sizeof one, "%.239s", t);
            }
            /* the same message from a retry (C++17, another architecture) once */
            int dup = 0;
            for (int k = 0; k < n; k++) dup |= !strcmp(out[k], one);
            if (!dup) snprintf(out[n++], 240, "%s", one);
        }
        if (!eol) break;
        p = eol + 1;
    }
    return n;
}

int kg_needs_cpp17(const char *src)
{
    /* CCCL (CUB, Thrust, libcu++) needs C++17 since CUDA 13; the rest are
     * C++17 language or library features a candidate may use. */
    static const char *const marks[] = {"cub", "thrust", "cuda/", "cooperative_groups",
                                        "constexpr", "std::", "[[", "auto ["};
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (strstr(src, marks[i])) return 1;
    return 0;
}

void kg_compile_argv(const char *nvcc, const char *arch, const char *cu, const char *so, int cublas,
                     int cpp17, const char **argv, char *archflag, size_t archlen)
{
    int a = 0;
    argv[a++] = nvcc;
    if (!strchr(arch, ',')) {
        snprintf(archflag, archlen, "-arch=sm_%s", arch);
        argv[a++] = archflag;
    } else {
        /* several architectures in one fat binary: -gencode per architecture
         * (flags stored one after another in archflag) */
        char list[128];
        snprintf(list, sizeof list, "%s", arch);
        size_t o = 0;
        for (char *save = NULL, *t = strtok_r(list, ",", &save); t && a < 12; t = strtok_r(NULL, ",", &save)) {
            int need = snprintf(NULL, 0, "arch=compute_%s,code=[sm_%s,compute_%s]", t, t, t) + 1;
            if (o + 9 + (size_t)need > archlen) break;
            memcpy(archflag + o, "-gencode", 9);
            argv[a++] = archflag + o;
            o += 9;
            snprintf(archflag + o, (size_t)need, "arch=compute_%s,code=[sm_%s,compute_%s]", t, t, t);
            argv[a++] = archflag + o;
            o += (size_t)need;
        }
    }
    /* nvcc runs its host chain (preprocessing, cudafe++) and its device
     * chain (preprocessing, cicc, ptxas) one after the other unless given
     * threads: two let them overlap (0.44 -> 0.41 s for a small candidate
     * on the 2-CPU development machine; README.md, "Latency") */
    argv[a++] = "--threads";
    argv[a++] = "2";
    argv[a++] = "-O3";
    argv[a++] = cpp17 ? "-std=c++17" : "-std=c++14";
    argv[a++] = "-lineinfo";
    argv[a++] = "-Xptxas";
    argv[a++] = "-v";
    argv[a++] = "--shared";
    argv[a++] = "-Xcompiler";
    argv[a++] = "-fPIC";
    argv[a++] = "-cudart";
    argv[a++] = "shared";
    argv[a++] = "-o";
    argv[a++] = so;
    argv[a++] = cu;
    if (cublas) argv[a++] = "-lcublas";
    argv[a] = NULL;
}

char *kg_read_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *b = (char *)malloc(cap + 1);
    while (b) {
        if (n == cap) {
            if (cap >= max) break;
            cap *= 2;
            char *nb = (char *)realloc(b, cap + 1);
            if (!nb) { free(b); b = NULL; break; }
            b = nb;
        }
        size_t want = cap - n;
        if (n + want > max) want = max - n;
        size_t got = fread(b + n, 1, want, f);
        n += got;
        if (got == 0 || n >= max) break;
    }
    fclose(f);
    if (!b) return NULL;
    b[n] = 0;
    if (len) *len = n;
    return b;
}

/* A child dies of its own faults: default handlers for the fatal signals
 * (a parent's handlers, e.g. a test framework's, are inherited by fork). */
static void default_signals(void)
{
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
}

static void redirect_output(const char *log_path)
{
    default_signals();
    int fd = open(log_path ? log_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
}

/* Read whole records from fd until EOF or the deadline. Returns 1 on EOF,
 * 0 on timeout. rec_size bytes per record; the last complete one is kept. */
static int read_records(int fd, void *last, size_t rec_size, double deadline, int *got_any,
                        int (*is_final)(const void *), int *got_final)
{
    char *buf = (char *)malloc(rec_size);
    size_t have = 0;
    int eof = 0;
    while (!eof) {
        double left = deadline - now_s();
        if (left <= 0) break;
        struct pollfd pf = {fd, POLLIN, 0};
        int ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
        int r = poll(&pf, 1, ms);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        ssize_t g = read(fd, buf + have, rec_size - have);
        if (g < 0 && errno == EINTR) continue;
        if (g <= 0) { eof = 1; break; }
        have += (size_t)g;
        if (have == rec_size) {
            memcpy(last, buf, rec_size);
            *got_any = 1;
            if (is_final && is_final(buf)) *got_final = 1;
            have = 0;
        }
    }
    free(buf);
    return eof;
}

static void finish_child(pid_t pid, int eof, double deadline, int *timed_out, int *sig,
                         int *code)
{
    int status = 0;
    *timed_out = 0;
    if (!eof) {
        *timed_out = 1;
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    } else {
        /* the pipe closed: the child is exiting; give it until the deadline */
        for (;;) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid) break;
            if (now_s() > deadline) {
                *timed_out = 1;
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                break;
            }
            usleep(2000);
        }
        kill(-pid, SIGKILL);   /* anything the candidate left behind in the group */
    }
    *sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void kg_close_fds_except(int keep1, int keep2)
{
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536) max = 65536;
    for (int fd = 3; fd < max; fd++)
        if (fd != keep1 && fd != keep2) close(fd);
}

static int probe_final(const void *p) { (void)p; return 1; }

typedef struct { kg_probe_fn fn; int device; } probe_ctx;

int kg_probe_device(kg_probe_fn fn, int device, double timeout_s, kg_probe_msg *p)
{
    memset(p, 0, sizeof *p);
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        close(fds[0]);
        redirect_output(NULL);
        fn(device, fds[1]);
        close(fds[1]);
        _exit(0);
    }
    setpgid(pid, pid);
    close(fds[1]);
    double deadline = now_s() + timeout_s;
    int any = 0, fin = 0, to, sig, code;
    int eof = read_records(fds[0], p, sizeof *p, deadline, &any, probe_final, &fin);
    close(fds[0]);
    finish_child(pid, eof, deadline, &to, &sig, &code);
    if (!any) {
        snprintf(p->reason, sizeof p->reason, "the device probe %s",
                 to ? "hung" : "died without an answer");
        p->ok = 0;
        return -1;
    }
    /* a record from another process: terminated strings, sane numbers */
    p->name[sizeof p->name - 1] = 0;
    p->reason[sizeof p->reason - 1] = 0;
    if (p->ok != 0 && p->ok != 1) p->ok = 0;
    if (p->cc_major < 0 || p->cc_major > 99 || p->cc_minor < 0 || p->cc_minor > 9) p->ok = 0;
    if (p->count < 0 || p->count > 64) p->count = p->ok ? 1 : 0;
    return 0;
}

/* ---- compiler output about other files: cut -------------------------------- */

/* The file a diagnostic line is about, or 0 when the line is not one:
 * nvcc/EDG "FILE(LINE): error: ...", gcc and clang "FILE:LINE:COL: error:
 * ...", "In file included from FILE:LINE", EDG's "detected during ... at
 * line N of FILE", a Python traceback's '  File "FILE", line N'. */
static int diag_file(const char *line, size_t n, char *file, size_t flen)
{
    char l[700];
    snprintf(l, sizeof l, "%.*s", (int)(n < 690 ? n : 690), line);
    const char *p;
    if ((p = strstr(l, "File \"")) && !strncmp(l, "  File \"", 8)) {
        const char *q = strchr(p + 6, '"');
        if (q) { snprintf(file, flen, "%.*s", (int)(q - p - 6), p + 6); return 1; }
    }
    if (!strncmp(l, "In file included from ", 22) || !strncmp(l, "                 from ", 22)) {
        const char *s = l + 22, *c = strrchr(s, ':');
        if (c) {
            const char *c2 = c;   /* "FILE:LINE:" or "FILE:LINE," */
            while (c2 > s && (c2[-1] >= '0' && c2[-1] <= '9')) c2--;
            if (c2 > s && c2[-1] == ':') c = c2 - 1;
            snprintf(file, flen, "%.*s", (int)(c - s), s);
            return 1;
        }
    }
    if ((l[0] == ' ' || l[0] == '\t') && (p = strstr(l, " at line ")) && strstr(p, " of ")) {
        /* detected during: ... at line 12 of "x.h" */
        const char *o = strstr(p, " of ");
        const char *s = o + 4;
        while (*s == '"') s++;
        snprintf(file, flen, "%.*s", (int)strcspn(s, "\"\n"), s);
        return 1;
    }
    if (l[0] == ' ' || l[0] == '\t' || !l[0]) return 0;
    /* FILE(LINE): kind */
    const char *par = strstr(l, "): ");
    if (par) {
        const char *open = par;
        while (open > l && *open != '(') open--;
        int digits = open > l && open + 1 < par;
        for (const char *d = open + 1; digits && d < par; d++) digits = *d >= '0' && *d <= '9';
        if (digits && (!strncmp(par + 3, "error", 5) || !strncmp(par + 3, "warning", 7) ||
                       !strncmp(par + 3, "remark", 6) || !strncmp(par + 3, "catastrophic", 12) ||
                       !strncmp(par + 3, "internal", 8) || !strncmp(par + 3, "note", 4))) {
            snprintf(file, flen, "%.*s", (int)(open - l), l);
            return 1;
        }
    }
    /* FILE:LINE:[COL:] kind */
    for (const char *c = strchr(l, ':'); c; c = strchr(c + 1, ':')) {
        const char *d = c + 1;
        if (*d < '0' || *d > '9') continue;
        while (*d >= '0' && *d <= '9') d++;
        if (*d != ':') continue;
        d++;
        if (*d >= '0' && *d <= '9') {
            while (*d >= '0' && *d <= '9') d++;
            if (*d != ':') continue;
            d++;
        }
        while (*d == ' ') d++;
        if (!strncmp(d, "error", 5) || !strncmp(d, "fatal error", 11) || !strncmp(d, "warning", 7) ||
            !strncmp(d, "note", 4)) {
            snprintf(file, flen, "%.*s", (int)(c - l), l);
            return 1;
        }
    }
    return 0;
}

/* The candidate's own file: the name it is shown by, or the scratch copy. */
static int own_file(const char *file, const char *display)
{
    /* the name as the gate's #line writes it (kg_compile_source: quotes,
     * backslashes and control characters become '_') */
    if (display && *display) {
        size_t i = 0;
        for (; display[i] && file[i]; i++) {
            unsigned char d = (unsigned char)display[i];
            char want = (d == '"' || d == '\\' || d < 0x20 || d == 0x7f) ? '_' : (char)d;
            if (file[i] != want && file[i] != (char)d) break;
        }
        if (!display[i] && !file[i]) return 1;
    }
    /* the scratch copy, wherever the scratch folder is (--work): no other
     * file can have the name, the include policy refuses absolute names
     * and .. */
    const char *b = strrchr(file, '/');
    b = b ? b + 1 : file;
    return !strcmp(b, "cand.cu") || !strcmp(b, "cand.src");
}

char *kg_cut_foreign(const char *log, const char *display)
{
    if (!log) return NULL;
    size_t cap = strlen(log) + 1;
    char *out = (char *)malloc(cap + 4096);
    if (!out) return NULL;
    size_t o = 0;
    int cutting = 0;   /* inside a diagnostic about another file: its quoted lines go too */
    char last_cut[300] = "";
    for (const char *p = log; *p;) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        char file[600];
        int is_diag = diag_file(p, n, file, sizeof file);
        int keep;
        if (is_diag) {
            cutting = !own_file(file, display);
            keep = !cutting;
        } else {
            /* a quoted source line, a caret, a continuation ("detected
             * during"), or a line of the compiler's own: it belongs to the
             * diagnostic above when indented */
            int indented = n > 0 && (p[0] == ' ' || p[0] == '\t');
            if (!indented) cutting = 0;
            keep = !cutting;
        }
        if (keep) {
            if (o + n + 2 > cap + 4096) break;
            memcpy(out + o, p, n);
            o += n;
            out[o++] = '\n';
        } else if (is_diag && strcmp(last_cut, file) != 0) {
            /* say where, not what: the name of the other file only */
            char note[800];
            int w = snprintf(note, sizeof note, "%.300s: error or note about this file, not the candidate "
                             "[its text is cut]\n", file);
            if (w > 0 && o + (size_t)w + 1 <= cap + 4096) {
                memcpy(out + o, note, (size_t)w);
                o += (size_t)w;
            }
            snprintf(last_cut, sizeof last_cut, "%.299s", file);
        }
        if (!eol) break;
        p = eol + 1;
    }
    out[o] = 0;
    return out;
}
