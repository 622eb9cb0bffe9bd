/* kbgate.c: the gate's KernelBench mode (kbgate.h; README.md, "KernelBench
 * problems"). For each problem and candidate:
 *
 *   1. the static pass (ast_rules.py CANDIDATE --json, in the scan's sandbox):
 *      a P0 finding stops the candidate;
 *   2. the build: the candidate imported in the compile sandbox, so that its
 *      load_inline builds into its own scratch folder (no GPU there, so for
 *      the architectures kb_set_arch chose: --arch, else the GPU's); beside
 *      it, the reference's runner starts in a sandbox of its own and runs the
 *      problem's Model: its output described (dtype, shape, bytes), then
 *      its timed batches;
 *   3. the candidate's runner (a third sandbox, the scratch read-only):
 *      the clock's allowance is measured before any candidate code is
 *      loaded, then the candidate is loaded from what the build made, checked
 *      on the 5 trials (each run by both runners, in turn first; KernelBench's
 *      allclose, shapes and dtypes equal, the outputs compared slice by slice
 *      while both runners hold them) and timed by the judge's clock on the
 *      same inputs as the reference.
 *
 * The clock. One timed batch is PREP (K input sets from seeds the gate draws,
 * off the clock) then, on the clock, RUN (K calls queued back to back and a
 * device-wide synchronize in the runner) and DIGEST (every call's whole
 * output dotted with a random vector drawn from a seed the gate sends only
 * after RUN's answer). The clock stops when the digests arrive; they must match the
 * reference's, and producing them takes every element of every output, so
 * work still running at the answer, or a call skipped, is done on the clock
 * or shows. After the clock of 6 of the 12 batches, drawn in secret, one
 * call, drawn then, is kept (KEEP) and, after the last batch (the batches
 * run back to back, as the reference's), compared whole (slice by slice,
 * against the reference's output for its inputs, made again). K is about
 * 8 ms of the reference's work (two looks: a batch of one call, then of K).
 * The figure per call is (interval - allowance + charge) / K, the least of
 * the 10 batches after 2 of warm-up: the allowance is the same interval
 * with null calls, measured before the candidate is loaded (never more than
 * the reference's); the charge is whatever the candidate's PREP took beyond
 * the larger of what its runner took before the candidate was loaded and
 * what the reference's took for the same inputs (work hidden in the
 * preparation). While a timed section runs, the other candidates' builds
 * are held (stopped).
 * KernelBench's own figure (its cuda_event method: CUDA events on the
 * current stream around each call, the L2 flushed before it; 3 warm-up
 * calls, 100 timed) is reported beside it, for information only.
 * Steps 2 and 3 for one pair (the runners' commands, the trials, the
 * clock) are kb_judge.c's; the report (each pair's lines, the JSON, the time
 * summary) kb_report.c's; the types they share, kb_internal.h's. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "candidates.h"
#include "kbgate.h"
#include "kg_report.h"
#include "setup.h"

#include "kb_internal.h"
#include "sandbox_host.h"



/* ---- a runner and its protocol ---- */

int kb_send(kb_runner *r, const char *fmt, ...)
{
    char line[KB_LINE_MAX + 2];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof line - 2) return -1;
    line[n++] = '\n';
    return kg_write_all(r->cmd_w, line, (size_t)n);
}

/* The next reply: its line, then its bytes when it has bytes=N (at most
 * max_bytes, else a protocol violation). -1 with err on a timeout, a closed
 * pipe or a malformed reply. */
