/* kgate: screen CUDA kernels (e.g. LLM-generated ones) with two tracks,
 * safely: the code being judged is assumed hostile.
 *
 * What it teaches: how to judge code you did not write without letting it
 * judge itself. A static track reads the candidate's AST (libclang, 80
 * rules: README-static.md) and rejects what is certainly wrong (P0, under a
 * policy profile: --policy); the dynamic track compiles it (nvcc -Xptxas -v,
 * or PyTorch's load_inline for a PyTorch candidate), runs it in a sandboxed
 * harness process on every GPU of the run and has a separate judge, which
 * never runs candidate code, compare its outputs with a CPU reference and
 * the judge's own reference implementation, and time it. The static scan,
 * the compiler and the harness each run in a bubblewrap sandbox with
 * resource limits and a seccomp monitor (sandbox.h); verdicts come only from
 * the judge's checks, exit statuses, the monitor's record and the gate's own
 * clocks. Verdicts: P0, L1 compile error, L2 runtime failure (a crash, a
 * hang, a limit, an attempt to leave the sandbox), L3 numeric error, L4
 * slower than 50% of the reference (explained with Nsight Compute where ncu
 * is available), PASS, EXTERNAL for library-only candidates that pass, and
 * SKIPPED for what this machine cannot judge. Every candidate also gets a
 * machine-readable feedback record for the generator (--feedback).
 *
 * Build:  make -C 9_Verification/kgate        (bin/kgate, bin/kgate-sandbox, bin/kgate-scan,
 *                                              bin/kgate-harness, bin/kgate-torch-build.py)
 * Run:    bin/kgate 9_Verification/kgate/corpus                 full gate, labels.tsv found
 *         bin/kgate --static-only 9_Verification/kgate/corpus   no GPU needed
 *         bin/kgate --compile-only ...    static track and the compiler (no GPU)
 *         bin/kgate --dry-run ...         ... and the candidate loaded and called once in the
 *                                         sandbox, without a GPU (sandbox tests)
 *         bin/kgate my_sgemm.cu --task=sgemm --json=report.json --feedback=fb.jsonl
 * Exit: 0 when every candidate is accepted (or, with labels, the gate met
 * its targets), 1 otherwise, on a bad argument, a labels problem or without
 * a working sandbox (unless --no-sandbox), 2 when the full gate has no CUDA
 * device (WAIVED).
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
#include "ncu.h"
#include "proto.h"
#include "rules.h"
#include "sandbox.h"
#include "torch_adapter.h"
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
/* and the reference's profile for --profile-reference (explained L4) */
int kg_profile_reference(int task, int device, unsigned long long seed);

#define MAX_CANDS 4096
#define MAX_SOURCE_BYTES (1u << 20)   /* 1 MiB: a bigger file is not a kernel answer */
#define MAX_ARCH 4

/* ---- options ----------------------------------------------------------- */

enum { MODE_FULL, MODE_STATIC, MODE_COMPILE, MODE_DRY };

typedef struct {
    const char *task, *json, *labels, *arch, *work, *nvcc, *feedback, *python, *ncu;
    int jobs, mode, no_timing, keep, no_sandbox, policy;
    int explain;                       /* -1: where ncu is found, 0: never, 1: always (an error without ncu) */
    int all_devices, n_dev_req, dev_req[KG_MAX_DEV];
    double timeout, scan_timeout, compile_timeout, torch_timeout, explain_budget;
    unsigned long long seed;
    const char **paths;
    int n_paths;
} kg_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kgate [options] PATH... [options]   (PATH: a candidate file or a directory of them;\n"
            "       options may come before or after the paths; after `--` everything is a path)\n"
            "  --task=NAME        task of candidates that do not name one (// kgate-task: NAME)\n"
            "  --labels=FILE      labels (file, task, verdict, defect); default: DIR/labels.tsv\n"
            "  --json=FILE        write the JSON report to FILE\n"
            "  --feedback=FILE    write one feedback record per candidate (JSON lines) for the generator\n"
            "  --policy=NAME      what rejects statically: default (certain defects), published (the\n"
            "                     published gate's P0 list), strict (every P1 too), lenient (only what the\n"
            "                     gate cannot read safely); see README-static.md\n"
            "  --static-only      only the static track (no GPU needed)\n"
            "  --compile-only     the static track and the compiler (no GPU needed)\n"
            "  --dry-run          ... and load and call each candidate once in the sandbox without\n"
            "                     a GPU (nothing checked: tests of the sandbox)\n"
            "  --no-timing        correctness only (no L4 verdicts)\n"
            "  --jobs=N           candidates compiling at once (static scans and compiles run in\n"
            "                     parallel, GPU runs one at a time); more is more candidates an hour\n"
            "                     and more seconds each (default 1: the least latency)\n"
            "  --timeout=SECONDS  limit per candidate's run on a device (default 20)\n"
            "  --scan-timeout=S   limit per static scan (default 30; four times that for PyTorch)\n"
            "  --compile-timeout=S limit per nvcc compile (default 120)\n"
            "  --torch-timeout=S  limit per PyTorch extension build (default 300)\n"
            "  --devices=LIST     the GPUs to run on: all (the default) or indices, e.g. 0,1\n"
            "  --device=N         one GPU (the same as --devices=N)\n"
            "  --arch=LIST        architectures to compile for, e.g. 90 or 90,100 (default: the\n"
            "                     devices'; without a GPU 90); each device runs the build of its own\n"
            "                     architecture, or the newest listed one below it (PTX)\n"
            "  --seed=N           input seed (default 2026)\n"
            "  --work=DIR         keep compiled candidates and logs in DIR\n"
            "  --keep             keep the scratch folders of a run without --work\n"
            "  --nvcc=PATH        nvcc to use (default: nvcc on PATH)\n"
            "  --python=PATH      the Python with PyTorch, for PyTorch candidates (default: python3)\n"
            "  --explain          profile every L4 verdict with Nsight Compute (the default where ncu\n"
            "                     is found); --no-explain never; --ncu=PATH the ncu to use;\n"
            "                     --explain-budget=S stop profiling after S seconds (default 300)\n"
            "  --no-sandbox       run the scan, compiler and candidates WITHOUT the sandbox (UNSAFE:\n"
            "                     only on a machine where bubblewrap cannot work, for code you trust)\n"
            "  -h, --help\n"
            "Environment: KGATE_BWRAP (bubblewrap, default bwrap on PATH), KGATE_SANDBOX_RO (more\n"
            "read-only folders for the sandbox, colon-separated), KGATE_CUDA_PATH, KGATE_CLANG_RESOURCE_DIR.\n"
            "Tasks (a CUDA candidate defines the launcher; a PyTorch one the entry, `forward` unless\n"
            "// kgate-entry: NAME says otherwise):\n");
    for (int i = 0; i < kg_task_count(); i++) {
        fprintf(f, "  %-13s extern \"C\" %s\n", kg_task_at(i)->name, kg_task_at(i)->signature);
        fprintf(f, "  %-13s %s\n", "", kg_torch_signature(kg_task_at(i)));
    }
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

/* "90", "90,100": architectures nvcc 13 knows, at most MAX_ARCH. */
static int parse_arch_list(const char *s)
{
    char buf[64];
    if (!s[0] || strlen(s) >= sizeof buf) return -1;
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long long v;
        if (parse_long(t, 50, 200, &v) || ++n > MAX_ARCH) return -1;
    }
    return n > 0 && s[strlen(s) - 1] != ',' ? 0 : -1;
}

