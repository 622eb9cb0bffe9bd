/* sanitize: every sample under compute-sanitizer's four tools, judged
 * against the expectations declared beside each sample (sanitize.expect).
 *
 * Build:  make -C 9_Verification/sanitize        (bin/sanitize)
 * Run:    bin/sanitize                      the whole suite (what `make verify` does)
 *         bin/sanitize --folder 0_Simple --tool memcheck,racecheck
 *         bin/sanitize --sample vectorAdd
 *         bin/sanitize --binary ./my_app --args "--n 100" --expect my_app.expect
 *         bin/sanitize --list               the runs it would do (no GPU needed)
 *         bin/sanitize --parse report.xml   read one saved XML report (no GPU needed)
 * Exit: 0 every run CLEAN, DETECTED or SKIPPED (it needs more GPUs than are
 * visible: "gpus:"); 1 any MISSED, UNEXPECTED or ERROR (or a bad argument);
 * 2 WAIVED: no CUDA device. See README.md.
 */
#define _DEFAULT_SOURCE
/* snprintf truncation of over-long paths is intended and bounded */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "sanitize.h"

#define MAX_FILTERS 64
#define MAX_WORKERS 64

typedef struct {
    const char *root;
    const char *out;
    const char *samples[MAX_FILTERS];
    int n_samples;
    const char *folders[MAX_FILTERS];
    int n_folders;
    int tools[SZ_N_TOOLS];
    const char *binary, *args, *expect;
    int workers;
    int timeout_s;
    const char *sanitizer;
    int list, quiet;
    int assume_gpus; /* testing without a GPU: skip the device check */
    const char *parse;
} cli;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sanitize [options]\n"
        "Runs programs under compute-sanitizer (memcheck, racecheck, initcheck, synccheck) and\n"
        "judges each run against the declared expectations: CLEAN, DETECTED, MISSED,\n"
        "UNEXPECTED or ERROR.\n\n"
        "What to run (default: the suite: every [0-8]_*/*/ folder with a Makefile and every\n"
        "9_Verification/*/ folder with a sanitize.expect):\n"
        "  --sample=NAME[,NAME]   only these runs (sample or run names; repeatable)\n"
        "  --folder=PATH[,PATH]   only folders at or under PATH (e.g. 0_Simple)\n"
        "  --tool=T[,T]           only these tools (default: all four)\n"
        "  --binary=PATH          check one program instead of the suite\n"
        "  --args=\"ARGS\"          its arguments (default: from --expect, else none)\n"
        "  --expect=FILE          its expectations (default: all four tools clean); without\n"
        "                         --binary, runs every run: block of FILE\n"
        "How:\n"
        "  --root=DIR             the repository root (default .); runs start there\n"
        "  --jobs=N               parallel workers, one GPU each via CUDA_VISIBLE_DEVICES\n"
        "                         (default: the number of visible GPUs; a run declaring\n"
        "                         'gpus: N' gets N of them, or is SKIPPED where fewer exist)\n"
        "  --timeout=S            per-run limit in seconds (default 600; sanitize.expect may\n"
        "                         set its own)\n"
        "  --sanitizer=PATH       compute-sanitizer to use (default: $COMPUTE_SANITIZER, PATH,\n"
        "                         $CUDA_HOME/bin, /usr/local/cuda/bin, /usr/local/cuda/compute-sanitizer)\n"
        "  --out=DIR              reports go here (default build/sanitize): summary.txt,\n"
        "                         sanitize.json, sanitize.junit.xml, raw/<run>.<tool>.{xml,log}\n"
        "  --list                 print the runs and exit (no GPU needed)\n"
        "  --parse=FILE           print the detections in one saved XML report and exit\n"
        "  --quiet                no progress lines\n"
        "  --assume-gpus=N        skip the CUDA device check and assume N devices (to test the\n"
        "                         harness with a stand-in --sanitizer on a machine without a GPU)\n"
        "  --help\n");
}

static int bad(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "sanitize: error: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(see sanitize --help)\n");
    return 1;
}

static int add_list(const char **dst, int *n, char *val)
{
    for (char *w = strtok(val, ","); w; w = strtok(NULL, ",")) {
        if (*n >= MAX_FILTERS) return -1;
        dst[(*n)++] = w;
    }
    return 0;
}