int kb_recv(kb_runner *r, double deadline, kb_reply *rep, char **data, long long max_bytes, char *err,
            size_t errlen)
{
    if (data) *data = NULL;
    for (;;) {
        char *nl = memchr(r->buf, '\n', r->have);
        if (nl) {
            *nl = 0;
            int pr = kb_parse_reply(r->buf, rep, err, errlen);
            size_t used = (size_t)(nl - r->buf) + 1;
            memmove(r->buf, nl + 1, r->have - used);
            r->have -= used;
            if (pr != 0) return -1;
            break;
        }
        if (r->have >= KB_LINE_MAX) { snprintf(err, errlen, "a reply line longer than %d bytes", KB_LINE_MAX); return -1; }
        double left = deadline - kg_now();
        if (left <= 0) { snprintf(err, errlen, "no answer in time"); errno = ETIMEDOUT; return -1; }
        struct pollfd pf = {r->rep_r, POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        ssize_t got = read(r->rep_r, r->buf + r->have, KB_LINE_MAX - r->have);
        if (got <= 0) { snprintf(err, errlen, "the runner ended (its reply pipe closed)"); return -1; }
        r->have += (size_t)got;
    }
    if (rep->nbytes < 0) return 0;
    if (!data || rep->nbytes > max_bytes) {
        snprintf(err, errlen, "a reply of %lld bytes where %s", rep->nbytes,
                 data ? "fewer were expected" : "none were expected");
        return -1;
    }
    char *d = malloc((size_t)rep->nbytes + 1);
    if (!d) { snprintf(err, errlen, "gate: out of memory for %lld bytes", rep->nbytes); return -1; }
    size_t from_buf = r->have < (size_t)rep->nbytes ? r->have : (size_t)rep->nbytes;
    memcpy(d, r->buf, from_buf);
    memmove(r->buf, r->buf + from_buf, r->have - from_buf);
    r->have -= from_buf;
    if ((long long)from_buf < rep->nbytes &&
        kg_read_exact(r->rep_r, d + from_buf, (size_t)rep->nbytes - from_buf, deadline) != 0) {
        free(d);
        snprintf(err, errlen, "%lld bytes announced, fewer came in time", rep->nbytes);
        return -1;
    }
    *data = d;
    return 0;
}

static int kb_spawn_runner(kg_gate *g, kb_runner *r, const char *dir, const char *log, int slot)
{
    int cmd[2], rep[2];
    memset(r, 0, sizeof *r);
    r->cmd_w = r->rep_r = -1;
    if (pipe2(cmd, O_CLOEXEC) != 0) return -1;
    if (pipe2(rep, O_CLOEXEC) != 0) { close(cmd[0]); close(cmd[1]); return -1; }
    char script[PATH_MAX + 32], dev[32];
    snprintf(script, sizeof script, "%s", g->kb_runner);
    snprintf(dev, sizeof dev, "--device=%d", g->o->n_dev_req ? g->o->dev_req[0] : 0);
    const char *argv[] = {g->torch_python, script, "--serve", dev, NULL};
    snprintf(r->log, sizeof r->log, "%s", log);
    int lf = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    kg_sb_spec s;
    memset(&s, 0, sizeof s);
    s.kind = KG_SB_HARNESS;
    s.scratch = dir;
    s.argv = argv;
    s.fds[0] = cmd[0];
    s.fds[1] = rep[1];
    s.n_fds = 2;
    s.out_fd = lf;
    s.slot = slot;
    s.lim = kg_default_limits(KG_SB_HARNESS, g->o->timeout);
    s.lim.cpu_s = g->o->torch_timeout;   /* PyTorch's import and the inputs, made on the CPU */
    s.startup_mark = 1;
    static char cuda[PATH_MAX + 16];
    snprintf(cuda, sizeof cuda, "CUDA_HOME=%s", g->cuda_home);
    s.env[s.n_env++] = cuda;
    s.env[s.n_env++] = "OMP_NUM_THREADS=1";
    s.env[s.n_env++] = "MKL_NUM_THREADS=1";
    s.env[s.n_env++] = "PYTHONDONTWRITEBYTECODE=1";
    s.env[s.n_env++] = "PYTHONNOUSERSITE=1";
    if (g->torch_path_env[0]) s.env[s.n_env++] = g->torch_path_env;
    int rc = kg_sb_spawn(g->sb, &s, &r->p);
    if (lf >= 0) close(lf);
    close(cmd[0]);
    close(rep[1]);
    if (rc != 0) { close(cmd[1]); close(rep[0]); return -1; }
    r->cmd_w = cmd[1];
    r->rep_r = rep[0];
    r->on = 1;
    return 0;
}

/* End a runner: QUIT, then its record (killed when it does not end within
 * wait_s; 0: at once, a runner that did not answer in time). */
static void kb_end_runner(kb_runner *r, kg_sb_result *rec, double wait_s)
{
    memset(rec, 0, sizeof *rec);
    if (!r->on) return;
    kb_send(r, "QUIT");
    close_fd(&r->cmd_w);
    if (wait_s <= 0) kg_sb_kill(&r->p);
    kg_sb_wait(&r->p, kg_now() + wait_s, rec);
    close_fd(&r->rep_r);
    r->on = 0;
}

/* The violations in a record (the start-up's events are tagged, never
 * counted). like: the reference runner's record, or NULL: what the same
 * runner did there too (PyTorch's or CUDA's lazy start-up at a first call)
 * is not the candidate's doing. */
static int kb_violations(const kg_gate *g, const kg_sb_result *rec, const kg_sb_result *like, char *buf, size_t len)
{
    kg_sb_result f = *rec;
    int n = 0;
    for (int i = 0; i < KG_SB_EVENTS; i++) {
        for (int k = 0; k < g->torch_allow_n; k++)
            if (f.is_violation[i] && !strcmp(f.events[i], g->torch_allow[k])) f.is_violation[i] = 0;
        for (int k = 0; like && k < KG_SB_EVENTS; k++)
            if (f.is_violation[i] && like->events[k][0] && !strcmp(f.events[i], like->events[k])) f.is_violation[i] = 0;
        n += f.is_violation[i];
    }
    buf[0] = 0;
    if (n) kg_sb_describe(&f, 0, buf, len);
    return n;
}

/* ---- files ---- */

/* A regular file, never a link, at most max bytes. */
static char *kb_read_regular(const char *path, size_t max, char *err, size_t errlen)
{
    struct stat st, st2;
    if (lstat(path, &st) != 0) { snprintf(err, errlen, "cannot read it: %s", strerror(errno)); return NULL; }
    if (!S_ISREG(st.st_mode)) { snprintf(err, errlen, "not a regular file (a link, a folder, a device)"); return NULL; }
    if ((size_t)st.st_size > max) { snprintf(err, errlen, "larger than %zu bytes", max); return NULL; }
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st2) != 0 || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev) {
        if (fd >= 0) close(fd);
        snprintf(err, errlen, "changed while it was opened");
        return NULL;
    }
    char *b = malloc((size_t)st2.st_size + 1);
    ssize_t got = b ? read(fd, b, (size_t)st2.st_size) : -1;
    close(fd);
    if (!b || got != st2.st_size) { free(b); snprintf(err, errlen, "short read"); return NULL; }
    b[got] = 0;
    return b;
}

/* ---- the static pass (ast_rules.py FILE --json) ---- */

/* The string or number after "key": inside [p, end) */
static int json_field(const char *p, const char *end, const char *key, char *out, size_t len)
{
    char pat[40];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    size_t pl = strlen(pat);
    for (const char *q = p; q + pl < end; q++) {
        if (memcmp(q, pat, pl)) continue;
        q += pl;
        while (q < end && (*q == ' ' || *q == ':')) q++;
        size_t o = 0;
        if (q < end && *q == '"') {
            for (q++; q < end && *q != '"'; q++) {
                if (*q == '\\' && q + 1 < end) q++;
                if (o + 1 < len) out[o++] = *q;
            }
        } else {
            while (q < end && (isalnum((unsigned char)*q) || *q == '-' || *q == '.') && o + 1 < len) out[o++] = *q++;
        }
        out[o] = 0;
        return 0;
    }
    return -1;
}

/* Every innermost {...} object of the static pass's JSON that has a "rule":
 * its findings (strings are skipped while braces are matched). */
static void kb_parse_findings(const char *text, kb_result *res)
{
    const char *open = NULL;
    int in_str = 0;
    for (const char *q = text; *q; q++) {
        if (in_str) {
            if (*q == '\\' && q[1]) q++;
            else if (*q == '"') in_str = 0;
            continue;
        }
        if (*q == '"') { in_str = 1; continue; }
        if (*q == '{') { open = q; continue; }
        if (*q != '}' || !open) continue;
        const char *close = q;
        char rule[48] = "", sev[8] = "";
        if (json_field(open, close, "rule", rule, sizeof rule) != 0) { open = NULL; continue; }
        json_field(open, close, "severity", sev, sizeof sev);
        if (!strcmp(sev, "P0")) res->n_p0++;
        if (res->n_find < 8) {
            kb_finding *f = &res->find[res->n_find++];
            char line[16] = "";
            snprintf(f->rule, sizeof f->rule, "%s", rule);
            snprintf(f->sev, sizeof f->sev, "%.3s", sev);
            json_field(open, close, "line", line, sizeof line);
            f->line = atoi(line);
            json_field(open, close, "reason", f->reason, sizeof f->reason);
            json_field(open, close, "fix", f->fix, sizeof f->fix);
        }
        open = NULL;
    }
}

