/* kgate: screen CUDA kernels (e.g. LLM-generated ones) with two tracks,
 * safely: the code being judged is assumed hostile.
 *
 * What it teaches: how to judge code you did not write without letting it
 * judge itself. A static track reads the candidate's AST (libclang) and
 * rejects what is certainly wrong (P0); the dynamic track compiles it
 * (nvcc -Xptxas -v), runs it in a sandboxed harness process and has a
 * separate judge, which never runs candidate code, compare its outputs with
 * a CPU reference and the judge's own reference implementation, and time it.
 * The static scan, nvcc and the harness each run in a bubblewrap sandbox
 * with resource limits and a seccomp monitor (sandbox.h); verdicts come only
 * from the judge's checks, exit statuses, the monitor's record and the
 * gate's own clocks. Verdicts: P0, L1 compile error, L2 runtime failure (a
 * crash, a hang, a limit, an attempt to leave the sandbox), L3 numeric
 * error, L4 slower than 50% of the reference, PASS, and EXTERNAL for
 * library-only candidates that pass.
 *
 * Build:  make -C 9_Verification/kgate        (bin/kgate, bin/kgate-sandbox, bin/kgate-scan, bin/kgate-harness)
 * Run:    bin/kgate 9_Verification/kgate/corpus                 full gate, labels.tsv found
 *         bin/kgate --static-only 9_Verification/kgate/corpus   no GPU needed
 *         bin/kgate --compile-only ...    static track and nvcc (no GPU)
 *         bin/kgate --dry-run ...         ... and the candidate loaded and called once in the
 *                                         sandbox, without a GPU (sandbox tests)
 *         bin/kgate --task=sgemm my_sgemm.cu --json=report.json
 * Exit: 0 when every candidate is accepted (or, with labels, the gate met
 * its targets), 1 otherwise, on a bad argument or without a working sandbox
 * (unless --no-sandbox), 2 when the full gate has no CUDA device (WAIVED).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dynamic.h"
#include "judge.h"
#include "kg_report.h"
#include "kgate_static.h"
#include "proto.h"
#include "sandbox.h"
#include "tasks.h"

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

/* the device probe lives in judge.cu */
void kg_probe_main(int device, int fd);

#define MAX_CANDS 4096
#define MAX_SOURCE_BYTES (1u << 20)   /* 1 MiB: a bigger file is not a kernel answer */

/* ---- options ----------------------------------------------------------- */

enum { MODE_FULL, MODE_STATIC, MODE_COMPILE, MODE_DRY };

typedef struct {
    const char *task, *json, *labels, *arch, *work, *nvcc;
    int jobs, mode, no_timing, keep, device, no_sandbox;
    double timeout, scan_timeout, compile_timeout;
    unsigned long long seed;
} kg_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kgate [options] PATH...   (PATH: a candidate file or a directory of them)\n"
            "  --task=NAME        task of candidates that do not name one (// kgate-task: NAME)\n"
            "  --labels=FILE      labels (file, task, verdict, defect); default: DIR/labels.tsv\n"
            "  --json=FILE        write the JSON report to FILE\n"
            "  --static-only      only the static track (no GPU needed)\n"
            "  --compile-only     the static track and nvcc (no GPU needed)\n"
            "  --dry-run          ... and load and call each candidate once in the sandbox without\n"
            "                     a GPU (nothing checked: tests of the sandbox)\n"
            "  --no-timing        correctness only (no L4 verdicts)\n"
            "  --jobs=N           candidates in flight: static scans and nvcc compiles run in\n"
            "                     parallel, GPU runs one at a time (default: CPU count / 4, at most 4)\n"
            "  --timeout=SECONDS  limit per candidate's run (default 20)\n"
            "  --scan-timeout=S   limit per static scan (default 30)\n"
            "  --compile-timeout=S limit per nvcc compile (default 120)\n"
            "  --device=N         CUDA device (default 0)\n"
            "  --arch=SM          nvcc architecture, e.g. 90 (default: the device's)\n"
            "  --seed=N           input seed (default 2026)\n"
            "  --work=DIR         keep compiled candidates and logs in DIR\n"
            "  --nvcc=PATH        nvcc to use (default: nvcc on PATH)\n"
            "  --no-sandbox       run the scan, nvcc and candidates WITHOUT the sandbox (UNSAFE:\n"
            "                     only on a machine where bubblewrap cannot work, for code you trust)\n"
            "  --help\n"
            "Environment: KGATE_BWRAP (bubblewrap, default bwrap on PATH), KGATE_SANDBOX_RO (more\n"
            "read-only folders for the sandbox, colon-separated), KGATE_CUDA_PATH, KGATE_CLANG_RESOURCE_DIR.\n"
            "Tasks:\n");
    for (int i = 0; i < kg_task_count(); i++)
        fprintf(f, "  %-13s extern \"C\" %s\n", kg_task_at(i)->name, kg_task_at(i)->signature);
}

static int bad_arg(const char *fmt, const char *a)
{
    fprintf(stderr, "kgate: error: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n(see kgate --help)\n");
    printf("kgate: FAIL (bad argument)\n");
    return 1;
}