static int parse_cli(int argc, char **argv, cli *c)
{
    memset(c, 0, sizeof *c);
    c->root = ".";
    c->timeout_s = 600;
    int any_tool = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(a, "--list")) { c->list = 1; continue; }
        if (!strcmp(a, "--quiet")) { c->quiet = 1; continue; }
        if (strncmp(a, "--", 2)) return bad("unexpected argument '%s'%s", a, "");
        char key[64];
        char *eq = strchr(a, '=');
        char *val;
        if (eq) {
            snprintf(key, sizeof key, "%.*s", (int)(eq - a), a);
            a = key;
            val = eq + 1;
        } else {
            if (i + 1 >= argc) return bad("%s needs a value%s", a, "");
            val = argv[++i];
        }
        const char *k = a + 2;
        if (!strcmp(k, "sample")) {
            if (add_list(c->samples, &c->n_samples, val)) return bad("too many --sample names%s%s", "", "");
        } else if (!strcmp(k, "folder")) {
            if (add_list(c->folders, &c->n_folders, val)) return bad("too many --folder names%s%s", "", "");
        } else if (!strcmp(k, "tool")) {
            for (char *w = strtok(val, ","); w; w = strtok(NULL, ",")) {
                int t = sz_tool_parse(w);
                if (t < 0) return bad("--tool=%s: unknown tool%s (memcheck, racecheck, initcheck, synccheck)", w, "");
                c->tools[t] = 1;
                any_tool = 1;
            }
            if (!any_tool) return bad("--tool needs a tool name%s%s", "", "");
        } else if (!strcmp(k, "binary")) {
            c->binary = val;
        } else if (!strcmp(k, "args")) {
            c->args = val;
        } else if (!strcmp(k, "expect")) {
            c->expect = val;
        } else if (!strcmp(k, "root")) {
            c->root = val;
        } else if (!strcmp(k, "out")) {
            c->out = val;
        } else if (!strcmp(k, "sanitizer")) {
            c->sanitizer = val;
        } else if (!strcmp(k, "parse")) {
            c->parse = val;
        } else if (!strcmp(k, "assume-gpus")) {
            char *end;
            long v = strtol(val, &end, 10);
            if (!*val || *end || v < 1 || v > MAX_WORKERS)
                return bad("--assume-gpus=%s: must be an integer from 1 to 64%s", val, "");
            c->assume_gpus = (int)v;
        } else if (!strcmp(k, "jobs") || !strcmp(k, "timeout")) {
            char *end;
            long v = strtol(val, &end, 10);
            long hi = !strcmp(k, "jobs") ? MAX_WORKERS : 86400;
            if (!*val || *end || v < 1 || v > hi) {
                char range[32];
                snprintf(range, sizeof range, "1 to %ld", hi);
                return bad(!strcmp(k, "jobs") ? "--jobs=%s: must be an integer from %s"
                                              : "--timeout=%s: must be seconds from %s", val, range);
            }
            if (!strcmp(k, "jobs")) c->workers = (int)v;
            else c->timeout_s = (int)v;
        } else {
            return bad("unknown option '%s'%s", a, "");
        }
    }
    if (!any_tool)
        for (int t = 0; t < SZ_N_TOOLS; t++) c->tools[t] = 1;
    if (c->args && !c->binary) return bad("--args needs --binary%s%s", "", "");
    return 0;
}

/* ---- the list of runs ------------------------------------------------ */

typedef struct {
    sz_run_spec *runs;
    int n, cap;
} run_list;

static int push_runs(run_list *l, const sz_expect_file *f)
{
    for (int i = 0; i < f->n; i++) {
        if (l->n == l->cap) {
            int cap = l->cap ? 2 * l->cap : 32;
            sz_run_spec *nr = realloc(l->runs, (size_t)cap * sizeof *nr);
            if (!nr) return -1;
            l->runs = nr;
            l->cap = cap;
        }
        l->runs[l->n++] = f->runs[i];
    }
    return 0;
}

static int under(const char *folder, const char *filter)
{
    char f[PATH_MAX];
    snprintf(f, sizeof f, "%s", filter);
    size_t n = strlen(f);
    while (n > 1 && f[n - 1] == '/') f[--n] = '\0';
    if (!strncmp(f, "./", 2)) memmove(f, f + 2, strlen(f + 2) + 1);
    n = strlen(f);
    return !strncmp(folder, f, n) && (folder[n] == '\0' || folder[n] == '/');
}