static void kb_static_pass(kg_gate *g, kb_result *res, const char *dir, const char *log, int slot)
{
    if (!g->kb_rules[0]) return;
    char script[PATH_MAX];
    snprintf(script, sizeof script, "%s", g->kb_rules);
    const char *argv[] = {g->torch_python, script, "/scratch/cand.py", "--json", "--problem=/scratch/problem.py", NULL};
    int lf = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    kg_sb_spec s;
    memset(&s, 0, sizeof s);
    s.kind = KG_SB_SCAN;
    s.scratch = dir;
    s.argv = argv;
    s.out_fd = lf;
    s.slot = slot;
    s.lim = kg_default_limits(KG_SB_SCAN, g->o->scan_timeout);
    s.env[s.n_env++] = "PYTHONDONTWRITEBYTECODE=1";
    kg_sb_proc p;
    kg_sb_result rec;
    int rc = kg_sb_spawn(g->sb, &s, &p);
    if (lf >= 0) close(lf);
    if (rc != 0 || kg_sb_wait(&p, kg_now() + KG_WALL_FACTOR * g->o->scan_timeout, &rec) < 0 || !rec.started) {
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: the static pass did not run in its sandbox");
        return;
    }
    char *text = kg_read_file(log, 1 << 20, NULL);
    if (text) kb_parse_findings(text, res);
    free(text);
    if (rec.exit_code == 1 || res->n_p0) {
        res->verdict = KG_V_P0;
        const kb_finding *f = NULL;
        for (int i = 0; i < res->n_find && !f; i++)
            if (!strcmp(res->find[i].sev, "P0")) f = &res->find[i];
        if (f) snprintf(res->reason, sizeof res->reason, "%s at line %d: %s; fix: %s", f->rule, f->line, f->reason, f->fix);
        else snprintf(res->reason, sizeof res->reason, "the static pass rejected it (exit 1) without a P0 finding it could read");
    } else if (rec.exit_code != 0) {
        char end[200];
        kg_sb_ending(&rec, &s.lim, end, sizeof end);
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: the static pass failed (%s); see %.300s", end, log);
    }
}

/* ---- the build (the compile sandbox) ---- */

static void kb_build(kg_gate *g, kb_result *res, const char *dir, const char *log, int slot)
{
    char arch[80], cuda[PATH_MAX + 16];
    snprintf(arch, sizeof arch, "--arch=%s", g->arch_list);
    snprintf(cuda, sizeof cuda, "CUDA_HOME=%s", g->cuda_home);
    const char *argv[] = {g->torch_python, g->kb_runner, "--build", "/scratch/cand.py", "/scratch/ext", arch, NULL};
    int lf = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    kg_sb_spec s;
    memset(&s, 0, sizeof s);
    s.kind = KG_SB_COMPILE;
    s.scratch = dir;
    s.scratch_rw = 1;
    s.argv = argv;
    s.out_fd = lf;
    s.slot = slot;
    s.lim = kg_default_limits(KG_SB_COMPILE, g->o->torch_timeout);
    s.env[s.n_env++] = cuda;
    s.env[s.n_env++] = "MAX_JOBS=2";
    s.env[s.n_env++] = "PYTHONDONTWRITEBYTECODE=1";
    s.env[s.n_env++] = "PYTHONNOUSERSITE=1";
    if (g->torch_path_env[0]) s.env[s.n_env++] = g->torch_path_env;
    kg_sb_proc p;
    kg_sb_result rec;
    int rc = kg_sb_spawn(g->sb, &s, &p);
    if (lf >= 0) close(lf);
    double wall = KG_WALL_FACTOR * g->o->torch_timeout;
    int w = rc == 0 ? kg_sb_wait(&p, kg_now() + wall, &rec) : -1;
    char *text = kg_read_file(log, 1 << 22, NULL);
    const char *be = text ? strstr(text, "KGATE_BUILD_ERROR: ") : NULL;
    /* the runner's own failure (an empty or malformed --arch, no PyTorch):
     * trusted only before KGATE_BUILD_START, which it prints before the
     * candidate's code runs, so that a candidate cannot claim one */
    const char *ee = text ? strstr(text, "KGATE_ENV_ERROR: ") : NULL;
    const char *bs = text ? strstr(text, "KGATE_BUILD_START: ") : NULL;
    if (ee && bs && bs < ee) ee = NULL;
    char why[400];
    if (rc != 0 || w < 0 || !rec.started) {
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: the build did not run in its sandbox");
    } else if (ee && w == 1 && rec.exit_code == 3) {
        char first[300];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(ee + 17, "\n"), ee + 17);
        kg_text_escape(first, 280, why, sizeof why);
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: the build could not start: %s", why);
    } else if (kb_violations(g, &rec, NULL, why, sizeof why)) {
        res->verdict = KG_V_L2;
        snprintf(res->reason, sizeof res->reason, "build: an attempt to leave the sandbox: %s", why);
    } else if (w == 0 || rec.exit_code != 0) {
        char end[200];
        kg_sb_ending(&rec, &s.lim, end, sizeof end);
        res->verdict = KG_V_L1;
        if (be) {
            char first[300];
            snprintf(first, sizeof first, "%.*s", (int)strcspn(be + 19, "\n"), be + 19);
            kg_text_escape(first, 280, why, sizeof why);
            snprintf(res->reason, sizeof res->reason, "build: %s", why);
        } else {
            snprintf(res->reason, sizeof res->reason, "build: %s%s; see %.300s", end,
                     w == 0 ? " (stopped at its time limit)" : "", log);
        }
    }
    free(text);
}

/* ---- one pair, start to end ---- */

/* Copy a problem or candidate into a scratch folder. What a sandbox left at
 * dst (the build's scratch is the candidate's to write: a link to a host
 * file, say) is removed first and never followed. */