/* Returns 0, -1 (error printed), or -2 (--help). */
static int parse_args(int argc, char **argv, kg_opts *o)
{
    memset(o, 0, sizeof *o);
    o->timeout = 20;
    o->scan_timeout = 30;
    o->compile_timeout = 120;
    o->torch_timeout = 300;
    o->explain_budget = 300;
    o->explain = -1;
    o->seed = 2026;
    o->nvcc = "nvcc";
    o->python = "python3";
    o->policy = KG_POLICY_DEFAULT;
    o->all_devices = 1;
    o->paths = calloc((size_t)argc + 1, sizeof(char *));
    /* one candidate compiling while the one before it runs on the GPU: the
     * least latency (README.md, "Latency": on the H200 machine more in
     * flight bought throughput at the price of each candidate's seconds,
     * queueing for the GPU and for the others' CUDA start-up) */
    o->jobs = 1;
    int only_paths = 0;
    static const char *flags[] = {"help", "static-only", "compile-only", "dry-run", "no-timing",
                                  "keep", "no-sandbox", "explain", "no-explain"};
    static const char *valued[] = {"task", "labels", "json", "feedback", "policy", "work", "nvcc", "python",
                                   "ncu", "arch", "jobs", "device", "devices", "seed", "timeout",
                                   "scan-timeout", "compile-timeout", "torch-timeout", "explain-budget"};
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (only_paths || a[0] != '-' || a[1] == 0) { o->paths[o->n_paths++] = a; continue; }
        if (!strcmp(a, "--")) { only_paths = 1; continue; }
        if (!strcmp(a, "-h")) return -2;
        if (a[1] != '-') { bad_arg("unknown option %s", a); return -1; }
        char name[32];
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (nl >= sizeof name) { bad_arg("unknown option %s", a); return -1; }
        memcpy(name, a + 2, nl);
        name[nl] = 0;
        int is_flag = 0, is_valued = 0;
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) is_flag |= strcmp(name, flags[f]) == 0;
        for (size_t f = 0; f < sizeof valued / sizeof valued[0]; f++) is_valued |= strcmp(name, valued[f]) == 0;
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
            if (!strcmp(name, "explain")) o->explain = 1;
            if (!strcmp(name, "no-explain")) o->explain = 0;
            continue;
        }
        if (!is_valued) { bad_arg("unknown option %s", a); return -1; }
        const char *val;
        if (eq) val = eq + 1;
        else if (i + 1 < argc && argv[i + 1][0] != '-') val = argv[++i];
        else {
            /* `--json --static-only x.cu` must not write a file named --static-only */
            fprintf(stderr, "kgate: error: option --%s needs a value%s%s (write --%s=VALUE)\n(see kgate --help)\n",
                    name, i + 1 < argc ? ", not " : "", i + 1 < argc ? argv[i + 1] : "", name);
            printf("kgate: FAIL (bad argument)\n");
            return -1;
        }
        if (!*val) {
            fprintf(stderr, "kgate: error: --%s is empty\n(see kgate --help)\n", name);
            printf("kgate: FAIL (bad argument)\n");
            return -1;
        }
        long long v;
        if (!strcmp(name, "task")) {
            if (!kg_task_find(val)) { bad_arg("--task=%s: unknown task (see --help)", val); return -1; }
            o->task = val;
        } else if (!strcmp(name, "labels")) o->labels = val;
        else if (!strcmp(name, "json")) o->json = val;
        else if (!strcmp(name, "feedback")) o->feedback = val;
        else if (!strcmp(name, "work")) o->work = val;
        else if (!strcmp(name, "nvcc")) o->nvcc = val;
        else if (!strcmp(name, "python")) o->python = val;
        else if (!strcmp(name, "ncu")) o->ncu = val;
        else if (!strcmp(name, "policy")) {
            o->policy = kg_policy_parse(val);
            if (o->policy < 0) { bad_arg("--policy=%s: expected default, published, strict or lenient", val); return -1; }
        } else if (!strcmp(name, "arch")) {
            if (parse_arch_list(val)) { bad_arg("--arch=%s: expected architectures like 90 or 90,100 (at most 4)", val); return -1; }
            o->arch = val;
        } else if (!strcmp(name, "jobs")) {
            if (parse_long(val, 1, 64, &v)) { bad_arg("--jobs=%s: expected 1..64", val); return -1; }
            o->jobs = (int)v;
        } else if (!strcmp(name, "device") || !strcmp(name, "devices")) {
            if (!strcmp(name, "devices") && !strcmp(val, "all")) { o->all_devices = 1; o->n_dev_req = 0; continue; }
            char buf[128];
            snprintf(buf, sizeof buf, "%s", val);
            o->all_devices = 0;
            o->n_dev_req = 0;
            int bad = strlen(val) >= sizeof buf || val[strlen(val) - 1] == ',';
            for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
                if (parse_long(t, 0, 63, &v) || o->n_dev_req >= KG_MAX_DEV || (!strcmp(name, "device") && o->n_dev_req)) bad = 1;
                else {
                    for (int k = 0; k < o->n_dev_req; k++) bad |= o->dev_req[k] == (int)v;
                    o->dev_req[o->n_dev_req++] = (int)v;
                }
            }
            if (bad || !o->n_dev_req) {
                bad_arg(!strcmp(name, "device") ? "--device=%s: expected 0..63"
                                                : "--devices=%s: expected all or distinct indices 0..63, e.g. 0,1 (at most 8)", val);
                return -1;
            }
        } else if (!strcmp(name, "seed")) {
            if (parse_long(val, 0, (1LL << 62), &v)) { bad_arg("--seed=%s: expected a non-negative integer", val); return -1; }
            o->seed = (unsigned long long)v;
        } else {   /* the time limits */
            if (parse_long(val, 1, 3600, &v)) {
                fprintf(stderr, "kgate: error: --%s=%s: expected 1..3600 seconds\n(see kgate --help)\n", name, val);
                printf("kgate: FAIL (bad argument)\n");
                return -1;
            }
            if (!strcmp(name, "timeout")) o->timeout = (double)v;
            else if (!strcmp(name, "scan-timeout")) o->scan_timeout = (double)v;
            else if (!strcmp(name, "compile-timeout")) o->compile_timeout = (double)v;
            else if (!strcmp(name, "torch-timeout")) o->torch_timeout = (double)v;
            else o->explain_budget = (double)v;
        }
    }
    if (o->n_paths == 0) { bad_arg("no candidate PATH given%s", ""); return -1; }
    return 0;
}

/* ---- candidates and labels --------------------------------------------- */

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

/* Append the candidates under path (all of them: *n may grow past MAX_CANDS,
 * which the caller reports); -1 on an unreadable path. */
static int collect(const char *path, char **out, int *n, char *labels_guess, size_t lglen, char *lab_dir,
                   size_t ldlen)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        if (*n < MAX_CANDS) out[*n] = strdup(path);
        (*n)++;
        return 0;
    }
    DIR *d = opendir(path);
    if (!d) return -1;
    struct dirent *e;
    int start = *n;
    while ((e = readdir(d)) != NULL) {
        if (!is_candidate_name(e->d_name)) continue;
        if (*n < MAX_CANDS) {
            char *p = (char *)malloc(strlen(path) + strlen(e->d_name) + 2);
            sprintf(p, "%s/%s", path, e->d_name);
            out[*n] = p;
        }
        (*n)++;
    }
    closedir(d);
    if (*n <= MAX_CANDS) qsort(out + start, (size_t)(*n - start), sizeof(char *), cmp_str);
    if (labels_guess[0] == 0) {
        char lp[1024];
        snprintf(lp, sizeof lp, "%s/labels.tsv", path);
        if (access(lp, R_OK) == 0) {
            snprintf(labels_guess, lglen, "%s", lp);
            snprintf(lab_dir, ldlen, "%s", path);
        }
    }
    return 0;
}