static int parse_long(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* Returns the index of the first PATH, or -1 (error printed), or -2 (--help). */
static int parse_args(int argc, char **argv, kg_opts *o)
{
    memset(o, 0, sizeof *o);
    o->timeout = 20;
    o->scan_timeout = 30;
    o->compile_timeout = 120;
    o->seed = 2026;
    o->nvcc = "nvcc";
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    /* each candidate in flight runs nvcc and a libclang scan at once: about
     * two busy cores; more in flight only slows each one down (the H200
     * machine's 16 cores at 8 in flight: median 1.8 s per candidate) */
    o->jobs = ncpu < 4 ? 1 : ncpu / 4 > 4 ? 4 : (int)(ncpu / 4);
    int i = 1;
    for (; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) { i++; break; }
        if (strncmp(a, "--", 2) != 0) break;
        char name[32];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (nl >= sizeof name) { bad_arg("unknown option %s", a); return -1; }
        memcpy(name, a + 2, nl);
        name[nl] = 0;
        static const char *flags[] = {"help", "static-only", "compile-only", "dry-run", "no-timing",
                                      "keep", "no-sandbox"};
        int is_flag = 0;
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) is_flag |= strcmp(name, flags[f]) == 0;
        if (is_flag) {
            if (eq) { bad_arg("option --%s takes no value", name); return -1; }
            if (!strcmp(name, "help")) return -2;
            int m = !strcmp(name, "static-only") ? MODE_STATIC : !strcmp(name, "compile-only") ? MODE_COMPILE
                    : !strcmp(name, "dry-run") ? MODE_DRY : -1;
            if (m >= 0) {
                if (o->mode != MODE_FULL && o->mode != m) {
                    bad_arg("--%s: choose one of --static-only, --compile-only, --dry-run", name);
                    return -1;
                }
                o->mode = m;
            }
            if (!strcmp(name, "no-timing")) o->no_timing = 1;
            if (!strcmp(name, "keep")) o->keep = 1;
            if (!strcmp(name, "no-sandbox")) o->no_sandbox = 1;
            continue;
        }
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else { bad_arg("option %s needs a value", a); return -1; }
        long long v;
        if (!strcmp(name, "task")) {
            if (!kg_task_find(val)) { bad_arg("--task=%s: unknown task (see --help)", val); return -1; }
            o->task = val;
        } else if (!strcmp(name, "labels")) o->labels = val;
        else if (!strcmp(name, "json")) {
            if (!*val) { bad_arg("--json needs a file name%s", ""); return -1; }
            o->json = val;
        } else if (!strcmp(name, "work")) o->work = val;
        else if (!strcmp(name, "nvcc")) o->nvcc = val;
        else if (!strcmp(name, "arch")) {
            if (parse_long(val, 50, 200, &v)) { bad_arg("--arch=%s: expected a number like 90", val); return -1; }
            o->arch = val;
        } else if (!strcmp(name, "jobs")) {
            if (parse_long(val, 1, 64, &v)) { bad_arg("--jobs=%s: expected 1..64", val); return -1; }
            o->jobs = (int)v;
        } else if (!strcmp(name, "device")) {
            if (parse_long(val, 0, 64, &v)) { bad_arg("--device=%s: expected 0..64", val); return -1; }
            o->device = (int)v;
        } else if (!strcmp(name, "seed")) {
            if (parse_long(val, 0, (1LL << 62), &v)) { bad_arg("--seed=%s: expected a non-negative integer", val); return -1; }
            o->seed = (unsigned long long)v;
        } else if (!strcmp(name, "timeout") || !strcmp(name, "scan-timeout") ||
                   !strcmp(name, "compile-timeout")) {
            if (parse_long(val, 1, 3600, &v)) {
                fprintf(stderr, "kgate: error: --%s=%s: expected 1..3600 seconds\n(see kgate --help)\n", name, val);
                printf("kgate: FAIL (bad argument)\n");
                return -1;
            }
            if (!strcmp(name, "timeout")) o->timeout = (double)v;
            else if (!strcmp(name, "scan-timeout")) o->scan_timeout = (double)v;
            else o->compile_timeout = (double)v;
        } else {
            bad_arg("unknown option %s", a);
            return -1;
        }
    }
    if (i >= argc) { bad_arg("no candidate PATH given%s", ""); return -1; }
    return i;
}

/* ---- candidates -------------------------------------------------------- */

static int is_candidate_name(const char *n)
{
    const char *dot = strrchr(n, '.');
    if (!dot || n[0] == '.') return 0;
    return !strcmp(dot, ".cu") || !strcmp(dot, ".md") || !strcmp(dot, ".cuh") ||
           !strcmp(dot, ".cpp");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append the candidates under path; returns -1 on an unreadable path. */
static int collect(const char *path, char **out, int *n, char *labels_guess, size_t lglen)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        if (*n < MAX_CANDS) out[(*n)++] = strdup(path);
        return 0;
    }
    DIR *d = opendir(path);
    if (!d) return -1;
    struct dirent *e;
    int start = *n;
    while ((e = readdir(d)) != NULL) {
        if (!is_candidate_name(e->d_name) || *n >= MAX_CANDS) continue;
        char *p = (char *)malloc(strlen(path) + strlen(e->d_name) + 2);
        sprintf(p, "%s/%s", path, e->d_name);
        out[(*n)++] = p;
    }
    closedir(d);
    qsort(out + start, (size_t)(*n - start), sizeof(char *), cmp_str);
    if (labels_guess[0] == 0) {
        char lp[1024];
        snprintf(lp, sizeof lp, "%s/labels.tsv", path);
        if (access(lp, R_OK) == 0) snprintf(labels_guess, lglen, "%s", lp);
    }
    return 0;
}

/* "// kgate-task: NAME" anywhere in the source */
static const kg_task *task_from_source(const char *src)
{
    const char *p = src ? strstr(src, "kgate-task:") : NULL;
    if (!p) return NULL;
    p += strlen("kgate-task:");
    while (*p == ' ' || *p == '\t') p++;
    char name[32];
    int i = 0;
    while (i < 31 && (p[i] == '_' || (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9'))) {
        name[i] = p[i];
        i++;
    }
    name[i] = 0;
    return kg_task_find(name);
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

static void sanitize(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; i++)
        out[i] = ((in[i] >= 'a' && in[i] <= 'z') || (in[i] >= 'A' && in[i] <= 'Z') ||
                  (in[i] >= '0' && in[i] <= '9') || in[i] == '_' || in[i] == '-') ? in[i] : '_';
    out[i] = 0;
}

/* rm -r of a scratch folder (a few files; no symlinks are followed) */
static void remove_tree(const char *path, int depth)
{
    DIR *d = depth < 8 ? opendir(path) : NULL;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char p[PATH_MAX];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(p, depth + 1);
            else unlink(p);
        }
        closedir(d);
    }
    rmdir(path);
}

/* ---- the pipeline ------------------------------------------------------ */

enum { J_QUEUED, J_FLIGHT, J_READY, J_DONE };

typedef struct {
    char *source;              /* extracted source; NULL once finished */
    const kg_task *task;
    int external, state, slot;
    char dir[1200];            /* the scratch folder, /scratch inside */
    char log[1200], hlog[1200];   /* nvcc's and the harness's output (outside scratch) */
    kg_sb_proc scan, cc, harness;
    int scan_on, cc_on, h_on;
    double scan_deadline, cc_deadline;
    int scan_killed, cc_killed;
    int scan_fd;               /* the scan's record pipe */
    int cmd_w, rep_r, shm_fd;  /* the harness's channels, handed to the judge */
    int h_dead;                /* the harness ended before its session */
    kg_sb_result hrec;
    int static_done, static_ok, compile_done, compile_ok, compile_needs_half;
    int cpp17;                 /* compiling as C++17 (else C++14, retried as 17 on failure) */
    double t0, tc0;
} kg_job;

typedef struct {
    kg_opts *o;
    kg_sandbox *sb;
    char bindir[PATH_MAX], nvcc[PATH_MAX], arch[16];
    int n_allow;
    char allow[KG_SB_EVENTS][160];   /* what CUDA's own start-up did in the sandbox (not the candidate) */
    int harness_no_data;             /* the start-up check needed the harness without RLIMIT_DATA */
    char ctx_line[300];              /* the harness's memory after creating its CUDA context */
} kg_gate;

static int slot_used[64];

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

static double sb_start_s(const kg_sb_result *r) { return r->started ? r->start_ms / 1000.0 : 0.0; }