static int kb_copy_in(const char *src, const char *dst, char *err, size_t errlen)
{
    char *text = kb_read_regular(src, 1u << 20, err, errlen);
    if (!text) return -1;
    unlink(dst);
    int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    size_t len = strlen(text);
    int rc = fd >= 0 && write(fd, text, len) == (ssize_t)len ? 0 : -1;
    if (fd >= 0 && close(fd) != 0) rc = -1;
    free(text);
    if (rc) snprintf(err, errlen, "cannot write %.200s", dst);
    return rc;
}

/* The candidate's scratch folder: work/NNN_cand */
static void kb_cand_dir(const char *work, int idx, char *dir, size_t len)
{
    snprintf(dir, len, "%.900s/%03d_cand", work, idx % 1000);
}

/* Before the GPU (in a build worker, beside other candidates' builds): the
 * copies, the static pass, then the build. res->verdict stays -1 when the
 * candidate goes on to its runs. slot: the worker's own (its sandboxes' uids). */
static void kb_prebuild(kg_gate *g, kb_result *res, const char *work, int idx, int slot)
{
    res->t_start = kg_now();
    res->verdict = -1;
    char dir[PATH_MAX], log[PATH_MAX + 32], err[300];
    kb_cand_dir(work, idx, dir, sizeof dir);
    mkdir(dir, 0755);
    char p1[PATH_MAX + 16], p2[PATH_MAX + 16];
    snprintf(p1, sizeof p1, "%s/cand.py", dir);
    snprintf(p2, sizeof p2, "%s/problem.py", dir);
    if (kb_copy_in(res->cand_path, p1, err, sizeof err) != 0) {
        res->verdict = KG_V_L1;
        snprintf(res->reason, sizeof res->reason, "not a candidate: %s", err);
        return;
    }
    if (kb_copy_in(res->prob_path, p2, err, sizeof err) != 0) {
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: the problem %.200s: %s", res->prob_path, err);
        return;
    }
    unsigned cuid = kg_sandbox_uid(g->sb, slot, KG_SB_COMPILE);
    if (cuid && chown(dir, cuid, cuid) != 0) fprintf(stderr, "kgate: warning: chown %s: %s\n", dir, strerror(errno));
    snprintf(log, sizeof log, "%s.static.log", dir);
    kb_static_pass(g, res, dir, log, slot);
    if (res->verdict >= 0) return;   /* stopped by the static pass: no build */
    snprintf(log, sizeof log, "%s.build.log", dir);
    res->build_t0 = kg_now();
    kb_build(g, res, dir, log, slot);
    res->build_t1 = kg_now();
}

/* The builds' process: kb_prebuild for every candidate in order, at most
 * jobs at a time, each in a worker process of its own (the results go to
 * res, shared memory); the index of each one finished is written to wfd.
 * The GPU part writes to rfd how many candidates it has finished: the
 * builds stay at most 2 x jobs candidates ahead of it, so that a candidate's
 * seconds (its start to its verdict) are its own, not a queue's. */
static void kb_builder(kg_gate *g, kb_result *res, int n, const char *work, int jobs, int wfd, int rfd)
{
    pid_t pid[KB_MAX_BUILDS] = {0};
    int who[KB_MAX_BUILDS], next = 0, running = 0, judged = 0;
    while (next < n || running) {
        while (running < jobs && next < n && next < judged + 2 * jobs) {
            int j = 0;
            while (pid[j]) j++;
            pid_t p = fork();
            if (p == 0) {
                close(wfd);
                close(rfd);
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                kb_prebuild(g, &res[next], work, next, 2 + j);   /* slots 0 and 1: the runners */
                kg_sb_reap_lingering(1);
                _exit(0);
            }
            if (p < 0) {
                res[next].verdict = KG_V_SKIPPED;
                res[next].skipped_gate = 1;
                snprintf(res[next].reason, sizeof res[next].reason, "gate: cannot start its build: %s", strerror(errno));
                if (write(wfd, &next, sizeof next) != sizeof next) _exit(1);
                next++;
                continue;
            }
            pid[j] = p;
            who[j] = next++;
            running++;
        }
        /* the GPU part's progress (waiting for it when nothing builds), then the workers that ended */
        struct pollfd pf = {rfd, POLLIN, 0};
        if (poll(&pf, 1, running ? 100 : -1) > 0) {
            int k;
            ssize_t got = read(rfd, &k, sizeof k);
            if (got == (ssize_t)sizeof k && k > judged) judged = k;
            else if (got == 0) judged = n;   /* the GPU part is gone: the workers are waited for below */
        }
        int st;
        pid_t w;
        while (running && (w = waitpid(-1, &st, WNOHANG)) > 0) {
            for (int j = 0; j < jobs; j++) {
                if (pid[j] != w) continue;
                kb_result *r = &res[who[j]];
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                    r->verdict = KG_V_SKIPPED;
                    r->skipped_gate = 1;
                    snprintf(r->reason, sizeof r->reason, "gate: its build's process ended abnormally (status %d)", st);
                }
                if (write(wfd, &who[j], sizeof who[j]) != sizeof who[j]) _exit(1);
                pid[j] = 0;
                running--;
            }
        }
    }
}

/* ---- the builds held while the judge's clock runs ----
 * A build is a compiler at full speed on whatever cores it gets; at nice 19
 * it still shares the runners' caches, memory bandwidth and hyperthreads,
 * and it runs its candidate's code (the import that calls load_inline),
 * which must not run beside another candidate's clock. On the H200's host the
 * median of a runner's ten timed batches was above their least by 1.3% (the
 * median over the corpus) and 8.3% at most with up to six builds beside the
 * clock, 0.9% and 5.2% with eight held. So while a timed section runs
 * (kb_judge says when), every process of the builds is stopped (SIGSTOP:
 * the builds' process first, so that it starts no new build, then all it
 * started, sandboxes included), and continued after (SIGCONT). A held build
 * loses wall time only: its limits are CPU seconds, and wall time four
 * times those. */
static pid_t kb_builds_pid;   /* the builds' process (0: none) */
static int kb_builds_held;
static double kb_hold_t0;
double kb_hold_seconds;