/* "// kgate-task: NAME" anywhere in the source; name[] gets what was written */
static const kg_task *task_from_source(const char *src, char *name, size_t len)
{
    if (name && len) name[0] = 0;
    const char *p = src ? strstr(src, "kgate-task:") : NULL;
    if (!p) return NULL;
    p += strlen("kgate-task:");
    while (*p == ' ' || *p == '\t') p++;
    char nm[32];
    int i = 0;
    while (i < 31 && (p[i] == '_' || (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9'))) {
        nm[i] = p[i];
        i++;
    }
    nm[i] = 0;
    if (name && len) snprintf(name, len, "%s", nm);
    return kg_task_find(nm);
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

static void add_note(kg_cand *c, const char *fmt, const char *a)
{
    size_t l = strlen(c->notes);
    if (l + 4 >= sizeof c->notes) return;
    if (l) { snprintf(c->notes + l, sizeof c->notes - l, "; "); l += 2; }
    snprintf(c->notes + l, sizeof c->notes - l, fmt, a);
}

/* The labels file's problems, reported, never resolved in silence: a
 * byte-order mark, a file labeled twice, a label for a file that is not
 * there. Returns the number of problems printed. */
static int labels_problems(const char *labels_path, int had_bom, const kg_label *l, int n)
{
    int problems = 0;
    if (had_bom) {
        printf("# labels: PROBLEM: %s starts with a UTF-8 byte-order mark (ignored while reading; remove it)\n",
               labels_path);
        problems++;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", labels_path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < i; k++)
            if (!strcmp(l[i].file, l[k].file)) {
                printf("# labels: PROBLEM: %s is labeled twice (%s %s and %s %s): which is meant?\n", l[i].file,
                       l[k].task, kg_verdict_name(l[k].expected), l[i].task, kg_verdict_name(l[i].expected));
                problems++;
                break;
            }
        char p[1400];
        snprintf(p, sizeof p, "%s/%s", dir, l[i].file);
        if (access(p, F_OK) != 0) {
            printf("# labels: PROBLEM: %s labels %s, which is not in %s\n", labels_path, l[i].file, dir);
            problems++;
        }
    }
    return problems;
}

/* ---- the pipeline ------------------------------------------------------ */

enum { J_QUEUED, J_FLIGHT, J_READY, J_DONE };

/* --jobs counts candidates in their first seconds. One still in flight
 * after KG_STEP_ASIDE_S (a PyTorch build, a compile or scan that runs to its
 * limit) steps aside for the next, up to KG_STEP_ASIDE_MAX more in flight. */
#define KG_STEP_ASIDE_S 2.0
#define KG_STEP_ASIDE_MAX 8

/* One GPU of the run. */
typedef struct {
    int index;                       /* CUDA device index */
    kg_probe_msg probe;
    char arch[8];                    /* its own: "90" */
    char build_arch[8];              /* the build it runs (its own, or the newest listed below) */
    kg_judge_proc judge;
    int n_allow;
    char allow[KG_SB_EVENTS][160];   /* what CUDA's own start-up did in the sandbox (not the candidate) */
    int harness_no_data;             /* the start-up check needed the harness without RLIMIT_DATA */
    char ctx_line[300];
} kg_device;

typedef struct {
    char *source;              /* extracted source; NULL once finished */
    const kg_task *task;
    int external, state, slot, is_torch;
    char dir[1200];            /* the scratch folder, /scratch inside */
    char log[1200];            /* the compiler's output (outside scratch) */
    char hlog[KG_MAX_DEV][1200];   /* each harness's output */
    kg_sb_proc scan, cc, harness[KG_MAX_DEV];
    int scan_on, cc_on, h_on[KG_MAX_DEV];
    double scan_deadline, cc_deadline;
    int scan_killed, cc_killed;
    int scan_fd;               /* the scan's record pipe */
    int cmd_w[KG_MAX_DEV], rep_r[KG_MAX_DEV], shm_fd[KG_MAX_DEV];   /* the harnesses' channels */
    int h_dead[KG_MAX_DEV];    /* the harness ended before its session */
    int h_ready[KG_MAX_DEV];   /* 1: past its start-up (answered the quiesce PING); -1: did not answer */
    int h_pending;             /* its harnesses wait to be started (not while a candidate waits for the GPU) */
    kg_sb_result hrec[KG_MAX_DEV];
    int static_done, static_ok, compile_done, compile_ok, compile_needs_half, compile_needs_bf16;
    int cpp17;                 /* compiling as C++17 (else C++14, retried as 17 on failure) */
    int cc_phase;              /* 0: all architectures; 1 + k: architecture k alone (after a failure) */
    int arch_ok[MAX_ARCH];     /* -1 not known, 0 does not compile for it, 1 compiles */
    char so_name[MAX_ARCH][32];/* the shared object of each architecture, in scratch */
    int env_skip;              /* the build failed for the machine's reasons (PyTorch): SKIPPED */
    char entry[64];            /* a PyTorch candidate's entry */
    double t0;
} kg_job;

typedef struct {
    kg_opts *o;
    kg_sandbox *sb;
    char bindir[PATH_MAX], nvcc[PATH_MAX], cuda_home[PATH_MAX];
    int n_arch;
    char arch[MAX_ARCH][8];          /* the architectures compiled for */
    char arch_list[64];              /* "90,100" */
    int n_dev;
    kg_device dev[KG_MAX_DEV];
    /* PyTorch */
    int torch_wanted, torch_ok;
    char torch_why[300], torch_python[PATH_MAX], torch_lib[PATH_MAX], torch_version[64];
    char torch_includes[4096];       /* colon-separated, for the scan */
    char torch_path_env[3200];       /* PATH=<Python's bin>:<the sandbox's PATH> (ninja, c++) */
    char torch_preload[PATH_MAX + 32];
    int torch_allow_n;
    char torch_allow[KG_SB_EVENTS][160];   /* libtorch's start-up in the sandbox */
    char ncu[PATH_MAX];              /* "" without Nsight Compute */
} kg_gate;

static int slot_used[64];

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

static double sb_start_s(const kg_sb_result *r) { return r->started ? r->start_ms / 1000.0 : 0.0; }

/* The build a device runs: index into g->arch, or -1. */
static int arch_of_device(const kg_gate *g, int d)
{
    for (int a = 0; a < g->n_arch; a++)
        if (!strcmp(g->arch[a], g->dev[d].build_arch)) return a;
    return -1;
}

static int spawn_compile(kg_gate *g, kg_job *j, kg_cand *c)
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
        snprintf(script, sizeof script, "%s/kgate-torch-build.py", g->bindir);
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
    j->cc_deadline = kg_now() + (j->is_torch ? g->o->torch_timeout : g->o->compile_timeout);
    return 0;
}

/* The harness of device d (index into g->dev). so: the shared object inside
 * the sandbox; preload: a library to load at start (the self-test). */
static int spawn_harness(kg_gate *g, kg_job *j, int d, const char *so_path, const char *preload)
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
    char prog[PATH_MAX + 32], dev[32], so[PATH_MAX + 64], pre[PATH_MAX + 48];
    snprintf(prog, sizeof prog, "%s/kgate-harness", g->bindir);
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
static void end_harness(kg_job *j, int d)
{
    kg_sb_kill(&j->harness[d]);
    kg_sb_wait(&j->harness[d], kg_now() + 3, &j->hrec[d]);
    j->h_on[d] = 0;
}

/* A candidate's harnesses, one per device, each in its sandbox: they
 * create their CUDA contexts while the candidate compiles. */
static void spawn_harnesses(kg_gate *g, kg_job *j)
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

static int spawn_scan(kg_gate *g, kg_job *j, kg_cand *c)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    char prog[PATH_MAX + 16], src[PATH_MAX + 16], pol[48], sig[400], ent[96];
    snprintf(prog, sizeof prog, "%s/kgate-scan", g->bindir);
    snprintf(src, sizeof src, "%s/cand.src", g->sb->enabled ? "/scratch" : j->dir);
    snprintf(pol, sizeof pol, "--policy=%s", kg_policy_name(g->o->policy));
    snprintf(sig, sizeof sig, "--signature=%s", j->task ? j->task->signature : "");
    snprintf(ent, sizeof ent, "--torch-entry=%s", j->entry);
    const char *argv[8];
    int a = 0;
    argv[a++] = prog;
    argv[a++] = src;
    argv[a++] = c->name;
    argv[a++] = pol;
    if (j->task) argv[a++] = sig;
    if (j->is_torch) argv[a++] = ent;
    argv[a] = NULL;
    char e1[PATH_MAX + 16], e2[PATH_MAX + 32], e3[PATH_MAX + 32], e4[4200];
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
    /* a PyTorch candidate's scan reads PyTorch's headers (pybind11, Python,
     * ATen): several times a plain one's, so four times the limit */
    double limit = j->is_torch ? 4 * g->o->scan_timeout : g->o->scan_timeout;
    s.lim = kg_default_limits(KG_SB_SCAN, limit);
    s.env[s.n_env++] = e1;
    s.env[s.n_env++] = e2;
    if (rd && *rd) s.env[s.n_env++] = e3;
    if (j->is_torch && g->torch_includes[0]) s.env[s.n_env++] = e4;
    int rc = kg_sb_spawn(g->sb, &s, &j->scan);
    close(p[1]);
    if (rc != 0) {
        close(p[0]);
        return -1;
    }
    j->scan_fd = p[0];
    j->scan_on = 1;
    j->scan_deadline = kg_now() + limit;
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

/* The scan's record arrived (or its sandbox ended). */
static void static_result(kg_gate *g, kg_job *j, kg_cand *c)
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
    if (got != (ssize_t)sizeof m || !kg_static_msg_valid(&m) || m.policy != g->o->policy) {
        char end[200];
        kg_limits lim = kg_default_limits(KG_SB_SCAN, g->o->scan_timeout);
        kg_sb_ending(&rec, &lim, end, sizeof end);
        c->verdict = KG_V_L1;
        if (j->scan_killed)
            snprintf(c->reason, sizeof c->reason, "static track stopped: no result within the %.0f s limit "
                     "(a preprocessor or template bomb?)", j->is_torch ? 4 * g->o->scan_timeout : g->o->scan_timeout);
        else if (got > 0 && got != (ssize_t)sizeof m)
            snprintf(c->reason, sizeof c->reason, "static track failed: a truncated record");
        else if (got == (ssize_t)sizeof m)
            snprintf(c->reason, sizeof c->reason, "static track failed: a malformed record");
        else
            snprintf(c->reason, sizeof c->reason, "static track stopped: %s%s%s", end,
                     rec.stub_msg[0] ? "; " : "", rec.stub_msg);
        return;
    }
    take_hits(c, &m);
    c->n_p0 = m.n_p0;
    c->n_p1 = m.n_p1;
    c->n_p2 = m.n_p2;
    if (m.needs_half) add_note(c, "%s", "repaired: #include <cuda_fp16.h> added");
    if (m.needs_bf16) add_note(c, "%s", "repaired: #include <cuda_bf16.h> added");
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
    } else if ((m.needs_half && !j->compile_needs_half) || (m.needs_bf16 && !j->compile_needs_bf16)) {
        c->verdict = KG_V_L1;   /* cannot happen: the gate repairs whenever the text names the type */
        snprintf(c->reason, sizeof c->reason, "gate: the header repair was not applied");
    } else {
        j->static_ok = 1;
        j->external = m.is_external;
    }
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

/* The compiler's sandbox ended. */
static void compile_result(kg_gate *g, kg_job *j, kg_cand *c)
{
    kg_sb_result rec;
    kg_sb_wait(&j->cc, kg_now() + 5, &rec);
    j->cc_on = 0;
    c->t_sandbox += sb_start_s(&rec);
    c->t_compile += rec.wall_ms / 1000.0;   /* the compiler's own wall time, retries included */
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
    char *log = kg_read_file(j->log, 1u << 20, NULL);
    kg_parse_ptxas(log, &c->ptx);
    int any = 0;
    for (int a = 0; a < g->n_arch; a++) any |= j->arch_ok[a] == 1;
    if (!any) {
        kg_limits lim = kg_default_limits(KG_SB_COMPILE, j->is_torch ? g->o->torch_timeout : g->o->compile_timeout);
        char end[200], first_err[300], why[300];
        kg_sb_ending(&rec, &lim, end, sizeof end);
        c->n_compile_errors = kg_compile_errors(log, c->path, c->compile_errors, KG_MAX_COMPILE_ERRORS);
        snprintf(first_err, sizeof first_err, "%s", c->n_compile_errors ? c->compile_errors[0] : "");
        if (!first_err[0]) kg_first_error(log, first_err, sizeof first_err);
        if (j->is_torch && torch_env_failure(log, why, sizeof why)) {
            j->env_skip = 1;
            snprintf(c->reason, sizeof c->reason, "PyTorch cannot build extensions here: %.300s", why);
        } else if (j->cc_killed)
            snprintf(c->reason, sizeof c->reason, "compile stopped: no result within the %.0f s limit",
                     j->is_torch ? g->o->torch_timeout : g->o->compile_timeout);
        else if (rec.term_signal && rec.term_signal != SIGKILL)
            snprintf(c->reason, sizeof c->reason, "compile stopped: %s", end);
        else if (!rec.started)
            snprintf(c->reason, sizeof c->reason, "gate: the compiler did not start in the sandbox: %.300s",
                     rec.stub_msg[0] ? rec.stub_msg : first_err);
        else
            snprintf(c->reason, sizeof c->reason, "compile error: %.300s", first_err[0] ? first_err : end);
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
}

/* The verdict of a run on device d, from trusted sources only: the judge's
 * record, the harness sandbox's record (its exit, its signal, what it tried)
 * and the gate's own knowledge. */
static void compose(kg_gate *g, kg_job *j, kg_cand *c, int d, kg_dev_result *r, const kg_judge_msg *m,
                    int session_rc)
{
    kg_sb_result *h = &j->hrec[d];
    char viol[400] = "", all[400] = "", end[200];
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
        if (m->timed_out) {
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
            kg_judge_start(jp, kg_judge_main, g->dev[d].index, g->o->mode == MODE_DRY);
    }
}

/* The device matrix for one candidate: every device, then one verdict. */
static void run_candidate(kg_gate *g, kg_job *j, kg_cand *c, int task_index)
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
static void stop_job(kg_gate *g, kg_job *j)
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

/* At start: the harness's own sandbox must reach each GPU. A sandboxed
 * harness creates its context and answers one PING; what CUDA's start-up
 * does there (reported by the monitor) is not held against candidates.
 * With preload, the harness loads that library (PyTorch's) first, and what
 * its start-up does goes into allow[] too. */
static int harness_selftest(kg_gate *g, int d, const char *preload, char allow[][160], int *n_allow, char *why,
                            size_t len)
{
    char dir[] = "/tmp/kgate_probe_XXXXXX";
    if (!mkdtemp(dir)) { snprintf(why, len, "mkdtemp: %s", strerror(errno)); return -1; }
    static kg_job j;
    memset(&j, 0, sizeof j);
    j.task = kg_task_at(0);
    j.slot = 0;
    for (int k = 0; k < KG_MAX_DEV; k++) j.cmd_w[k] = j.rep_r[k] = j.shm_fd[k] = -1;
    snprintf(j.dir, sizeof j.dir, "%s", dir);
    snprintf(j.hlog[d], sizeof j.hlog[d], "%s.log", dir);
    chmod(dir, 0755);
    int rc = -1;
    if (spawn_harness(g, &j, d, "cand.so", preload) == 0) {
        kg_cmd c;
        memset(&c, 0, sizeof c);
        c.magic = KG_CMD_MAGIC;
        c.op = KG_OP_PING;
        c.seq = 1;
        kg_rep r;
        double wait = preload ? 180 : 60;   /* loading libtorch takes a while */
        if (kg_write_all(j.cmd_w[d], &c, sizeof c) == 0 && kg_read_exact(j.rep_r[d], &r, sizeof r, kg_now() + wait) == 0 &&
            kg_rep_valid(&r, 1, NULL, 0))
            rc = 0;
        /* LOAD reports the context; it fails on the missing .so after the context is checked */
        c.op = KG_OP_LOAD;
        c.seq = 2;
        if (rc == 0 && g->o->mode != MODE_DRY && kg_write_all(j.cmd_w[d], &c, sizeof c) == 0 &&
            kg_read_exact(j.rep_r[d], &r, sizeof r, kg_now() + 60) == 0 && kg_rep_valid(&r, 2, NULL, 0) &&
            r.status == KG_ST_NO_DEVICE) {
            snprintf(why, len, "the sandboxed harness has no CUDA context: %s", r.text);
            rc = -1;
        }
        close_fd(&j.cmd_w[d]);
        close_fd(&j.rep_r[d]);
        close_fd(&j.shm_fd[d]);
        kg_sb_result rec;
        kg_sb_wait(&j.harness[d], kg_now() + 10, &rec);
        if (rc != 0 && !why[0]) {
            char end[200];
            kg_sb_ending(&rec, NULL, end, sizeof end);
            snprintf(why, len, "the sandboxed harness did not answer (%.100s%s%.100s); see %.100s", end,
                     rec.stub_msg[0] ? ", " : "", rec.stub_msg, j.hlog[d]);
        }
        /* what the start-up did (before the harness's mark: never a violation) and what came
         * after it (the preload): both allowed when a candidate's harness does them again */
        for (int i = 0; i < KG_SB_EVENTS && rec.events[i][0]; i++) {
            char *tag = strstr(rec.events[i], KG_SB_STARTUP_TAG);
            if ((rec.is_violation[i] || tag) && *n_allow < KG_SB_EVENTS) {
                if (tag) *tag = 0;
                snprintf(allow[(*n_allow)++], 160, "%s", rec.events[i]);
            }
        }
        /* the harness's own line about its context (no candidate ran: trusted) */
        char *log = kg_read_file(j.hlog[d], 1 << 16, NULL);
        char *ctx = log ? strstr(log, "kgate-harness: context") : NULL;
        if (ctx && !preload) {
            ctx[strcspn(ctx, "\n")] = 0;
            snprintf(g->dev[d].ctx_line, sizeof g->dev[d].ctx_line, "%.290s", ctx + 15);
        }
        char *pl = log && preload ? strstr(log, "kgate-harness: preload") : NULL;
        if (pl && rc == 0) {
            pl[strcspn(pl, "\n")] = 0;
            snprintf(why, len, "%.290s", pl + 15);
            rc = -1;
        }
        free(log);
    } else {
        snprintf(why, len, "cannot start the harness in the sandbox");
    }
    remove_tree(dir, 0);
    if (rc == 0) unlink(j.hlog[d]);
    return rc;
}

/* Run a trusted helper program (no sandbox: no candidate involved) and
 * collect its output, with a deadline. Returns its exit status, or -1. */
static int run_capture(const char *const *argv, double timeout_s, char *out, size_t len)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) { close(p[0]); close(p[1]); return -1; }
    if (pid == 0) {
        setpgid(0, 0);
        dup2(p[1], 1);
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) dup2(nul, 2);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    setpgid(pid, pid);
    close(p[1]);
    size_t got = 0;
    double deadline = kg_now() + timeout_s;
    for (;;) {
        double left = deadline - kg_now();
        if (left <= 0) break;
        struct pollfd pf = {p[0], POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) break;
        ssize_t r = read(p[0], out + got, len - 1 - got);
        if (r <= 0) break;
        got += (size_t)r;
        if (got + 1 >= len) break;
    }
    out[got] = 0;
    close(p[0]);
    kill(-pid, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Is PyTorch here, and can it build extensions? (kgate-torch-build.py --probe) */
static void torch_probe(kg_gate *g)
{
    char script[PATH_MAX + 32];
    snprintf(script, sizeof script, "%s/kgate-torch-build.py", g->bindir);
    const char *argv[] = {g->o->python, script, "--probe", NULL};
    static char out[16384];
    int rc = run_capture(argv, 120, out, sizeof out);
    g->torch_ok = 0;
    snprintf(g->torch_why, sizeof g->torch_why, "PyTorch is not available to %s", g->o->python);
    if (rc == 127 || rc < 0) {
        snprintf(g->torch_why, sizeof g->torch_why, "no Python at %s (--python=PATH)", g->o->python);
        return;
    }
    char ninja[8] = "0";
    size_t inc = 0;
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "KGATE_ENV_ERROR: ", 17)) snprintf(g->torch_why, sizeof g->torch_why, "%.280s", l + 17);
        else if (!strncmp(l, "ok=1", 4)) g->torch_ok = 1;
        else if (!strncmp(l, "why=", 4)) snprintf(g->torch_why, sizeof g->torch_why, "%.280s", l + 4);
        else if (!strncmp(l, "version=", 8)) snprintf(g->torch_version, sizeof g->torch_version, "%.60s", l + 8);
        else if (!strncmp(l, "ninja=", 6)) snprintf(ninja, sizeof ninja, "%.4s", l + 6);
        else if (!strncmp(l, "python=", 7)) snprintf(g->torch_python, sizeof g->torch_python, "%.1000s", l + 7);
        else if (!strncmp(l, "lib=", 4)) snprintf(g->torch_lib, sizeof g->torch_lib, "%.1000s", l + 4);
        else if (!strncmp(l, "include=", 8) && inc + strlen(l) + 2 < sizeof g->torch_includes)
            inc += (size_t)snprintf(g->torch_includes + inc, sizeof g->torch_includes - inc, "%s%s", inc ? ":" : "", l + 8);
        else if (!strncmp(l, "ro=", 3)) kg_sandbox_add_ro(g->sb, l + 3);
    }
    if (g->torch_ok && !g->torch_python[0]) g->torch_ok = 0;
    if (g->torch_ok) {
        char pbin[PATH_MAX];
        snprintf(pbin, sizeof pbin, "%s", g->torch_python);
        char *sl = strrchr(pbin, '/');
        if (sl) *sl = 0;
        snprintf(g->torch_path_env, sizeof g->torch_path_env, "PATH=%.1000s:%.2000s", pbin, g->sb->path_env);
        snprintf(g->torch_preload, sizeof g->torch_preload, "%.1000s/libtorch_cuda.so", g->torch_lib);
        printf("# pytorch: %s with %s; extensions built with load_inline%s\n", g->torch_version, g->torch_python,
               ninja[0] == '1' ? "" : " (no ninja here: its compile and link commands are run directly)");
    }
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

