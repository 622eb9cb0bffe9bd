/* kgate's pipeline (see pipeline.h): spawning a candidate's static scan,
 * compiles and harnesses in their sandboxes; reading the scan's record and
 * the compiler's end; the run on each device with its judge and the
 * verdict composed from trusted sources only; and the barrier that gives a
 * session the GPU alone. */
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dynamic.h"
#include "judge.h"
#include "kg_report.h"
#include "kgate_static.h"
#include "late_warps.h"
#include "ncu.h"
#include "proto.h"
#include "rules.h"
#include "sandbox.h"
#include "torch_adapter.h"
#include "tasks.h"
#include "candidates.h"
#include "pipeline.h"

int slot_used[KG_SB_SLOTS];

void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

static double sb_start_s(const kg_sb_result *r) { return r->started ? r->start_ms / 1000.0 : 0.0; }

/* The wall-clock seconds of a scan or compile whose limit is `limit` CPU
 * seconds: KG_WALL_FACTOR times as many, twice that on its one retry
 * (`tries`: the retries made so far). */
static double wall_s(double limit, int tries) { return KG_WALL_FACTOR * limit * (tries ? 2 : 1); }

void kg_arch_set(kg_gate *g, const char *list)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", list);
    g->n_arch = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && g->n_arch < MAX_ARCH; t = strtok_r(NULL, ",", &save))
        snprintf(g->arch[g->n_arch++], sizeof g->arch[0], "%s", t);
    kg_arch_join(g);
}

void kg_arch_join(kg_gate *g)
{
    size_t al = 0;
    g->arch_list[0] = 0;
    for (int a = 0; a < g->n_arch && al < sizeof g->arch_list; a++)
        al += (size_t)snprintf(g->arch_list + al, sizeof g->arch_list - al, "%s%s", a ? "," : "", g->arch[a]);
}

/* The build a device runs: index into g->arch, or -1. */
int arch_of_device(const kg_gate *g, int d)
{
    for (int a = 0; a < g->n_arch; a++)
        if (!strcmp(g->arch[a], g->dev[d].build_arch)) return a;
    return -1;
}

int spawn_compile(kg_gate *g, kg_job *j, kg_cand *c)
{
    const char *argv[40];
    char archflag[512], cu[PATH_MAX + 16], so[PATH_MAX + 64], out[PATH_MAX + 16];
    const char *d = g->sb->enabled ? "/scratch" : j->dir;
    kg_sb_spec s;
    memset(&s, 0, sizeof s);
    char e1[PATH_MAX + 16], e2[PATH_MAX + 32], e3[64], e4[80];
    snprintf(cu, sizeof cu, "%s/cand.cu", d);
    if (j->is_torch) {
        /* PyTorch's load_inline, driven by the gate's script in the compile sandbox */
        static char script[PATH_MAX + 32];
        snprintf(script, sizeof script, "%s/kgate-torch-build.py", g->libexec);
        snprintf(out, sizeof out, "%s/build", d);
        snprintf(archflag, sizeof archflag, "--arch=%s", g->arch_list);
        int a = 0;
        argv[a++] = g->torch_python;
        argv[a++] = script;
        argv[a++] = "--build";
        argv[a++] = cu;
        argv[a++] = out;
        argv[a++] = archflag;
        argv[a] = NULL;
        snprintf(e1, sizeof e1, "CUDA_HOME=%s", g->cuda_home);
        snprintf(e2, sizeof e2, "TORCH_EXTENSIONS_DIR=%s/build", d);
        snprintf(e3, sizeof e3, "MAX_JOBS=2");
        snprintf(e4, sizeof e4, "PYTHONDONTWRITEBYTECODE=1");
        s.env[s.n_env++] = e1;
        s.env[s.n_env++] = e2;
        s.env[s.n_env++] = e3;
        s.env[s.n_env++] = e4;
        s.env[s.n_env++] = "PYTHONNOUSERSITE=1";
        if (g->torch_path_env[0]) s.env[s.n_env++] = g->torch_path_env;
        s.lim = kg_default_limits(KG_SB_COMPILE, g->o->torch_timeout);
    } else {
        /* phase 0: every architecture in one fat binary; phase 1 + k: architecture k alone */
        const char *archs = j->cc_phase == 0 ? g->arch_list : g->arch[j->cc_phase - 1];
        snprintf(so, sizeof so, "%s/%s", d, j->cc_phase == 0 ? "cand.so" : j->so_name[j->cc_phase - 1]);
        kg_compile_argv(g->nvcc, archs, cu, so, strstr(j->source, "cublas") != NULL, j->cpp17, argv,
                        archflag, sizeof archflag);
        s.lim = kg_default_limits(KG_SB_COMPILE, g->o->compile_timeout);
    }
    int lf = open(j->log, O_WRONLY | O_CREAT | (j->cc_phase ? O_APPEND : O_TRUNC) | O_CLOEXEC, 0644);
    s.kind = KG_SB_COMPILE;
    s.scratch = j->dir;
    s.scratch_rw = 1;
    s.argv = argv;
    s.out_fd = lf;
    s.slot = j->slot;
    int rc = kg_sb_spawn(g->sb, &s, &j->cc);
    if (lf >= 0) close(lf);
    if (rc != 0) {
        snprintf(c->reason, sizeof c->reason, "gate: cannot start the compiler in the sandbox");
        return -1;
    }
    j->cc_on = 1;
    j->cc_killed = 0;
    /* the limit is CPU seconds (the candidate's: a bomb uses the CPU); four
     * times as many of wall-clock time (the machine's: a loaded machine
     * starves it), KG_WALL_FACTOR; eight times on the retry */
    j->cc_deadline = kg_now() + wall_s(j->is_torch ? g->o->torch_timeout : g->o->compile_timeout, j->cc_tries);
    return 0;
}

/* The harness of device d (index into g->dev). so: the shared object inside
 * the sandbox; preload: a library to load at start (the self-test). */