void kb_builds_hold(int on)
{
    enum { MAXP = 4096 };
    static pid_t t[MAXP], stopped[MAXP];
    if (!kb_builds_pid || !on == !kb_builds_held) return;
    if (on) {
        /* again until a pass finds none not yet stopped (one that forked as /proc was read) */
        int ns = 0;
        for (int pass = 0; pass < 8; pass++) {
            int m = kg_proc_tree(kb_builds_pid, t, MAXP), fresh = 0;
            for (int i = 0; i < m; i++) {
                int seen = 0;
                for (int j = 0; j < ns && !seen; j++) seen = stopped[j] == t[i];
                if (seen || kill(t[i], SIGSTOP) != 0) continue;
                if (ns < MAXP) stopped[ns++] = t[i];
                fresh++;
            }
            if (!fresh) break;
        }
        kb_hold_t0 = kg_now();
    } else {
        int m = kg_proc_tree(kb_builds_pid, t, MAXP);   /* a stopped process neither forks nor leaves the tree */
        for (int i = 0; i < m; i++) kill(t[i], SIGCONT);
        kb_hold_seconds += kg_now() - kb_hold_t0;
    }
    kb_builds_held = on;
}

/* Start the reference's runner of res's problem (its own scratch folder,
 * work/NNN_ref, NNN: the problem's first candidate). */
static void kb_ref_start(kg_gate *g, kb_ref *rs, const kb_result *res, const char *work, int idx)
{
    char rdir[PATH_MAX], p3[PATH_MAX + 16], log[PATH_MAX + 32], err[300];
    snprintf(rdir, sizeof rdir, "%.900s/%03d_ref", work, idx % 1000);
    mkdir(rdir, 0755);
    snprintf(p3, sizeof p3, "%s/problem.py", rdir);
    snprintf(log, sizeof log, "%s.run.log", rdir);
    rs->loaded = rs->second = 0;
    rs->start_failed = kb_copy_in(res->prob_path, p3, err, sizeof err) != 0 || kb_spawn_runner(g, &rs->r, rdir, log, 1) != 0;
    if (!rs->start_failed) rs->started++;
}

/* End the reference's runner; its record is kept for the candidates' checks,
 * and what the sandbox refused it is noted on res (the candidate judged last). */
static void kb_ref_end(kg_gate *g, kb_ref *rs, kb_result *res)
{
    kg_sb_result rec;
    if (!rs->r.on) return;
    kb_end_runner(&rs->r, &rec, rs->r.hung ? 0 : 5);
    rs->loaded = 0;
    if (!rec.magic) return;
    rs->rec = rec;
    rs->have_rec = 1;
    char why[400];
    /* what the reference's runner did that the sandbox refused: the runner's or
     * PyTorch's own doing, allowed to the candidates too; said, for the record */
    if (kb_violations(g, &rec, NULL, why, sizeof why)) {
        size_t l = strlen(res->notes);
        snprintf(res->notes + l, sizeof res->notes - l, "the reference's runner did (allowed to both): %.200s", why);
    }
}

/* On the GPU, one candidate at a time: its runner, the reference's (rs,
 * started for its problem), the judge. */
static void kb_gpu_part(kg_gate *g, kb_result *res, const char *work, int idx, kb_ref *rs)
{
    char dir[PATH_MAX], p2[PATH_MAX + 16], log[PATH_MAX + 32], err[300];
    kb_cand_dir(work, idx, dir, sizeof dir);
    snprintf(p2, sizeof p2, "%s/problem.py", dir);
    if (rs->start_failed || !rs->r.on) {
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: cannot start the reference's runner");
        return;
    }
    /* the problem again: the build ran the candidate's code with its scratch writable */
    if (kb_copy_in(res->prob_path, p2, err, sizeof err) != 0) {
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: the problem %.200s: %s", res->prob_path, err);
        return;
    }
    kb_runner cr;
    memset(&cr, 0, sizeof cr);
    snprintf(log, sizeof log, "%s.run.log", dir);
    if (kb_spawn_runner(g, &cr, dir, log, 0) != 0) {
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: cannot start the candidate's runner");
        return;
    }
    kb_judge(g, res, rs, &cr);
    kb_builds_hold(0);   /* its timed sections are over (kb_judge held the builds for each) */
    kg_sb_result crec;
    kb_end_runner(&cr, &crec, cr.hung ? 0 : 5);
    char why[400];
    /* an attempt to leave the sandbox stops the candidate whatever else it did;
     * what the reference's runner did too is not the candidate's doing, so an
     * event not allowed outright is checked against the reference's record
     * (the runner is ended for it, and a new one starts for the next) */
    if (crec.magic && kb_violations(g, &crec, NULL, why, sizeof why)) {
        kb_ref_end(g, rs, res);
        if (kb_violations(g, &crec, rs->have_rec ? &rs->rec : NULL, why, sizeof why)) {
            res->verdict = KG_V_L2;
            snprintf(res->reason, sizeof res->reason, "an attempt to leave the sandbox: %s", why);
        }
    }
    if (res->verdict == KG_V_L2 && crec.magic && (crec.mem_oom || crec.term_signal || (crec.exit_code != 0 && crec.exit_code != -1))) {
        char end[200];
        kg_sb_ending(&crec, NULL, end, sizeof end);
        size_t l = strlen(res->reason);
        snprintf(res->reason + l, sizeof res->reason - l, " (%s)", end);
    }
}

/* ---- the mode ---- */

/* The architectures the builds are for (g->arch, g->arch_list; main.c fills
 * them only after the devices, which this mode does not probe): --arch=LIST,
 * else the GPU's own as the probe saw it (probe_arch, "" when none), else
 * 90. The compile sandbox has no GPU, so PyTorch must be told. from: why
 * these, for the header. */
static void kb_set_arch(kg_gate *g, const char *probe_arch, const char *probe_why, char *from, size_t len)
{
    int dev = g->o->n_dev_req ? g->o->dev_req[0] : 0;
    if (g->o->arch) {   /* checked by the command line */
        kg_arch_set(g, g->o->arch);
        snprintf(from, len, "--arch");
    } else if (probe_arch[0]) {   /* checked by kb_main */
        kg_arch_set(g, probe_arch);
        snprintf(from, len, "device %d's compute capability, as PyTorch sees it", dev);
    } else {
        kg_arch_set(g, "90");
        char w[240];
        kg_text_escape(probe_why[0] ? probe_why : "no GPU visible to PyTorch", 200, w, sizeof w);
        snprintf(from, len, "the default: device %d's architecture is not known (%s); --arch=LIST names others",
                 dev, w);
    }
}