/* ---- an L4 explained: Nsight Compute on the candidate and the reference ---- */

static kg_ncu ref_profile[16][KG_MAX_DEV];
static int ref_profiled[16][KG_MAX_DEV];

static void find_ncu(kg_gate *g)
{
    g->ncu[0] = 0;
    if (g->o->ncu) {
        if (access(g->o->ncu, X_OK) == 0) snprintf(g->ncu, sizeof g->ncu, "%.1000s", g->o->ncu);
        return;
    }
    char c[PATH_MAX + 16];
    snprintf(c, sizeof c, "%s/bin/ncu", g->cuda_home);
    if (access(c, X_OK) == 0) { snprintf(g->ncu, sizeof g->ncu, "%.1000s", c); return; }
    const char *path = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path ? path : "");
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(c, sizeof c, "%s/ncu", d);
        if (access(c, X_OK) == 0) { snprintf(g->ncu, sizeof g->ncu, "%.1000s", c); return; }
    }
}

static void profile_reference(kg_gate *g, int task, int d, kg_ncu *out)
{
    if (task >= 16) { snprintf(out->why, sizeof out->why, "gate: too many tasks"); return; }
    if (ref_profiled[task][d]) { *out = ref_profile[task][d]; return; }
    const char *argv[40];
    int a = kg_ncu_argv(g->ncu, "kgate_ref/", argv, 30);
    char self[PATH_MAX + 16], t[48], dv[32], sd[48];
    snprintf(self, sizeof self, "%s/kgate", g->bindir);
    snprintf(t, sizeof t, "--profile-reference=%d", task);
    snprintf(dv, sizeof dv, "--device=%d", g->dev[d].index);
    snprintf(sd, sizeof sd, "--seed=%llu", g->o->seed + 77);
    argv[a++] = self;
    argv[a++] = t;
    argv[a++] = dv;
    argv[a++] = sd;
    argv[a] = NULL;
    static char out_text[1 << 20];
    run_capture(argv, 180, out_text, sizeof out_text);
    kg_ncu_parse(out_text, out);
    ref_profile[task][d] = *out;
    ref_profiled[task][d] = 1;
}

