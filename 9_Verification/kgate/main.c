/* kgate: screen CUDA kernels (e.g. LLM-generated ones) with two tracks.
 *
 * What it teaches: how to judge code you did not write. A static track reads
 * the candidate's AST (libclang) and rejects what is certainly wrong (P0);
 * the dynamic track compiles it (nvcc -Xptxas -v), runs it in a child
 * process per candidate against a CPU reference and the gate's own reference
 * implementation, and times it. Verdicts: P0, L1 compile error, L2 runtime
 * failure, L3 numeric error, L4 slower than 50% of the reference, PASS, and
 * EXTERNAL for library-only candidates that pass.
 *
 * Build:  make -C 9_Verification/kgate        (bin/kgate)
 * Run:    bin/kgate 9_Verification/kgate/corpus                 full gate, labels.tsv found
 *         bin/kgate --static-only 9_Verification/kgate/corpus   no GPU needed
 *         bin/kgate --task=sgemm my_sgemm.cu --json=report.json
 * Exit: 0 when every candidate is accepted (or, with labels, the gate met
 * its targets), 1 otherwise or on a bad argument, 2 when the full gate has
 * no CUDA device (WAIVED).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "dynamic.h"
#include "kg_report.h"
#include "kgate_static.h"
#include "tasks.h"

/* the child bodies live in runner.cu */
void kg_child_main(const kg_child_args *a, int fd);
void kg_probe_main(int device, int fd);

#define MAX_CANDS 4096
#define MAX_SOURCE_BYTES (1u << 20)   /* 1 MiB: a bigger file is not a kernel answer */

/* ---- options ----------------------------------------------------------- */