int spawn_harness(kg_gate *g, kg_job *j, int d, const char *so_path, const char *preload)
{
    /* commands go on a socket (the judge passes its GPU buffers' descriptor
     * with MAP), replies on a pipe; the small-shape memory is sealed against
     * resizing (proto.h) */
    int cmd[2], rep[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cmd) != 0) return -1;
    if (pipe2(rep, O_CLOEXEC) != 0) { close(cmd[0]); close(cmd[1]); return -1; }
    int shm = kg_shm_create(j->task);
    if (shm < 0) {
        close(cmd[0]); close(cmd[1]); close(rep[0]); close(rep[1]);
        if (shm >= 0) close(shm);
        return -1;
    }
    char prog[PATH_MAX + 32], dev[32], so[PATH_MAX + 64], pre[PATH_MAX + 48];
    snprintf(prog, sizeof prog, "%s/kgate-harness", g->libexec);
    snprintf(dev, sizeof dev, "--device=%d", g->dev[d].index);
    snprintf(so, sizeof so, "--so=%s/%s", g->sb->enabled ? "/scratch" : j->dir, so_path);
    snprintf(pre, sizeof pre, "--preload=%s", preload ? preload : "");
    const char *argv[8];
    int a = 0;
    argv[a++] = prog;
    argv[a++] = dev;
    argv[a++] = so;
    if (g->o->mode == MODE_DRY) argv[a++] = "--dry";
    if (preload) argv[a++] = pre;
    argv[a] = NULL;
    int lf = open(j->hlog[d], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
    if (g->dev[d].harness_no_data) s.lim.data_bytes = 0;
    s.startup_mark = 1;   /* the harness marks the end of its own start-up (sandbox.h) */
    if (j->is_torch || preload) {
        /* PyTorch's thread pools stay small under the sandbox's process limit */
        s.env[s.n_env++] = "OMP_NUM_THREADS=1";
        s.env[s.n_env++] = "MKL_NUM_THREADS=1";
    }
    int rc = kg_sb_spawn(g->sb, &s, &j->harness[d]);
    if (lf >= 0) close(lf);
    close(cmd[0]);
    close(rep[1]);
    if (rc != 0) {
        close(cmd[1]); close(rep[0]); close(shm);
        return -1;
    }
    j->cmd_w[d] = cmd[1];
    j->rep_r[d] = rep[0];
    j->shm_fd[d] = shm;
    j->h_on[d] = 1;
    return 0;
}

/* A harness that will not be used (it never finished its start-up, or its
 * candidate is decided): stopped, its record kept for the report. */
void end_harness(kg_job *j, int d)
{
    kg_sb_kill(&j->harness[d]);
    kg_sb_wait(&j->harness[d], kg_now() + 3, &j->hrec[d]);
    j->h_on[d] = 0;
}

/* A candidate's harnesses, one per device, each in its sandbox: they
 * create their CUDA contexts while the candidate compiles. */
void spawn_harnesses(kg_gate *g, kg_job *j)
{
    j->h_pending = 0;
    for (int d = 0; d < g->n_dev; d++) {
        int ai = arch_of_device(g, d);
        char so[48];
        if (j->is_torch) snprintf(so, sizeof so, "build/kgate_cand.so");
        else if (ai >= 0) snprintf(so, sizeof so, "cand_sm%s.so", g->arch[ai]);
        else snprintf(so, sizeof so, "cand.so");
        if (spawn_harness(g, j, d, so, NULL) != 0) j->h_dead[d] = 1;
    }
}

int spawn_scan(kg_gate *g, kg_job *j, kg_cand *c)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    char prog[PATH_MAX + 16], src[PATH_MAX + 16], pol[48], sig[400], ent[96];
    snprintf(prog, sizeof prog, "%s/kgate-scan", g->libexec);
    snprintf(src, sizeof src, "%s/cand.src", g->sb->enabled ? "/scratch" : j->dir);
    snprintf(pol, sizeof pol, "--policy=%s", kg_policy_name(g->o->policy));
    snprintf(sig, sizeof sig, "--signature=%s", j->task ? j->task->signature : "");
    snprintf(ent, sizeof ent, "--torch-entry=%s", j->entry);
    /* a PyTorch candidate's scan reads PyTorch's headers (pybind11, Python,
     * ATen): several times a plain one's, so four times the limit */
    double limit = j->is_torch ? 4 * g->o->scan_timeout : g->o->scan_timeout;
    /* the scan's own deadline, about 2 s before the gate's wall-clock limit:
     * a scan that runs out of time ends its nvcc runs and says so (a record
     * with timed_out = 1), rather than being killed with nothing said */
    double wall = wall_s(limit, j->scan_tries);
    double own = wall - 2 > wall / 2 ? wall - 2 : wall / 2;
    char dl[48], arch[96];
    snprintf(dl, sizeof dl, "--deadline=%.1f", own);
    /* nvcc's view is compared for the architectures the gate compiles for */
    snprintf(arch, sizeof arch, "--arch=%s", g->arch_list[0] ? g->arch_list : "90");
    const char *argv[10];
    int a = 0;
    argv[a++] = prog;
    argv[a++] = src;
    argv[a++] = c->name;
    argv[a++] = pol;
    argv[a++] = dl;
    argv[a++] = arch;
    if (j->task) argv[a++] = sig;
    if (j->is_torch) argv[a++] = ent;
    argv[a] = NULL;
    char e1[PATH_MAX + 16], e2[PATH_MAX + 32], e3[PATH_MAX + 32], e4[4200], e5[64];
    snprintf(e1, sizeof e1, "KGATE_NVCC=%s", g->nvcc);
    snprintf(e2, sizeof e2, "KGATE_CUDA_PATH=%s", g->sb->cuda_path);
    const char *rd = getenv("KGATE_CLANG_RESOURCE_DIR");
    snprintf(e3, sizeof e3, "KGATE_CLANG_RESOURCE_DIR=%s", rd ? rd : "");
    snprintf(e4, sizeof e4, "KGATE_EXTRA_INCLUDES=%s", g->torch_includes);
    kg_sb_spec s;
    memset(&s, 0, sizeof s);
    s.kind = KG_SB_SCAN;
    s.scratch = j->dir;
    s.argv = argv;
    s.fds[0] = p[1];
    s.n_fds = 1;
    s.out_fd = -1;
    s.slot = j->slot;
    s.lim = kg_default_limits(KG_SB_SCAN, limit);
    if (j->is_torch) s.lim.as_bytes = s.lim.mem_bytes = 4ULL << 30;
    s.env[s.n_env++] = e1;
    s.env[s.n_env++] = e2;
    if (rd && *rd) s.env[s.n_env++] = e3;
    if (j->is_torch && g->torch_includes[0]) s.env[s.n_env++] = e4;
    /* the time every nvcc run of one scan gets together (default 20 s):
     * the operator's, never the candidate's; tests make it tiny */
    const char *nb = getenv("KGATE_NVCC_BUDGET");
    if (nb && *nb && strlen(nb) < 32) {
        snprintf(e5, sizeof e5, "KGATE_NVCC_BUDGET=%s", nb);
        s.env[s.n_env++] = e5;
    }
    int rc = kg_sb_spawn(g->sb, &s, &j->scan);
    close(p[1]);
    if (rc != 0) {
        close(p[0]);
        return -1;
    }
    j->scan_fd = p[0];
    j->scan_on = 1;
    /* CPU seconds; four times as many of wall-clock time, eight on the
     * retry (the first try ran out of it on a machine too busy to run it) */
    j->scan_deadline = kg_now() + wall;
    return 0;
}

