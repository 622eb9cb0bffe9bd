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
 * off the clock) then, on the clock, RUN (K calls and a device-wide
 * synchronize in the runner) and DIGEST (every call's whole output dotted
 * with a random vector drawn from a seed the gate sends only after RUN's
 * answer). The clock stops when the digests arrive; they must match the
 * reference's, and producing them takes every element of every output, so
 * work still running at the answer, or a call skipped, is done on the clock
 * or shows. After the clock one call, drawn then, is kept (KEEP) and,
 * after the last batch (the batches run back to back, as the reference's),
 * compared whole (slice by slice, against the reference's output for its
 * inputs, made again). The figure per call is
 * (interval - allowance + charge) / K, the least of 5 batches: the allowance
 * is the same interval with null calls, measured before the candidate is
 * loaded; the charge is whatever the candidate's PREP took beyond the
 * reference's for the same inputs (work hidden in the preparation).
 * KernelBench's own figure (CUDA events on the current stream, 3 warm-up
 * calls, 100 timed) is reported beside it, for information only.
 * The report (each pair's lines, the JSON, the time summary) is
 * kb_report.c's; the types both files use, kb_internal.h's. */
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "candidates.h"
#include "kbgate.h"
#include "kg_report.h"
#include "setup.h"

#include "kb_internal.h"

typedef struct {
    kg_sb_proc p;
    int on, cmd_w, rep_r;
    char buf[KB_LINE_MAX + 1];
    size_t have;
    char log[PATH_MAX];
    int hung;                  /* a command went unanswered: killed at its end, not asked to quit */
} kb_runner;


/* ---- a runner and its protocol ---- */

static int kb_send(kb_runner *r, const char *fmt, ...)
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
static int kb_recv(kb_runner *r, double deadline, kb_reply *rep, char **data, long long max_bytes, char *err,
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

/* ---- the judge's clock ---- */

typedef struct {
    kb_runner *r;
    char err[300];
    int stage_err;             /* the runner answered ERR (its message in err) */
    int timed_out;             /* no answer before the command's deadline */
    int second;                /* PREP at the problem's second sizes (kgate_second_shape) */
    double timeout_s;
    char stage[16];
} kb_side;

/* A command and its reply; -1 on a protocol failure or an ERR reply (err says which). */
static int kb_do(kb_side *s, double timeout, kb_reply *rep, char **data, long long max_bytes, const char *fmt, ...)
{
    char line[KB_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    s->stage_err = s->timed_out = 0;
    s->timeout_s = timeout;
    if (kb_send(s->r, "%s", line) != 0) { snprintf(s->err, sizeof s->err, "the runner is gone (its command pipe closed)"); return -1; }
    errno = 0;
    if (kb_recv(s->r, kg_now() + timeout, rep, data, max_bytes, s->err, sizeof s->err) != 0) {
        if (errno == ETIMEDOUT) {
            s->timed_out = 1;
            s->r->hung = 1;
            snprintf(s->err, sizeof s->err, "no answer within %.0f s (a hang, or too slow to judge)", timeout);
        }
        return -1;
    }
    if (!rep->ok) {
        s->stage_err = 1;
        snprintf(s->stage, sizeof s->stage, "%.15s", kb_field(rep, "stage") ? kb_field(rep, "stage") : "?");
        char m[320];
        kg_text_escape(rep->msg, 300, m, sizeof m);
        snprintf(s->err, sizeof s->err, "%.290s", m);
        if (data && *data) { free(*data); *data = NULL; }
        return -1;
    }
    return 0;
}

static unsigned long long kb_rng_state;
static unsigned long long kb_rand(void)
{
    unsigned long long z = (kb_rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (z ^ (z >> 31)) & ((1ull << 62) - 1);
}

/* An output as SHOW describes it: dtype, shape, its size in bytes. */
typedef struct {
    int dtype;
    kb_shape shape;
    long long nbytes;
} kb_meta;

/* The slice size outputs are compared by: KB_CHUNK, or KGATE_KB_CHUNK=BYTES
 * (1 to KB_MAX_BYTES; for the tests, whose outputs are a few KB: a small
 * slice makes one span several). */
static long long kb_chunk(void)
{
    const char *e = getenv("KGATE_KB_CHUNK");
    char *end;
    long long c = e && *e ? strtoll(e, &end, 10) : 0;
    return e && *e && !*end && c >= 1 && c <= (long long)KB_MAX_BYTES ? c : KB_CHUNK;
}

/* SHOW k=K off=OFF len=LEN: bytes [off, off + len) of call k's output (len
 * 0: its description only; k < 0: the output KEEP kept as number -k - 1).
 * want_dt >= 0: the dtype the runner must find (the candidate's, the
 * reference's dtype). The reply's dtype, shape and
 * total must agree with one another, with `same` (the description this
 * output had before: a runner's answers about one output never change) and
 * its bytes be exactly the slice; else a protocol violation. data: the
 * slice (the caller frees it). */
static int kb_show(kb_side *s, int k, int want_dt, long long off, long long len, const kb_meta *same, kb_meta *m,
                   char **data)
{
    kb_reply rep;
    char dt[40] = "";
    long long total;
    if (want_dt >= 0) snprintf(dt, sizeof dt, " dtype=%s", kb_dtype_name(want_dt));
    /* 10 s, and the bytes at 50 MB/s at least (a pipe moves GB/s) */
    double timeout = 10 + (double)len / 50e6;
    char which[32];
    snprintf(which, sizeof which, k < 0 ? "kept=%d" : "k=%d", k < 0 ? -k - 1 : k);
    if (kb_do(s, timeout, &rep, data, len, "SHOW %s%s off=%lld len=%lld", which, dt, off, len) != 0) return -1;
    m->dtype = kb_dtype_parse(kb_field(&rep, "dtype") ? kb_field(&rep, "dtype") : "");
    if (m->dtype < 0 || kb_shape_parse(kb_field(&rep, "shape"), &m->shape) != 0 ||
        kb_field_ll(&rep, "total", 0, 1LL << 50, &total) != 0 ||
        (long long)kb_dtype_size(m->dtype) * m->shape.numel != total) {
        snprintf(s->err, sizeof s->err, "SHOW: its dtype, shape and bytes do not agree");
    } else if (same && (m->dtype != same->dtype || !kb_shape_equal(&m->shape, &same->shape) || total != same->nbytes)) {
        char a[120], b[120];
        kb_shape_str(&same->shape, a, sizeof a);
        kb_shape_str(&m->shape, b, sizeof b);
        snprintf(s->err, sizeof s->err, "SHOW: the output changed between its slices (%s %.60s, %lld bytes; at "
                 "byte %lld: %s %.60s, %lld bytes)", kb_dtype_name(same->dtype), a, same->nbytes, off,
                 kb_dtype_name(m->dtype), b, total);
    } else if (rep.nbytes != len || (len && !*data)) {
        snprintf(s->err, sizeof s->err, "SHOW: %lld bytes for a slice of %lld", rep.nbytes, len);
    } else {
        m->nbytes = total;
        return 0;
    }
    free(*data);
    *data = NULL;
    return -1;
}

/* Compare the candidate's output of call kc with the reference's of call kr,
 * both still held by their runners, slice by slice (the gate holds two
 * slices, never a whole output): shapes and dtypes equal, then KernelBench's
 * allclose on every element. 0 equal, 1 not (the reason in why), -1 the
 * reference's runner failed (ref->err), -2 the candidate's (cand->err). */
static int kb_compare(kb_side *ref, int kr, kb_side *cand, int kc, const char *where, char *why, size_t len)
{
    kb_meta rm, cm, m;
    char *rd = NULL, *cd = NULL;
    if (kb_show(ref, kr, -1, 0, 0, NULL, &rm, &rd) != 0) return -1;
    free(rd);
    if (kb_show(cand, kc, rm.dtype, 0, 0, NULL, &cm, &cd) != 0) return -2;
    free(cd);
    char a[120], b[120];
    kb_shape_str(&rm.shape, a, sizeof a);
    kb_shape_str(&cm.shape, b, sizeof b);
    if (!kb_shape_equal(&rm.shape, &cm.shape)) {
        snprintf(why, len, "%s: output shape %s, the reference's %s", where, b, a);
        return 1;
    }
    if (rm.dtype != cm.dtype) {
        snprintf(why, len, "%s: output dtype %s, the reference's %s", where, kb_dtype_name(cm.dtype),
                 kb_dtype_name(rm.dtype));
        return 1;
    }
    size_t es = kb_dtype_size(rm.dtype);
    long long step = kb_slice_bytes(kb_chunk(), es);
    double tol = kb_tolerance(rm.dtype);
    kb_cmp c;
    kb_cmp_init(&c);
    for (long long off = 0; off < rm.nbytes; off += step) {
        long long n = rm.nbytes - off < step ? rm.nbytes - off : step;
        if (kb_show(ref, kr, -1, off, n, &rm, &m, &rd) != 0) return -1;
        if (kb_show(cand, kc, rm.dtype, off, n, &cm, &m, &cd) != 0) { free(rd); return -2; }
        kb_allclose_slice(&c, rd, cd, rm.dtype, n / (long long)es, off / (long long)es, tol);
        free(rd);
        free(cd);
    }
    if (!c.bad) return 0;
    snprintf(why, len, "%s: %lld of %lld elements differ (allclose atol=rtol=%g); first: element %lld: expected %.6g got %.6g",
             where, c.bad, rm.shape.numel, tol, c.first, c.want, c.got);
    return 1;
}

/* One call on one input set (a correctness trial, or a checked call's
 * seed again): its output stays in the runner for kb_compare. */
static int kb_trial(kb_side *s, unsigned long long seed, long long poison, double timeout, long long *inbytes)
{
    kb_reply rep;
    if (kb_do(s, 120, &rep, NULL, 0, "PREP seeds=%llu%s", seed, s->second ? " second=1" : "") != 0) return -1;
    if (inbytes && kb_field_ll(&rep, "inbytes", 0, 1LL << 42, inbytes) != 0) {
        snprintf(s->err, sizeof s->err, "PREP: no inbytes= the gate accepts");
        return -1;
    }
    return kb_do(s, timeout, &rep, NULL, 0, "RUN poison=%lld", poison);
}

/* DIGEST: every call's output dotted with the seed's random vector (abs: of
 * its magnitudes). out: k doubles, or NULL. */
static int kb_digests(kb_side *s, int k, unsigned long long seed, int abs_, double timeout, double *out)
{
    kb_reply rep;
    char *d = NULL;
    if (kb_do(s, timeout, &rep, &d, (long long)k * 8, "DIGEST seed=%llu%s", seed, abs_ ? " abs=1" : "") != 0) return -1;
    if (!d || rep.nbytes != (long long)k * 8) {
        free(d);
        snprintf(s->err, sizeof s->err, "DIGEST: %lld bytes, %d expected", rep.nbytes, k * 8);
        return -1;
    }
    if (out) memcpy(out, d, (size_t)k * 8);
    free(d);
    return 0;
}

/* A candidate's digest against the reference's: within what KernelBench's
 * allclose allows every element (tol times the magnitudes, the vector's
 * weights are below 1), plus float32 rounding of the dot products. */
static int kb_digest_close(double ref, double ref_abs, double got, double tol, long long numel)
{
    if (!isfinite(ref) || !isfinite(got)) return ref == got;
    double bound = tol * (2.0 * ref_abs + 0.5 * (double)numel) * 1.01 + 1e-5 * (ref_abs + fabs(ref)) + 1e-30;
    return fabs(got - ref) <= bound;
}

/* The digest of the trial's inputs after the call (INSUM): sums and sums of
 * squares, float64. 0, or -1 (the runner failed). */
static int kb_insum(kb_side *s, char *buf, size_t len)
{
    kb_reply rep;
    if (kb_do(s, 60, &rep, NULL, 0, "INSUM") != 0) return -1;
    snprintf(buf, len, "%s", kb_field(&rep, "sums") ? kb_field(&rep, "sums") : "");
    return 0;
}

/* Two digests agree: the same number of inputs, each sum within 1e-9 relative. */
static int kb_insum_equal(const char *a, const char *b)
{
    for (;;) {
        char *ea, *eb;
        double x = strtod(a, &ea), y = strtod(b, &eb);
        if (ea == a || eb == b) return *a == *b;
        if (!(fabs(x - y) <= 1e-9 * (fabs(x) + fabs(y)) + 1e-300 || x == y)) return 0;
        a = ea + (*ea == ':' || *ea == ',');
        b = eb + (*eb == ':' || *eb == ',');
        if (!*a || !*b) return !*a && !*b;
    }
}

/* The GPU's memory as the probe saw it (bytes; 0: not known). */
static long long kb_gpu_mem;

/* What one runner's timed batch may hold in inputs and outputs: 8 GiB, or a
 * sixteenth of the GPU's memory on a smaller one (each runner holds about
 * twice that while PREP makes the next inputs, and two runners are alive),
 * 2 GiB when the probe did not say. */
static long long kb_batch_bytes(void)
{
    const char *e = getenv("KGATE_KB_BATCH_BYTES");   /* the tests' smaller cap */
    if (e && atoll(e) > 0) return atoll(e);
    long long cap = kb_gpu_mem > 0 ? kb_gpu_mem / 16 : (2LL << 30);
    return cap > (8LL << 30) ? (8LL << 30) : cap;
}

/* A timed batch: PREP off the clock (its time returned in *prep_ms), then
 * RUN and DIGEST on the clock. digests: K doubles (NULL: not kept). */
static int kb_batch(kb_side *s, const unsigned long long *seeds, int k, int null, unsigned long long dseed,
                    double timeout, double *prep_ms, double *interval_ms, double *digests)
{
    char list[KB_MAX_CALLS * 21 + 8];
    size_t l = 0;
    list[0] = 0;
    for (int i = 0; i < k && seeds; i++) l += (size_t)snprintf(list + l, sizeof list - l, "%s%llu", i ? "," : "", seeds[i]);
    kb_reply rep;
    double t0 = kg_now();
    if (!null && kb_do(s, 120, &rep, NULL, 0, "PREP seeds=%s", list) != 0) return -1;
    double t1 = kg_now();
    if (kb_do(s, timeout, &rep, NULL, 0, "RUN%s", null ? " null=1" : "") != 0) return -1;
    if (kb_digests(s, k, dseed, 0, timeout, digests) != 0) return -1;
    double t2 = kg_now();
    if (prep_ms) *prep_ms = (t1 - t0) * 1e3;
    *interval_ms = (t2 - t1) * 1e3;
    return 0;
}

/* KernelBench's own figure (for information): its 103 calls may take up to
 * 5 times the reference's time each, plus 10 s. -1 when it did not come. */
static double kb_kbtime(kb_side *s, double ref_ms)
{
    kb_reply rep;
    double ms, timeout = 10 + (isfinite(ref_ms) ? 103 * 5 * ref_ms / 1e3 : 60);
    if (kb_do(s, timeout, &rep, NULL, 0, "KBTIME warmup=3 trials=100") != 0 || kb_field_ms(&rep, "mean_ms", &ms) != 0)
        return -1;
    return ms;
}

/* The verdict of a runner's failure: the candidate's (L2 run, L3 output) or,
 * for the reference, the gate's (SKIPPED). */
static void kb_fail(kb_result *res, const kb_side *s, int is_cand, const char *what)
{
    if (!is_cand) {
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: the reference (the problem's Model) failed at %s: %s", what, s->err);
        return;
    }
    res->verdict = s->stage_err && !strcmp(s->stage, "output") ? KG_V_L3 : KG_V_L2;
    snprintf(res->reason, sizeof res->reason, "%s: %s%s", what, s->stage_err || s->timed_out ? "" : "protocol violation: ",
             s->err);
}

/* The reference's runner of one problem, started once and reused by that
 * problem's candidates: it runs only the problem's own code (the candidate's
 * never runs in it), so what it holds is the problem's Model, loaded once
 * with init_seed (the candidates load theirs with the same seed). */
typedef struct {
    kb_runner r;
    char prob_path[PATH_MAX];  /* the problem it runs ("": none yet) */
    int loaded, second;        /* LOAD answered; the problem has second sizes */
    unsigned long long init_seed;
    int start_failed;          /* its spawn failed: the problem's candidates are SKIPPED */
    kg_sb_result rec;          /* the record of this problem's last runner that ended */
    int have_rec;
    int started;               /* runners started in the whole run */
} kb_ref;

/* Steps 2 and 3 for one pair (the build has run; res has no verdict yet). */
static void kb_judge(kg_gate *g, kb_result *res, kb_ref *rs, kb_runner *cr)
{
    kb_side ref = {.r = &rs->r}, cand = {.r = cr};
    kb_reply rep;
    double tmo = g->o->timeout;
    enum { NT = KB_TRIALS + KB_TRIALS2 };
    unsigned long long tseed[NT];
    for (int t = 0; t < NT; t++) tseed[t] = kb_rand();
    kb_meta like[2];           /* the reference's output at the problem's sizes and its second ones */
    memset(like, 0, sizeof like);
    int n_tr = KB_TRIALS;
    static double dig_r[KB_BATCHES][KB_MAX_CALLS], abs_r[KB_BATCHES][KB_MAX_CALLS], dig_c[KB_MAX_CALLS];
    unsigned long long seeds[KB_BATCHES][KB_MAX_CALLS], sseed[KB_BATCHES];
    double prep_r[KB_BATCHES], int_r[KB_BATCHES], prep_c, int_c;

    /* the candidate's runner has its context before the reference is timed: its
     * start-up (PyTorch's import, CUDA's context) overlaps no timed batch; none
     * of the candidate's code has run in it yet (that is LOAD, later) */
    if (kb_do(&cand, 180, &rep, NULL, 0, "HELLO") != 0) {
        /* the machine's problem (no GPU, PyTorch broken), never the candidate's: none of its code ran there */
        res->verdict = KG_V_SKIPPED;
        res->skipped_gate = 1;
        snprintf(res->reason, sizeof res->reason, "gate: the candidate's runner failed at start, before "
                 "loading the candidate: %s", cand.err);
        return;
    }
    /* the reference: its model once per runner (the problem's first candidate
     * that gets here), then for every candidate its outputs on this
     * candidate's trial inputs and its batches (fresh seeds, timed now) */
    if (!rs->loaded) {
        if (kb_do(&ref, 180, &rep, NULL, 0, "HELLO") != 0) { kb_fail(res, &ref, 0, "start"); return; }
        static int said;
        if (!said++) {   /* once: what the runners run on (the reference's word: trusted code) */
            char t[200], d[200];
            kg_text_escape(kb_field(&rep, "torch") ? kb_field(&rep, "torch") : "?", 60, t, sizeof t);
            kg_text_escape(kb_field(&rep, "device") ? kb_field(&rep, "device") : "?", 60, d, sizeof d);
            printf("# kernelbench: the runners: PyTorch %s on %s\n", t, d);
        }
        rs->init_seed = kb_rand();
        if (kb_do(&ref, 300, &rep, NULL, 0, "LOAD problem=/scratch/problem.py seed=%llu", rs->init_seed) != 0) {
            kb_fail(res, &ref, 0, "load");
            return;
        }
        long long second = 0;
        rs->second = kb_field_ll(&rep, "second", 0, 1, &second) == 0 && second;
        rs->loaded = 1;
    }
    unsigned long long init_seed = rs->init_seed;
    if (rs->second) n_tr += KB_TRIALS2;
    /* what the candidate's runner is told before its trials (the poison's
     * size, the dtype its output must have) and the batch length rest on:
     * the reference's output described, at each of the problem's sizes (its
     * values are compared in the trials, both runners holding theirs) */
    long long inbytes = 0;
    for (int z = 0; z < 1 + rs->second; z++) {
        kb_meta m;
        char *none = NULL;
        ref.second = z;
        if (kb_trial(&ref, tseed[z ? KB_TRIALS : 0], 0, tmo, z ? NULL : &inbytes) != 0 ||
            kb_show(&ref, 0, -1, 0, 0, NULL, &m, &none) != 0) {
            kb_fail(res, &ref, 0, "a correctness trial");
            return;
        }
        free(none);
        like[z] = m;
    }
    ref.second = 0;
    /* the batch length: about 8 ms of the reference's work (a host's jitter of
     * a tenth of a millisecond stays about 1% of it), at least 4 calls, within
     * the batch's memory (kb_batch_bytes) of inputs and outputs */
    double one = 0;
    unsigned long long s1[1];
    for (int w = 0; w < 2; w++) {
        s1[0] = kb_rand();
        if (kb_batch(&ref, s1, 1, 0, kb_rand(), tmo, NULL, &one, NULL) != 0) { kb_fail(res, &ref, 0, "a call"); return; }
    }
    int k = one > 0 ? (int)ceil(KB_BATCH_MS / one) : KB_MAX_CALLS;
    long long per = inbytes + like[0].nbytes, cap = kb_batch_bytes();
    if (per > 0 && (long long)k > cap / per) k = (int)(cap / per);
    if (k < KB_MIN_CALLS) k = KB_MIN_CALLS;   /* several calls, so that a skipped one can show */
    if (per > 0 && (long long)k > cap / per) k = (int)(cap / per);
    if (k < 1) k = 1;
    if (k > KB_MAX_CALLS) k = KB_MAX_CALLS;
    res->calls = k;
    if (kb_do(&ref, 60, &rep, NULL, 0, "CAL n=%d numel=%lld dtype=%s", k, like[0].shape.numel,
              kb_dtype_name(like[0].dtype)) != 0) { kb_fail(res, &ref, 0, "calibration"); return; }
    res->allow_r_ms = INFINITY;
    for (int c = 0; c < KB_CAL; c++) {
        double iv;
        if (kb_batch(&ref, NULL, k, 1, kb_rand(), tmo, NULL, &iv, NULL) != 0) { kb_fail(res, &ref, 0, "calibration"); return; }
        if (iv < res->allow_r_ms) res->allow_r_ms = iv;
    }
    res->ref_ms = INFINITY;
    for (int b = 0; b < KB_BATCHES; b++) {
        for (int i = 0; i < k; i++) seeds[b][i] = kb_rand();
        sseed[b] = kb_rand();
        if (kb_batch(&ref, seeds[b], k, 0, sseed[b], tmo, &prep_r[b], &int_r[b], dig_r[b]) != 0 ||
            kb_digests(&ref, k, sseed[b], 1, tmo, abs_r[b]) != 0) {   /* the magnitudes, off the clock */
            kb_fail(res, &ref, 0, "a timed batch");
            return;
        }
        double ms = kb_batch_ms(int_r[b], res->allow_r_ms, 0, k);
        if (b > 0 && ms < res->ref_ms) res->ref_ms = ms;
    }
    res->kb_ref_ms = kb_kbtime(&ref, 4 * res->ref_ms);

    /* the candidate: the allowance before any of its code is loaded */
    if (kb_do(&cand, 60, &rep, NULL, 0, "CAL n=%d numel=%lld dtype=%s", k, like[0].shape.numel,
              kb_dtype_name(like[0].dtype)) != 0) { kb_fail(res, &cand, 1, "calibration"); return; }
    res->allow_c_ms = INFINITY;
    for (int c = 0; c < KB_CAL; c++) {
        double iv;
        if (kb_batch(&cand, NULL, k, 1, kb_rand(), tmo, NULL, &iv, NULL) != 0) { kb_fail(res, &cand, 1, "calibration"); return; }
        if (iv < res->allow_c_ms) res->allow_c_ms = iv;
    }
    if (kb_do(&cand, 300, &rep, NULL, 0, "LOAD problem=/scratch/problem.py cand=/scratch/cand.py ext=/scratch/ext seed=%llu",
              init_seed) != 0) {
        kb_fail(res, &cand, 1, "load");
        return;
    }
    /* KernelBench's 5 trials, both orders (even trials run the reference
     * first, odd ones the candidate), then 2 at the problem's second sizes;
     * each compared while both runners hold their outputs; after each call
     * the inputs must be as the reference's are after its call */
    for (int t = 0; t < n_tr; t++) {
        char rsum[512], csum[512], what[80], why[500];
        cand.second = ref.second = t >= KB_TRIALS;
        snprintf(what, sizeof what, "trial %d%s", t + 1, t >= KB_TRIALS ? " (the problem's second sizes)" : "");
        for (int side = 0; side < 2; side++) {
            if ((side == t % 2) && (kb_trial(&ref, tseed[t], 0, tmo, NULL) != 0 || kb_insum(&ref, rsum, sizeof rsum) != 0)) {
                kb_fail(res, &ref, 0, "a correctness trial");
                return;
            }
            if ((side != t % 2) && (kb_trial(&cand, tseed[t], like[ref.second].nbytes, tmo, NULL) != 0 ||
                                    kb_insum(&cand, csum, sizeof csum) != 0)) {
                kb_fail(res, &cand, 1, what);
                return;
            }
        }
        int bad = kb_compare(&ref, 0, &cand, 0, what, why, sizeof why);
        if (bad < 0) {
            kb_fail(res, bad == -1 ? &ref : &cand, bad == -2, bad == -1 ? "a correctness trial" : what);
            return;
        }
        if (bad) {
            res->verdict = KG_V_L3;
            snprintf(res->reason, sizeof res->reason, "wrong result: %s", why);
            return;
        }
        if (!kb_insum_equal(rsum, csum)) {
            char a[200], b[200];
            kg_text_escape(csum, 90, a, sizeof a);
            kg_text_escape(rsum, 90, b, sizeof b);
            res->verdict = KG_V_L2;
            snprintf(res->reason, sizeof res->reason, "%s: the call changed its inputs (their sums and sums of "
                     "squares after the call: %s; the reference's: %s)", what, a, b);
            return;
        }
        if (t == KB_TRIALS - 1) res->correct = 1;   /* KernelBench's own check passed */
    }
    cand.second = ref.second = 0;
    if (g->o->no_timing) { res->verdict = KG_V_PASS; return; }

    /* the candidate's batches: the same inputs, its digests against the reference's.
     * They run back to back, as the reference's did: each batch's checked call
     * is kept (KEEP) and compared after the last one. A GPU left idle while a
     * call is compared (a fraction of a second) is slower in the next batch:
     * on the H200, a batch of about 1 ms took 10% (relu) and 36% (sum_dim)
     * longer after half a second idle, by the medians. Where the kept calls would not fit the batch's memory, each
     * is compared at once. */
    res->cand_ms = INFINITY;
    double tol = kb_tolerance(like[0].dtype);
    int defer = per <= 0 || (long long)KB_BATCHES * per <= cap, jsel[KB_BATCHES];
    for (int b = 0; b < KB_BATCHES; b++) {
        if (kb_batch(&cand, seeds[b], k, 0, sseed[b], tmo, &prep_c, &int_c, dig_c) != 0) {
            char what[40];
            snprintf(what, sizeof what, "timed batch %d", b + 1);
            kb_fail(res, &cand, 1, what);
            return;
        }
        int off = -1, n_off = 0;
        for (int i = 0; i < k; i++)
            if (!kb_digest_close(dig_r[b][i], abs_r[b][i], dig_c[i], tol, like[0].shape.numel)) {
                if (off < 0) off = i;
                n_off++;
            }
        if (off >= 0) {
            res->verdict = KG_V_L3;
            snprintf(res->reason, sizeof res->reason, "batch %d: at its answer, the outputs of %d of its %d calls "
                     "were not the reference's (call %d: a weighted sum of every element %.9g, the reference's "
                     "%.9g): work not finished by its answer, or calls skipped", b + 1, n_off, k, off + 1,
                     dig_c[off], dig_r[b][off]);
            return;
        }
        double charge = prep_c - (1.1 * prep_r[b] + 0.5);
        if (charge < 0) charge = 0;
        double ms = kb_batch_ms(int_c, res->allow_c_ms, charge, k);
        if (b > 0 && ms < res->cand_ms) {
            res->cand_ms = ms;
            res->charge_ms = charge;
            res->prep_c_ms = prep_c;
            res->prep_r_ms = prep_r[b];
        }
        /* one call of the batch, drawn now, compared whole (off the clock):
         * the candidate holds its output (kept, or the batch's); the reference
         * makes that call's again, and the two are compared slice by slice */
        jsel[b] = (int)(kb_rand() % (unsigned)k);
        if (defer && kb_do(&cand, 60, &rep, NULL, 0, "KEEP k=%d", jsel[b]) != 0) { kb_fail(res, &cand, 1, "KEEP"); return; }
        int first = b, last = b;   /* the checked calls compared now: this batch's, or all after the last */
        if (defer) {
            first = 0;
            if (b < KB_BATCHES - 1) last = -1;
        }
        for (int c = first; c <= last; c++) {
            if (kb_trial(&ref, seeds[c][jsel[c]], 0, tmo, NULL) != 0) { kb_fail(res, &ref, 0, "a checked call"); return; }
            char where[60], why[500];
            snprintf(where, sizeof where, "batch %d, call %d", c + 1, jsel[c] + 1);
            int wrong = kb_compare(&ref, 0, &cand, defer ? -c - 1 : jsel[c], where, why, sizeof why);
            if (wrong < 0) { kb_fail(res, wrong == -1 ? &ref : &cand, wrong == -2, "a checked call"); return; }
            if (wrong) {
                res->verdict = KG_V_L3;
                snprintf(res->reason, sizeof res->reason, "wrong result: %s", why);
                return;
            }
        }
    }
    res->kb_cand_ms = kb_kbtime(&cand, res->ref_ms);
    res->speedup = res->cand_ms > 0 ? res->ref_ms / res->cand_ms : 0;
    res->kb_speedup = res->kb_cand_ms > 0 && res->kb_ref_ms > 0 ? res->kb_ref_ms / res->kb_cand_ms : 0;
    if (res->speedup < KB_FLOOR) {
        res->verdict = KG_V_L4;
        snprintf(res->reason, sizeof res->reason, "too slow: %.4f ms a call against the reference's %.4f ms "
                 "(speedup %.3f, the floor is %.2f)", res->cand_ms, res->ref_ms, res->speedup, KB_FLOOR);
    } else {
        res->verdict = KG_V_PASS;
    }
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
           "1e-2 (float16, bfloat16); timing: the judge's clock, %d batches after a warm-up\n", KB_TRIALS, KB_BATCHES - 1);
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
    kb_rng_state = o->seed * 0x2545F4914F6CDD1Dull + 1;
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
        kb_builder(g, res, n, work, jobs, bp[1], pp[0]);
        _exit(0);
    }
    close(bp[1]);
    close(pp[0]);
    if (builder < 0) { fprintf(stderr, "kgate: error: cannot start the builds: %s\n", strerror(errno)); return 1; }
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
    waitpid(builder, NULL, 0);
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
    kb_print_time(res, n, wall, build_wait, jobs, rs.started);
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