static void profile_candidate(kg_gate *g, kg_job *j, int task, int d, kg_ncu *out)
{
    const char *argv[40];
    int a = kg_ncu_argv(g->ncu, "kgate_cand/", argv, 30);
    char prog[PATH_MAX + 32], dv[32], so[PATH_MAX + 64], ex[48], sd[48];
    snprintf(prog, sizeof prog, "%s/kgate-harness", g->bindir);
    snprintf(dv, sizeof dv, "--device=%d", g->dev[d].index);
    int ai = arch_of_device(g, d);
    snprintf(so, sizeof so, "--so=%s/%s", g->sb->enabled ? "/scratch" : j->dir,
             j->is_torch ? "build/kgate_cand.so" : ai >= 0 ? j->so_name[ai] : "cand.so");
    snprintf(ex, sizeof ex, "--explain=%d", task);
    snprintf(sd, sizeof sd, "--seed=%llu", g->o->seed + 77);
    argv[a++] = prog;
    argv[a++] = dv;
    argv[a++] = so;
    argv[a++] = ex;
    argv[a++] = sd;
    argv[a] = NULL;
    char logp[1300];
    snprintf(logp, sizeof logp, "%s.ncu.txt", j->dir);
    int lf = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    kg_sb_spec s;
    memset(&s, 0, sizeof s);
    s.kind = KG_SB_HARNESS;   /* the candidate's code runs: the harness's sandbox, ncu inside it */
    s.scratch = j->dir;
    s.argv = argv;
    s.out_fd = lf;
    s.slot = j->slot >= 0 ? j->slot : 0;
    s.lim = kg_default_limits(KG_SB_HARNESS, 60);
    s.lim.tmp_bytes = 512ull << 20;     /* ncu's own files */
    s.lim.fsize_bytes = 256ull << 20;
    s.lim.data_bytes = 0;
    if (j->is_torch) { s.env[s.n_env++] = "OMP_NUM_THREADS=1"; s.env[s.n_env++] = "MKL_NUM_THREADS=1"; }
    kg_sb_proc p;
    int rc = kg_sb_spawn(g->sb, &s, &p);
    if (lf >= 0) close(lf);
    if (rc != 0) { snprintf(out->why, sizeof out->why, "cannot start ncu in the sandbox"); return; }
    kg_sb_result rec;
    kg_sb_wait(&p, kg_now() + 180, &rec);
    char *text = kg_read_file(logp, 4u << 20, NULL);
    if (kg_ncu_parse(text, out) != 0 && !out->why[0]) snprintf(out->why, sizeof out->why, "ncu gave no figures");
    if (!out->ok && text && strstr(text, "ERR_NVGPUCTRPERM"))
        snprintf(out->why, sizeof out->why, "ncu may not read the GPU's counters as the sandbox's user "
                 "(ERR_NVGPUCTRPERM: profiling is restricted to admin users on this machine)");
    /* what ncu reports comes from the candidate's sandbox: it explains a verdict, it makes none */
    free(text);
    unlink(logp);
}

/* ---- main -------------------------------------------------------------- */

static int setup_devices(kg_gate *g, kg_opts *o)
{
    if (o->mode == MODE_DRY) {
        /* no GPU: one pseudo device, the judge without a context */
        g->n_dev = 1;
        g->dev[0].index = o->n_dev_req ? o->dev_req[0] : 0;
        snprintf(g->dev[0].arch, sizeof g->dev[0].arch, "%s", g->arch[0]);
        snprintf(g->dev[0].build_arch, sizeof g->dev[0].build_arch, "%s", g->arch[0]);
        return 0;
    }
    if (o->mode != MODE_FULL) return 0;
    kg_probe_msg p0;
    memset(&p0, 0, sizeof p0);
    if (kg_probe_device(kg_probe_main, o->n_dev_req ? o->dev_req[0] : 0, 60, &p0) != 0 || !p0.ok) {
        printf("kgate: WAIVED (%s; --static-only or --compile-only run without a GPU)\n",
               p0.reason[0] ? p0.reason : "no CUDA device");
        return 2;
    }
    int want[KG_MAX_DEV], nw = 0;
    if (o->all_devices) for (int i = 0; i < p0.count && nw < KG_MAX_DEV; i++) want[nw++] = i;
    else for (int i = 0; i < o->n_dev_req; i++) want[nw++] = o->dev_req[i];
    for (int k = 0; k < nw; k++) {
        kg_device *dv = &g->dev[g->n_dev];
        memset(dv, 0, sizeof *dv);
        dv->index = want[k];
        dv->judge.pid = -1;
        dv->judge.sock = -1;
        if (want[k] >= p0.count) {
            fprintf(stderr, "kgate: error: --devices: device %d does not exist (%d visible)\n", want[k], p0.count);
            printf("kgate: FAIL (bad argument)\n");
            return 1;
        }
        if (kg_probe_device(kg_probe_main, want[k], 60, &dv->probe) != 0 || !dv->probe.ok) {
            printf("kgate: WAIVED (device %d: %s)\n", want[k], dv->probe.reason[0] ? dv->probe.reason : "no answer");
            return 2;
        }
        snprintf(dv->arch, sizeof dv->arch, "%d%d", dv->probe.cc_major, dv->probe.cc_minor);
        g->n_dev++;
    }
    /* the architectures: --arch, else the devices' own */
    if (!o->arch) {
        g->n_arch = 0;
        for (int d = 0; d < g->n_dev; d++) {
            int seen = 0;
            for (int a = 0; a < g->n_arch; a++) seen |= !strcmp(g->arch[a], g->dev[d].arch);
            if (!seen && g->n_arch < MAX_ARCH) snprintf(g->arch[g->n_arch++], sizeof g->arch[0], "%s", g->dev[d].arch);
        }
    }
    /* each device runs its own architecture's build, or the newest listed below it (PTX) */
    for (int d = 0; d < g->n_dev; d++) {
        int best = -1, own = atoi(g->dev[d].arch);
        for (int a = 0; a < g->n_arch; a++) {
            int v = atoi(g->arch[a]);
            if (v <= own && (best < 0 || v > atoi(g->arch[best]))) best = a;
        }
        if (best >= 0) snprintf(g->dev[d].build_arch, sizeof g->dev[d].build_arch, "%s", g->arch[best]);
        printf("# device %d: %s, CC %d.%d, %d SMs; runs the build for sm_%s\n", g->dev[d].index,
               g->dev[d].probe.name, g->dev[d].probe.cc_major, g->dev[d].probe.cc_minor, g->dev[d].probe.sm_count,
               best >= 0 ? g->arch[best] : "? (none: its candidates are SKIPPED)");
    }
    return 0;
}

/* The sandbox must let each device's harness reach its GPU; if it does not,
 * relax one thing at a time and say so. */