static int spawn_compile(kg_gate *g, kg_job *j, kg_cand *c)
{
    const char *argv[32];
    char archflag[32], cu[PATH_MAX + 16], so[PATH_MAX + 16];
    const char *d = g->sb->enabled ? "/scratch" : j->dir;
    snprintf(cu, sizeof cu, "%s/cand.cu", d);
    snprintf(so, sizeof so, "%s/cand.so", d);
    kg_compile_argv(g->nvcc, g->arch, cu, so, strstr(j->source, "cublas") != NULL, j->cpp17, argv,
                    archflag, sizeof archflag);
    int lf = open(j->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    kg_sb_spec s;
    memset(&s, 0, sizeof s);
    s.kind = KG_SB_COMPILE;
    s.scratch = j->dir;
    s.scratch_rw = 1;
    s.argv = argv;
    s.out_fd = lf;
    s.slot = j->slot;
    s.lim = kg_default_limits(KG_SB_COMPILE, g->o->compile_timeout);
    int rc = kg_sb_spawn(g->sb, &s, &j->cc);
    if (lf >= 0) close(lf);
    if (rc != 0) {
        snprintf(c->reason, sizeof c->reason, "gate: cannot start nvcc in the sandbox");
        return -1;
    }
    j->cc_on = 1;
    j->cc_killed = 0;
    j->cc_deadline = kg_now() + g->o->compile_timeout;
    return 0;
}

static int spawn_harness(kg_gate *g, kg_job *j)
{
    int cmd[2], rep[2];
    if (pipe2(cmd, O_CLOEXEC) != 0) return -1;
    if (pipe2(rep, O_CLOEXEC) != 0) { close(cmd[0]); close(cmd[1]); return -1; }
    int shm = memfd_create("kgate-shm", MFD_CLOEXEC);
    if (shm < 0 || ftruncate(shm, (off_t)kg_shm_bytes(j->task)) != 0) {
        close(cmd[0]); close(cmd[1]); close(rep[0]); close(rep[1]);
        if (shm >= 0) close(shm);
        return -1;
    }
    char prog[PATH_MAX + 32], dev[32], so[PATH_MAX + 16];
    snprintf(prog, sizeof prog, "%s/kgate-harness", g->bindir);
    snprintf(dev, sizeof dev, "--device=%d", g->o->device);
    snprintf(so, sizeof so, "--so=%s/cand.so", g->sb->enabled ? "/scratch" : j->dir);
    const char *argv[] = {prog, dev, so, g->o->mode == MODE_DRY ? "--dry" : NULL, NULL};
    int lf = open(j->hlog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    kg_sb_spec s;
    memset(&s, 0, sizeof s);
    s.kind = KG_SB_HARNESS;
    s.scratch = j->dir;
    s.argv = argv;
    s.fds[0] = cmd[0];
    s.fds[1] = rep[1];
    s.fds[2] = shm;
    s.n_fds = 3;
    s.out_fd = lf;
    s.slot = j->slot;
    s.lim = kg_default_limits(KG_SB_HARNESS, g->o->timeout);
    if (g->harness_no_data) s.lim.data_bytes = 0;
    int rc = kg_sb_spawn(g->sb, &s, &j->harness);
    if (lf >= 0) close(lf);
    close(cmd[0]);
    close(rep[1]);
    if (rc != 0) {
        close(cmd[1]); close(rep[0]); close(shm);
        return -1;
    }
    j->cmd_w = cmd[1];
    j->rep_r = rep[0];
    j->shm_fd = shm;
    j->h_on = 1;
    return 0;
}

static int spawn_scan(kg_gate *g, kg_job *j, kg_cand *c)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    char prog[PATH_MAX + 16], src[PATH_MAX + 16];
    snprintf(prog, sizeof prog, "%s/kgate-scan", g->bindir);
    snprintf(src, sizeof src, "%s/cand.src", g->sb->enabled ? "/scratch" : j->dir);
    const char *argv[] = {prog, src, c->name, NULL};
    char e1[PATH_MAX + 16], e2[PATH_MAX + 32], e3[PATH_MAX + 32];
    snprintf(e1, sizeof e1, "KGATE_NVCC=%s", g->nvcc);
    snprintf(e2, sizeof e2, "KGATE_CUDA_PATH=%s", g->sb->cuda_path);
    const char *rd = getenv("KGATE_CLANG_RESOURCE_DIR");
    snprintf(e3, sizeof e3, "KGATE_CLANG_RESOURCE_DIR=%s", rd ? rd : "");
    kg_sb_spec s;
    memset(&s, 0, sizeof s);
    s.kind = KG_SB_SCAN;
    s.scratch = j->dir;
    s.argv = argv;
    s.fds[0] = p[1];
    s.n_fds = 1;
    s.out_fd = -1;
    s.slot = j->slot;
    s.lim = kg_default_limits(KG_SB_SCAN, g->o->scan_timeout);
    s.env[s.n_env++] = e1;
    s.env[s.n_env++] = e2;
    if (rd && *rd) s.env[s.n_env++] = e3;
    int rc = kg_sb_spawn(g->sb, &s, &j->scan);
    close(p[1]);
    if (rc != 0) {
        close(p[0]);
        return -1;
    }
    j->scan_fd = p[0];
    j->scan_on = 1;
    j->scan_deadline = kg_now() + g->o->scan_timeout;
    return 0;
}

/* Violations the candidate made (what CUDA's own start-up does is allowed). */
static int violations(const kg_gate *g, const kg_sb_result *r, char *buf, size_t len)
{
    kg_sb_result f = *r;
    int n = 0;
    for (int i = 0; i < KG_SB_EVENTS; i++) {
        if (!f.is_violation[i]) continue;
        for (int k = 0; k < g->n_allow; k++)
            if (!strcmp(f.events[i], g->allow[k])) f.is_violation[i] = 0;
        n += f.is_violation[i];
    }
    kg_sb_describe(&f, 0, buf, len);
    return n;
}

/* The scan's record arrived (or its sandbox ended). */
static void static_result(kg_gate *g, kg_job *j, kg_cand *c)
{
    kg_sb_result rec;
    kg_sb_wait(&j->scan, kg_now() + 5, &rec);
    j->scan_on = 0;
    c->t_static = kg_now() - j->t0;
    c->t_sandbox += sb_start_s(&rec);
    j->static_done = 1;
    kg_static_msg m;
    memset(&m, 0, sizeof m);
    int fl = fcntl(j->scan_fd, F_GETFL);
    fcntl(j->scan_fd, F_SETFL, fl | O_NONBLOCK);
    ssize_t got = read(j->scan_fd, &m, sizeof m);
    close_fd(&j->scan_fd);
    if (got != (ssize_t)sizeof m || !kg_static_msg_valid(&m)) {
        char end[200];
        kg_sb_ending(&rec, NULL, end, sizeof end);
        kg_limits lim = kg_default_limits(KG_SB_SCAN, g->o->scan_timeout);
        kg_sb_ending(&rec, &lim, end, sizeof end);
        c->verdict = KG_V_L1;
        if (j->scan_killed)
            snprintf(c->reason, sizeof c->reason, "static track stopped: no result within the %.0f s limit "
                     "(a preprocessor or template bomb?)", g->o->scan_timeout);
        else if (got > 0 && got != (ssize_t)sizeof m)
            snprintf(c->reason, sizeof c->reason, "static track failed: a truncated record");
        else if (got == (ssize_t)sizeof m)
            snprintf(c->reason, sizeof c->reason, "static track failed: a malformed record");
        else
            snprintf(c->reason, sizeof c->reason, "static track stopped: %s%s%s", end,
                     rec.stub_msg[0] ? "; " : "", rec.stub_msg);
        return;
    }
    memcpy(c->rules, m.rules, sizeof c->rules);
    c->rules[sizeof c->rules - 1] = 0;
    c->n_p0 = m.n_p0;
    c->n_p1 = m.n_p1;
    c->n_p2 = m.n_p2;
    if (m.rc != 0) {
        c->verdict = KG_V_L1;
        snprintf(c->reason, sizeof c->reason, "static track failed: %.300s", m.parse_error);
    } else if (m.worst == KG_P0) {
        c->verdict = KG_V_P0;
        snprintf(c->reason, sizeof c->reason, "%.390s", m.reason);
    } else if (g->o->mode == MODE_STATIC) {
        c->verdict = KG_V_STATIC_OK;
        snprintf(c->reason, sizeof c->reason, "no P0 rule hit%s%.300s", m.parsed ? "" : "; parse: ",
                 m.parsed ? "" : m.parse_error);
    } else if (!j->task) {
        c->verdict = KG_V_L1;
        snprintf(c->reason, sizeof c->reason,
                 "unknown task: add '// kgate-task: NAME', a labels entry or --task");
    } else if (m.needs_half && !j->compile_needs_half) {
        c->verdict = KG_V_L1;   /* cannot happen: needs_half implies "half" */
        snprintf(c->reason, sizeof c->reason, "gate: the half-header fix was not applied");
    } else {
        j->static_ok = 1;
        j->external = m.is_external;
    }
}

/* nvcc's sandbox ended. */
static void compile_result(kg_gate *g, kg_job *j, kg_cand *c)
{
    kg_sb_result rec;
    kg_sb_wait(&j->cc, kg_now() + 5, &rec);
    j->cc_on = 0;
    c->t_sandbox += sb_start_s(&rec);
    int ok = rec.exit_code == 0 && rec.term_signal == 0;
    char so[PATH_MAX + 16];
    snprintf(so, sizeof so, "%s/cand.so", j->dir);
    if (ok && access(so, R_OK) != 0) ok = 0;
    if (!ok && !j->cpp17 && !j->cc_killed && rec.term_signal == 0 && rec.exit_code > 0 && rec.exit_code < 126) {
        /* the fast C++14 compile failed: the verdict is C++17's */
        j->cpp17 = 1;
        if (spawn_compile(g, j, c) == 0) return;
    }
    c->t_compile = kg_now() - j->tc0;
    j->compile_done = 1;
    char *log = kg_read_file(j->log, 1u << 20, NULL);
    kg_parse_ptxas(log, &c->ptx);
    if (!ok) {
        kg_limits lim = kg_default_limits(KG_SB_COMPILE, g->o->compile_timeout);
        char end[200], first_err[300];
        kg_sb_ending(&rec, &lim, end, sizeof end);
        kg_first_error(log, first_err, sizeof first_err);
        if (j->cc_killed)
            snprintf(c->reason, sizeof c->reason, "compile stopped: no result within the %.0f s limit",
                     g->o->compile_timeout);
        else if (rec.term_signal && rec.term_signal != SIGKILL)
            snprintf(c->reason, sizeof c->reason, "compile stopped: %s", end);
        else if (!rec.started)
            snprintf(c->reason, sizeof c->reason, "gate: nvcc did not start in the sandbox: %.300s",
                     rec.stub_msg[0] ? rec.stub_msg : first_err);
        else
            snprintf(c->reason, sizeof c->reason, "compile error: %.300s", first_err[0] ? first_err : end);
    } else {
        j->compile_ok = 1;
        c->compiled = 1;
    }
    free(log);
}

/* The verdict of a run, from trusted sources only: the judge's record, the
 * harness sandbox's record (its exit, its signal, what it tried) and the
 * gate's own knowledge. */
static void compose(kg_gate *g, kg_job *j, kg_cand *c, const kg_judge_msg *m, int session_rc)
{
    kg_sb_result *h = &j->hrec;
    char viol[400] = "", all[400] = "", end[200];
    kg_limits lim = kg_default_limits(KG_SB_HARNESS, g->o->timeout);
    int nv = violations(g, h, viol, sizeof viol);
    kg_sb_describe(h, 1, all, sizeof all);
    snprintf(c->sandbox, sizeof c->sandbox, "%s", all);
    kg_sb_ending(h, &lim, end, sizeof end);
    c->cand_ms_mid = m->cand_ms_mid;
    c->ref_ms_mid = m->ref_ms_mid;
    c->cand_ms_large = m->cand_ms_large;
    c->ref_ms_large = m->ref_ms_large;
    c->t_judge = m->t_io;
    const char *stage = m->stage[0] ? m->stage : "starting";
    if (nv > 0) {
        c->verdict = KG_V_L2;
        snprintf(c->reason, sizeof c->reason, "tried to leave its sandbox: %.300s", viol);
    } else if (session_rc != 0) {
        c->verdict = KG_V_L2;
        snprintf(c->reason, sizeof c->reason, "%.390s", m->detail);
    } else if (m->lost) {
        c->verdict = KG_V_L2;
        if (m->timed_out) {
            char mem[120] = "";
            if (h->maxrss_kb > 0 && lim.data_bytes &&
                (unsigned long long)h->maxrss_kb * 1024ULL >= lim.data_bytes / 10 * 8)
                snprintf(mem, sizeof mem, " (peak memory %.1f GiB of the %.1f GiB limit)",
                         (double)h->maxrss_kb / 1048576.0, (double)lim.data_bytes / 1073741824.0);
            snprintf(c->reason, sizeof c->reason, "hang: killed after the %.0f s limit while %.96s%s",
                     g->o->timeout, stage, mem);
        }
        else if (!strncmp(m->detail, "protocol violation", 18))
            snprintf(c->reason, sizeof c->reason, "%.390s", m->detail);   /* what it sent says most */
        else if (h->term_signal && h->term_signal != SIGKILL)
            snprintf(c->reason, sizeof c->reason, "crash: the candidate's process died of %s while %.96s",
                     end, stage);
        else if (h->exit_code >= 0 && !h->term_signal)
            snprintf(c->reason, sizeof c->reason, "the candidate's process exited (code %d) without a "
                     "result while %.96s", h->exit_code, stage);
        else
            snprintf(c->reason, sizeof c->reason, "%.390s", m->detail);
    } else {
        c->verdict = m->verdict;
        snprintf(c->reason, sizeof c->reason, "%.390s", m->detail);
        int clean = h->term_signal == 0 && h->exit_code == 0;
        if (!clean && !kg_verdict_is_stop(c->verdict)) {
            c->verdict = KG_V_L2;
            snprintf(c->reason, sizeof c->reason, "the candidate's process did not end cleanly after "
                     "its checks: %s", end);
        }
    }
    if (c->verdict == KG_V_PASS && j->external) {
        size_t l = strlen(c->reason);
        c->verdict = KG_V_EXTERNAL;
        snprintf(c->reason + l, sizeof c->reason - l, "; library-only (cuBLAS/CUB calls, no kernel)");
    }
}

/* Run the harness's session with the judge, then collect the harness. */
static void run_candidate(kg_gate *g, kg_judge_proc *jp, kg_job *j, kg_cand *c, int task_index)
{
    kg_judge_msg m;
    memset(&m, 0, sizeof m);
    int rc = -1;
    double t0 = kg_now();
    if (j->h_dead || !j->h_on) {
        snprintf(m.detail, sizeof m.detail, "gate: the candidate's process ended before its run");
        m.lost = 1;
    } else {
        kg_session_req q;
        memset(&q, 0, sizeof q);
        q.magic = KG_SESSION_MAGIC;
        q.task = task_index;
        q.seed = g->o->seed;
        q.no_timing = g->o->no_timing;
        q.dry = g->o->mode == MODE_DRY;
        q.timeout_s = g->o->timeout;
        rc = kg_judge_session(jp, &q, j->cmd_w, j->rep_r, j->shm_fd, &m);
        /* the judge holds its own copies: without ours the harness sees EOF when the judge is done */
        close_fd(&j->cmd_w);
        close_fd(&j->rep_r);
        close_fd(&j->shm_fd);
    }
    c->t_run = kg_now() - t0;
    if (j->h_on && !j->h_dead) {
        if (m.lost || rc != 0) kg_sb_kill(&j->harness);
        kg_sb_wait(&j->harness, kg_now() + 3, &j->hrec);
        j->h_on = 0;
    }
    c->t_sandbox += sb_start_s(&j->hrec);
    compose(g, j, c, &m, rc);
    if (rc != 0 || m.judge_failed) {
        kg_judge_stop(jp);
        if (g->o->mode == MODE_FULL || g->o->mode == MODE_DRY) kg_judge_start(jp, kg_judge_main, g->o->device, g->o->mode == MODE_DRY);
    }
}

/* Stop whatever still runs for a candidate decided without its run. */
static void stop_job(kg_job *j)
{
    kg_sb_result r;
    if (j->cc_on) { kg_sb_kill(&j->cc); kg_sb_wait(&j->cc, kg_now() + 3, &r); j->cc_on = 0; }
    if (j->scan_on) { kg_sb_kill(&j->scan); kg_sb_wait(&j->scan, kg_now() + 3, &r); j->scan_on = 0; }
    if (j->h_on) { kg_sb_kill(&j->harness); kg_sb_wait(&j->harness, kg_now() + 3, &r); j->h_on = 0; }
    close_fd(&j->scan_fd);
    close_fd(&j->cmd_w);
    close_fd(&j->rep_r);
    close_fd(&j->shm_fd);
}

/* At start: the harness's own sandbox must reach the GPU. A sandboxed
 * harness creates its context and answers one PING; what CUDA's start-up
 * does there (reported by the monitor) is not held against candidates. */
static int harness_selftest(kg_gate *g, char *why, size_t len)
{
    char dir[] = "/tmp/kgate_probe_XXXXXX";
    if (!mkdtemp(dir)) { snprintf(why, len, "mkdtemp: %s", strerror(errno)); return -1; }
    kg_job j;
    memset(&j, 0, sizeof j);
    j.task = kg_task_at(0);
    j.slot = 0;
    snprintf(j.dir, sizeof j.dir, "%s", dir);
    snprintf(j.hlog, sizeof j.hlog, "%s.log", dir);
    chmod(dir, 0755);
    int rc = -1;
    if (spawn_harness(g, &j) == 0) {
        kg_cmd c;
        memset(&c, 0, sizeof c);
        c.magic = KG_CMD_MAGIC;
        c.op = KG_OP_PING;
        c.seq = 1;
        kg_rep r;
        if (kg_write_all(j.cmd_w, &c, sizeof c) == 0 && kg_read_exact(j.rep_r, &r, sizeof r, kg_now() + 60) == 0 &&
            kg_rep_valid(&r, 1, NULL, 0))
            rc = 0;
        /* LOAD reports the context; it fails on the missing .so after the context is checked */
        c.op = KG_OP_LOAD;
        c.seq = 2;
        if (rc == 0 && kg_write_all(j.cmd_w, &c, sizeof c) == 0 &&
            kg_read_exact(j.rep_r, &r, sizeof r, kg_now() + 60) == 0 && kg_rep_valid(&r, 2, NULL, 0) &&
            r.status == KG_ST_NO_DEVICE) {
            snprintf(why, len, "the sandboxed harness has no CUDA context: %s", r.text);
            rc = -1;
        }
        close_fd(&j.cmd_w);
        close_fd(&j.rep_r);
        close_fd(&j.shm_fd);
        kg_sb_result rec;
        kg_sb_wait(&j.harness, kg_now() + 10, &rec);
        if (rc != 0 && !why[0]) {
            char end[200];
            kg_sb_ending(&rec, NULL, end, sizeof end);
            snprintf(why, len, "the sandboxed harness did not answer (%.100s%s%.100s); see %.100s", end,
                     rec.stub_msg[0] ? ", " : "", rec.stub_msg, j.hlog);
        }
        for (int i = 0; i < KG_SB_EVENTS && rec.events[i][0]; i++)
            if (rec.is_violation[i] && g->n_allow < KG_SB_EVENTS)
                snprintf(g->allow[g->n_allow++], sizeof g->allow[0], "%s", rec.events[i]);
        /* the harness's own line about its context (no candidate ran: trusted) */
        char *log = kg_read_file(j.hlog, 1 << 16, NULL);
        char *ctx = log ? strstr(log, "kgate-harness: context") : NULL;
        if (ctx) {
            ctx[strcspn(ctx, "\n")] = 0;
            snprintf(g->ctx_line, sizeof g->ctx_line, "%.290s", ctx + 15);
        }
        free(log);
    } else {
        snprintf(why, len, "cannot start the harness in the sandbox");
    }
    remove_tree(dir, 0);
    if (rc == 0) unlink(j.hlog);
    return rc;
}

static void resolve_nvcc(const char *nvcc, char *out, size_t len)
{
    if (strchr(nvcc, '/')) {
        if (real_path_into(nvcc, out, len) != 0) snprintf(out, len, "%s", nvcc);
        return;
    }
    const char *path = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char c[PATH_MAX + 64];
        snprintf(c, sizeof c, "%s/%s", d, nvcc);
        if (access(c, X_OK) == 0) {
            if (real_path_into(c, out, len) != 0) snprintf(out, len, "%.1000s", c);
            return;
        }
    }
    snprintf(out, len, "%.1000s", nvcc);
}