static int kb_probe(kg_gate *g, char *arch, size_t alen, char *arch_why, size_t wlen)
{
    char dev[32];
    snprintf(dev, sizeof dev, "--device=%d", g->o->n_dev_req ? g->o->dev_req[0] : 0);
    const char *argv[] = {g->o->python, g->kb_runner, "--probe", dev, NULL};
    static char out[16384];
    arch[0] = arch_why[0] = 0;
    int rc = run_capture(argv, 120, out, sizeof out);
    g->torch_ok = 0;
    snprintf(g->torch_why, sizeof g->torch_why, "no PyTorch for %s", g->o->python);
    if (rc < 0 || rc == 127) snprintf(g->torch_why, sizeof g->torch_why, "no Python at %s (--python=PATH)", g->o->python);
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "ok=1", 4)) g->torch_ok = 1;
        else if (!strncmp(l, "why=", 4)) snprintf(g->torch_why, sizeof g->torch_why, "%.280s", l + 4);
        else if (!strncmp(l, "version=", 8)) snprintf(g->torch_version, sizeof g->torch_version, "%.60s", l + 8);
        else if (!strncmp(l, "python=", 7)) snprintf(g->torch_python, sizeof g->torch_python, "%.1000s", l + 7);
        else if (!strncmp(l, "ro=", 3)) kg_sandbox_add_ro(g->sb, l + 3);
        else if (!strncmp(l, "arch=", 5)) snprintf(arch, alen, "%.7s", l + 5);
        else if (!strncmp(l, "arch_why=", 9)) snprintf(arch_why, wlen, "%.200s", l + 9);
        else if (!strncmp(l, "mem=", 4)) kb_gpu_mem = atoll(l + 4) > 0 ? atoll(l + 4) : 0;
    }
    if (!g->torch_python[0]) g->torch_ok = 0;
    if (g->torch_ok) {
        char pbin[PATH_MAX];
        snprintf(pbin, sizeof pbin, "%s", g->torch_python);
        char *sl = strrchr(pbin, '/');
        if (sl) *sl = 0;
        snprintf(g->torch_path_env, sizeof g->torch_path_env, "PATH=%.1000s:%.2000s", pbin, g->sb->path_env);
    }
    return g->torch_ok ? 0 : -1;
}

/* The pairs: one problem and candidates, or DIR/problems and DIR/candidates. */
static int kb_collect(kg_gate *g, kb_result *res, int max, char *labels_path, size_t lplen)
{
    const char *kb = g->o->kernelbench;
    struct stat st;
    int n = 0;
    if (lstat(kb, &st) != 0) { bad_arg("--kernelbench=%s: cannot read it", kb); return -1; }
    if (S_ISDIR(st.st_mode)) {
        char cdir[PATH_MAX];
        snprintf(cdir, sizeof cdir, "%.3000s/candidates", kb);
        snprintf(labels_path, lplen, "%.3000s/labels.tsv", kb);
        if (access(labels_path, R_OK) != 0) labels_path[0] = 0;
        struct dirent **ents = NULL;
        int ne = scandir(cdir, &ents, NULL, alphasort);
        if (ne < 0) { bad_arg("--kernelbench=%s: no candidates/ folder in it", kb); return -1; }
        int over = 0;
        for (int i = 0; i < ne; i++) {
            char prob[128];
            if (ents[i]->d_name[0] == '.') { free(ents[i]); continue; }
            if (kb_problem_of(ents[i]->d_name, prob, sizeof prob) != 0) {
                char e[800];
                kg_text_escape(ents[i]->d_name, 200, e, sizeof e);
                printf("# kernelbench: %s/%s: not a candidate (not PROBLEM__NAME.py), left out\n", "candidates", e);
            } else if (n >= max) {
                over++;
            } else {
                kb_result *r = &res[n++];
                snprintf(r->name, sizeof r->name, "%s", ents[i]->d_name);
                snprintf(r->problem, sizeof r->problem, "%s", prob);
                snprintf(r->cand_path, sizeof r->cand_path, "%.3000s/%s", cdir, ents[i]->d_name);
                snprintf(r->prob_path, sizeof r->prob_path, "%.3000s/problems/%s.py", kb, prob);
            }
            free(ents[i]);
        }
        free(ents);
        if (over) {
            fprintf(stderr, "kgate: error: %d candidates under %s: more than the limit of %d per run (split the run)\n",
                    n + over, cdir, max);
            printf("kgate: FAIL (%d candidates, the limit is %d)\n", n + over, max);
            return -1;
        }
    } else {
        if (!g->o->n_paths) { bad_arg("--kernelbench=%s: name the candidate file(s) after it", kb); return -1; }
        if (g->o->n_paths > max) {
            printf("kgate: FAIL (%d candidates, the limit is %d)\n", g->o->n_paths, max);
            return -1;
        }
        const char *pb = strrchr(kb, '/');
        pb = pb ? pb + 1 : kb;
        for (int i = 0; i < g->o->n_paths && n < max; i++) {
            kb_result *r = &res[n++];
            const char *b = strrchr(g->o->paths[i], '/');
            snprintf(r->name, sizeof r->name, "%s", b ? b + 1 : g->o->paths[i]);
            snprintf(r->problem, sizeof r->problem, "%.*s", (int)strcspn(pb, "."), pb);
            snprintf(r->cand_path, sizeof r->cand_path, "%s", g->o->paths[i]);
            snprintf(r->prob_path, sizeof r->prob_path, "%s", kb);
        }
        if (g->o->labels) snprintf(labels_path, lplen, "%s", g->o->labels);
    }
    if (!n) { bad_arg("--kernelbench=%s: no candidates (PROBLEM__NAME.py under candidates/)", kb); return -1; }
    return n;
}