static int sandbox_gpu_checks(kg_gate *g, kg_sandbox *sb)
{
    for (int d = 0; d < g->n_dev; d++) {
        kg_device *dv = &g->dev[d];
        char why[400] = "", why2[400] = "";
        if (harness_selftest(g, d, NULL, dv->allow, &dv->n_allow, why, sizeof why) != 0) {
            int fixed = 0;
            if (sb->enabled) {
                dv->harness_no_data = 1;   /* CUDA may need more than the data limit */
                dv->n_allow = 0;
                fixed = harness_selftest(g, d, NULL, dv->allow, &dv->n_allow, why2, sizeof why2) == 0;
                if (fixed)
                    printf("# sandbox: WARNING: CUDA needed more than the harness's data limit (%s): the "
                           "harness runs without RLIMIT_DATA (the CPU, file and process limits stay)\n", why);
            }
            if (!fixed && sb->enabled && sb->as_root && sb->drop_uid) {
                sb->drop_uid = 0;          /* the GPU nodes may not be open to an unprivileged uid */
                dv->n_allow = 0;
                why2[0] = 0;
                fixed = harness_selftest(g, d, NULL, dv->allow, &dv->n_allow, why2, sizeof why2) == 0;
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
        if (dv->ctx_line[0]) printf("# sandbox: device %d: the harness's %s\n", dv->index, dv->ctx_line);
        if (dv->n_allow) {
            printf("# sandbox: CUDA's own start-up in the sandbox did:");
            for (int k = 0; k < dv->n_allow; k++) printf("%s %s", k ? ";" : "", dv->allow[k]);
            printf(" (not held against candidates)\n");
        }
    }
    return 0;
}

/* The GPU to this session alone (the H200 finding, README.md "Timing"):
 * harnesses of other candidates in flight create their CUDA contexts while
 * their candidates compile; before a session, wait until each has finished
 * (it answers a PING only then), and until the harnesses of finished
 * candidates are gone (their contexts torn down). Nothing else of the run
 * uses a GPU while the session runs: the loop starts no harness meanwhile,
 * nvcc and the scan use none. A harness that does not answer within 60 s is
 * stopped: its candidate gets L2. */
static double quiesce_wait_s;   /* what the barrier cost, for the report */
static int quiesce_waits;

static double quiesce_others(kg_gate *g, kg_job *jobs, int next, int self)
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

int main(int argc, char **argv)
{
    /* the reference under Nsight Compute (an L4 explained): the gate's own code */
    if (argc >= 2 && !strncmp(argv[1], "--profile-reference=", 20)) {
        int dev = 0;
        unsigned long long seed = 2026;
        for (int i = 2; i < argc; i++) {
            if (!strncmp(argv[i], "--device=", 9)) dev = atoi(argv[i] + 9);
            else if (!strncmp(argv[i], "--seed=", 7)) seed = strtoull(argv[i] + 7, NULL, 10);
        }
        return kg_profile_reference(atoi(argv[1] + 20), dev, seed);
    }
    kg_opts o;
    int pa = parse_args(argc, argv, &o);
    if (pa == -2) { usage(stdout); return 0; }
    if (pa < 0) return 1;
    double wall0 = kg_now();
    signal(SIGPIPE, SIG_IGN);

    char **paths = (char **)calloc(MAX_CANDS, sizeof(char *));
    int n = 0;
    char labels_path[1024] = "", lab_dir[1024] = "";
    if (o.labels) snprintf(labels_path, sizeof labels_path, "%s", o.labels);
    for (int i = 0; i < o.n_paths; i++)
        if (collect(o.paths[i], paths, &n, labels_path, sizeof labels_path, lab_dir, sizeof lab_dir) != 0)
            return bad_arg("cannot read %s", o.paths[i]);
    if (n > MAX_CANDS) {
        fprintf(stderr, "kgate: error: %d candidate files: more than the limit of %d per run (split the run)\n",
                n, MAX_CANDS);
        printf("kgate: FAIL (%d candidates, the limit is %d)\n", n, MAX_CANDS);
        return 1;
    }
    if (n == 0) return bad_arg("no candidates (.cu, .cuh, .cpp, .md) under the given PATH%s", "");

    kg_label *labels = (kg_label *)calloc(MAX_CANDS, sizeof(kg_label));
    int n_labels = 0, label_problems = 0;
    if (labels_path[0]) {
        char *text = kg_read_file(labels_path, 4u << 20, NULL);
        char err[256];
        if (!text) return bad_arg("--labels: cannot read %s", labels_path);
        int bom = (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF;
        n_labels = kg_labels_parse(text + (bom ? 3 : 0), labels, MAX_CANDS, err, sizeof err);
        free(text);
        if (n_labels < 0) {
            fprintf(stderr, "kgate: error: %s: %s\n", labels_path, err);
            printf("kgate: FAIL (bad labels file)\n");
            return 1;
        }
        label_problems = labels_problems(labels_path, bom, labels, n_labels);
    }

    /* The sandbox first: without one (and without --no-sandbox) nothing runs. */
    static kg_gate g;
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
        snprintf(g.cuda_home, sizeof g.cuda_home, "%s", nv_root);
    }
    if (!sb.enabled) {
        fprintf(stderr, "kgate: WARNING: --no-sandbox: candidates, nvcc and the static scan run "
                        "WITHOUT a sandbox, as this user, with this user's files, environment and "
                        "network. Only for code you trust.\n");
        printf("# WARNING: NO SANDBOX (--no-sandbox): UNSAFE for candidates you did not write\n");
    }
    printf("# sandbox: %s\n", sb.desc);
    printf("# policy: %s (%s)\n", kg_policy_name(o.policy), kg_policy_summary(o.policy));
    kg_report_partial_last = o.mode == MODE_STATIC ? KG_V_P0 : KG_V_L1;

    /* the architectures named with --arch (else the devices', found below; without a GPU 90) */
    snprintf(g.arch[0], sizeof g.arch[0], "90");
    g.n_arch = 1;
    if (o.arch) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", o.arch);
        g.n_arch = 0;
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && g.n_arch < MAX_ARCH; t = strtok_r(NULL, ",", &save))
            snprintf(g.arch[g.n_arch++], sizeof g.arch[0], "%s", t);
    }
    /* The devices, in children: the gate itself never touches CUDA. */
    int drc = setup_devices(&g, &o);
    if (drc) return drc;
    size_t al = 0;
    for (int a = 0; a < g.n_arch; a++)
        al += (size_t)snprintf(g.arch_list + al, sizeof g.arch_list - al, "%s%s", a ? "," : "", g.arch[a]);
    if (o.mode != MODE_STATIC) printf("# compiled for: sm_%s\n", g.arch_list);
    if (o.mode == MODE_FULL && sandbox_gpu_checks(&g, &sb)) return 1;

    /* the candidates' sources: PyTorch ones, and a task that contradicts the label */
    int any_torch = 0;
    char *torch_cand = calloc((size_t)n, 1);
    for (int i = 0; i < n; i++) {
        char lerr[256];
        char *src = kg_load_candidate(paths[i], MAX_SOURCE_BYTES, lerr, sizeof lerr);
        if (!src) continue;
        torch_cand[i] = (char)kg_is_torch_source(src);
        any_torch |= torch_cand[i];
        const char *base = strrchr(paths[i], '/');
        base = base ? base + 1 : paths[i];
        const kg_label *lab = kg_labels_find(labels, n_labels, base);
        char said[32];
        const kg_task *st = task_from_source(src, said, sizeof said);
        if (lab && said[0] && (!st || strcmp(st->name, lab->task))) {
            printf("# labels: PROBLEM: %s: its source says kgate-task: %s, its label says %s (the source's is used)\n",
                   base, said, lab->task);
            label_problems++;
        }
        free(src);
    }
    if (any_torch) {
        /* also for --static-only: the scan reads PyTorch's headers */
        torch_probe(&g);
        if (!g.torch_ok && o.mode != MODE_STATIC)
            printf("# pytorch: not available (%s): PyTorch candidates are SKIPPED\n", g.torch_why);
        else if (!g.torch_ok)
            printf("# pytorch: not available (%s): the scan reads PyTorch candidates without its headers\n", g.torch_why);
        else if (o.mode == MODE_FULL) {
            /* what loading libtorch does in the harness's sandbox (no candidate yet) */
            char why[400] = "";
            if (harness_selftest(&g, 0, g.torch_preload, g.torch_allow, &g.torch_allow_n, why, sizeof why) != 0) {
                g.torch_ok = 0;
                snprintf(g.torch_why, sizeof g.torch_why, "libtorch does not load in the harness's sandbox: %.250s", why);
                printf("# pytorch: %s: PyTorch candidates are SKIPPED\n", g.torch_why);
            } else if (g.torch_allow_n) {
                printf("# sandbox: loading libtorch in the sandbox did:");
                for (int k = 0; k < g.torch_allow_n; k++) printf("%s %s", k ? ";" : "", g.torch_allow[k]);
                printf(" (not held against candidates)\n");
            }
        }
    }
    int explain = 0;
    if (o.mode == MODE_FULL && !o.no_timing && o.explain != 0) {
        find_ncu(&g);
        if (g.ncu[0]) {
            explain = 1;
            char real[PATH_MAX];
            if (real_path_into(g.ncu, real, sizeof real) == 0) {
                char *s = strrchr(real, '/');
                if (s) *s = 0;
                kg_sandbox_add_ro(&sb, real);
            }
            printf("# explain: L4 verdicts are profiled with %s (--clock-control none)\n", g.ncu);
        } else {
            printf("# explain: no ncu found: L4 verdicts are not profiled%s\n", o.explain == 1 ? " (--explain)" : "");
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

    if (o.mode == MODE_FULL || o.mode == MODE_DRY)
        for (int d = 0; d < g.n_dev; d++)
            if (kg_judge_start(&g.dev[d].judge, kg_judge_main, g.dev[d].index, o.mode == MODE_DRY) != 0) {
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
        c->policy = o.policy;
        const kg_label *lab = kg_labels_find(labels, n_labels, c->name);
        if (lab) {
            c->expected = lab->expected;
            snprintf(c->defect, sizeof c->defect, "%s", lab->defect);
        }
        kg_job *j = &jobs[i];
        j->scan_fd = -1;
        for (int d = 0; d < KG_MAX_DEV; d++) j->cmd_w[d] = j->rep_r[d] = j->shm_fd[d] = -1;
        for (int a = 0; a < MAX_ARCH; a++) j->arch_ok[a] = -1;
        j->slot = -1;
    }

    /* One pipeline per candidate, --jobs candidates compiling at once: the
     * compiler and the harnesses (creating their CUDA contexts, then waiting)
     * start first, the static scan at the same time, each in its sandbox;
     * when the scan passes and the compile succeeds the candidate is ready,
     * and ready candidates run on the GPUs one at a time (each judge serves
     * one session at a time: timings stay clean). A candidate becoming ready
     * makes room for the next, whose compile overlaps the session; its
     * harness waits until no candidate waits for the GPU, so no CUDA start-up
     * delays a session (README.md, "Latency"). Per-candidate total = wall time from the start of its
     * processing to its verdict. */
    int next = 0, in_flight = 0, n_done = 0, printed = 0, n_admitted = 0;
    int torch_max = (o.jobs + 1) / 2 > 2 ? (o.jobs + 1) / 2 : 2;
    while (n_done < n) {
        kg_sb_reap_lingering(0);
        /* ---- harnesses held back while a candidate waited for the GPU ---- */
        int n_ready = 0;   /* waiting for the GPU, or about to (scan and compile done) */
        for (int i = 0; i < next; i++)
            n_ready += jobs[i].state == J_READY ||
                       (jobs[i].state == J_FLIGHT && jobs[i].static_done && jobs[i].compile_done);
        for (int i = 0; i < next && !n_ready; i++)
            if (jobs[i].state == J_FLIGHT && jobs[i].h_pending) spawn_harnesses(&g, &jobs[i]);

        /* ---- admit ---- */
        int fresh = 0, torch_busy = 0;
        double now0 = kg_now();
        for (int i = 0; i < next; i++) {
            fresh += jobs[i].state == J_FLIGHT && now0 - jobs[i].t0 < KG_STEP_ASIDE_S;
            torch_busy += torch_cand[i] && (jobs[i].state == J_FLIGHT || jobs[i].state == J_READY);
        }
        while (fresh < o.jobs && in_flight < o.jobs + KG_STEP_ASIDE_MAX && in_flight < 64 && n_admitted < n) {
            /* in order, except that PyTorch builds (half a minute each) run
             * at most torch_max at a time while plain candidates go ahead */
            int i = -1;
            for (int k = 0; k < n && i < 0; k++) {
                if (jobs[k].state != J_QUEUED) continue;
                if (!torch_cand[k] || torch_busy < torch_max) i = k;
            }
            if (i < 0) break;   /* only PyTorch candidates wait: their builds are running */
            if (i + 1 > next) next = i + 1;
            n_admitted++;
            fresh++;
            torch_busy += torch_cand[i];
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
            if (kg_file_has_bom(paths[i])) add_note(c, "%s", "the file starts with a UTF-8 byte-order mark (ignored)");
            j->task = o.task ? kg_task_find(o.task) : NULL;
            if (!j->task && j->source) j->task = task_from_source(j->source, NULL, 0);
            if (!j->task && lab) j->task = kg_task_find(lab->task);
            snprintf(c->task, sizeof c->task, "%s", j->task ? j->task->name : "?");
            if (!j->source) {
                c->verdict = KG_V_L1;
                snprintf(c->reason, sizeof c->reason, "not a candidate: %s", lerr[0] ? lerr : "unreadable");
                c->t_static = kg_now() - j->t0;
                j->static_done = j->compile_done = 1;
                continue;
            }
            j->is_torch = c->is_torch = kg_is_torch_source(j->source);
            kg_torch_entry_of(j->source, j->entry, sizeof j->entry);
            /* the include policy, before anything opens the file's includes */
            char why[300];
            int iline = 0;
            if (kg_include_check(j->source, why, sizeof why, &iline)) {
                c->verdict = KG_V_P0;
                snprintf(c->reason, sizeof c->reason, "KG-INCLUDE at line %d: %s", iline, why);
                snprintf(c->rules, sizeof c->rules, "KG-INCLUDE(P0)@%d", iline);
                c->n_p0 = 1;
                c->n_hits = c->hits_total = 1;
                c->hits[0].rule = kg_rule_index("KG-INCLUDE");
                c->hits[0].line = iline;
                snprintf(c->hits[0].msg, sizeof c->hits[0].msg, "%.199s", why);
                for (int p = 0; p < KG_POLICY_COUNT; p++) c->policy_stops |= 1u << p;   /* every profile */
                c->t_static = kg_now() - j->t0;
                j->static_done = j->compile_done = 1;
                continue;
            }
            char nm[160];
            sanitize(c->name, nm, sizeof nm);
            snprintf(j->dir, sizeof j->dir, "%s/%03d_%s", workdir, i % 1000, nm);
            snprintf(j->log, sizeof j->log, "%s/%03d_%s.compile.log", workdir, i % 1000, nm);
            for (int d = 0; d < g.n_dev; d++)
                snprintf(j->hlog[d], sizeof j->hlog[d], "%.900s/%03d_%.120s.run%d.log", workdir, i % 1000, nm, d % 10);
            char src[PATH_MAX + 16], cu[PATH_MAX + 16];
            snprintf(src, sizeof src, "%s/cand.src", j->dir);
            snprintf(cu, sizeof cu, "%s/cand.cu", j->dir);
            /* the compile, on the source the static track would repair (the
             * half and bfloat16 headers, whenever the text names those types;
             * a second include is harmless), behind #line 1 "<the candidate>"
             * so the compiler's messages name the candidate's own file and line */
            j->compile_needs_half = strstr(j->source, "half") != NULL;
            j->compile_needs_bf16 = strstr(j->source, "bfloat16") != NULL;
            char *csrc = kg_compile_source(j->source, c->path, j->compile_needs_half, j->compile_needs_bf16);
            if (csrc && j->is_torch && j->task) {
                /* PyTorch: the gate's launcher after the candidate */
                static char adapter[16384];
                if (kg_torch_adapter(j->task, j->entry, adapter, sizeof adapter) == 0) {
                    size_t a = strlen(csrc), b = strlen(adapter);
                    char *both = malloc(a + b + 1);
                    if (both) { memcpy(both, csrc, a); memcpy(both + a, adapter, b + 1); }
                    free(csrc);
                    csrc = both;
                }
            }
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
            for (int a = 0; a < g.n_arch; a++) snprintf(j->so_name[a], sizeof j->so_name[a], "cand_sm%s.so", g.arch[a]);
            if (o.mode != MODE_STATIC && j->task && !(j->is_torch && !g.torch_ok)) {
                j->cpp17 = kg_needs_cpp17(j->source) || j->is_torch;
                if (spawn_compile(&g, j, c) != 0) j->compile_done = 1;
                else if (o.mode == MODE_FULL || o.mode == MODE_DRY) {
                    /* a harness's start-up (its CUDA context) must not overlap
                     * a session: while a candidate waits for the GPU it is held
                     * back, and starts when that session is over */
                    j->h_pending = 1;
                    if (!n_ready) spawn_harnesses(&g, j);
                }
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
                if (j->is_torch && !g.torch_ok) {
                    c->verdict = KG_V_SKIPPED;
                    snprintf(c->reason, sizeof c->reason, "PyTorch candidate, not judged here: %.300s", g.torch_why);
                } else if (j->env_skip) {
                    c->verdict = KG_V_SKIPPED;   /* the reason says why */
                } else if (!j->compile_ok) {
                    c->verdict = KG_V_L1;
                    if (!c->reason[0]) snprintf(c->reason, sizeof c->reason, "compile error");
                } else if (o.mode == MODE_COMPILE) {
                    c->verdict = KG_V_STATIC_OK;
                    snprintf(c->reason, sizeof c->reason, "static track and compile passed (not run)");
                } else {
                    /* the fat binary serves every architecture under each one's name */
                    if (j->arch_ok[0] == 1 && !j->is_torch && g.n_arch > 0) {
                        char from[PATH_MAX + 16], to[PATH_MAX + 48];
                        snprintf(from, sizeof from, "%s/cand.so", j->dir);
                        for (int a = 0; a < g.n_arch; a++) {
                            snprintf(to, sizeof to, "%s/cand_sm%s.so", j->dir, g.arch[a]);
                            if (access(to, F_OK) != 0 && access(from, F_OK) == 0 && link(from, to) != 0)
                                fprintf(stderr, "kgate: warning: link %s: %s\n", to, strerror(errno));
                        }
                    }
                    j->state = J_READY;
                    c->t_ready = kg_now() - j->t0;
                    continue;
                }
            }
            /* decided without the GPU: stop what still runs for it */
            stop_job(&g, j);
            if (c->verdict < 0) c->verdict = KG_V_L1;
            c->t_total = kg_now() - j->t0;
            j->state = J_DONE;
            in_flight--;
            n_done++;
        }

        /* ---- the GPUs: the first ready candidate, one at a time ---- */
        int gpu = -1;
        for (int i = 0; i < next && gpu < 0; i++)
            if (jobs[i].state == J_READY) gpu = i;
        if (gpu >= 0) {
            kg_cand *c = &cands[gpu];
            kg_job *j = &jobs[gpu];
            int ti = 0;
            for (int k = 0; k < kg_task_count(); k++)
                if (kg_task_at(k) == j->task) ti = k;
            if (j->h_pending) spawn_harnesses(&g, j);   /* held back until now: its start-up is waited for */
            c->t_quiesce = quiesce_others(&g, jobs, next, gpu);
            c->t_gpu_wait = kg_now() - j->t0 - c->t_ready;
            run_candidate(&g, j, c, ti);
            stop_job(&g, j);
            c->t_total = kg_now() - j->t0;
            j->state = J_DONE;
            in_flight--;
            n_done++;
        } else if (n_done < n && in_flight > 0) {
            /* ---- wait for a scan, a compile, a harness that ended early, or a deadline ---- */
            struct pollfd pf[(2 + KG_MAX_DEV) * 64];
            int who[(2 + KG_MAX_DEV) * 64], what[(2 + KG_MAX_DEV) * 64], np = 0;
            double now = kg_now(), soonest = now + 1.0;
            for (int i = 0; i < next && np < (2 + KG_MAX_DEV) * 64 - (2 + KG_MAX_DEV); i++) {
                kg_job *j = &jobs[i];
                if (j->state != J_FLIGHT) continue;
                if (j->scan_on) {
                    pf[np] = (struct pollfd){j->scan.res_fd, POLLIN, 0}; who[np] = i; what[np++] = -2;
                    if (!j->scan_killed && j->scan_deadline < soonest) soonest = j->scan_deadline;
                }
                if (j->cc_on) {
                    pf[np] = (struct pollfd){j->cc.res_fd, POLLIN, 0}; who[np] = i; what[np++] = -1;
                    if (!j->cc_killed && j->cc_deadline < soonest) soonest = j->cc_deadline;
                }
                for (int d = 0; d < g.n_dev; d++)
                    if (j->h_on[d] && !j->h_dead[d]) {
                        pf[np] = (struct pollfd){j->harness[d].res_fd, POLLIN, 0}; who[np] = i; what[np++] = d;
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
                if (what[k] == -2 && j->scan_on) static_result(&g, j, c);
                else if (what[k] == -1 && j->cc_on) compile_result(&g, j, c);
                else if (what[k] >= 0 && j->h_on[what[k]]) {
                    /* the harness ended before its run: nothing of the candidate ran yet */
                    int d = what[k];
                    kg_sb_wait(&j->harness[d], kg_now() + 3, &j->hrec[d]);
                    j->h_on[d] = 0;
                    j->h_dead[d] = 1;
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
            int keep_for_explain = explain && c->verdict == KG_V_L4;
            if (!o.keep && !o.work && j->dir[0] && !keep_for_explain) {
                remove_tree(j->dir, 0);
                unlink(j->log);
                for (int d = 0; d < g.n_dev; d++) unlink(j->hlog[d]);
            }
            printed++;
        }
    }
    kg_sb_reap_lingering(1);
    for (int d = 0; d < g.n_dev; d++) kg_judge_stop(&g.dev[d].judge);
    if (o.mode == MODE_FULL && quiesce_waits)
        printf("# exclusive GPU: %d session(s) first waited for other harnesses to finish their start-up "
               "or teardown, %.2f s in all\n", quiesce_waits, quiesce_wait_s);

    /* ---- L4 verdicts explained (after every verdict: they do not wait for it) ---- */
    if (explain) {
        double t_end = kg_now() + o.explain_budget;
        int n_explained = 0;
        for (int i = 0; i < n; i++) {
            kg_cand *c = &cands[i];
            kg_job *j = &jobs[i];
            if (c->verdict != KG_V_L4) continue;
            int d = 0;
            for (int k = 0; k < c->n_dev; k++)
                if (c->dev[k].verdict == KG_V_L4) { d = k; break; }
            int ti = 0;
            for (int k = 0; k < kg_task_count(); k++)
                if (kg_task_at(k) == j->task) ti = k;
            c->explained = 1;
            if (kg_now() > t_end) {
                snprintf(c->ncu_cand.why, sizeof c->ncu_cand.why, "not profiled: the --explain-budget ran out");
                snprintf(c->ncu_ref.why, sizeof c->ncu_ref.why, "not profiled: the --explain-budget ran out");
            } else {
                printf("# explain: %s on device %d\n", c->name, g.dev[d].index);
                fflush(stdout);
                profile_reference(&g, ti, d, &c->ncu_ref);
                profile_candidate(&g, j, ti, d, &c->ncu_cand);
                n_explained++;
                kg_print_candidate(stdout, c);
            }
            if (!o.keep && !o.work && j->dir[0]) {
                remove_tree(j->dir, 0);
                unlink(j->log);
                for (int dd = 0; dd < g.n_dev; dd++) unlink(j->hlog[dd]);
            }
        }
        printf("# explain: %d L4 verdict(s) profiled\n", n_explained);
    }
    if (own_work && !o.keep) rmdir(workdir);

    kg_summary s;
    kg_summarize(cands, n, kg_now() - wall0, &s);
    kg_print_summary(stdout, &s);
    static const char *const mode_name[] = {"full", "static-only", "compile-only", "dry-run"};
    char devnames[600] = "";
    size_t dl = 0;
    for (int d = 0; d < g.n_dev && o.mode == MODE_FULL; d++)
        dl += (size_t)snprintf(devnames + dl, sizeof devnames - dl, "%s%s", d ? "; " : "", g.dev[d].probe.name);
    if (o.json) {
        FILE *f = fopen(o.json, "w");
        kg_run_info info = {sb.desc, o.mode == MODE_FULL ? devnames : "none (no GPU run)", g.arch_list,
                            o.mode == MODE_FULL && o.no_timing ? "no-timing" : mode_name[o.mode], o.seed,
                            kg_policy_name(o.policy)};
        if (!f || kg_write_json(f, &info, cands, n, &s) != 0 || fclose(f) != 0) {
            fprintf(stderr, "kgate: error: cannot write --json=%s\n", o.json);
            printf("kgate: FAIL (cannot write the JSON report)\n");
            return 1;
        }
        printf("JSON report: %s\n", o.json);
    }
    if (o.feedback) {
        FILE *f = fopen(o.feedback, "w");
        if (!f || kg_write_feedback(f, cands, n) != 0 || fclose(f) != 0) {
            fprintf(stderr, "kgate: error: cannot write --feedback=%s\n", o.feedback);
            printf("kgate: FAIL (cannot write the feedback)\n");
            return 1;
        }
        printf("feedback: %s (one record per candidate)\n", o.feedback);
    }

    /* The closing line. With labels: the gate's targets; a partial run
     * (static, compile, dry): no good candidate rejected and every bad one
     * whose defect those stages can see stopped; without labels: every
     * candidate accepted. A labels problem fails the run: the figures rest
     * on the labels. */
    int ok;
    char why[300];
    if (s.n_labeled > 0 && o.mode != MODE_FULL) {
        int missed = 0;
        int last = o.mode == MODE_STATIC ? KG_V_P0 : KG_V_L1;
        for (int i = 0; i < n; i++)
            if (cands[i].expected >= KG_V_P0 && cands[i].expected <= last &&
                !kg_verdict_is_stop(cands[i].verdict) && cands[i].verdict != KG_V_SKIPPED &&
                /* lenient leaves the static defects to the dynamic track on purpose */
                !(o.policy == KG_POLICY_LENIENT && cands[i].expected == KG_V_P0))
                missed++;
        ok = s.good_stopped == 0 && missed == 0;
        snprintf(why, sizeof why, "%d good candidate(s) rejected, %d bad one(s) this stage should stop "
                 "passed", s.good_stopped, missed);
    } else if (s.n_labeled > 0) {
        /* the second stage's targets (README.md); the median is reported
         * against its own, but a slow machine does not fail the verdicts */
        ok = (s.bad == 0 || s.interception >= 0.98) && s.good_stopped == 0;
        snprintf(why, sizeof why, "interception %.1f%% (target >= 98%%), false kills %.1f%% (target 0), "
                 "median %.3f s per candidate (target <= 1.0 s)",
                 100.0 * s.interception, 100.0 * s.false_kill, s.median_s);
    } else {
        int stopped = 0;
        for (int i = 0; i < n; i++) stopped += kg_verdict_is_stop(cands[i].verdict);
        ok = stopped == 0;
        snprintf(why, sizeof why, "%d of %d candidate(s) stopped", stopped, n);
    }
    if (label_problems) {
        size_t l = strlen(why);
        snprintf(why + l, sizeof why - l, "; %d labels problem(s), see the # labels lines", label_problems);
        ok = 0;
    }
    printf("kgate: %s (%s)\n", ok ? "PASS" : "FAIL", why);
    for (int i = 0; i < n; i++) free(paths[i]);
    free(paths);
    free(labels);
    free(cands);
    free(jobs);
    free(torch_cand);
    free(o.paths);
    return ok ? 0 : 1;
}