/* Violations the candidate made (what CUDA's and PyTorch's own start-ups do
 * is allowed). */
static int violations(const kg_gate *g, int d, const kg_sb_result *r, char *buf, size_t len)
{
    kg_sb_result f = *r;
    int n = 0;
    /* a harness record without the start-up mark: its start-up events count
     * (the safe side; the real harness always marks before it loads code) */
    for (int i = 0; i < KG_SB_EVENTS && !f.startup_marked; i++)
        if (strstr(f.events[i], KG_SB_STARTUP_TAG)) {
            *strstr(f.events[i], KG_SB_STARTUP_TAG) = 0;
            f.is_violation[i] = 1;
        }
    for (int i = 0; i < KG_SB_EVENTS; i++) {
        if (!f.is_violation[i]) continue;
        for (int k = 0; k < g->dev[d].n_allow; k++)
            if (!strcmp(f.events[i], g->dev[d].allow[k])) f.is_violation[i] = 0;
        for (int k = 0; k < g->torch_allow_n; k++)
            if (!strcmp(f.events[i], g->torch_allow[k])) f.is_violation[i] = 0;
        n += f.is_violation[i];
    }
    kg_sb_describe(&f, 0, buf, len);
    return n;
}

/* Read the scan's whole record (it may arrive in pieces). */
static ssize_t read_record(int fd, void *buf, size_t len)
{
    size_t got = 0;
    for (int tries = 0; got < len && tries < 64; tries++) {
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* The scan's hits into the candidate: the rules line, the hits, and which
 * policies stop it statically. */
static void take_hits(kg_cand *c, const kg_static_msg *m)
{
    size_t o = 0;
    c->rules[0] = 0;
    c->n_hits = 0;
    c->hits_total = m->n_p0 + m->n_p1 + m->n_p2;
    for (int i = 0; i < m->n_hits && i < KG_MSG_HITS && c->n_hits < KG_CAND_HITS; i++) {
        const kg_static_hit *h = &m->hits[i];
        const kg_rule_info *r = kg_rule_at(h->rule);
        if (!r) continue;
        kg_hit *k = &c->hits[c->n_hits++];
        k->rule = h->rule;
        k->sev = h->sev;
        k->eff = h->eff;
        k->line = h->line;
        snprintf(k->msg, sizeof k->msg, "%.199s", h->msg);
        if (o + 48 < sizeof c->rules)
            o += (size_t)snprintf(c->rules + o, sizeof c->rules - o, "%s%s(P%d)@%d", o ? " " : "", r->id, h->eff, h->line);
        for (int p = 0; p < KG_POLICY_COUNT; p++)
            if (kg_policy_sev(p, h->rule, h->sev) == 0) c->policy_stops |= 1u << p;
    }
}

/* A diagnostic of libclang's (the scan's record) as the report may show it:
 * about the candidate's own text only (kg_cut_foreign), on one line. */
static void own_words(const char *text, const char *display, char *out, size_t len)
{
    char one[sizeof ((kg_static_msg *)0)->parse_error + 1];
    snprintf(one, sizeof one, "%s", text);
    char *cut = kg_cut_foreign(one, display);
    snprintf(out, len, "%s", cut ? cut : "");
    free(cut);
    size_t n = strlen(out);
    while (n && out[n - 1] == '\n') out[--n] = 0;
    for (char *p = out; *p; p++)
        if (*p == '\n') *p = ' ';
}

/* The scan's record arrived (or its sandbox ended). */
void static_result(kg_gate *g, kg_job *j, kg_cand *c)
{
    kg_sb_result rec;
    kg_sb_wait(&j->scan, kg_now() + 5, &rec);
    j->scan_on = 0;
    c->t_static = kg_now() - j->t0;
    c->t_sandbox += sb_start_s(&rec);
    j->static_done = 1;
    static kg_static_msg m;
    memset(&m, 0, sizeof m);
    int fl = fcntl(j->scan_fd, F_GETFL);
    fcntl(j->scan_fd, F_SETFL, fl | O_NONBLOCK);
    ssize_t got = read_record(j->scan_fd, &m, sizeof m);
    close_fd(&j->scan_fd);
    double limit = j->is_torch ? 4 * g->o->scan_timeout : g->o->scan_timeout;
    int valid = got == (ssize_t)sizeof m && kg_static_msg_valid(&m) && m.policy == g->o->policy;
    /* the scan ran out of time and said so (its --deadline, or its nvcc
     * runs' budget): no verdict on the candidate, checked before rc */
    int timed_out = valid && m.timed_out;
    /* out of wall-clock time: the candidate's when the scan kept a CPU busy
     * for at least half its CPU limit (a bomb), else the machine's (too
     * busy to run it) */
    int busy = (j->scan_killed || timed_out) && rec.cpu_s >= 0.5 * limit;
    if (((got != (ssize_t)sizeof m && j->scan_killed) || timed_out) && !busy && j->scan_tries++ < 1) {
        /* the machine's: once more; then it is the gate's failure */
        j->scan_killed = 0;
        j->static_done = 0;
        if (spawn_scan(g, j, c) == 0) return;
        j->static_done = 1;
    }
    if (timed_out) {
        char pe[300];
        own_words(m.parse_error, c->name, pe, sizeof pe);
        if (busy) {
            c->verdict = KG_V_L1;
            snprintf(c->reason, sizeof c->reason, "static track stopped: it ran out of time with %.1f s of CPU "
                     "time used (a preprocessor or template bomb?): %.250s", rec.cpu_s, pe);
        } else {
            c->verdict = KG_V_SKIPPED;
            c->gate_failure = 1;
            snprintf(c->reason, sizeof c->reason, "gate: the static scan ran out of time, twice, having used less "
                     "than half its %.0f s of CPU time (a machine too busy to run it): not judged; %.250s", limit, pe);
        }
        return;
    }
    if (!valid) {
        char end[200];
        kg_limits lim = kg_default_limits(KG_SB_SCAN, limit);
        if (j->is_torch) lim.as_bytes = lim.mem_bytes = 4ULL << 30;
        kg_sb_ending(&rec, &lim, end, sizeof end);
        c->verdict = KG_V_L1;
        if (busy) {
            snprintf(c->reason, sizeof c->reason, "static track stopped: no result within %.0f s of wall-clock "
                     "time, %.1f s of CPU time used (a preprocessor or template bomb?)", wall_s(limit, j->scan_tries), rec.cpu_s);
        } else if (j->scan_killed) {
            c->verdict = KG_V_SKIPPED;
            c->gate_failure = 1;
            snprintf(c->reason, sizeof c->reason, "gate: the static scan got no result within %.0f s of "
                     "wall-clock time, twice, having used less than half its %.0f s of CPU time (a machine too busy to "
                     "run it): not judged", wall_s(limit, j->scan_tries), limit);
        } else if (got > 0 && got != (ssize_t)sizeof m)
            snprintf(c->reason, sizeof c->reason, "static track failed: a truncated record");
        else if (got == (ssize_t)sizeof m)
            snprintf(c->reason, sizeof c->reason, "static track failed: a malformed record");
        else
            snprintf(c->reason, sizeof c->reason, "static track stopped: %s%s%s", end,
                     rec.stub_msg[0] ? "; " : "", rec.stub_msg);
        return;
    }
    take_hits(c, &m);
    if (m.rc == 0 && !m.parsed) {
        j->unparsed = 1;
        own_words(m.parse_error, c->name, j->parse_msg, sizeof j->parse_msg);
    }
    c->n_p0 = m.n_p0;
    c->n_p1 = m.n_p1;
    c->n_p2 = m.n_p2;
    if (m.needs_half) add_note(c, "%s", "repaired: #include <cuda_fp16.h> added");
    if (m.needs_bf16) add_note(c, "%s", "repaired: #include <cuda_bf16.h> added");
    if (m.rc != 0) {
        c->verdict = KG_V_L1;
        char pe[300];
        own_words(m.parse_error, c->name, pe, sizeof pe);
        snprintf(c->reason, sizeof c->reason, "static track failed: %.290s", pe);
    } else if (m.worst == KG_P0) {
        c->verdict = KG_V_P0;
        snprintf(c->reason, sizeof c->reason, "%.390s", m.reason);
    } else if (g->o->mode == MODE_STATIC) {
        c->verdict = KG_V_STATIC_OK;
        char pe[300];
        own_words(m.parse_error, c->name, pe, sizeof pe);
        snprintf(c->reason, sizeof c->reason, "no P0 rule hit%s%.290s", m.parsed ? "" : "; parse: ",
                 m.parsed ? "" : pe);
    } else if (!j->task) {
        c->verdict = KG_V_L1;
        snprintf(c->reason, sizeof c->reason,
                 "unknown task: add '// kgate-task: NAME', a labels entry or --task");
    } else if ((m.needs_half && !j->compile_needs_half) || (m.needs_bf16 && !j->compile_needs_bf16)) {
        c->verdict = KG_V_L1;   /* cannot happen: the gate repairs whenever the text names the type */
        snprintf(c->reason, sizeof c->reason, "gate: the header repair was not applied");
    } else {
        j->static_ok = 1;
        j->external = m.is_external;
    }
}

int parse_stop(kg_job *j, kg_cand *c)
{
    if (!j->unparsed) return 0;
    int rule = kg_rule_index("KG-PARSE"), line = 0, k;
    for (k = 0; k < c->n_hits && c->hits[k].rule != rule; k++) {}
    if (k == c->n_hits && k < KG_CAND_HITS) {   /* not among the hits the record carried: add it */
        c->n_hits++;
        c->hits[k].line = 0;
        c->hits[k].eff = 1;   /* counted among the P1 findings of the record */
        snprintf(c->hits[k].msg, sizeof c->hits[k].msg, "not valid C/CUDA for clang (%.150s)", j->parse_msg);
    }
    if (k < KG_CAND_HITS) {
        kg_hit *h = &c->hits[k];
        if (h->eff == 1 && c->n_p1 > 0) c->n_p1--;
        if (h->eff == 2 && c->n_p2 > 0) c->n_p2--;
        if (h->eff != 0) c->n_p0++;
        h->rule = rule;
        h->sev = h->eff = 0;
        line = h->line;
    }
    /* the rules line says what decided */
    char *r = strstr(c->rules, "KG-PARSE(P");
    size_t n = strlen(c->rules);
    if (r) r[strlen("KG-PARSE(P")] = '0';
    else if (n + 32 < sizeof c->rules) snprintf(c->rules + n, sizeof c->rules - n, "%sKG-PARSE(P0)@%d", n ? " " : "", line);
    for (int p = 0; p < KG_POLICY_COUNT; p++) c->policy_stops |= 1u << p;
    c->verdict = KG_V_P0;
    snprintf(c->reason, sizeof c->reason, "KG-PARSE at line %d: nvcc compiles it but clang cannot parse it "
             "(%.250s): the static track read only part of the candidate, so the gate refuses it", line, j->parse_msg);
    return 1;
}

/* A PyTorch build that failed for the machine's reasons, not the candidate's. */
static int torch_env_failure(const char *log, char *why, size_t len)
{
    const char *p = log ? strstr(log, "KGATE_ENV_ERROR: ") : NULL;
    if (p) {
        p += 17;
        snprintf(why, len, "%.*s", (int)strcspn(p, "\n"), p);
        return 1;
    }
    static const char *const env[] = {"Python.h: No such file", "Ninja is required", "No module named 'torch'",
                                      "CUDA_HOME environment variable is not set", NULL};
    for (int i = 0; log && env[i]; i++)
        if (strstr(log, env[i])) { snprintf(why, len, "%s", env[i]); return 1; }
    return 0;
}

/* A plain candidate whose compiled library defines the PyTorch adapter's
 * hooks (kgate_adapter_*): the gate's own names, honoured only for a PyTorch
 * candidate's adapter. 1 with the reason set. */
static int plain_defines_hooks(kg_job *j, int n_arch, char *reason, size_t len)
{
    for (int a = 0; a < n_arch || a == 0; a++) {
        if (n_arch && j->arch_ok[a] != 1) continue;
        char so[PATH_MAX + 64], which[64];
        snprintf(so, sizeof so, "%s/%s", j->dir, n_arch ? j->so_name[a] : "cand.so");
        if (kg_so_defines_hooks(so, which, sizeof which) == 1) {
            snprintf(reason, len, "refused: a plain candidate defines %s, a hook of the gate's PyTorch adapter "
                     "(only the adapter of a PyTorch candidate may define the gate's kgate_adapter_* symbols)", which);
            return 1;
        }
    }
    return 0;
}

/* The compiler's sandbox ended. */
void compile_result(kg_gate *g, kg_job *j, kg_cand *c)
{
    kg_sb_result rec;
    kg_sb_wait(&j->cc, kg_now() + 5, &rec);
    j->cc_on = 0;
    c->t_sandbox += sb_start_s(&rec);
    c->t_compile += rec.wall_ms / 1000.0;   /* the compiler's own wall time, retries included */
    double cc_limit = j->is_torch ? g->o->torch_timeout : g->o->compile_timeout;
    int cc_busy = j->cc_killed && rec.cpu_s >= 0.5 * cc_limit;   /* the candidate's (static_result) */
    if (j->cc_killed && !cc_busy && j->cc_tries++ < 1) {
        /* out of wall-clock time on a machine too busy to run it: once more */
        if (spawn_compile(g, j, c) == 0) return;
    }
    int ok = rec.exit_code == 0 && rec.term_signal == 0;
    char so[PATH_MAX + 64];
    if (j->is_torch) snprintf(so, sizeof so, "%s/build/kgate_cand.so", j->dir);
    else snprintf(so, sizeof so, "%s/%s", j->dir, j->cc_phase == 0 ? "cand.so" : j->so_name[j->cc_phase - 1]);
    if (ok && access(so, R_OK) != 0) ok = 0;
    /* the compiler said no (nvcc with --threads exits 255 on an error in
     * the source; 126 and 127 are the sandbox's: it could not start it) */
    int plain_failure = !j->cc_killed && rec.term_signal == 0 && rec.exit_code > 0 &&
                        (rec.exit_code < 126 || rec.exit_code == 255) && !rec.stub_failed;
    if (!j->is_torch) {
        if (!ok && !j->cpp17 && plain_failure) {
            /* the fast C++14 compile failed: the verdict is C++17's */
            j->cpp17 = 1;
            if (spawn_compile(g, j, c) == 0) return;
        }
        if (j->cc_phase == 0) {
            for (int a = 0; a < g->n_arch; a++) j->arch_ok[a] = ok;
            if (ok)
                for (int a = 0; a < g->n_arch; a++) snprintf(j->so_name[a], sizeof j->so_name[a], "cand.so");
        } else {
            j->arch_ok[j->cc_phase - 1] = ok;
        }
        /* several architectures and the fat binary failed: which ones? */
        if (!ok && plain_failure && g->n_arch > 1 && j->cc_phase < g->n_arch) {
            j->cc_phase++;
            snprintf(j->so_name[j->cc_phase - 1], sizeof j->so_name[0], "cand_sm%s.so", g->arch[j->cc_phase - 1]);
            if (spawn_compile(g, j, c) == 0) return;
        }
    } else {
        for (int a = 0; a < g->n_arch; a++) {
            j->arch_ok[a] = ok;
            snprintf(j->so_name[a], sizeof j->so_name[a], "build/kgate_cand.so");
        }
    }
    j->compile_done = 1;
    char *raw = kg_read_file(j->log, 1u << 20, NULL);
    kg_parse_ptxas(raw, &c->ptx);
    /* what reaches the report: the diagnostics about the candidate's own text */
    char *log = kg_cut_foreign(raw, c->path);
    int any = 0;
    for (int a = 0; a < g->n_arch; a++) any |= j->arch_ok[a] == 1;
    if (!any) {
        kg_limits lim = kg_default_limits(KG_SB_COMPILE, j->is_torch ? g->o->torch_timeout : g->o->compile_timeout);
        char end[256], first_err[300], why[300];
        kg_sb_ending(&rec, &lim, end, sizeof end);
        c->n_compile_errors = kg_compile_errors(log, c->path, c->compile_errors, KG_MAX_COMPILE_ERRORS);
        snprintf(first_err, sizeof first_err, "%s", c->n_compile_errors ? c->compile_errors[0] : "");
        if (!first_err[0]) kg_first_error(log, first_err, sizeof first_err);
        if (j->is_torch && torch_env_failure(raw, why, sizeof why)) {   /* fixed words only */
            j->env_skip = 1;
            snprintf(c->reason, sizeof c->reason, "PyTorch cannot build extensions here: %.300s", why);
        } else if (cc_busy) {
            snprintf(c->reason, sizeof c->reason, "compile stopped: no result within %.0f s of wall-clock time, "
                     "%.1f s of CPU time used", wall_s(cc_limit, j->cc_tries), rec.cpu_s);
        } else if (j->cc_killed) {
            double limit = cc_limit;
            j->env_skip = 1;   /* SKIPPED: the gate's failure, not the candidate's */
            c->gate_failure = 1;
            snprintf(c->reason, sizeof c->reason, "gate: the compiler got no result within %.0f s of wall-clock "
                     "time, twice, having used less than half its %.0f s of CPU time (a machine too busy to run it): "
                     "not judged", wall_s(limit, j->cc_tries), limit);
        } else if (rec.mem_oom)
            snprintf(c->reason, sizeof c->reason, "compile stopped: %s", end);
        else if (rec.term_signal && rec.term_signal != SIGKILL)
            snprintf(c->reason, sizeof c->reason, "compile stopped: %s", end);
        else if (!rec.started)
            snprintf(c->reason, sizeof c->reason, "gate: the compiler did not start in the sandbox: %.300s",
                     rec.stub_msg[0] ? rec.stub_msg : first_err);
        else
            snprintf(c->reason, sizeof c->reason, "compile error: %.300s", first_err[0] ? first_err : end);
    } else if (!j->is_torch && plain_defines_hooks(j, g->n_arch, c->reason, sizeof c->reason)) {
        /* the PyTorch adapter's hooks in a plain candidate: refused before anything loads it (L1) */
    } else {
        j->compile_ok = 1;
        c->compiled = 1;
        if (g->n_arch > 1)
            for (int a = 0; a < g->n_arch; a++)
                if (j->arch_ok[a] == 0) {
                    char t[64];
                    snprintf(t, sizeof t, "sm_%s", g->arch[a]);
                    add_note(c, "does not compile for %s", t);
                }
    }
    free(log);
    free(raw);
}

/* The verdict of a run on device d, from trusted sources only: the judge's
 * record, the harness sandbox's record (its exit, its signal, what it tried)
 * and the gate's own knowledge. */
static void compose(kg_gate *g, kg_job *j, kg_cand *c, int d, kg_dev_result *r, const kg_judge_msg *m,
                    int session_rc)
{
    kg_sb_result *h = &j->hrec[d];
    char viol[400] = "", all[400] = "", end[256];
    kg_limits lim = kg_default_limits(KG_SB_HARNESS, g->o->timeout);
    int nv = violations(g, d, h, viol, sizeof viol);
    kg_sb_describe(h, 1, all, sizeof all);
    if (all[0]) snprintf(c->sandbox, sizeof c->sandbox, "%s", all);
    kg_sb_ending(h, &lim, end, sizeof end);
    r->cand_ms_mid = m->cand_ms_mid;
    r->ref_ms_mid = m->ref_ms_mid;
    r->cand_ms_large = m->cand_ms_large;
    r->ref_ms_large = m->ref_ms_large;
    r->allow_ms = m->allow_ms;
    r->wall_batches = m->wall_batches;
    r->timed_batches = m->timed_batches;
    r->rep_ms_mid = m->rep_ms_mid;
    r->rep_ms_large = m->rep_ms_large;
    c->t_judge += m->t_io;
    const char *stage = m->stage[0] ? m->stage : "starting";
    if (nv > 0) {
        r->verdict = KG_V_L2;
        snprintf(r->reason, sizeof r->reason, "tried to leave its sandbox: %.300s", viol);
    } else if (session_rc != 0) {
        r->verdict = KG_V_L2;
        snprintf(r->reason, sizeof r->reason, "%.390s", m->detail);
    } else if (m->lost) {
        r->verdict = KG_V_L2;
        if (h->mem_oom)   /* killed by its memory cgroup: the ending names the limit */
            snprintf(r->reason, sizeof r->reason, "memory: over its %s while %.96s", end, stage);
        else if (m->timed_out) {
            char mem[120] = "";
            if (h->maxrss_kb > 0 && lim.data_bytes &&
                (unsigned long long)h->maxrss_kb * 1024ULL >= lim.data_bytes / 10 * 8)
                snprintf(mem, sizeof mem, " (peak memory %.1f GiB of the %.1f GiB limit)",
                         (double)h->maxrss_kb / 1048576.0, (double)lim.data_bytes / 1073741824.0);
            snprintf(r->reason, sizeof r->reason, "hang: killed after the %.0f s limit while %.96s%s",
                     g->o->timeout, stage, mem);
        }
        else if (!strncmp(m->detail, "protocol violation", 18))
            snprintf(r->reason, sizeof r->reason, "%.390s", m->detail);   /* what it sent says most */
        else if (h->term_signal && h->term_signal != SIGKILL)
            snprintf(r->reason, sizeof r->reason, "crash: the candidate's process died of %s while %.96s",
                     end, stage);
        else if (h->exit_code >= 0 && !h->term_signal)
            snprintf(r->reason, sizeof r->reason, "the candidate's process exited (code %d) without a "
                     "result while %.96s", h->exit_code, stage);
        else
            snprintf(r->reason, sizeof r->reason, "%.390s", m->detail);
    } else {
        r->verdict = m->verdict;
        snprintf(r->reason, sizeof r->reason, "%.390s", m->detail);
        int clean = h->term_signal == 0 && h->exit_code == 0;
        if (!clean && !kg_verdict_is_stop(r->verdict)) {
            r->verdict = KG_V_L2;
            snprintf(r->reason, sizeof r->reason, "the candidate's process did not end cleanly after "
                     "its checks: %s", end);
        }
        if (r->verdict == KG_V_L3 && (m->mm_n > 0 || m->mm_count > 0) && !c->mm_shape[0]) {
            snprintf(c->mm_shape, sizeof c->mm_shape, "%s", m->mm_shape);
            c->mm_count = m->mm_count;
            c->mm_checked = m->mm_checked;
            c->mm_n = m->mm_n;
            for (int i = 0; i < m->mm_n && i < 4; i++) {
                c->mm_index[i] = m->mm_index[i];
                c->mm_expected[i] = m->mm_expected[i];
                c->mm_got[i] = m->mm_got[i];
            }
        }
    }
    if (r->verdict == KG_V_PASS && j->external) {
        size_t l = strlen(r->reason);
        r->verdict = KG_V_EXTERNAL;
        snprintf(r->reason + l, sizeof r->reason - l, "; library-only (cuBLAS/CUB calls, no kernel)");
    }
}

/* Run the harness's session on device d with its judge, then collect the harness. */
static void run_on_device(kg_gate *g, kg_job *j, kg_cand *c, int d, int task_index, kg_dev_result *r)
{
    kg_judge_msg m;
    memset(&m, 0, sizeof m);
    int rc = -1;
    double t0 = kg_now();
    kg_judge_proc *jp = &g->dev[d].judge;
    if (j->h_on[d] && !j->h_dead[d] && j->h_ready[d] == 0) {
        /* its own harness still starting (its CUDA context): waited for
         * apart, so the run time is the session's */
        int st = 0;
        kg_quiesce(&j->cmd_w[d], &j->rep_r[d], &st, 1, kg_now() + 60);
        j->h_ready[d] = st;
        if (st < 0) {   /* no answer within a minute: never reached its start-up's end */
            end_harness(j, d);
            j->h_dead[d] = 1;
        }
        c->t_own_start += kg_now() - t0;
        t0 = kg_now();
    }
    if (j->h_dead[d] || !j->h_on[d]) {
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
        q.torch = j->is_torch;
        rc = kg_judge_session(jp, &q, j->cmd_w[d], j->rep_r[d], j->shm_fd[d], &m);
        /* the judge holds its own copies: without ours the harness sees EOF when the judge is done */
        close_fd(&j->cmd_w[d]);
        close_fd(&j->rep_r[d]);
        close_fd(&j->shm_fd[d]);
    }
    r->t_run = kg_now() - t0;
    c->t_run += r->t_run;
    if (j->h_on[d] && !j->h_dead[d]) {
        if (m.lost || rc != 0) kg_sb_kill(&j->harness[d]);
        kg_sb_wait(&j->harness[d], kg_now() + 3, &j->hrec[d]);
        j->h_on[d] = 0;
    }
    c->t_sandbox += sb_start_s(&j->hrec[d]);
    compose(g, j, c, d, r, &m, rc);
    if (rc != 0 || m.judge_failed) {
        kg_judge_stop(jp);
        if (g->o->mode == MODE_FULL || g->o->mode == MODE_DRY)
            kg_judge_start(jp, g->judge_main, g->dev[d].index, g->o->mode == MODE_DRY);
    }
}

/* The device matrix for one candidate: every device, then one verdict. */
void run_candidate(kg_gate *g, kg_job *j, kg_cand *c, int task_index)
{
    int v[KG_MAX_DEV];
    c->n_dev = g->n_dev;
    for (int d = 0; d < g->n_dev; d++) {
        kg_dev_result *r = &c->dev[d];
        memset(r, 0, sizeof *r);
        r->device = g->dev[d].index;
        snprintf(r->name, sizeof r->name, "%.63s", g->o->mode == MODE_DRY ? "none (dry run)" : g->dev[d].probe.name);
        snprintf(r->arch, sizeof r->arch, "%s", g->dev[d].arch);
        int a = arch_of_device(g, d);
        if (a < 0 || j->arch_ok[a] != 1) {
            r->verdict = a < 0 ? KG_V_SKIPPED : KG_V_L1;
            snprintf(r->reason, sizeof r->reason, a < 0 ? "no build for sm_%s" : "does not compile for sm_%s",
                     a < 0 ? g->dev[d].arch : g->arch[a]);
            if (j->h_on[d]) end_harness(j, d);
        } else {
            run_on_device(g, j, c, d, task_index, r);
        }
        v[d] = r->verdict;
    }
    c->verdict = kg_combine_devices(v, g->n_dev, &c->disagree);
    /* the reason and figures of the first device that gave the final verdict */
    for (int d = 0; d < g->n_dev; d++)
        if (v[d] == c->verdict) {
            snprintf(c->reason, sizeof c->reason, "%s", c->dev[d].reason);
            c->cand_ms_mid = c->dev[d].cand_ms_mid;
            c->ref_ms_mid = c->dev[d].ref_ms_mid;
            c->cand_ms_large = c->dev[d].cand_ms_large;
            c->ref_ms_large = c->dev[d].ref_ms_large;
            c->allow_ms = c->dev[d].allow_ms;
            c->wall_batches = c->dev[d].wall_batches;
            c->timed_batches = c->dev[d].timed_batches;
            c->rep_ms_mid = c->dev[d].rep_ms_mid;
            c->rep_ms_large = c->dev[d].rep_ms_large;
            break;
        }
    if (c->disagree) {
        size_t l = strlen(c->reason);
        snprintf(c->reason + l, sizeof c->reason - l, " [devices disagree]");
    }
}

/* Stop whatever still runs for a candidate decided without its run. */
void stop_job(kg_gate *g, kg_job *j)
{
    kg_sb_result r;
    if (j->cc_on) { kg_sb_kill(&j->cc); kg_sb_wait(&j->cc, kg_now() + 3, &r); j->cc_on = 0; }
    if (j->scan_on) { kg_sb_kill(&j->scan); kg_sb_wait(&j->scan, kg_now() + 3, &r); j->scan_on = 0; }
    for (int d = 0; d < g->n_dev; d++) {
        if (j->h_on[d]) { kg_sb_kill(&j->harness[d]); kg_sb_wait(&j->harness[d], kg_now() + 3, &r); j->h_on[d] = 0; }
        close_fd(&j->cmd_w[d]);
        close_fd(&j->rep_r[d]);
        close_fd(&j->shm_fd[d]);
    }
    close_fd(&j->scan_fd);
}

/* The GPU to this session alone (the H200 finding, README.md "Timing"):
 * harnesses of other candidates in flight create their CUDA contexts while
 * their candidates compile; before a session, wait until each has finished
 * (it answers a PING only then), and until the harnesses of finished
 * candidates are gone (their contexts torn down). Nothing else of the run
 * uses a GPU while the session runs: the loop starts no harness meanwhile,
 * nvcc and the scan use none. A harness that does not answer within 60 s is
 * stopped: its candidate gets L2. */
double quiesce_wait_s;   /* what the barrier cost, for the report */
int quiesce_waits;

double quiesce_others(kg_gate *g, kg_job *jobs, int next, int self)
{
    int cw[64 * KG_MAX_DEV], rr[64 * KG_MAX_DEV], st[64 * KG_MAX_DEV], who[64 * KG_MAX_DEV], dev[64 * KG_MAX_DEV];
    int n = 0;
    for (int i = 0; i < next && n < 64 * KG_MAX_DEV - KG_MAX_DEV; i++) {
        kg_job *k = &jobs[i];
        if (i == self || (k->state != J_FLIGHT && k->state != J_READY)) continue;
        for (int d = 0; d < g->n_dev; d++)
            if (k->h_on[d] && !k->h_dead[d] && k->h_ready[d] == 0) {
                cw[n] = k->cmd_w[d];
                rr[n] = k->rep_r[d];
                st[n] = 0;
                who[n] = i;
                dev[n++] = d;
            }
    }
    /* harnesses that ended early still tear down their CUDA contexts: done first */
    double t0 = kg_now();
    kg_sb_reap_lingering(1);
    if (n) kg_quiesce(cw, rr, st, n, kg_now() + 60);
    double waited = kg_now() - t0;
    quiesce_wait_s += waited;
    quiesce_waits += waited > 0.001;
    for (int x = 0; x < n; x++) {
        kg_job *k = &jobs[who[x]];
        k->h_ready[dev[x]] = st[x];
        if (st[x] < 0) {
            end_harness(k, dev[x]);
            k->h_dead[dev[x]] = 1;
        }
    }
    return waited;
}

/* ---- the late-warps run (late_warps.h) ------------------------------------ */

/* Does the candidate get the run? A PASS (or, in a dry run, a candidate that
 * loaded and ran), plain CUDA, with a KG-SYNC-MISSING finding (or every
 * one, with --late-warps=all). */
static int late_warps_wanted(const kg_gate *g, const kg_job *j, const kg_cand *c)
{
    if (g->o->late_warps == KG_LATE_NONE || j->is_torch || !j->source || !j->dir[0]) return 0;
    if (!(c->verdict == KG_V_PASS || (g->o->mode == MODE_DRY && c->verdict == KG_V_STATIC_OK))) return 0;
    if (g->o->late_warps == KG_LATE_ALL) return 1;
    int rule = kg_rule_index("KG-SYNC-MISSING");
    for (int i = 0; i < c->n_hits; i++)
        if (c->hits[i].rule == rule) return 1;
    return 0;
}

/* The run wanted but not made, for the gate's own reason: the verdict
 * stands (the run can only add a stop), the report says why. */
static void late_not_run(kg_cand *c, const char *why)
{
    c->late_state = KG_LATE_NOT_RUN;
    snprintf(c->late_note, sizeof c->late_note, "%.199s", why);
}

void late_warps_check(kg_gate *g, kg_job *j, kg_cand *c, kg_job *jobs, int next, int self, int task_index)
{
    if (!late_warps_wanted(g, j, c)) return;
    double t0 = kg_now();
    int ai = arch_of_device(g, 0);
    int nk = 0;
    char *late = kg_late_warps_source(j->source, &nk);
    char *csrc = late ? kg_compile_source(late, c->path, j->compile_needs_half, j->compile_needs_bf16) : NULL;
    free(late);
    char cu_host[PATH_MAX + 32];
    snprintf(cu_host, sizeof cu_host, "%s/cand_late.cu", j->dir);
    if (ai < 0 || j->arch_ok[ai] != 1) {
        late_not_run(c, "no build for the first device's architecture");
    } else if (!csrc || nk == 0) {
        late_not_run(c, csrc ? "no __global__ function body found in the text (a kernel a macro defines is not "
                               "changed)" : "out of memory");
    } else if (write_text(cu_host, csrc) != 0) {
        late_not_run(c, "cannot write the changed source");
    } else {
        /* the compile: the first device's architecture, in the compiler's sandbox */
        const char *argv[40];
        char archflag[512], cu[PATH_MAX + 32], so[PATH_MAX + 32];
        const char *d = g->sb->enabled ? "/scratch" : j->dir;
        snprintf(cu, sizeof cu, "%s/cand_late.cu", d);
        snprintf(so, sizeof so, "%s/cand_late.so", d);
        kg_compile_argv(g->nvcc, g->arch[ai], cu, so, strstr(j->source, "cublas") != NULL, j->cpp17, argv,
                        archflag, sizeof archflag);
        kg_sb_spec s;
        memset(&s, 0, sizeof s);
        s.kind = KG_SB_COMPILE;
        s.scratch = j->dir;
        s.scratch_rw = 1;
        s.argv = argv;
        /* its messages after the first compile's, in the compile log (--keep, --work) */
        int lf = open(j->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        s.out_fd = lf;
        s.slot = j->slot;
        s.lim = kg_default_limits(KG_SB_COMPILE, g->o->compile_timeout);
        kg_sb_proc p;
        kg_sb_result rec;
        char so_host[PATH_MAX + 32];
        snprintf(so_host, sizeof so_host, "%s/cand_late.so", j->dir);
        int spawned = kg_sb_spawn(g->sb, &s, &p);
        if (lf >= 0) close(lf);
        if (spawned != 0) {
            late_not_run(c, "cannot start the compiler in the sandbox");
        } else if (kg_sb_wait(&p, kg_now() + wall_s(g->o->compile_timeout, 0), &rec) < 0 || rec.exit_code != 0 ||
                   rec.term_signal != 0 || access(so_host, R_OK) != 0) {
            late_not_run(c, "the changed source did not compile (the gate's change, not the candidate's code)");
        } else if (spawn_harness(g, j, 0, "cand_late.so", NULL) != 0) {
            late_not_run(c, "cannot start the candidate's process in the sandbox");
        } else {
            /* the checks again, untimed, with the GPU to this session alone */
            j->h_dead[0] = 0;
            j->h_ready[0] = 0;
            quiesce_others(g, jobs, next, self);
            int timing = g->o->no_timing;
            g->o->no_timing = 1;
            kg_dev_result r;
            memset(&r, 0, sizeof r);
            run_on_device(g, j, c, 0, task_index, &r);
            g->o->no_timing = timing;
            if (kg_verdict_is_stop(r.verdict)) {
                c->late_state = KG_LATE_STOPPED;
                c->verdict = r.verdict;
                snprintf(c->reason, sizeof c->reason, "late warps: with half of each block's warps started about "
                         "20 us late: %.300s", r.reason);
                snprintf(c->late_note, sizeof c->late_note, "a race between warps: the outputs depend on the order "
                         "the warps run in; put __syncthreads() between writing shared memory and any other "
                         "thread's read or atomic on it");
                c->dev[0].verdict = r.verdict;
                snprintf(c->dev[0].reason, sizeof c->dev[0].reason, "%s", c->reason);
            } else if (r.verdict == KG_V_PASS || r.verdict == KG_V_STATIC_OK || r.verdict == KG_V_EXTERNAL) {
                c->late_state = KG_LATE_HELD;
                snprintf(c->late_note, sizeof c->late_note, "%d kernel(s) changed; %s", nk,
                         g->o->mode == MODE_DRY ? "dry run: loaded and called, nothing checked"
                                                : "the outputs were right again");
            } else {
                char why[300];
                snprintf(why, sizeof why, "the run ended without a verdict: %.200s", r.reason);
                late_not_run(c, why);
            }
        }
    }
    free(csrc);
    c->t_late = kg_now() - t0;
}