static int wanted(const cli *c, const sz_run_spec *r)
{
    if (c->n_folders) {
        int ok = 0;
        for (int i = 0; i < c->n_folders; i++) ok |= under(r->folder, c->folders[i]);
        if (!ok) return 0;
    }
    if (c->n_samples) {
        int ok = 0;
        char fb[256];
        snprintf(fb, sizeof fb, "%s", r->folder);
        const char *folder_name = basename(fb);
        for (int i = 0; i < c->n_samples; i++)
            ok |= !strcmp(c->samples[i], r->name) || !strcmp(c->samples[i], folder_name);
        if (!ok) return 0;
    }
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Suite discovery: sample folders and 9_Verification folders that declare runs. */
static int discover(const cli *c, run_list *l)
{
    const char *pats[2] = {"[0-8]_*/*/Makefile", "9_Verification/*/sanitize.expect"};
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd) || chdir(c->root)) {
        fprintf(stderr, "sanitize: error: --root=%s: %s\n", c->root, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int p = 0; p < 2 && !rc; p++) {
        glob_t g;
        memset(&g, 0, sizeof g);
        if (glob(pats[p], 0, NULL, &g) == 0) {
            qsort(g.gl_pathv, g.gl_pathc, sizeof(char *), cmp_str);
            for (size_t i = 0; i < g.gl_pathc && !rc; i++) {
                char folder[PATH_MAX], tmp[PATH_MAX], path[PATH_MAX + 32];
                snprintf(tmp, sizeof tmp, "%s", g.gl_pathv[i]);
                snprintf(folder, sizeof folder, "%s", dirname(tmp));
                snprintf(tmp, sizeof tmp, "%s", folder);
                const char *name = basename(tmp);
                snprintf(path, sizeof path, "%s/sanitize.expect", folder);
                sz_expect_file f;
                char err[600];
                if (sz_expect_load(path, name, folder, &f, err, sizeof err)) {
                    fprintf(stderr, "sanitize: error: %s\n", err);
                    rc = -1;
                    break;
                }
                if (push_runs(l, &f)) rc = -1;
                sz_expect_free(&f);
            }
        }
        globfree(&g);
    }
    if (chdir(cwd)) rc = -1;
    return rc;
}

/* ---- helpers --------------------------------------------------------- */

static int mkdirs(const char *path)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0755) && errno != EEXIST) return -1;
            *s = '/';
        }
    }
    if (mkdir(p, 0755) && errno != EEXIST) return -1;
    return 0;
}

static int executable(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

static int find_sanitizer(const cli *c, char *out, size_t len)
{
    const char *env = getenv("COMPUTE_SANITIZER");
    if (c->sanitizer || env) {
        snprintf(out, len, "%s", c->sanitizer ? c->sanitizer : env);
        return executable(out) ? 0 : -1;
    }
    const char *path = getenv("PATH");
    if (path) {
        char buf[8192];
        snprintf(buf, sizeof buf, "%s", path);
        for (char *d = strtok(buf, ":"); d; d = strtok(NULL, ":")) {
            snprintf(out, len, "%s/compute-sanitizer", d);
            if (executable(out)) return 0;
        }
    }
    const char *home = getenv("CUDA_HOME");
    const char *dirs[4] = {home, "/usr/local/cuda", NULL};
    for (int i = 0; i < 2; i++) {
        if (!dirs[i]) continue;
        snprintf(out, len, "%s/bin/compute-sanitizer", dirs[i]);
        if (executable(out)) return 0;
        snprintf(out, len, "%s/compute-sanitizer/compute-sanitizer", dirs[i]);
        if (executable(out)) return 0;
    }
    snprintf(out, len, "compute-sanitizer");
    return -1;
}

static void popen_line(const char *cmd, const char *want, char *out, size_t len)
{
    out[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (!p) return;
    char line[512];
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!want || strstr(line, want)) {
            snprintf(out, len, "%s", line);
            break;
        }
    }
    pclose(p);
}