typedef struct {
    const char *task, *json, *labels, *arch, *work, *nvcc;
    int jobs, static_only, no_timing, keep, device;
    double timeout;
    unsigned long long seed;
    int min_interception_pct, max_false_kill_pct;
} kg_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kgate [options] PATH...   (PATH: a candidate file or a directory of them)\n"
            "  --task=NAME        task of candidates that do not name one (// kgate-task: NAME)\n"
            "  --labels=FILE      labels (file, task, verdict, defect); default: DIR/labels.tsv\n"
            "  --json=FILE        write the JSON report to FILE\n"
            "  --static-only      only the static track (no GPU needed)\n"
            "  --no-timing        correctness only (no L4 verdicts)\n"
            "  --jobs=N           candidates in flight: static scans and nvcc compiles run in\n"
            "                     parallel, GPU runs one at a time (default: CPU count / 4, at most 4)\n"
            "  --timeout=SECONDS  hard limit per candidate's child process (default 20)\n"
            "  --device=N         CUDA device (default 0)\n"
            "  --arch=SM          nvcc architecture, e.g. 90 (default: the device's)\n"
            "  --seed=N           input seed (default 2026)\n"
            "  --work=DIR         keep compiled candidates and logs in DIR\n"
            "  --nvcc=PATH        nvcc to use (default: nvcc on PATH)\n"
            "  --help\n"
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
    o->seed = 2026;
    o->nvcc = "nvcc";
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    /* each candidate in flight runs a static scan and an nvcc at once: half
     * the CPUs keeps them from slowing each other down */
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
        static const char *flags[] = {"help", "static-only", "no-timing", "keep"};
        int is_flag = 0;
        for (int f = 0; f < 4; f++) is_flag |= strcmp(name, flags[f]) == 0;
        if (is_flag) {
            if (eq) { bad_arg("option --%s takes no value", name); return -1; }
            if (!strcmp(name, "help")) return -2;
            if (!strcmp(name, "static-only")) o->static_only = 1;
            if (!strcmp(name, "no-timing")) o->no_timing = 1;
            if (!strcmp(name, "keep")) o->keep = 1;
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
            if (parse_long(val, 1, 256, &v)) { bad_arg("--jobs=%s: expected 1..256", val); return -1; }
            o->jobs = (int)v;
        } else if (!strcmp(name, "device")) {
            if (parse_long(val, 0, 64, &v)) { bad_arg("--device=%s: expected 0..64", val); return -1; }
            o->device = (int)v;
        } else if (!strcmp(name, "seed")) {
            if (parse_long(val, 0, (1LL << 62), &v)) { bad_arg("--seed=%s: expected a non-negative integer", val); return -1; }
            o->seed = (unsigned long long)v;
        } else if (!strcmp(name, "timeout")) {
            if (parse_long(val, 1, 3600, &v)) { bad_arg("--timeout=%s: expected 1..3600 seconds", val); return -1; }
            o->timeout = (double)v;
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

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
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

static void rules_text(const kg_static_result *r, kg_cand *c)
{
    size_t o = 0;
    c->rules[0] = 0;
    for (int i = 0; i < r->n; i++) {
        const kg_finding *f = &r->items[i];
        if (f->sev == KG_P0) c->n_p0++;
        else if (f->sev == KG_P1) c->n_p1++;
        else c->n_p2++;
        if (o + 48 < sizeof c->rules)
            o += (size_t)snprintf(c->rules + o, sizeof c->rules - o, "%s%s(P%d)@%d",
                                  o ? " " : "", f->rule, (int)f->sev, f->line);
    }
}

/* What a static-scan child sends back (one write, smaller than PIPE_BUF). */
typedef struct {
    int rc, worst, parsed, is_external, needs_half, n_p0, n_p1, n_p2;
    char rules[600];
    char reason[400];
    char parse_error[256];
} kg_static_msg;

enum { J_QUEUED, J_FLIGHT, J_READY, J_DONE };

typedef struct {
    char *source;              /* loaded source; NULL once finished */
    const kg_task *task;
    int external, state;
    char cu[1024], so[1024], log[1024], runlog[1024];
    pid_t cpid, spid;          /* nvcc (own process group), static-scan child */
    int sfd;                   /* the static child's result pipe */
    int static_done, static_ok, compile_done, compile_ok, compile_needs_half;
    int cpp17;                 /* compiling as C++17 (else C++14, retried as 17 on failure) */
    kg_child runner;           /* pre-started: its CUDA context overlaps the compile */
    int has_runner;
    double t0, tc0;            /* start of processing; start of the compile */
} kg_job;

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

int main(int argc, char **argv)
{
    kg_opts o;
    int first = parse_args(argc, argv, &o);
    if (first == -2) { usage(stdout); return 0; }
    if (first < 0) return 1;
    double wall0 = now_s();

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

    /* The device first, in a child: the gate itself never touches CUDA. */
    kg_probe_msg probe;
    memset(&probe, 0, sizeof probe);
    char arch[16] = "90";
    if (o.arch) snprintf(arch, sizeof arch, "%s", o.arch);
    if (!o.static_only) {
        if (kg_probe_device(kg_probe_main, o.device, 60, &probe) != 0 || !probe.ok) {
            printf("kgate: WAIVED (%s; --static-only runs the static track alone)\n",
                   probe.reason[0] ? probe.reason : "no CUDA device");
            return 2;
        }
        if (!o.arch) snprintf(arch, sizeof arch, "%d%d", probe.cc_major, probe.cc_minor);
        printf("# device %d: %s, CC %d.%d, %d SMs; candidates built for sm_%s\n", o.device,
               probe.name, probe.cc_major, probe.cc_minor, probe.sm_count, arch);
    }

    char workdir[512];
    int own_work = 0;
    if (o.work) {
        snprintf(workdir, sizeof workdir, "%s", o.work);
        mkdir(workdir, 0755);
    } else if (!o.static_only) {
        const char *tmp = getenv("TMPDIR");
        snprintf(workdir, sizeof workdir, "%s/kgate.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(workdir)) {
            fprintf(stderr, "kgate: error: cannot create a work folder: %s\n", strerror(errno));
            return 1;
        }
        own_work = 1;
    }

    kg_cand *cands = (kg_cand *)calloc((size_t)n, sizeof(kg_cand));
    kg_job *jobs = (kg_job *)calloc((size_t)n, sizeof(kg_job));

    /* One pipeline per candidate, --jobs candidates in flight: the nvcc
     * compile and the runner child (which creates its CUDA context, then
     * waits for its go) start first, the static scan runs in a child of its
     * own at the same time; when the scan passes and the compile succeeds the
     * candidate is ready, and ready candidates run on the GPU one at a time
     * (never two GPU runs at once: timings stay clean). A new candidate is
     * admitted only while no candidate waits for the GPU, so queueing does
     * not inflate anyone's latency. Per-candidate total = wall time from the
     * start of its processing to its verdict. */
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
        jobs[i].sfd = -1;
    }
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
            j->t0 = now_s();
            j->state = J_FLIGHT;
            in_flight++;
            char err[256] = "";
            j->source = kg_load_candidate(paths[i], MAX_SOURCE_BYTES, err, sizeof err);
            j->task = o.task ? kg_task_find(o.task) : NULL;
            if (!j->task && j->source) j->task = task_from_source(j->source);
            if (!j->task && lab) j->task = kg_task_find(lab->task);
            snprintf(c->task, sizeof c->task, "%s", j->task ? j->task->name : "?");
            if (!j->source) {
                c->verdict = KG_V_L1;
                snprintf(c->reason, sizeof c->reason, "not a candidate: %s", err[0] ? err : "unreadable");
                c->t_static = now_s() - j->t0;
                j->static_done = j->compile_done = 1;
                continue;
            }
            /* the compile, on the source the static track would fix: the
             * only auto-fix (cuda_fp16.h for __half/half2 users) is applied
             * whenever "half" appears (a second include is harmless) */
            if (!o.static_only && j->task) {
                char nm[160];
                sanitize(c->name, nm, sizeof nm);
                snprintf(j->cu, sizeof j->cu, "%s/%03d_%s.cu", workdir, i % 1000, nm);
                snprintf(j->so, sizeof j->so, "%s/%03d_%s.so", workdir, i % 1000, nm);
                snprintf(j->log, sizeof j->log, "%s/%03d_%s.nvcc.log", workdir, i % 1000, nm);
                snprintf(j->runlog, sizeof j->runlog, "%s/%03d_%s.run.log", workdir, i % 1000, nm);
                kg_static_result fix;
                memset(&fix, 0, sizeof fix);
                fix.needs_half_header = strstr(j->source, "half") != NULL;
                j->compile_needs_half = fix.needs_half_header;
                char *csrc = kg_static_fixed_source(j->source, &fix);
                j->tc0 = now_s();
                if (!csrc || write_text(j->cu, csrc) != 0) {
                    j->compile_done = 1;
                    snprintf(c->reason, sizeof c->reason, "gate: cannot write %.300s", j->cu);
                } else {
                    j->cpp17 = kg_needs_cpp17(j->source);
                    j->cpid = kg_compile_spawn(o.nvcc, arch, j->cu, j->so, j->log,
                                               strstr(j->source, "cublas") != NULL, j->cpp17);
                    if (j->cpid <= 0) {
                        j->compile_done = 1;
                        snprintf(c->reason, sizeof c->reason, "gate: cannot start %s", o.nvcc);
                    }
                }
                free(csrc);
                if (j->cpid > 0) {
                    kg_child_args a = {j->so, j->task, o.seed, o.device, o.no_timing, 0, -1};
                    j->has_runner = kg_child_start(kg_child_main, &a, j->runlog, &j->runner) == 0;
                }
            } else {
                j->compile_done = 1;
            }
            /* the static track, in a child of its own */
            int sp[2];
            if (pipe(sp) != 0) {
                fprintf(stderr, "kgate: error: pipe: %s\n", strerror(errno));
                return 1;
            }
            fflush(stdout);
            fflush(stderr);
            pid_t sp_pid = fork();
            if (sp_pid == 0) {
                kg_close_fds_except(sp[1], -1);
                kg_static_msg m;
                memset(&m, 0, sizeof m);
                kg_static_result r;
                memset(&r, 0, sizeof r);
                m.rc = kg_static_scan(j->source, c->name, &r);
                kg_cand tmp;
                memset(&tmp, 0, sizeof tmp);
                rules_text(&r, &tmp);
                memcpy(m.rules, tmp.rules, sizeof m.rules);
                m.n_p0 = tmp.n_p0;
                m.n_p1 = tmp.n_p1;
                m.n_p2 = tmp.n_p2;
                m.worst = kg_static_worst(&r);
                m.parsed = r.parsed;
                m.is_external = r.is_external;
                m.needs_half = r.needs_half_header;
                snprintf(m.parse_error, sizeof m.parse_error, "%s", r.parse_error);
                for (int k = 0; k < r.n; k++)
                    if (r.items[k].sev == KG_P0) {
                        snprintf(m.reason, sizeof m.reason, "%s at line %d: %s", r.items[k].rule,
                                 r.items[k].line, r.items[k].message);
                        break;
                    }
                ssize_t w = write(sp[1], &m, sizeof m);
                (void)w;
                _exit(0);
            }
            close(sp[1]);
            if (sp_pid < 0) {
                close(sp[0]);
                fprintf(stderr, "kgate: error: fork: %s\n", strerror(errno));
                return 1;
            }
            j->spid = sp_pid;
            j->sfd = sp[0];
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
                } else {
                    j->state = J_READY;
                    continue;
                }
            }
            /* decided without the GPU: stop what still runs for it */
            if (j->cpid > 0) {
                kill(-j->cpid, SIGKILL);
                kill(j->cpid, SIGKILL);
                waitpid(j->cpid, NULL, 0);
                j->cpid = 0;
            }
            if (j->has_runner) kg_child_cancel(&j->runner);
            j->has_runner = 0;
            if (c->verdict < 0) c->verdict = KG_V_L1;
            c->t_total = now_s() - j->t0;
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
            kg_child_outcome oc;
            if (j->has_runner) {
                kg_child_go(&j->runner, j->so, o.timeout, &oc);
            } else {   /* the pre-start failed: the old way, fork now */
                kg_child_args a = {j->so, j->task, o.seed, o.device, o.no_timing, 0, -1};
                kg_run_child(kg_child_main, &a, j->runlog, o.timeout, &oc);
            }
            j->has_runner = 0;
            c->t_run = oc.seconds;
            c->verdict = kg_outcome_verdict(&oc, c->reason, sizeof c->reason);
            c->cand_ms_mid = oc.last.cand_ms_mid;
            c->ref_ms_mid = oc.last.ref_ms_mid;
            c->cand_ms_large = oc.last.cand_ms_large;
            c->ref_ms_large = oc.last.ref_ms_large;
            if (c->verdict == KG_V_PASS && j->external) {
                c->verdict = KG_V_EXTERNAL;
                size_t l = strlen(c->reason);
                snprintf(c->reason + l, sizeof c->reason - l, "; library-only (cuBLAS/CUB calls, no kernel)");
            }
            c->t_total = now_s() - j->t0;
            j->state = J_DONE;
            in_flight--;
            n_done++;
        } else if (n_done < n && in_flight > 0) {
            /* ---- wait for a static scan or a compile (or a runner that died early) ---- */
            int st;
            pid_t p = waitpid(-1, &st, 0);
            if (p < 0) {
                if (errno == EINTR) continue;
                fprintf(stderr, "kgate: internal error: nothing left to wait for\n");
                return 1;
            }
            for (int i = 0; i < next; i++) {
                kg_job *j = &jobs[i];
                kg_cand *c = &cands[i];
                if (j->has_runner && j->runner.pid == p) {
                    j->runner.reaped = 1;
                    j->runner.status = st;
                    break;
                }
                if (j->spid == p) {
                    j->spid = 0;
                    kg_static_msg m;
                    memset(&m, 0, sizeof m);
                    ssize_t g = read(j->sfd, &m, sizeof m);
                    close(j->sfd);
                    j->sfd = -1;
                    c->t_static = now_s() - j->t0;
                    j->static_done = 1;
                    if (g != (ssize_t)sizeof m) {
                        c->verdict = KG_V_L1;
                        snprintf(c->reason, sizeof c->reason,
                                 "static track failed: the scan died (status 0x%x)", st);
                        break;
                    }
                    memcpy(c->rules, m.rules, sizeof c->rules);
                    c->rules[sizeof c->rules - 1] = 0;
                    c->n_p0 = m.n_p0;
                    c->n_p1 = m.n_p1;
                    c->n_p2 = m.n_p2;
                    if (m.rc != 0) {
                        c->verdict = KG_V_L1;
                        snprintf(c->reason, sizeof c->reason, "static track failed: %s", m.parse_error);
                    } else if (m.worst == KG_P0) {
                        c->verdict = KG_V_P0;
                        snprintf(c->reason, sizeof c->reason, "%s", m.reason);
                    } else if (o.static_only) {
                        c->verdict = KG_V_STATIC_OK;
                        snprintf(c->reason, sizeof c->reason, "no P0 rule hit%s%s",
                                 m.parsed ? "" : "; parse: ", m.parsed ? "" : m.parse_error);
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
                    break;
                }
                if (j->cpid == p && !(WIFEXITED(st) && WEXITSTATUS(st) == 0) && !j->cpp17) {
                    /* the fast C++14 compile failed: the verdict is C++17's */
                    j->cpp17 = 1;
                    j->cpid = kg_compile_spawn(o.nvcc, arch, j->cu, j->so, j->log,
                                               strstr(j->source, "cublas") != NULL, 1);
                    if (j->cpid <= 0) {
                        j->cpid = 0;
                        j->compile_done = 1;
                        snprintf(c->reason, sizeof c->reason, "gate: cannot start %s", o.nvcc);
                    }
                    break;
                }
                if (j->cpid == p) {
                    j->cpid = 0;
                    c->t_compile = now_s() - j->tc0;
                    j->compile_done = 1;
                    char *log = kg_read_file(j->log, 1u << 20, NULL);
                    kg_parse_ptxas(log, &c->ptx);
                    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
                        char first_err[300];
                        kg_first_error(log, first_err, sizeof first_err);
                        snprintf(c->reason, sizeof c->reason, "compile error: %s", first_err);
                    } else {
                        j->compile_ok = 1;
                        c->compiled = 1;
                    }
                    free(log);
                    break;
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
            if (own_work && !o.keep) {
                unlink(j->cu);
                unlink(j->so);
                unlink(j->log);
                unlink(j->runlog);
            }
            printed++;
        }
    }
    if (own_work && !o.keep) rmdir(workdir);

    kg_summary s;
    kg_summarize(cands, n, now_s() - wall0, &s);
    kg_print_summary(stdout, &s);
    if (o.json) {
        FILE *f = fopen(o.json, "w");
        kg_run_info info = {o.static_only ? "none (static only)" : probe.name, arch,
                            o.static_only ? "static-only" : o.no_timing ? "no-timing" : "full",
                            o.seed};
        if (!f || kg_write_json(f, &info, cands, n, &s) != 0 || fclose(f) != 0) {
            fprintf(stderr, "kgate: error: cannot write --json=%s\n", o.json);
            printf("kgate: FAIL (cannot write the JSON report)\n");
            return 1;
        }
        printf("JSON report: %s\n", o.json);
    }

    /* The closing line. With labels: the gate's targets (static only:
     * no good candidate rejected); without: every candidate accepted. */
    int ok;
    char why[200];
    if (s.n_labeled > 0 && o.static_only) {
        ok = s.good_stopped == 0;
        snprintf(why, sizeof why, "%d good candidate(s) rejected by the static track", s.good_stopped);
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