int main(int argc, char **argv)
{
    kg_opts o;
    int first = parse_args(argc, argv, &o);
    if (first == -2) { usage(stdout); return 0; }
    if (first < 0) return 1;
    double wall0 = kg_now();
    signal(SIGPIPE, SIG_IGN);

    char **paths = (char **)calloc(MAX_CANDS, sizeof(char *));
    int n = 0;
    char labels_path[1024] = "";
    if (o.labels) snprintf(labels_path, sizeof labels_path, "%s", o.labels);
    for (int i = first; i < argc; i++)
        if (collect(argv[i], paths, &n, labels_path, sizeof labels_path) != 0)
            return bad_arg("cannot read %s", argv[i]);
    if (n == 0) return bad_arg("no candidates (.cu, .cuh, .cpp, .md) under the given PATH%s", "");

    kg_label *labels = (kg_label *)calloc(MAX_CANDS, sizeof(kg_label));
    int n_labels = 0;
    if (labels_path[0]) {
        char *text = kg_read_file(labels_path, 4u << 20, NULL);
        char err[256];
        if (!text) return bad_arg("--labels: cannot read %s", labels_path);
        n_labels = kg_labels_parse(text, labels, MAX_CANDS, err, sizeof err);
        free(text);
        if (n_labels < 0) {
            fprintf(stderr, "kgate: error: %s: %s\n", labels_path, err);
            printf("kgate: FAIL (bad labels file)\n");
            return 1;
        }
    }

    /* The sandbox first: without one (and without --no-sandbox) nothing runs. */
    kg_gate g;
    memset(&g, 0, sizeof g);
    g.o = &o;
    static kg_sandbox sb;
    g.sb = &sb;
    char self[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) { fprintf(stderr, "kgate: error: cannot find my own binary\n"); return 1; }
    self[sl] = 0;
    snprintf(g.bindir, sizeof g.bindir, "%.*s", (int)(strrchr(self, '/') - self), self);
    resolve_nvcc(o.nvcc, g.nvcc, sizeof g.nvcc);
    char err[600];
    if (kg_sandbox_setup(&sb, g.bindir, o.no_sandbox, err, sizeof err) != 0) {
        fprintf(stderr, "kgate: error: no sandbox: %s\n", err);
        printf("kgate: FAIL (no sandbox: %s; --no-sandbox runs without one, UNSAFE)\n", err);
        return 1;
    }
    {
        char nv_root[PATH_MAX];
        snprintf(nv_root, sizeof nv_root, "%s", g.nvcc);
        for (int k = 0; k < 2; k++) {
            char *s = strrchr(nv_root, '/');
            if (s && s != nv_root) *s = 0;
        }
        kg_sandbox_add_ro(&sb, nv_root);
    }
    if (!sb.enabled) {
        fprintf(stderr, "kgate: WARNING: --no-sandbox: candidates, nvcc and the static scan run "
                        "WITHOUT a sandbox, as this user, with this user's files, environment and "
                        "network. Only for code you trust.\n");
        printf("# WARNING: NO SANDBOX (--no-sandbox): UNSAFE for candidates you did not write\n");
    }
    printf("# sandbox: %s\n", sb.desc);
    kg_report_partial_last = o.mode == MODE_STATIC ? KG_V_P0 : KG_V_L1;

    /* The device, in a child: the gate itself never touches CUDA. */
    kg_probe_msg probe;
    memset(&probe, 0, sizeof probe);
    snprintf(g.arch, sizeof g.arch, "%s", o.arch ? o.arch : "90");
    if (o.mode == MODE_FULL) {
        if (kg_probe_device(kg_probe_main, o.device, 60, &probe) != 0 || !probe.ok) {
            printf("kgate: WAIVED (%s; --static-only or --compile-only run without a GPU)\n",
                   probe.reason[0] ? probe.reason : "no CUDA device");
            return 2;
        }
        if (!o.arch) snprintf(g.arch, sizeof g.arch, "%d%d", probe.cc_major, probe.cc_minor);
        printf("# device %d: %s, CC %d.%d, %d SMs; candidates built for sm_%s\n", o.device,
               probe.name, probe.cc_major, probe.cc_minor, probe.sm_count, g.arch);
        /* the sandbox must let the harness reach the GPU; if it does not,
         * relax one thing at a time and say so */
        char why[400] = "", why2[400] = "";
        if (harness_selftest(&g, why, sizeof why) != 0) {
            int fixed = 0;
            if (sb.enabled) {
                g.harness_no_data = 1;   /* CUDA may need more than the data limit */
                g.n_allow = 0;
                fixed = harness_selftest(&g, why2, sizeof why2) == 0;
                if (fixed)
                    printf("# sandbox: WARNING: CUDA needed more than the harness's data limit (%s): the "
                           "harness runs without RLIMIT_DATA (the CPU, file and process limits stay)\n", why);
            }
            if (!fixed && sb.enabled && sb.as_root && sb.drop_uid) {
                sb.drop_uid = 0;         /* the GPU nodes may not be open to an unprivileged uid */
                g.n_allow = 0;
                why2[0] = 0;
                fixed = harness_selftest(&g, why2, sizeof why2) == 0;
                if (fixed)
                    printf("# sandbox: WARNING: the GPU device nodes refuse an unprivileged uid (%s): "
                           "candidates run as uid 0 without capabilities and without RLIMIT_DATA (weaker)\n", why);
            }
            if (!fixed) {
                printf("kgate: FAIL (the sandbox keeps the harness from the GPU: %s; fix the sandbox "
                       "(KGATE_SANDBOX_RO, device nodes) or run --no-sandbox, UNSAFE)\n", why);
                return 1;
            }
        }
        if (g.ctx_line[0]) printf("# sandbox: the harness's %s\n", g.ctx_line);
        if (g.n_allow) {
            printf("# sandbox: CUDA's own start-up in the sandbox did:");
            for (int k = 0; k < g.n_allow; k++) printf("%s %s", k ? ";" : "", g.allow[k]);
            printf(" (not held against candidates)\n");
        }
    }
    fflush(stdout);

    char workdir[1024];
    int own_work = 0;
    if (o.work) {
        snprintf(workdir, sizeof workdir, "%.1000s", o.work);
        mkdir(workdir, 0755);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(workdir, sizeof workdir, "%s/kgate.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(workdir)) {
            fprintf(stderr, "kgate: error: cannot create a work folder: %s\n", strerror(errno));
            return 1;
        }
        own_work = 1;
    }
    chmod(workdir, 0711);

    kg_judge_proc jp;
    memset(&jp, 0, sizeof jp);
    jp.pid = -1;
    jp.sock = -1;
    if ((o.mode == MODE_FULL || o.mode == MODE_DRY) && kg_judge_start(&jp, kg_judge_main, o.device, o.mode == MODE_DRY) != 0) {
        fprintf(stderr, "kgate: error: cannot start the judge\n");
        return 1;
    }

    kg_cand *cands = (kg_cand *)calloc((size_t)n, sizeof(kg_cand));
    kg_job *jobs = (kg_job *)calloc((size_t)n, sizeof(kg_job));
    for (int i = 0; i < n; i++) {
        kg_cand *c = &cands[i];
        snprintf(c->path, sizeof c->path, "%s", paths[i]);
        const char *base = strrchr(paths[i], '/');
        snprintf(c->name, sizeof c->name, "%s", base ? base + 1 : paths[i]);
        c->expected = -1;
        c->verdict = -1;
        const kg_label *lab = kg_labels_find(labels, n_labels, c->name);
        if (lab) {
            c->expected = lab->expected;
            snprintf(c->defect, sizeof c->defect, "%s", lab->defect);
        }
        jobs[i].scan_fd = jobs[i].cmd_w = jobs[i].rep_r = jobs[i].shm_fd = -1;
        jobs[i].slot = -1;
    }

    /* One pipeline per candidate, --jobs candidates in flight: nvcc and the
     * harness (creating its CUDA context, then waiting) start first, the
     * static scan at the same time, each in its sandbox; when the scan
     * passes and the compile succeeds the candidate is ready, and ready
     * candidates run on the GPU one at a time (the judge serves one session
     * at a time: timings stay clean). A new candidate is admitted only while
     * no candidate waits for the GPU, so queueing does not inflate anyone's
     * latency. Per-candidate total = wall time from the start of its
     * processing to its verdict. */
    int next = 0, in_flight = 0, n_done = 0, printed = 0;
    while (n_done < n) {
        /* ---- admit ---- */
        int n_ready = 0;
        for (int i = 0; i < next; i++) n_ready += jobs[i].state == J_READY;
        while (in_flight < o.jobs && next < n && n_ready == 0) {
            int i = next++;
            kg_cand *c = &cands[i];
            kg_job *j = &jobs[i];
            const kg_label *lab = kg_labels_find(labels, n_labels, c->name);
            j->t0 = kg_now();
            j->state = J_FLIGHT;
            in_flight++;
            for (int s = 0; s < 64; s++)
                if (!slot_used[s]) { slot_used[s] = 1; j->slot = s; break; }
            char lerr[256] = "";
            j->source = kg_load_candidate(paths[i], MAX_SOURCE_BYTES, lerr, sizeof lerr);
            j->task = o.task ? kg_task_find(o.task) : NULL;
            if (!j->task && j->source) j->task = task_from_source(j->source);
            if (!j->task && lab) j->task = kg_task_find(lab->task);
            snprintf(c->task, sizeof c->task, "%s", j->task ? j->task->name : "?");
            if (!j->source) {
                c->verdict = KG_V_L1;
                snprintf(c->reason, sizeof c->reason, "not a candidate: %s", lerr[0] ? lerr : "unreadable");
                c->t_static = kg_now() - j->t0;
                j->static_done = j->compile_done = 1;
                continue;
            }
            /* the include policy, before anything opens the file's includes */
            char why[300];
            int iline = 0;
            if (kg_include_check(j->source, why, sizeof why, &iline)) {
                c->verdict = KG_V_P0;
                snprintf(c->reason, sizeof c->reason, "KG-INCLUDE at line %d: %s", iline, why);
                snprintf(c->rules, sizeof c->rules, "KG-INCLUDE(P0)@%d", iline);
                c->n_p0 = 1;
                c->t_static = kg_now() - j->t0;
                j->static_done = j->compile_done = 1;
                continue;
            }
            char nm[160];
            sanitize(c->name, nm, sizeof nm);
            snprintf(j->dir, sizeof j->dir, "%s/%03d_%s", workdir, i % 1000, nm);
            snprintf(j->log, sizeof j->log, "%s/%03d_%s.nvcc.log", workdir, i % 1000, nm);
            snprintf(j->hlog, sizeof j->hlog, "%s/%03d_%s.run.log", workdir, i % 1000, nm);
            char src[PATH_MAX + 16], cu[PATH_MAX + 16];
            snprintf(src, sizeof src, "%s/cand.src", j->dir);
            snprintf(cu, sizeof cu, "%s/cand.cu", j->dir);
            /* the compile, on the source the static track would fix: the only
             * auto-fix (cuda_fp16.h for __half/half2 users) is applied whenever
             * "half" appears (a second include is harmless) */
            kg_static_result fix;
            memset(&fix, 0, sizeof fix);
            fix.needs_half_header = strstr(j->source, "half") != NULL;
            j->compile_needs_half = fix.needs_half_header;
            char *csrc = kg_static_fixed_source(j->source, &fix);
            if (mkdir(j->dir, 0755) != 0 || !csrc || write_text(src, j->source) != 0 ||
                write_text(cu, csrc) != 0) {
                c->verdict = KG_V_L1;
                snprintf(c->reason, sizeof c->reason, "gate: cannot write %.300s", j->dir);
                free(csrc);
                j->static_done = j->compile_done = 1;
                continue;
            }
            free(csrc);
            unsigned cuid = kg_sandbox_uid(&sb, j->slot, KG_SB_COMPILE);
            if (cuid && chown(j->dir, cuid, cuid) != 0) {
                fprintf(stderr, "kgate: warning: chown %s: %s\n", j->dir, strerror(errno));
            }
            if (o.mode != MODE_STATIC && j->task) {
                j->tc0 = kg_now();
                j->cpp17 = kg_needs_cpp17(j->source);
                if (spawn_compile(&g, j, c) != 0) j->compile_done = 1;
                else if ((o.mode == MODE_FULL || o.mode == MODE_DRY) && spawn_harness(&g, j) != 0)
                    j->h_dead = 1;
            } else {
                j->compile_done = 1;
            }
            if (spawn_scan(&g, j, c) != 0) {
                c->verdict = KG_V_L1;
                snprintf(c->reason, sizeof c->reason, "gate: cannot start the static scan in the sandbox");
                j->static_done = 1;
            }
        }

        /* ---- settle candidates whose static scan and compile are both done ---- */
        for (int i = 0; i < next; i++) {
            kg_job *j = &jobs[i];
            kg_cand *c = &cands[i];
            if (j->state != J_FLIGHT) continue;
            if (!j->static_done) continue;
            if (c->verdict < 0 && j->static_ok && !j->compile_done) continue;
            if (c->verdict < 0 && j->static_ok) {
                if (!j->compile_ok) {
                    c->verdict = KG_V_L1;
                    if (!c->reason[0]) snprintf(c->reason, sizeof c->reason, "compile error");
                } else if (o.mode == MODE_COMPILE) {
                    c->verdict = KG_V_STATIC_OK;
                    snprintf(c->reason, sizeof c->reason, "static track and compile passed (not run)");
                } else {
                    j->state = J_READY;
                    continue;
                }
            }
            /* decided without the GPU: stop what still runs for it */
            stop_job(j);
            if (c->verdict < 0) c->verdict = KG_V_L1;
            c->t_total = kg_now() - j->t0;
            j->state = J_DONE;
            in_flight--;
            n_done++;
        }

        /* ---- the GPU: the first ready candidate, one at a time ---- */
        int gpu = -1;
        for (int i = 0; i < next && gpu < 0; i++)
            if (jobs[i].state == J_READY) gpu = i;
        if (gpu >= 0) {
            kg_cand *c = &cands[gpu];
            kg_job *j = &jobs[gpu];
            int ti = 0;
            for (int k = 0; k < kg_task_count(); k++)
                if (kg_task_at(k) == j->task) ti = k;
            run_candidate(&g, &jp, j, c, ti);
            stop_job(j);
            c->t_total = kg_now() - j->t0;
            j->state = J_DONE;
            in_flight--;
            n_done++;
        } else if (n_done < n && in_flight > 0) {
            /* ---- wait for a scan, a compile, a harness that ended early, or a deadline ---- */
            struct pollfd pf[3 * 64];
            int who[3 * 64], what[3 * 64], np = 0;
            double now = kg_now(), soonest = now + 1.0;
            for (int i = 0; i < next && np < 3 * 64 - 3; i++) {
                kg_job *j = &jobs[i];
                if (j->state != J_FLIGHT) continue;
                if (j->scan_on) {
                    pf[np] = (struct pollfd){j->scan.res_fd, POLLIN, 0}; who[np] = i; what[np++] = 0;
                    if (!j->scan_killed && j->scan_deadline < soonest) soonest = j->scan_deadline;
                }
                if (j->cc_on) {
                    pf[np] = (struct pollfd){j->cc.res_fd, POLLIN, 0}; who[np] = i; what[np++] = 1;
                    if (!j->cc_killed && j->cc_deadline < soonest) soonest = j->cc_deadline;
                }
                if (j->h_on && !j->h_dead) {
                    pf[np] = (struct pollfd){j->harness.res_fd, POLLIN, 0}; who[np] = i; what[np++] = 2;
                }
            }
            int ms = (int)((soonest - now) * 1000) + 1;
            if (ms < 1) ms = 1;
            int pr = poll(pf, (nfds_t)np, ms);
            if (pr < 0 && errno != EINTR) {
                fprintf(stderr, "kgate: internal error: poll: %s\n", strerror(errno));
                return 1;
            }
            for (int k = 0; pr > 0 && k < np; k++) {
                if (!pf[k].revents) continue;
                kg_job *j = &jobs[who[k]];
                kg_cand *c = &cands[who[k]];
                if (what[k] == 0 && j->scan_on) static_result(&g, j, c);
                else if (what[k] == 1 && j->cc_on) compile_result(&g, j, c);
                else if (what[k] == 2 && j->h_on) {
                    /* the harness ended before its run: nothing of the candidate ran yet */
                    kg_sb_wait(&j->harness, kg_now() + 3, &j->hrec);
                    j->h_on = 0;
                    j->h_dead = 1;
                }
            }
            now = kg_now();
            for (int i = 0; i < next; i++) {
                kg_job *j = &jobs[i];
                if (j->state != J_FLIGHT) continue;
                if (j->scan_on && !j->scan_killed && now > j->scan_deadline) {
                    j->scan_killed = 1;
                    kg_sb_kill(&j->scan);
                }
                if (j->cc_on && !j->cc_killed && now > j->cc_deadline) {
                    j->cc_killed = 1;
                    kg_sb_kill(&j->cc);
                }
            }
        }

        /* ---- print finished candidates in order ---- */
        while (printed < n && jobs[printed].state == J_DONE) {
            kg_cand *c = &cands[printed];
            kg_job *j = &jobs[printed];
            kg_print_candidate(stdout, c);
            fflush(stdout);
            free(j->source);
            j->source = NULL;
            if (j->slot >= 0) slot_used[j->slot] = 0;
            j->slot = -1;
            if (!o.keep && !o.work && j->dir[0]) {
                remove_tree(j->dir, 0);
                unlink(j->log);
                unlink(j->hlog);
            }
            printed++;
        }
    }
    kg_judge_stop(&jp);
    if (own_work && !o.keep) rmdir(workdir);

    kg_summary s;
    kg_summarize(cands, n, kg_now() - wall0, &s);
    kg_print_summary(stdout, &s);
    static const char *const mode_name[] = {"full", "static-only", "compile-only", "dry-run"};
    if (o.json) {
        FILE *f = fopen(o.json, "w");
        kg_run_info info = {sb.desc, o.mode == MODE_FULL ? probe.name : "none (no GPU run)", g.arch,
                            o.mode == MODE_FULL && o.no_timing ? "no-timing" : mode_name[o.mode], o.seed};
        if (!f || kg_write_json(f, &info, cands, n, &s) != 0 || fclose(f) != 0) {
            fprintf(stderr, "kgate: error: cannot write --json=%s\n", o.json);
            printf("kgate: FAIL (cannot write the JSON report)\n");
            return 1;
        }
        printf("JSON report: %s\n", o.json);
    }

    /* The closing line. With labels: the gate's targets; a partial run
     * (static, compile, dry): no good candidate rejected and every bad one
     * whose defect those stages can see stopped; without labels: every
     * candidate accepted. */
    int ok;
    char why[200];
    if (s.n_labeled > 0 && o.mode != MODE_FULL) {
        int missed = 0;
        int last = o.mode == MODE_STATIC ? KG_V_P0 : KG_V_L1;
        for (int i = 0; i < n; i++)
            if (cands[i].expected >= KG_V_P0 && cands[i].expected <= last &&
                !kg_verdict_is_stop(cands[i].verdict))
                missed++;
        ok = s.good_stopped == 0 && missed == 0;
        snprintf(why, sizeof why, "%d good candidate(s) rejected, %d bad one(s) this stage should stop "
                 "passed", s.good_stopped, missed);
    } else if (s.n_labeled > 0) {
        ok = (s.bad == 0 || s.interception >= 0.95) && (s.good == 0 || s.false_kill <= 0.02);
        snprintf(why, sizeof why, "interception %.1f%% (target >= 95%%), false kills %.1f%% (target <= 2%%)",
                 100.0 * s.interception, 100.0 * s.false_kill);
    } else {
        int stopped = 0;
        for (int i = 0; i < n; i++) stopped += kg_verdict_is_stop(cands[i].verdict);
        ok = stopped == 0;
        snprintf(why, sizeof why, "%d of %d candidate(s) stopped", stopped, n);
    }
    printf("kgate: %s (%s)\n", ok ? "PASS" : "FAIL", why);
    for (int i = 0; i < n; i++) free(paths[i]);
    free(paths);
    free(labels);
    free(cands);
    free(jobs);
    return ok ? 0 : 1;
}