static void safe_name(const char *in, char *out, size_t len)
{
    size_t j = 0;
    for (const char *p = in; *p && j + 1 < len; p++)
        out[j++] = (isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.') ? *p : '_';
    out[j] = '\0';
}

/* Build the compute-sanitizer command line for one job. */
static int build_argv(const char *sanitizer, int tool, const char *xml, const sz_run_spec *r,
                      const char *root_abs, char **argv, int max, char *err, size_t errlen)
{
    int n = 0;
    char code[16];
    snprintf(code, sizeof code, "%d", SZ_ERROR_EXITCODE);
    const char *fixed[] = {sanitizer, "--tool", sz_tool_name(tool), "--error-exitcode", code,
                           "--print-limit", "0", "--xml", "--save", xml};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) argv[n++] = strdup(fixed[i]);
    if (tool == SZ_MEMCHECK) {
        argv[n++] = strdup("--leak-check");
        argv[n++] = strdup("full");
        /* end only the faulting kernel, not the context: the program goes on,
         * frees its memory, and a planted read does not turn into leaks */
        argv[n++] = strdup("--destroy-on-device-error");
        argv[n++] = strdup("kernel");
    }
    if (tool == SZ_RACECHECK) {
        argv[n++] = strdup("--racecheck-report");
        argv[n++] = strdup("all");
    }
    char bin[PATH_MAX + 600];
    if (r->binary[0] == '/') snprintf(bin, sizeof bin, "%s", r->binary);
    else snprintf(bin, sizeof bin, "%s/%s", root_abs, r->binary);
    argv[n++] = strdup(bin);
    int k = sz_split_args(r->args, argv + n, max - n, err, errlen);
    if (k < 0) {
        sz_free_args(argv, n);
        return -1;
    }
    return n + k;
}

/* ---- main ------------------------------------------------------------ */

typedef struct {
    int job;       /* index into results, -1 when the slot is free */
    sz_proc proc;
    char **argv;
    int argc;
} slot;