int kb_main(kg_gate *g)
{
    kg_opts *o = g->o;
    double wall0 = kg_now();
    /* shared with the build workers, which write their candidates' results */
    kb_result *res = mmap(NULL, sizeof(kb_result) * KB_MAX_PAIRS, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (res == MAP_FAILED) { fprintf(stderr, "kgate: error: out of memory for the results\n"); return 1; }
    char labels_path[PATH_MAX] = "";
    int n = kb_collect(g, res, KB_MAX_PAIRS, labels_path, sizeof labels_path);
    if (n < 0) return 1;
    for (int i = 0; i < n; i++) res[i].expected = -1;
    static kb_label labels[KB_MAX_PAIRS];
    int nl = 0, label_problems = 0;
    if (labels_path[0]) {
        char err[300];
        char *text = kb_read_regular(labels_path, 4u << 20, err, sizeof err);
        if (!text) return bad_arg("labels: %s", err);
        nl = kb_labels_parse(text, labels, KB_MAX_PAIRS, err, sizeof err);
        free(text);
        if (nl < 0) {
            fprintf(stderr, "kgate: error: %s: %s\n", labels_path, err);
            printf("kgate: FAIL (bad labels file)\n");
            return 1;
        }
        for (int i = 0; i < n; i++)
            for (int k = 0; k < nl; k++)
                if (!strcmp(labels[k].file, res[i].name)) {
                    res[i].expected = labels[k].expected;
                    snprintf(res[i].defect, sizeof res[i].defect, "%s", labels[k].defect);
                }
        /* a label without its candidate, in a folder run: the figures rest on the labels */
        for (int k = 0; k < nl && !o->n_paths; k++) {
            int found = 0;
            for (int i = 0; i < n; i++) found |= !strcmp(labels[k].file, res[i].name);
            if (!found) {
                char e[800];
                kg_text_escape(labels[k].file, 200, e, sizeof e);
                printf("# labels: PROBLEM: %s is labeled but is not under candidates/\n", e);
                label_problems++;
            }
        }
    }
    /* the runner, the static pass and PyTorch */
    if (!o->kb_runner) snprintf(g->kb_runner, sizeof g->kb_runner, "%.3000s/kgate-kb-runner.py", g->libexec);
    else if (real_path_into(o->kb_runner, g->kb_runner, sizeof g->kb_runner) != 0)
        return bad_arg("--kb-runner=%s: cannot read it", o->kb_runner);
    if (o->kb_rules && real_path_into(o->kb_rules, g->kb_rules, sizeof g->kb_rules) != 0)
        return bad_arg("--kb-rules=%s: cannot read it", o->kb_rules);
    if (!o->kb_rules) {
        snprintf(g->kb_rules, sizeof g->kb_rules, "%.3000s/kgate-kb-rules.py", g->libexec);
        if (access(g->kb_rules, R_OK) != 0) g->kb_rules[0] = 0;
    }
    for (int k = 0; k < 2; k++) {
        char d[PATH_MAX];
        snprintf(d, sizeof d, "%s", k ? g->kb_rules : g->kb_runner);
        char *sl = strrchr(d, '/');
        if (d[0] && sl) { *sl = 0; kg_sandbox_add_ro(g->sb, d); }
    }
    char probe_arch[8], arch_why[208], arch_from[400];
    if (kb_probe(g, probe_arch, sizeof probe_arch, arch_why, sizeof arch_why) != 0) {
        printf("kgate: WAIVED (KernelBench problems need PyTorch: %s)\n", g->torch_why);
        return 2;
    }
    if (probe_arch[0] && (strchr(probe_arch, ',') || kg_arch_list_check(probe_arch) != 0)) {   /* one, as --arch takes it */
        char e[40];
        kg_text_escape(probe_arch, 8, e, sizeof e);
        snprintf(arch_why, sizeof arch_why, "the probe said arch=%s", e);
        probe_arch[0] = 0;
    }
    kb_set_arch(g, probe_arch, arch_why, arch_from, sizeof arch_from);
    printf("# kernelbench: %d candidate(s); PyTorch %s with %s; runner %s\n", n, g->torch_version, g->torch_python,
           g->kb_runner);
    printf("# kernelbench: builds for sm_%s (TORCH_CUDA_ARCH_LIST; %s)\n", g->arch_list, arch_from);
    if (probe_arch[0] && o->arch) {   /* a device that runs none of them: its loads fail */
        int own = atoi(probe_arch), runs = 0;
        for (int a = 0; a < g->n_arch; a++) runs |= atoi(g->arch[a]) == own;
        if (!runs)
            printf("# kernelbench: WARNING: device %d is sm_%s, and no build is for it: its candidates' libraries "
                   "may not load there\n", o->n_dev_req ? o->dev_req[0] : 0, probe_arch);
    }
    printf("# kernelbench: static pass: %s\n", g->kb_rules[0] ? g->kb_rules : "none (ast_rules.py is not installed: "
                                                                              "make -C 9_Verification/kgate installs it)");
    printf("# kernelbench: correctness as KernelBench: %d trials, shapes equal, allclose atol=rtol=1e-4 (float32), "
           "1e-2 (float16, bfloat16); timing: the judge's clock, %d batches after %d of warm-up; KernelBench's events as "
           "its cuda_event timing (an L2 flush before each call), for information\n", KB_TRIALS, KB_BATCHES - KB_WARMUP,
           KB_WARMUP);
    fflush(stdout);
    char work[PATH_MAX];
    if (o->work) {
        snprintf(work, sizeof work, "%.1000s", o->work);
        mkdir(work, 0755);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(work, sizeof work, "%s/kgate_kb.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(work)) { fprintf(stderr, "kgate: error: cannot create a work folder\n"); return 1; }
    }
    chmod(work, 0711);
    kb_seed(o->seed);
    int waived = 0;
    /* The builds (static pass, then the compile sandbox's import and
     * load_inline) run in a process of their own, --jobs at a time, in the
     * candidates' order; here, one candidate at a time, the GPU part: its
     * runner, the reference's, the judge's clock. The reference's runner
     * starts once per problem (before its first candidate's build is
     * waited for) and serves the problem's candidates. */
    int jobs = o->jobs < KB_MAX_BUILDS ? o->jobs : KB_MAX_BUILDS;
    int bp[2], pp[2];   /* builds -> GPU part: the index built; GPU part -> builds: how many judged */
    if (pipe2(bp, O_CLOEXEC) != 0 || pipe2(pp, O_CLOEXEC) != 0) {
        fprintf(stderr, "kgate: error: pipe: %s\n", strerror(errno));
        return 1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t builder = fork();
    if (builder == 0) {
        close(bp[0]);
        close(pp[1]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        /* the builds (and every process they start) yield the CPU to the GPU
         * part: its clock holds the host's launches, and a batch of calls
         * shorter than their launches is timed by the host */
        if (setpriority(PRIO_PROCESS, 0, 19) != 0)
            fprintf(stderr, "kgate: warning: the builds keep the GPU part's priority: %s\n", strerror(errno));
        kb_builder(g, res, n, work, jobs, bp[1], pp[0]);
        _exit(0);
    }
    close(bp[1]);
    close(pp[0]);
    if (builder < 0) { fprintf(stderr, "kgate: error: cannot start the builds: %s\n", strerror(errno)); return 1; }
    kb_builds_pid = builder;
    char *built = calloc((size_t)n, 1);
    if (!built) { fprintf(stderr, "kgate: error: out of memory\n"); return 1; }
    kb_ref rs;
    memset(&rs, 0, sizeof rs);
    double build_wait = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(rs.prob_path, res[i].prob_path)) {   /* a new problem */
            snprintf(rs.prob_path, sizeof rs.prob_path, "%s", res[i].prob_path);
            rs.have_rec = 0;
            rs.start_failed = 0;
        }
        if (!rs.r.on) kb_ref_start(g, &rs, &res[i], work, i);
        double w0 = kg_now();
        while (!built[i]) {
            int k;
            ssize_t got = read(bp[0], &k, sizeof k);
            if (got < 0 && errno == EINTR) continue;
            if (got != (ssize_t)sizeof k) {   /* the builds' process is gone: what it did not finish is the gate's failure */
                for (int j = 0; j < n; j++)
                    if (!built[j]) {
                        built[j] = 1;
                        res[j].verdict = KG_V_SKIPPED;
                        res[j].skipped_gate = 1;
                        snprintf(res[j].reason, sizeof res[j].reason, "gate: the builds' process ended before its build");
                    }
                break;
            }
            if (k >= 0 && k < n) built[k] = 1;
        }
        build_wait += kg_now() - w0;
        if (res[i].verdict < 0) kb_gpu_part(g, &res[i], work, i, &rs);
        /* a runner that failed or hung is not trusted with the next candidate */
        if (res[i].skipped_gate || rs.r.hung) kb_ref_end(g, &rs, &res[i]);
        if (i + 1 == n || strcmp(res[i + 1].prob_path, res[i].prob_path)) kb_ref_end(g, &rs, &res[i]);
        if (res[i].verdict < 0) res[i].verdict = KG_V_L2;
        if (res[i].t_start <= 0) res[i].t_start = w0;
        res[i].t_total = kg_now() - res[i].t_start;
        /* no GPU: the runner says so at its start (HELLO) */
        if (res[i].skipped_gate && strstr(res[i].reason, "failed at start")) waived++;
        kb_print(stdout, &res[i]);
        fflush(stdout);
        int judged = i + 1;
        if (write(pp[1], &judged, sizeof judged) != (ssize_t)sizeof judged) { /* the builds' process is gone: seen above */ }
    }
    free(built);
    close(pp[1]);
    close(bp[0]);
    kb_builds_hold(0);
    waitpid(builder, NULL, 0);
    kb_builds_pid = 0;
    if (!o->work && !o->keep) remove_tree(work, 0);

    /* scores */
    int correct[KB_MAX_PAIRS], stop[KG_V_COUNT] = {0}, good = 0, good_stopped = 0, bad = 0, bad_stopped = 0, gate_fail = 0;
    double sp[KB_MAX_PAIRS], kbsp[KB_MAX_PAIRS];
    int n_ok = 0;
    for (int i = 0; i < n; i++) {
        correct[i] = res[i].correct;
        n_ok += res[i].correct;
        sp[i] = res[i].correct ? res[i].speedup : 0;
        kbsp[i] = res[i].correct ? res[i].kb_speedup : 0;
        stop[res[i].verdict]++;
        gate_fail += res[i].skipped_gate;
        int stopped = res[i].verdict >= KG_V_P0 && res[i].verdict <= KG_V_L4;
        if (res[i].expected == KG_V_PASS) { good++; good_stopped += stopped; }
        else if (res[i].expected >= 0) { bad++; bad_stopped += stopped; }
    }
    double score[5] = {(double)n_ok / n, kb_fast_p(correct, sp, n, 1.0), kb_fast_p(correct, sp, n, 1.5),
                       kb_fast_p(correct, kbsp, n, 1.0), kb_fast_p(correct, kbsp, n, 1.5)};
    printf("\nkernelbench: %d candidate(s): P0 %d, L1 %d, L2 %d, L3 %d, L4 %d, PASS %d, SKIPPED %d\n", n, stop[KG_V_P0],
           stop[KG_V_L1], stop[KG_V_L2], stop[KG_V_L3], stop[KG_V_L4], stop[KG_V_PASS], stop[KG_V_SKIPPED]);
    printf("kernelbench scores: correctness %d / %d (%.1f%%); fast_1.0 %.3f, fast_1.5 %.3f (the judge's clock); "
           "fast_1.0 %.3f, fast_1.5 %.3f (KernelBench's events)\n", n_ok, n, 100.0 * score[0], score[1], score[2],
           score[3], score[4]);
    if (good + bad)
        printf("labels: interception %d / %d, false kills %d / %d\n", bad_stopped, bad, good_stopped, good);
    double wall = kg_now() - wall0;
    printf("wall seconds: %.2f\n", wall);
    kb_print_time(res, n, wall, build_wait, kb_hold_seconds, jobs, rs.started);
    if (o->json) {
        if (kb_write_json(o->json, res, n, score, wall0) != 0) {
            printf("kgate: FAIL (cannot write the JSON report)\n");
            return 1;
        }
        printf("JSON report: %s\n", o->json);
    }
    if (waived == n) {
        printf("kgate: WAIVED (the runners could not start on a GPU: %s)\n", res[0].reason);
        return 2;
    }
    int ok;
    if (good + bad) ok = good_stopped == 0 && bad_stopped == bad && !gate_fail && !label_problems;
    else ok = stop[KG_V_PASS] == n && !label_problems;
    printf("kgate: %s (%d of %d candidate(s) stopped%s%s)\n", ok ? "PASS" : "FAIL", n - stop[KG_V_PASS] - stop[KG_V_SKIPPED],
           n, gate_fail ? "; the gate could not judge some: SKIPPED" : "",
           label_problems ? "; labels problems, see the # labels lines" : "");
    return ok ? 0 : 1;
}
