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
            "  --jobs=N           parallel nvcc compiles (default: CPU count, at most 16)\n"
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
    o->jobs = ncpu < 1 ? 1 : ncpu > 16 ? 16 : (int)ncpu;
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

typedef struct {
    char *source;              /* fixed source, to compile; NULL if stopped */
    const kg_task *task;
    int external;
    char cu[1024], so[1024], log[1024], runlog[1024];
    pid_t pid;
    double t0;
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

    /* ---- 1. static track --------------------------------------------- */
    for (int i = 0; i < n; i++) {
        kg_cand *c = &cands[i];
        kg_job *j = &jobs[i];
        snprintf(c->path, sizeof c->path, "%s", paths[i]);
        const char *base = strrchr(paths[i], '/');
        snprintf(c->name, sizeof c->name, "%s", base ? base + 1 : paths[i]);
        c->expected = -1;
        const kg_label *lab = kg_labels_find(labels, n_labels, c->name);
        if (lab) {
            c->expected = lab->expected;
            snprintf(c->defect, sizeof c->defect, "%s", lab->defect);
        }
        double t0 = now_s();
        char err[256] = "";
        char *src = kg_load_candidate(paths[i], MAX_SOURCE_BYTES, err, sizeof err);
        j->task = o.task ? kg_task_find(o.task) : NULL;
        if (!j->task && src) j->task = task_from_source(src);
        if (!j->task && lab) j->task = kg_task_find(lab->task);
        snprintf(c->task, sizeof c->task, "%s", j->task ? j->task->name : "?");
        if (!src) {
            c->verdict = KG_V_L1;
            snprintf(c->reason, sizeof c->reason, "not a candidate: %s", err[0] ? err : "unreadable");
            c->t_static = now_s() - t0;
            continue;
        }
        kg_static_result r;
        memset(&r, 0, sizeof r);
        int rc = kg_static_scan(src, c->name, &r);
        c->t_static = now_s() - t0;
        rules_text(&r, c);
        if (rc != 0) {
            c->verdict = KG_V_L1;
            snprintf(c->reason, sizeof c->reason, "static track failed: %s", r.parse_error);
        } else if (kg_static_worst(&r) == KG_P0) {
            c->verdict = KG_V_P0;
            for (int k = 0; k < r.n; k++)
                if (r.items[k].sev == KG_P0) {
                    snprintf(c->reason, sizeof c->reason, "%s at line %d: %s", r.items[k].rule,
                             r.items[k].line, r.items[k].message);
                    break;
                }
        } else if (o.static_only) {
            c->verdict = KG_V_STATIC_OK;
            snprintf(c->reason, sizeof c->reason, "no P0 rule hit%s%s",
                     r.parsed ? "" : "; parse: ", r.parsed ? "" : r.parse_error);
        } else if (!j->task) {
            c->verdict = KG_V_L1;
            snprintf(c->reason, sizeof c->reason,
                     "unknown task: add '// kgate-task: NAME', a labels entry or --task");
        } else {
            j->source = kg_static_fixed_source(src, &r);
            j->external = r.is_external;
            c->verdict = -1;   /* dynamic track decides */
        }
        kg_static_free(&r);
        free(src);
    }

    /* ---- 2. compile, --jobs at a time ---------------------------------- */
    if (!o.static_only) {
        int next = 0, active = 0;
        for (;;) {
            while (active < o.jobs && next < n) {
                kg_job *j = &jobs[next];
                if (j->source) {
                    char nm[160];
                    sanitize(cands[next].name, nm, sizeof nm);
                    snprintf(j->cu, sizeof j->cu, "%s/%03d_%s.cu", workdir, next % 1000, nm);
                    snprintf(j->so, sizeof j->so, "%s/%03d_%s.so", workdir, next % 1000, nm);
                    snprintf(j->log, sizeof j->log, "%s/%03d_%s.nvcc.log", workdir, next % 1000, nm);
                    snprintf(j->runlog, sizeof j->runlog, "%s/%03d_%s.run.log", workdir, next % 1000, nm);
                    j->t0 = now_s();
                    if (write_text(j->cu, j->source) != 0) {
                        cands[next].verdict = KG_V_L1;
                        snprintf(cands[next].reason, sizeof cands[next].reason,
                                 "gate: cannot write %.300s", j->cu);
                    } else {
                        j->pid = kg_compile_spawn(o.nvcc, arch, j->cu, j->so, j->log,
                                                  strstr(j->source, "cublas") != NULL);
                        if (j->pid > 0) active++;
                    }
                }
                next++;
            }
            if (active == 0) break;
            int st;
            pid_t p = waitpid(-1, &st, 0);
            if (p < 0) break;
            for (int i = 0; i < n; i++) {
                kg_job *j = &jobs[i];
                if (j->pid != p) continue;
                kg_cand *c = &cands[i];
                active--;
                j->pid = 0;
                c->t_compile = now_s() - j->t0;
                char *log = kg_read_file(j->log, 1u << 20, NULL);
                kg_parse_ptxas(log, &c->ptx);
                if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
                    char first_err[300];
                    kg_first_error(log, first_err, sizeof first_err);
                    c->verdict = KG_V_L1;
                    snprintf(c->reason, sizeof c->reason, "compile error: %s", first_err);
                } else {
                    c->compiled = 1;
                }
                free(log);
                break;
            }
        }
    }

    /* ---- 3. run, one child per candidate, one at a time ----------------- */
    for (int i = 0; i < n; i++) {
        kg_cand *c = &cands[i];
        kg_job *j = &jobs[i];
        if (!o.static_only && c->verdict == -1 && c->compiled) {
            kg_child_args a = {j->so, j->task, o.seed, o.device, o.no_timing};
            kg_child_outcome oc;
            kg_run_child(kg_child_main, &a, j->runlog, o.timeout, &oc);
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
        }
        if (c->verdict < 0) c->verdict = KG_V_L1;   /* not compiled and no reason: cannot happen */
        c->t_total = c->t_static + c->t_compile + c->t_run;
        kg_print_candidate(stdout, c);
        fflush(stdout);
        free(j->source);
        if (own_work && !o.keep) {
            unlink(j->cu);
            unlink(j->so);
            unlink(j->log);
            unlink(j->runlog);
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

    /* The closing line. With labels: the targets of the issue (static only:
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