int main(int argc, char **argv)
{
    /* the command line as given, for the reports (parsing splits lists in place) */
    char command[2048] = "";
    for (int i = 0; i < argc; i++) {
        strncat(command, i ? " " : "", sizeof command - strlen(command) - 1);
        strncat(command, argv[i], sizeof command - strlen(command) - 1);
    }
    cli c;
    if (parse_cli(argc, argv, &c)) {
        printf("sanitize: FAIL (bad argument)\n");
        return 1;
    }

    if (c.parse) {
        sz_found f;
        char err[600];
        if (sz_report_read_file(c.parse, &f, err, sizeof err)) {
            fprintf(stderr, "sanitize: error: %s\n", err);
            return 1;
        }
        printf("%s: %d record(s), %d detection(s)\n", c.parse, f.n_records, f.n);
        for (int j = 0; j < f.n; j++) {
            const sz_detection *d = &f.d[j];
            char w[300];
            sz_detection_where(d, w, sizeof w);
            printf("  %-20s %-24s kernel=%s x%d raw_kind=%s", d->kind, w,
                   d->kernel[0] ? d->kernel : "?", d->count, d->raw_kind);
            if (d->has_block) printf(" block=(%d,%d,%d)", d->block[0], d->block[1], d->block[2]);
            if (d->has_thread) printf(" thread=(%d,%d,%d)", d->thread[0], d->thread[1], d->thread[2]);
            printf("\n");
            for (int i = 0; i < d->n_locs; i++)
                printf("      %s %s:%d %s\n", d->locs[i].host ? "host  " : "device", d->locs[i].file,
                       d->locs[i].line, d->locs[i].func);
            if (d->text[0]) printf("      \"%s\"\n", d->text);
        }
        sz_found_free(&f);
        return 0;
    }

    /* What to run. */
    run_list runs = {0};
    if (c.binary || c.expect) {
        sz_expect_file f;
        char err[600];
        char nb[PATH_MAX];
        snprintf(nb, sizeof nb, "%s", c.binary ? c.binary : "program");
        const char *name = basename(nb);
        int rc = c.expect ? sz_expect_load(c.expect, name, "", &f, err, sizeof err)
                          : sz_expect_default(name, "", &f);
        if (rc == 0 && c.expect) {
            struct stat st;
            if (stat(c.expect, &st)) {
                snprintf(err, sizeof err, "--expect=%s: no such file", c.expect);
                sz_expect_free(&f);
                rc = -1;
            }
        }
        if (rc) {
            fprintf(stderr, "sanitize: error: %s\n", err);
            printf("sanitize: FAIL (bad expectations)\n");
            return 1;
        }
        if (c.binary) {
            f.n = 1; /* the first run block's expectations, for this binary */
            char abs[PATH_MAX];
            if (!realpath(c.binary, abs)) {
                fprintf(stderr, "sanitize: error: --binary=%s: %s\n", c.binary, strerror(errno));
                sz_expect_free(&f);
                printf("sanitize: FAIL (bad argument)\n");
                return 1;
            }
            snprintf(f.runs[0].binary, sizeof f.runs[0].binary, "%s", abs);
            snprintf(f.runs[0].name, sizeof f.runs[0].name, "%s", name);
            if (c.args) snprintf(f.runs[0].args, sizeof f.runs[0].args, "%s", c.args);
            else if (!c.expect) f.runs[0].args[0] = '\0';
        }
        push_runs(&runs, &f);
        sz_expect_free(&f);
    } else if (discover(&c, &runs)) {
        printf("sanitize: FAIL (bad expectations)\n");
        return 1;
    }

    /* Jobs: one per (run, tool). */
    int n_jobs = 0;
    sz_result *res = calloc((size_t)(runs.n * SZ_N_TOOLS + 1), sizeof *res);
    int *job_timeout = calloc((size_t)(runs.n * SZ_N_TOOLS + 1), sizeof(int));
    int *job_gpus = calloc((size_t)(runs.n * SZ_N_TOOLS + 1), sizeof(int));
    const sz_run_spec **job_run = calloc((size_t)(runs.n * SZ_N_TOOLS + 1), sizeof *job_run);
    if (!res || !job_timeout || !job_gpus || !job_run) {
        fprintf(stderr, "sanitize: error: out of memory\n");
        return 1;
    }
    for (int i = 0; i < runs.n; i++) {
        if (!wanted(&c, &runs.runs[i])) continue;
        for (int t = 0; t < SZ_N_TOOLS; t++) {
            if (!c.tools[t] || !runs.runs[i].tool[t].enabled) continue;
            sz_result *r = &res[n_jobs];
            snprintf(r->name, sizeof r->name, "%s", runs.runs[i].name);
            snprintf(r->binary, sizeof r->binary, "%s", runs.runs[i].binary);
            snprintf(r->args, sizeof r->args, "%s", runs.runs[i].args);
            r->tool = t;
            r->expect = runs.runs[i].tool[t];
            job_timeout[n_jobs] = runs.runs[i].timeout_s ? runs.runs[i].timeout_s : c.timeout_s;
            job_gpus[n_jobs] = runs.runs[i].gpus > 1 ? runs.runs[i].gpus : 1;
            job_run[n_jobs] = &runs.runs[i];
            n_jobs++;
        }
    }
    if (c.list) {
        for (int j = 0; j < n_jobs; j++) {
            const sz_result *r = &res[j];
            printf("%-28s %-10s %s %s  expect: ", r->name, sz_tool_name(r->tool), r->binary, r->args);
            if (job_gpus[j] > 1) printf("(%d GPUs) ", job_gpus[j]);
            if (!r->expect.detect) printf("clean");
            for (int k = 0; k < r->expect.n; k++)
                printf("%s%s at %s:%d", k ? ", " : "", r->expect.e[k].kind,
                       r->expect.e[k].file[0] ? r->expect.e[k].file : "*", r->expect.e[k].line);
            printf("\n");
        }
        printf("sanitize: %d runs\n", n_jobs);
    } else if (n_jobs == 0) {
        fprintf(stderr, "sanitize: error: nothing to run (check --sample/--folder/--tool)\n");
        printf("sanitize: FAIL (nothing to run)\n");
    }
    if (c.list || n_jobs == 0) {
        free(res);
        free(job_timeout);
        free(job_gpus);
        free(job_run);
        free(runs.runs);
        return c.list ? 0 : 1;
    }

    /* A GPU, then the tool. */
    int n_dev = c.assume_gpus;
    cudaError_t ce = cudaSuccess;
    if (!n_dev) ce = cudaGetDeviceCount(&n_dev);
    if (ce != cudaSuccess || n_dev == 0) {
        printf("sanitize: WAIVED (no CUDA device: %s)\n",
               ce != cudaSuccess ? cudaGetErrorString(ce) : "none found");
        return 2;
    }
    char sanitizer[PATH_MAX];
    if (find_sanitizer(&c, sanitizer, sizeof sanitizer)) {
        fprintf(stderr, "sanitize: error: compute-sanitizer not found or not executable (%s); "
                "give --sanitizer=PATH or put it on PATH\n", sanitizer);
        printf("sanitize: FAIL (no compute-sanitizer)\n");
        return 1;
    }
    char version[256], cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "'%s' --version 2>/dev/null", sanitizer);
    popen_line(cmd, "Version", version, sizeof version);

    /* Workers: one per visible device; CUDA_VISIBLE_DEVICES names them. */
    char dev_ids[MAX_WORKERS][64];
    int n_ids = 0;
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (cvd && *cvd) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", cvd);
        for (char *w = strtok(buf, ","); w && n_ids < MAX_WORKERS; w = strtok(NULL, ","))
            snprintf(dev_ids[n_ids++], sizeof dev_ids[0], "%s", w);
    }
    if (n_ids == 0 || n_ids > n_dev) {
        n_ids = n_dev < MAX_WORKERS ? n_dev : MAX_WORKERS;
        for (int i = 0; i < n_ids; i++) snprintf(dev_ids[i], sizeof dev_ids[0], "%d", i);
    }
    int workers = c.workers ? c.workers : n_ids;
    if (workers > n_jobs) workers = n_jobs;

    char root_abs[PATH_MAX];
    if (!realpath(c.root, root_abs)) {
        fprintf(stderr, "sanitize: error: --root=%s: %s\n", c.root, strerror(errno));
        return 1;
    }
    char out_dir[PATH_MAX], raw_dir[PATH_MAX + 8];
    if (c.out) snprintf(out_dir, sizeof out_dir, "%s", c.out);
    else snprintf(out_dir, sizeof out_dir, "%s/build/sanitize", root_abs);
    snprintf(raw_dir, sizeof raw_dir, "%s/raw", out_dir);
    if (mkdirs(raw_dir)) {
        fprintf(stderr, "sanitize: error: cannot create %s: %s\n", raw_dir, strerror(errno));
        return 1;
    }
    char raw_abs[PATH_MAX];
    if (!realpath(raw_dir, raw_abs)) snprintf(raw_abs, sizeof raw_abs, "%s", raw_dir);
    if (!c.quiet)
        printf("# sanitize: %d runs, %d worker(s) on device(s) %s%s, %s, reports in %s\n", n_jobs,
               workers, dev_ids[0], workers > 1 ? ",..." : "", version[0] ? version : sanitizer,
               out_dir);

    slot slots[MAX_WORKERS];
    for (int w = 0; w < workers; w++) slots[w].job = -1;
    int next = 0, done = 0;
    double t_all = sz_now();
    while (done < n_jobs) {
        for (int w = 0; w < workers && next < n_jobs; w++) {
            if (slots[w].job >= 0) continue;
            int j = next++;
            sz_result *r = &res[j];
            char base[300];
            char label[300];
            snprintf(label, sizeof label, "%s.%s", r->name, sz_tool_name(r->tool));
            safe_name(label, base, sizeof base);
            snprintf(r->xml_path, sizeof r->xml_path, "%s/%s.xml", raw_abs, base);
            snprintf(r->log_path, sizeof r->log_path, "%s/%s.log", raw_abs, base);
            unlink(r->xml_path);
            char bin[PATH_MAX + 600];
            if (r->binary[0] == '/') snprintf(bin, sizeof bin, "%s", r->binary);
            else snprintf(bin, sizeof bin, "%s/%s", root_abs, r->binary);
            /* A multi-GPU run ("gpus: N") gets N devices: its worker's and the
             * next ones (shared with their workers: fine for correctness
             * checking, which is all a sanitizer run is). Fewer visible:
             * SKIPPED, which is not a failure. */
            char cvd_value[MAX_WORKERS * 64 + 1] = "";
            if (job_gpus[j] > n_ids) {
                r->verdict = SZ_SKIPPED;
                r->exit_code = -1;
                snprintf(r->message, sizeof r->message, "needs %d GPUs; %d visible", job_gpus[j],
                         n_ids);
                r->xml_path[0] = r->log_path[0] = '\0';
                done++;
                w--; /* the slot is still free */
                if (!c.quiet)
                    printf("# [%d/%d] %-24s %-10s %-10s %6.1f s  %s\n", done, n_jobs, r->name,
                           sz_tool_name(r->tool), sz_verdict_name(r->verdict), 0.0, r->message);
                continue;
            }
            for (int k = 0; k < job_gpus[j]; k++) {
                size_t at = strlen(cvd_value);
                snprintf(cvd_value + at, sizeof cvd_value - at, "%s%s", k ? "," : "",
                         dev_ids[(w + k) % n_ids]);
            }
            if (!executable(bin)) {
                r->verdict = SZ_ERROR;
                r->exit_code = -1;
                snprintf(r->message, sizeof r->message, "%s is not built (run make first)", bin);
                r->xml_path[0] = r->log_path[0] = '\0';
                done++;
                w--; /* the slot is still free */
                continue;
            }
            slots[w].argv = calloc(160, sizeof(char *));
            char err[300];
            slots[w].argc = slots[w].argv ? build_argv(sanitizer, r->tool, r->xml_path, job_run[j],
                                                       root_abs, slots[w].argv, 160, err, sizeof err)
                                          : -1;
            if (slots[w].argc < 0 ||
                sz_proc_start(&slots[w].proc, slots[w].argv, root_abs, r->log_path,
                              "CUDA_VISIBLE_DEVICES", cvd_value, job_timeout[j])) {
                r->verdict = SZ_ERROR;
                r->exit_code = -1;
                snprintf(r->message, sizeof r->message, "cannot start compute-sanitizer: %s",
                         slots[w].argc < 0 ? err : strerror(errno));
                if (slots[w].argc > 0) sz_free_args(slots[w].argv, slots[w].argc);
                free(slots[w].argv);
                done++;
                w--;
                continue;
            }
            slots[w].job = j;
        }
        int any = 0;
        for (int w = 0; w < workers; w++) {
            if (slots[w].job < 0) continue;
            int code, to;
            if (!sz_proc_poll(&slots[w].proc, &code, &to)) continue;
            int j = slots[w].job;
            sz_result *r = &res[j];
            r->seconds = sz_now() - slots[w].proc.start;
            sz_evaluate(r, code, to, job_timeout[j]);
            sz_free_args(slots[w].argv, slots[w].argc);
            free(slots[w].argv);
            slots[w].job = -1;
            done++;
            any = 1;
            if (!c.quiet)
                printf("# [%d/%d] %-24s %-10s %-10s %6.1f s%s%s\n", done, n_jobs, r->name,
                       sz_tool_name(r->tool), sz_verdict_name(r->verdict), r->seconds,
                       r->message[0] ? "  " : "", r->message);
            fflush(stdout);
        }
        if (!any) usleep(20000);
    }
    if (!c.quiet) printf("# all runs took %.1f s\n\n", sz_now() - t_all);

    /* Reports. */
    char date[64], git[128];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    /* GIT_COMMIT names the commit where the tree is a copy without .git */
    const char *env_commit = getenv("GIT_COMMIT");
    if (env_commit && *env_commit) {
        snprintf(git, sizeof git, "%s", env_commit);
    } else {
        snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse --short HEAD 2>/dev/null", root_abs);
        popen_line(cmd, NULL, git, sizeof git);
    }
    sz_meta meta = {date, git, sanitizer, version, command, workers};
    sz_write_table(stdout, res, n_jobs);
    int ok = 1;
    const char *names[3] = {"summary.txt", "sanitize.json", "sanitize.junit.xml"};
    for (int k = 0; k < 3; k++) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s/%s", out_dir, names[k]);
        FILE *f = fopen(p, "w");
        if (!f) {
            fprintf(stderr, "sanitize: error: cannot write %s: %s\n", p, strerror(errno));
            ok = 0;
            continue;
        }
        if (k == 0) {
            fprintf(f, "# compute-sanitizer over the suite: %s, git %s, %s\n# %s\n", date, git,
                    version, command);
            sz_write_table(f, res, n_jobs);
        }
        int rc = k == 1 ? sz_write_json(f, res, n_jobs, &meta) : k == 2 ? sz_write_junit(f, res, n_jobs) : 0;
        if (fclose(f) || rc) ok = 0;
    }
    int counts[SZ_N_VERDICTS];
    int failed = sz_count(res, n_jobs, counts);
    for (int j = 0; j < n_jobs; j++) sz_result_free(&res[j]);
    free(res);
    free(job_timeout);
    free(job_gpus);
    free(job_run);
    free(runs.runs);
    if (!ok) {
        printf("sanitize: FAIL (could not write the reports)\n");
        return 1;
    }
    printf("sanitize: %s\n", failed ? "FAIL" : "PASS");
    return failed ? 1 : 0;
}
