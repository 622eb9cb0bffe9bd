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
 * 2 WAIVED: no CUDA device. See README.md, which lists the
 * guarantees this file keeps: no shell, no empty or unknown value taken as
 * "everything", nothing followed through a symlink in --out, nothing left
 * running, caps on what is read and kept.
 */
#define _GNU_SOURCE
/* snprintf truncation of over-long paths is intended and bounded */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "sanitize.h"

#define MAX_FILTERS 64
#define MAX_WORKERS 64

/* How compute-sanitizer finds the program it launched: the injected program
 * binds the first free abstract Unix socket "agora_socket_<port>" of the
 * range [--port, --port + --max-connections) (default 49152, 10), and the
 * tool scans that range for the socket whose process has the pid of its
 * child. Abstract sockets belong to the network namespace, pids to the PID
 * namespace: runs in PID namespaces of their own (--contain=pidns) have
 * targets with the same pids, so two runs at once in one range can take each
 * other's target (what the first --jobs=2 run on the H200 fits: "Target
 * application terminated before first instrumented API call", exit 255, and
 * runs that waited until their timeout, in runs started together). So each
 * worker gets a range of its own, after the default
 * one (which a compute-sanitizer started by hand on the machine uses): worker
 * w scans [SANITIZER_PORT_BASE + w * SANITIZER_PORTS, ... + SANITIZER_PORTS),
 * and runs one program at a time. (tests/fake_rendezvous.py plays it.)
 *
 * The ranges were not enough: on the H200 (2026-11-30, 2 workers, a range
 * each) matrixMul memcheck and racecheck, started at the same moment on the
 * two workers, still missed their targets: memcheck's tool said "Target
 * application terminated before first instrumented API call" after 14.9 s
 * (its retry was CLEAN), racecheck's log held "========= COMPUTE-SANITIZER"
 * and nothing more until the 300 s limit (no "No attachable process found",
 * though --launch-timeout is 60). Perhaps the target does not honour the
 * range as we pass it (it gets NV_SANITIZER_INJECTION_PORT_RANGE_END =
 * --max-connections - 1, which may be read as an absolute port). Whatever
 * the mechanism, the sockets are abstract, so with --contain=pidns each run
 * now also has a network namespace of its own (sz_proc.c), where it sees no
 * socket but its own; the ranges stay, for runs without one (the reaper
 * mode, or a kernel that refuses CLONE_NEWNET) and as a second wall. */
#define SANITIZER_PORT_BASE 49162
#define SANITIZER_PORTS 10
_Static_assert(SANITIZER_PORT_BASE + MAX_WORKERS * SANITIZER_PORTS <= 65536,
               "every worker's port range must be a valid port range");

/* How long compute-sanitizer waits for its program to connect
 * (--launch-timeout: "Timeout in seconds to wait to connect to the target
 * process", default 10 s for a single process, 0 for ever; from
 * `compute-sanitizer --help`, 2025.3.1). The program connects at its first
 * CUDA call, which on a cold machine (driver load, a first context on a big
 * GPU, a sanitizer that instruments it) can take more than 10 s; 60 s does not
 * turn a slow start into a failure. */
#define SANITIZER_LAUNCH_TIMEOUT_S 60

/* What compute-sanitizer prints when the rendezvous failed: it never
 * watched the program (strings from the tool's binary, 2025.3.1, both seen
 * on the H200). After "No attachable process found" it waits for a program
 * that waits for the tool, until --timeout; the other ends at once with
 * exit 255. Either way nothing was checked, and nothing about the program
 * is known, so the run is ended as soon as its output holds one of these,
 * and run once more (same worker, once every process of the first attempt
 * is gone). A second failure is ERROR. Only this is retried: a program that
 * ran under the tool and failed, hung or was judged keeps its verdict. */
static const char *const attach_failures[] = {
    "No attachable process found",
    "Target application terminated before first instrumented API call",
    NULL,
};

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
    size_t max_report, max_log;
    sz_contain contain;
} cli;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sanitize [options]\n"
        "Runs programs under compute-sanitizer (memcheck, racecheck, initcheck, synccheck) and\n"
        "judges each run against the declared expectations: CLEAN, DETECTED, MISSED,\n"
        "UNEXPECTED or ERROR (SKIPPED: a run needing more GPUs than are visible).\n\n"
        "What to run (default: the suite: every [0-8]_*/*/ folder with a Makefile or a\n"
        "sanitize.expect, and every 9_Verification/*/ folder with a sanitize.expect):\n"
        "  --sample=NAME[,NAME]   only these runs (run names or folder names; repeatable)\n"
        "  --folder=PATH[,PATH]   only folders at or under PATH (e.g. 0_Simple; repeatable)\n"
        "  --tool=T[,T]           only these tools (default: all four; repeatable)\n"
        "  --binary=PATH          check one program instead of the suite\n"
        "  --args=\"ARGS\"          its arguments (default: from --expect, else none;\n"
        "                         --args= means none)\n"
        "  --expect=FILE          its expectations (default: all four tools clean); without\n"
        "                         --binary, runs every run: block of FILE\n"
        "How:\n"
        "  --root=DIR             the repository root (default .); runs start there\n"
        "  --jobs=N               parallel workers, one GPU each via CUDA_VISIBLE_DEVICES\n"
        "                         (default: the number of visible GPUs; a run declaring\n"
        "                         'gpus: N' gets N of them, or is SKIPPED where fewer exist)\n"
        "  --timeout=S            per-run limit in seconds, reading its report included\n"
        "                         (default 600; sanitize.expect may set its own)\n"
        "  --sanitizer=PATH       compute-sanitizer to use (default: $COMPUTE_SANITIZER, PATH,\n"
        "                         $CUDA_HOME/bin, /usr/local/cuda/bin, /usr/local/cuda/compute-sanitizer)\n"
        "  --out=DIR              reports go here (default build/sanitize): summary.txt,\n"
        "                         sanitize.json, sanitize.junit.xml, raw/<run>.<tool>.{xml,log}\n"
        "                         (raw/ is made afresh each time)\n"
        "  --max-report=BYTES     a run whose XML report grows past this is stopped, ERROR\n"
        "                         (default 64M; K, M, G = 2^10, 2^20, 2^30)\n"
        "  --max-log=BYTES        a run's output past this is dropped from its log (default 16M)\n"
        "  --contain=MODE         how a run and all it starts are ended and kept apart: pidns\n"
        "                         (pid and network namespaces), reaper (a subreaper: runs at\n"
        "                         once are not isolated), auto (pidns where it works; default)\n"
        "  --list                 print the runs and exit (no GPU needed)\n"
        "  --parse=FILE           print the detections in one saved XML report and exit\n"
        "  --quiet                no progress lines\n"
        "  --assume-gpus=N        skip the CUDA device check and assume N devices (to test the\n"
        "                         harness with a stand-in --sanitizer on a machine without a GPU)\n"
        "  --help\n");
}

/* An error about the command line; values are printed cleaned. */
static int bad(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "sanitize: error: ");
    sz_print_clean(stderr, fmt, a, b);
    fprintf(stderr, "\n(see sanitize --help)\n");
    return 1;
}

/* Comma-separated names: every one non-empty. */
static int add_list(const char *opt, const char **dst, int *n, char *val)
{
    for (char *w = val;;) {
        char *comma = strchr(w, ',');
        if (comma) *comma = '\0';
        if (!*w) return bad("--%s: an empty name in the list (\"a,,b\", a leading or a trailing "
                            "comma)%s", opt, "");
        if (*n >= MAX_FILTERS) return bad("--%s: more than 64 names%s", opt, "");
        dst[(*n)++] = w;
        if (!comma) return 0;
        w = comma + 1;
    }
}

/* "64M", "1048576", "16K": bytes from 1 KiB to 4 GiB. */
static int parse_bytes(const char *opt, const char *val, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(val, &end, 10);
    unsigned long long mult = 1;
    if (*end == 'K') mult = 1ULL << 10, end++;
    else if (*end == 'M') mult = 1ULL << 20, end++;
    else if (*end == 'G') mult = 1ULL << 30, end++;
    if (!isdigit((unsigned char)val[0]) || *end || errno || v > (4ULL << 30) / mult ||
        v * mult < 1024)
        return bad("--%s=%s: must be a size from 1K to 4G (bytes, or with K, M or G)", opt, val);
    *out = (size_t)(v * mult);
    return 0;
}

static int parse_cli(int argc, char **argv, cli *c)
{
    memset(c, 0, sizeof *c);
    c->root = ".";
    c->timeout_s = 600;
    c->max_report = SZ_DEFAULT_MAX_REPORT;
    c->max_log = SZ_DEFAULT_MAX_LOG;
    static const char *const once[] = {"binary", "args", "expect", "root", "out", "sanitizer",
                                       "parse", "assume-gpus", "jobs", "timeout", "max-report",
                                       "max-log", "contain", NULL};
    int seen[16] = {0};
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
            if (eq - a >= (long)sizeof key) return bad("unknown option '%.60s...'%s", a, "");
            snprintf(key, sizeof key, "%.*s", (int)(eq - a), a);
            a = key;
            val = eq + 1;
        } else {
            if (i + 1 >= argc) return bad("%s needs a value%s", a, "");
            val = argv[++i];
        }
        const char *k = a + 2;
        if (!strcmp(k, "list") || !strcmp(k, "quiet") || !strcmp(k, "help"))
            return bad("%s takes no value%s", a, "");
        for (int o = 0; once[o]; o++) {
            if (strcmp(k, once[o])) continue;
            if (seen[o]++) return bad("%s is given twice%s", a, "");
        }
        /* An empty value is refused: never "every sample", "the default
         * folder" or "no filter". --args= alone means "no arguments". */
        if (!*val && strcmp(k, "args")) return bad("%s needs a value (it is empty)%s", a, "");
        if (!strcmp(k, "sample")) {
            if (add_list(k, c->samples, &c->n_samples, val)) return 1;
        } else if (!strcmp(k, "folder")) {
            if (add_list(k, c->folders, &c->n_folders, val)) return 1;
        } else if (!strcmp(k, "tool")) {
            const char *names[MAX_FILTERS];
            int n = 0;
            if (add_list(k, names, &n, val)) return 1;
            for (int w = 0; w < n; w++) {
                int t = sz_tool_parse(names[w]);
                if (t < 0)
                    return bad("--tool=%s: unknown tool%s (memcheck, racecheck, initcheck, "
                               "synccheck)", names[w], "");
                c->tools[t] = 1;
                any_tool = 1;
            }
        } else if (!strcmp(k, "binary")) {
            if (strlen(val) >= sizeof ((sz_run_spec *)0)->binary)
                return bad("--binary: the path is too long (at most 511 bytes)%s%s", "", "");
            c->binary = val;
        } else if (!strcmp(k, "args")) {
            if (strlen(val) >= sizeof ((sz_run_spec *)0)->args)
                return bad("--args: too long (at most 511 bytes)%s%s", "", "");
            c->args = val;
        } else if (!strcmp(k, "expect") || !strcmp(k, "root") || !strcmp(k, "out") ||
                   !strcmp(k, "sanitizer") || !strcmp(k, "parse")) {
            /* room for what the harness appends (raw/<run>.<tool>.xml) */
            if (strlen(val) > PATH_MAX - 400) return bad("%s: the path is too long%s", a, "");
            if (!strcmp(k, "expect")) c->expect = val;
            else if (!strcmp(k, "root")) c->root = val;
            else if (!strcmp(k, "out")) c->out = val;
            else if (!strcmp(k, "sanitizer")) c->sanitizer = val;
            else c->parse = val;
        } else if (!strcmp(k, "max-report") || !strcmp(k, "max-log")) {
            if (parse_bytes(k, val, k[4] == 'r' ? &c->max_report : &c->max_log)) return 1;
        } else if (!strcmp(k, "contain")) {
            if (!strcmp(val, "auto")) c->contain = SZ_CONTAIN_AUTO;
            else if (!strcmp(val, "pidns")) c->contain = SZ_CONTAIN_PIDNS;
            else if (!strcmp(val, "reaper")) c->contain = SZ_CONTAIN_REAPER;
            else return bad("--contain=%s: must be auto, pidns or reaper%s", val, "");
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
    if (c->n_folders && (c->binary || c->expect))
        return bad("--folder selects suite folders: it has no meaning with %s%s",
                   c->binary ? "--binary" : "--expect", "");
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
    while (!strncmp(f, "./", 2)) memmove(f, f + 2, strlen(f + 2) + 1);
    size_t n = strlen(f);
    while (n > 1 && f[n - 1] == '/') f[--n] = '\0';
    if (!n || !strcmp(f, ".")) return 1; /* the root: every folder */
    return !strncmp(folder, f, n) && (folder[n] == '\0' || folder[n] == '/');
}

static const char *folder_name(const sz_run_spec *r, char *buf, size_t len)
{
    const char *slash = strrchr(r->folder, '/');
    snprintf(buf, len, "%s", slash ? slash + 1 : r->folder);
    return buf;
}

static int sample_matches(const char *want, const sz_run_spec *r)
{
    char fb[256];
    return !strcmp(want, r->name) || (r->folder[0] && !strcmp(want, folder_name(r, fb, sizeof fb)));
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
        for (int i = 0; i < c->n_samples; i++) ok |= sample_matches(c->samples[i], r);
        if (!ok) return 0;
    }
    return 1;
}

/* Every --sample and --folder must name something: a typo is an error, not
 * a quiet "0 runs". */
static int check_filters(const cli *c, const run_list *l)
{
    for (int i = 0; i < c->n_samples; i++) {
        int hit = 0;
        for (int j = 0; j < l->n && !hit; j++) hit = sample_matches(c->samples[i], &l->runs[j]);
        if (!hit)
            return bad("--sample: no run and no sample folder is named '%s'%s (bin/sanitize --list "
                       "shows them)", c->samples[i], "");
    }
    for (int i = 0; i < c->n_folders; i++) {
        int hit = 0;
        for (int j = 0; j < l->n && !hit; j++) hit = under(l->runs[j].folder, c->folders[i]);
        if (!hit)
            return bad("--folder: no sample folder at or under '%s'%s (bin/sanitize --list shows "
                       "them)", c->folders[i], "");
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Suite discovery: sample folders (a Makefile or a sanitize.expect: an
 * 8_Debugging case declares its buggy and fixed runs there) and
 * 9_Verification folders that declare runs. */
static int discover(const cli *c, run_list *l)
{
    const char *pats[3] = {"[0-8]_*/*/Makefile", "[0-8]_*/*/sanitize.expect",
                           "9_Verification/*/sanitize.expect"};
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd) || chdir(c->root)) {
        fprintf(stderr, "sanitize: error: ");
        sz_print_clean(stderr, "--root=%s: %s\n", c->root, strerror(errno));
        return -1;
    }
    /* the folders, each once, in order */
    char **folders = NULL;
    size_t n_folders = 0;
    for (int p = 0; p < 3; p++) {
        glob_t g;
        memset(&g, 0, sizeof g);
        if (glob(pats[p], 0, NULL, &g) == 0) {
            char **nf = realloc(folders, (n_folders + g.gl_pathc) * sizeof *nf);
            if (!nf) {
                globfree(&g);
                break;
            }
            folders = nf;
            for (size_t i = 0; i < g.gl_pathc; i++) {
                char tmp[PATH_MAX];
                snprintf(tmp, sizeof tmp, "%s", g.gl_pathv[i]);
                folders[n_folders++] = strdup(dirname(tmp));
            }
        }
        globfree(&g);
    }
    qsort(folders, n_folders, sizeof *folders, cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n_folders && !rc; i++) {
        if (!folders[i]) {
            rc = -1;
            break;
        }
        if (i && folders[i - 1] && !strcmp(folders[i], folders[i - 1])) continue;
        char tmp[PATH_MAX], path[PATH_MAX + 32];
        snprintf(tmp, sizeof tmp, "%s", folders[i]);
        const char *name = basename(tmp);
        snprintf(path, sizeof path, "%s/sanitize.expect", folders[i]);
        sz_expect_file f;
        char err[600];
        if (sz_expect_load(path, name, folders[i], &f, err, sizeof err)) {
            fprintf(stderr, "sanitize: error: ");
            sz_print_clean(stderr, "%s\n", err);
            rc = -1;
            break;
        }
        if (push_runs(l, &f)) rc = -1;
        sz_expect_free(&f);
    }
    for (size_t i = 0; i < n_folders; i++) free(folders[i]);
    free(folders);
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

/* The compute-sanitizer to run, as an absolute path (so it is that file,
 * whatever the directory a run starts in, and never a PATH search). */
static int find_sanitizer(const cli *c, char *out, size_t len)
{
    const char *env = getenv("COMPUTE_SANITIZER");
    char cand[PATH_MAX];
    int found = 0;
    if (c->sanitizer || (env && *env)) {
        snprintf(cand, sizeof cand, "%s", c->sanitizer ? c->sanitizer : env);
        found = executable(cand);
    } else {
        const char *path = getenv("PATH");
        if (path) {
            char *buf = strdup(path);
            for (char *d = buf ? strtok(buf, ":") : NULL; d && !found; d = strtok(NULL, ":")) {
                if (*d != '/') continue; /* a relative PATH entry is not trusted */
                snprintf(cand, sizeof cand, "%s/compute-sanitizer", d);
                found = executable(cand);
            }
            free(buf);
        }
        const char *home = getenv("CUDA_HOME");
        const char *dirs[2] = {home, "/usr/local/cuda"};
        for (int i = 0; i < 2 && !found; i++) {
            if (!dirs[i] || !*dirs[i]) continue;
            snprintf(cand, sizeof cand, "%s/bin/compute-sanitizer", dirs[i]);
            found = executable(cand);
            if (found) break;
            snprintf(cand, sizeof cand, "%s/compute-sanitizer/compute-sanitizer", dirs[i]);
            found = executable(cand);
        }
        if (!found) snprintf(cand, sizeof cand, "compute-sanitizer");
    }
    if (!found || !realpath(cand, out)) {
        snprintf(out, len, "%s", cand);
        return -1;
    }
    return 0;
}

/* The first line of a command's output holding `want` (any line if NULL),
 * only when it exited 0. */
static void command_line_of(char *const argv[], const char *cwd, const char *want, char *out,
                            size_t len)
{
    char buf[4096];
    out[0] = '\0';
    if (sz_capture(argv, cwd, 30, buf, sizeof buf) != 0) return;
    for (char *line = strtok(buf, "\r\n"); line; line = strtok(NULL, "\r\n")) {
        if (!want || strstr(line, want)) {
            sz_clean_text(out, len, line);
            return;
        }
    }
}

static void safe_name(const char *in, char *out, size_t len)
{
    size_t j = 0;
    for (const char *p = in; *p && j + 1 < len; p++)
        out[j++] = (isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.') ? *p : '_';
    out[j] = '\0';
    if (!strcmp(out, ".") || !strcmp(out, "..") || !j) snprintf(out, len, "run");
}

/* Build the compute-sanitizer command line for one job. */
static int build_argv(const char *sanitizer, int tool, const char *xml, const sz_run_spec *r,
                      const char *root_abs, int worker, char **argv, int max, char *err,
                      size_t errlen)
{
    int n = 0;
    char code[16], port[16], ports[16], launch[16];
    snprintf(code, sizeof code, "%d", SZ_ERROR_EXITCODE);
    snprintf(launch, sizeof launch, "%d", SANITIZER_LAUNCH_TIMEOUT_S);
    snprintf(port, sizeof port, "%d", SANITIZER_PORT_BASE + worker * SANITIZER_PORTS);
    snprintf(ports, sizeof ports, "%d", SANITIZER_PORTS);
    const char *fixed[] = {sanitizer, "--tool", sz_tool_name(tool), "--error-exitcode", code,
                           "--print-limit", "0", "--xml", "--save", xml,
                           "--port", port, "--max-connections", ports,
                           "--launch-timeout", launch};
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
    for (int i = 0; i < n; i++) {
        if (!argv[i]) {
            snprintf(err, errlen, "out of memory");
            sz_free_args(argv, n);
            return -1;
        }
    }
    int k = sz_split_args(r->args, argv + n, max - n, err, errlen);
    if (k < 0) {
        sz_free_args(argv, n);
        return -1;
    }
    return n + k;
}

/* ---- the output folder ------------------------------------------------ */

/* 1 if name has the shape of a file the harness writes in raw/:
 * <run>.<tool>.xml or <run>.<tool>.log. */
static int raw_file_name(const char *name)
{
    for (int t = 0; t < SZ_N_TOOLS; t++) {
        for (int x = 0; x < 2; x++) {
            char tail[32];
            snprintf(tail, sizeof tail, ".%s.%s", sz_tool_name(t), x ? "log" : "xml");
            size_t n = strlen(name), k = strlen(tail);
            if (n > k && !strcmp(name + n - k, tail)) return 1;
        }
    }
    return 0;
}

/* raw/ afresh: what a previous run left (its .xml and .log files, or a
 * symlink where raw/ was) is removed; anything else in raw/ is refused,
 * left alone. The new folder is ours, so nothing in it was planted, and
 * every file the harness writes there is created with O_EXCL|O_NOFOLLOW. */
static int fresh_raw(int outfd, const char *out_dir, char *err, size_t errlen)
{
    struct stat st;
    if (fstatat(outfd, "raw", &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(st.st_mode)) {
            if (unlinkat(outfd, "raw", 0)) goto fail;
        } else if (S_ISDIR(st.st_mode)) {
            int fd = openat(outfd, "raw", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) goto fail;
            DIR *d = fdopendir(fd);
            if (!d) {
                close(fd);
                goto fail;
            }
            struct dirent *e;
            int foreign = 0;
            char which[256] = "";
            while ((e = readdir(d))) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
                struct stat es;
                int ours = raw_file_name(e->d_name) &&
                           fstatat(fd, e->d_name, &es, AT_SYMLINK_NOFOLLOW) == 0 &&
                           (S_ISREG(es.st_mode) || S_ISLNK(es.st_mode));
                if (!ours) {
                    foreign = 1;
                    sz_clean_text(which, sizeof which, e->d_name);
                }
            }
            if (foreign) {
                closedir(d);
                snprintf(err, errlen, "%s/raw holds '%s', which the harness did not write: "
                         "move it away or choose another --out", out_dir, which);
                return -1;
            }
            rewinddir(d);
            while ((e = readdir(d))) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
                if (unlinkat(fd, e->d_name, 0) && errno != ENOENT) {
                    closedir(d);
                    goto fail;
                }
            }
            closedir(d);
            if (unlinkat(outfd, "raw", AT_REMOVEDIR)) goto fail;
        } else {
            snprintf(err, errlen, "%s/raw is not a folder: move it away", out_dir);
            return -1;
        }
    }
    if (mkdirat(outfd, "raw", 0755)) goto fail; /* EEXIST: someone raced us */
    int rawfd = openat(outfd, "raw", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (rawfd < 0) goto fail;
    return rawfd;
fail:
    snprintf(err, errlen, "%s/raw: %s", out_dir, strerror(errno));
    return -1;
}

/* A report file, written beside its name and renamed over it: a symlink
 * planted under that name is replaced, never followed. */
static FILE *open_report(int outfd, const char *name, char *tmp, size_t len)
{
    snprintf(tmp, len, ".%s.%ld.tmp", name, (long)getpid());
    unlinkat(outfd, tmp, 0);
    int fd = openat(outfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlinkat(outfd, tmp, 0);
    }
    return f;
}

/* ---- main ------------------------------------------------------------ */

typedef struct {
    int job;       /* index into results, -1 when the slot is free */
    sz_proc proc;
    int log_fd;
    char **argv;
    int argc;
    char cvd[MAX_WORKERS * 65 + 1]; /* its CUDA_VISIBLE_DEVICES, for a second attempt */
    double t0;     /* when its first attempt started */
    int attempts;  /* 1, or 2 after compute-sanitizer could not attach */
    const char *first_failure;  /* the attach failure of the first attempt */
    char retry_error[200];      /* why the second attempt could not start */
    size_t log_kept;            /* log bytes of the first attempt */
    unsigned long long log_dropped; /* and dropped past --max-log */
} slot;

/* Start (again) the job in slot s: its compute-sanitizer, watched for the
 * size of its report and for an attach failure. 0, or -1 (errno). */
static int start_attempt(slot *s, const sz_result *r, const char *root_abs, size_t max_log,
                         int timeout_s, size_t max_report)
{
    if (sz_proc_start(&s->proc, s->argv, root_abs, s->log_fd, max_log, "CUDA_VISIBLE_DEVICES",
                      s->cvd, timeout_s))
        return -1;
    sz_proc_watch(&s->proc, r->xml_path, (long long)max_report);
    sz_proc_stop_on(&s->proc, attach_failures);
    s->attempts++;
    return 0;
}

/* The first attempt of the job in slot s ended because compute-sanitizer
 * could not attach to its program (every process of it is gone: see
 * sz_proc_poll). Say so in the log, drop whatever report it left, and run
 * the same command again on the same worker. 0 if it started. */
static int retry_job(slot *s, const sz_result *r, const char *root_abs, size_t max_log,
                     int timeout_s, size_t max_report, int quiet)
{
    double took = sz_now() - s->proc.start;
    sz_proc_close(&s->proc);
    sz_proc first = s->proc; /* what finish_job reads if no second attempt starts */
    if (s->log_fd >= 0)
        dprintf(s->log_fd, "\n[sanitize: compute-sanitizer could not attach to the program "
                "(\"%s\"); this attempt ended after %.1f s, with every process it started; running it "
                "again]\n",
                first.stop_hit, took);
    /* a report of the failed attempt must not pass for the second one's */
    if (unlink(r->xml_path) && errno != ENOENT) {
        snprintf(s->retry_error, sizeof s->retry_error, "cannot remove %s: %s", r->xml_path,
                 strerror(errno));
        return -1;
    }
    if (!quiet)
        sz_print_clean(stdout, "# retry     %-24s %-10s compute-sanitizer could not attach "
                       "(\"%s\") after %.1f s: running it again\n", r->label,
                       sz_tool_name(r->tool), first.stop_hit, took);
    /* the log's cap holds for both attempts together */
    size_t left = max_log > first.log_bytes ? max_log - first.log_bytes : 0;
    if (start_attempt(s, r, root_abs, left, timeout_s, max_report)) {
        snprintf(s->retry_error, sizeof s->retry_error, "%s", strerror(errno));
        s->proc = first;
        return -1;
    }
    s->first_failure = first.stop_hit;
    s->log_kept = first.log_bytes;
    s->log_dropped = first.log_dropped;
    return 0;
}

/* Job j is done: its log closed (with a note when it was cut), its report
 * read and judged, its progress line printed. */
static void finish_job(sz_result *r, slot *s, int code, int to, int timeout_s, size_t max_report)
{
    r->seconds = sz_now() - s->t0;
    r->attempts = s->attempts;
    sz_proc_close(&s->proc);
    unsigned long long dropped = s->log_dropped + s->proc.log_dropped;
    if (dropped && s->log_fd >= 0)
        dprintf(s->log_fd, "\n[sanitize: log cut at %zu bytes; %llu more bytes dropped]\n",
                s->log_kept + s->proc.log_max, dropped);
    if (s->log_fd >= 0) close(s->log_fd);
    s->log_fd = -1;
    r->max_report = max_report;
    r->deadline = s->proc.start + timeout_s;
    if (s->proc.stop_hit) {
        /* compute-sanitizer never watched the program: there is nothing to
         * judge, whatever the attempt left behind */
        r->verdict = SZ_ERROR;
        r->exit_code = code;
        if (s->attempts == 2 && s->first_failure == s->proc.stop_hit)
            sz_note(r, "compute-sanitizer could not attach to the program twice: \"%s\" (see %s)",
                    s->proc.stop_hit, r->log_path);
        else if (s->attempts == 2)
            sz_note(r, "compute-sanitizer could not attach to the program twice: \"%s\", then "
                    "\"%s\" (see %s)", s->first_failure, s->proc.stop_hit, r->log_path);
        else /* the second attempt could not start */
            sz_note(r, "compute-sanitizer could not attach to the program (\"%s\"), and it "
                    "could not be run again: %s", s->proc.stop_hit, s->retry_error);
    } else {
        if (s->attempts == 2)
            sz_note(r, "retried once: compute-sanitizer could not attach to the program at "
                    "first (\"%s\")", s->first_failure);
        if (s->proc.watch_over) {
            r->verdict = SZ_ERROR;
            r->exit_code = -1;
            sz_note(r, "the report passed %zu bytes (--max-report): the run was stopped",
                    max_report);
        } else {
            sz_evaluate(r, code, to, timeout_s);
        }
    }
    if (dropped)
        sz_note(r, "log cut at %zu bytes (--max-log), %llu more dropped",
                s->log_kept + s->proc.log_max, dropped);
}

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
        if (sz_report_read_file_limited(c.parse, c.max_report, 0, &f, err, sizeof err)) {
            fprintf(stderr, "sanitize: error: ");
            sz_print_clean(stderr, "%s\n", err);
            return 1;
        }
        sz_print_clean(stdout, "%s: %d record(s), %d detection(s)\n", c.parse, f.n_records, f.n);
        for (int j = 0; j < f.n; j++) {
            const sz_detection *d = &f.d[j];
            char w[300];
            sz_detection_where(d, w, sizeof w);
            sz_print_clean(stdout, "  %-20s %-24s kernel=%s x%d raw_kind=%s", d->kind, w,
                           d->kernel[0] ? d->kernel : "?", d->count, d->raw_kind);
            if (d->has_block) printf(" block=(%d,%d,%d)", d->block[0], d->block[1], d->block[2]);
            if (d->has_thread) printf(" thread=(%d,%d,%d)", d->thread[0], d->thread[1], d->thread[2]);
            printf("\n");
            for (int i = 0; i < d->n_locs; i++)
                sz_print_clean(stdout, "      %s %s:%d %s\n", d->locs[i].host ? "host  " : "device",
                               d->locs[i].file, d->locs[i].line, d->locs[i].func);
            if (d->text[0]) sz_print_clean(stdout, "      \"%s\"\n", d->text);
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
        int rc = 0;
        if (c.expect) {
            struct stat st;
            if (stat(c.expect, &st)) {
                snprintf(err, sizeof err, "--expect=%s: no such file", c.expect);
                rc = -1;
            } else {
                rc = sz_expect_load(c.expect, name, "", &f, err, sizeof err);
            }
        } else {
            rc = sz_expect_default(name, "", &f);
        }
        if (rc) {
            fprintf(stderr, "sanitize: error: ");
            sz_print_clean(stderr, "%s\n", err);
            printf("sanitize: FAIL (bad expectations)\n");
            return 1;
        }
        if (c.binary) {
            f.n = 1; /* the first run block's expectations, for this binary */
            char abs[PATH_MAX];
            if (!realpath(c.binary, abs) || strlen(abs) >= sizeof f.runs[0].binary) {
                fprintf(stderr, "sanitize: error: ");
                sz_print_clean(stderr, "--binary=%s: %s\n", c.binary,
                               errno ? strerror(errno) : "path too long");
                sz_expect_free(&f);
                printf("sanitize: FAIL (bad argument)\n");
                return 1;
            }
            snprintf(f.runs[0].binary, sizeof f.runs[0].binary, "%s", abs);
            snprintf(f.runs[0].name, sizeof f.runs[0].name, "%s", name);
            if (c.args) snprintf(f.runs[0].args, sizeof f.runs[0].args, "%s", c.args);
            else if (!c.expect) f.runs[0].args[0] = '\0';
        }
        if (push_runs(&runs, &f)) {
            fprintf(stderr, "sanitize: error: out of memory\n");
            return 1;
        }
        sz_expect_free(&f);
    } else if (discover(&c, &runs)) {
        printf("sanitize: FAIL (bad expectations)\n");
        return 1;
    }
    if (check_filters(&c, &runs)) {
        printf("sanitize: FAIL (bad argument)\n");
        return 1;
    }

    /* Labels: a run's name, made unique ("name#2"), and a raw file base
     * made of safe characters, unique too: two runs never share a file. */
    char (*labels)[144] = calloc((size_t)runs.n + 1, sizeof *labels);
    char (*bases)[160] = calloc((size_t)runs.n + 1, sizeof *bases);
    if (!labels || !bases) {
        fprintf(stderr, "sanitize: error: out of memory\n");
        return 1;
    }
    for (int i = 0; i < runs.n; i++) {
        for (int k = 1;; k++) {
            if (k == 1) snprintf(labels[i], sizeof labels[i], "%s", runs.runs[i].name);
            else snprintf(labels[i], sizeof labels[i], "%s#%d", runs.runs[i].name, k);
            int used = 0;
            for (int j = 0; j < i && !used; j++) used = !strcmp(labels[j], labels[i]);
            if (!used) break;
        }
        char safe[144];
        safe_name(labels[i], safe, sizeof safe);
        for (int k = 1;; k++) {
            if (k == 1) snprintf(bases[i], sizeof bases[i], "%s", safe);
            else snprintf(bases[i], sizeof bases[i], "%s-%d", safe, k);
            int used = 0;
            for (int j = 0; j < i && !used; j++) used = !strcmp(bases[j], bases[i]);
            if (!used) break;
        }
    }

    /* Jobs: one per (run, tool). */
    int n_jobs = 0;
    sz_result *res = calloc((size_t)(runs.n * SZ_N_TOOLS + 1), sizeof *res);
    int *job_timeout = calloc((size_t)(runs.n * SZ_N_TOOLS + 1), sizeof(int));
    int *job_run = calloc((size_t)(runs.n * SZ_N_TOOLS + 1), sizeof *job_run);
    int *job_gpus = calloc((size_t)(runs.n * SZ_N_TOOLS + 1), sizeof(int));
    if (!res || !job_timeout || !job_run || !job_gpus) {
        fprintf(stderr, "sanitize: error: out of memory\n");
        return 1;
    }
    for (int i = 0; i < runs.n; i++) {
        if (!wanted(&c, &runs.runs[i])) continue;
        for (int t = 0; t < SZ_N_TOOLS; t++) {
            if (!c.tools[t] || !runs.runs[i].tool[t].enabled) continue;
            sz_result *r = &res[n_jobs];
            snprintf(r->name, sizeof r->name, "%s", runs.runs[i].name);
            snprintf(r->label, sizeof r->label, "%s", labels[i]);
            snprintf(r->binary, sizeof r->binary, "%s", runs.runs[i].binary);
            snprintf(r->args, sizeof r->args, "%s", runs.runs[i].args);
            r->tool = t;
            r->expect = runs.runs[i].tool[t];
            job_timeout[n_jobs] = runs.runs[i].timeout_s ? runs.runs[i].timeout_s : c.timeout_s;
            job_run[n_jobs] = i;
            job_gpus[n_jobs] = runs.runs[i].gpus > 1 ? runs.runs[i].gpus : 1;
            r->gpus = job_gpus[n_jobs];
            n_jobs++;
        }
    }
    if (c.list) {
        for (int j = 0; j < n_jobs; j++) {
            const sz_result *r = &res[j];
            sz_print_clean(stdout, "%-28s %-10s %s %s  expect: ", r->label, sz_tool_name(r->tool),
                           r->binary, r->args);
            if (job_gpus[j] > 1) printf("(%d GPUs) ", job_gpus[j]);
            if (!r->expect.detect) printf("clean");
            for (int k = 0; k < r->expect.n; k++)
                sz_print_clean(stdout, "%s%s at %s:%d", k ? ", " : "", r->expect.e[k].kind,
                               r->expect.e[k].file[0] ? r->expect.e[k].file : "*",
                               r->expect.e[k].line);
            printf("\n");
        }
        if (n_jobs) printf("sanitize: %d runs\n", n_jobs);
    }
    if (n_jobs == 0) {
        fprintf(stderr, "sanitize: error: nothing to run: no run has the tools asked for "
                "(check --sample/--folder/--tool against --list)\n");
        printf("sanitize: FAIL (nothing to run)\n");
    }
    if (c.list || n_jobs == 0) {
        free(res);
        free(job_timeout);
        free(job_run);
        free(job_gpus);
        free(runs.runs);
        return n_jobs ? 0 : 1;
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
    char containment[300];
    if (sz_contain_init(c.contain, containment, sizeof containment) < 0) {
        fprintf(stderr, "sanitize: error: --contain=pidns: ");
        sz_print_clean(stderr, "%s\n", containment);
        printf("sanitize: FAIL (bad argument)\n");
        return 1;
    }
    char sanitizer[PATH_MAX];
    if (find_sanitizer(&c, sanitizer, sizeof sanitizer)) {
        fprintf(stderr, "sanitize: error: ");
        sz_print_clean(stderr, "compute-sanitizer not found or not executable (%s); give "
                       "--sanitizer=PATH or put it on PATH\n", sanitizer);
        printf("sanitize: FAIL (no compute-sanitizer)\n");
        return 1;
    }
    char version[256];
    char *vargv[] = {sanitizer, "--version", NULL};
    command_line_of(vargv, NULL, "Version", version, sizeof version);

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
        fprintf(stderr, "sanitize: error: ");
        sz_print_clean(stderr, "--root=%s: %s\n", c.root, strerror(errno));
        return 1;
    }
    char out_dir[PATH_MAX];
    if (c.out) snprintf(out_dir, sizeof out_dir, "%s", c.out);
    else snprintf(out_dir, sizeof out_dir, "%s/build/sanitize", root_abs);
    char err[PATH_MAX + 300];
    int outfd = -1, rawfd = -1;
    if (mkdirs(out_dir) ||
        (outfd = open(out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        snprintf(err, sizeof err, "cannot create %s: %s", out_dir, strerror(errno));
    } else if (flock(outfd, LOCK_EX | LOCK_NB)) {
        /* a second harness on the same --out would remove the first's raw/ */
        snprintf(err, sizeof err, "%s: %s", out_dir,
                 errno == EWOULDBLOCK ? "another bin/sanitize is writing its reports here"
                                      : strerror(errno));
    } else {
        rawfd = fresh_raw(outfd, out_dir, err, sizeof err);
    }
    if (rawfd < 0) {
        fprintf(stderr, "sanitize: error: ");
        sz_print_clean(stderr, "%s\n", err);
        printf("sanitize: FAIL (output folder)\n");
        return 1;
    }
    char out_abs[PATH_MAX], raw_abs[PATH_MAX + 8];
    if (!realpath(out_dir, out_abs)) snprintf(out_abs, sizeof out_abs, "%s", out_dir);
    snprintf(raw_abs, sizeof raw_abs, "%s/raw", out_abs);
    if (!c.quiet)
        sz_print_clean(stdout, "# sanitize: %d runs, %d worker(s) on device(s) %s%s, %s, %s, "
                       "reports in %s\n", n_jobs, workers, dev_ids[0], workers > 1 ? ",..." : "",
                       version[0] ? version : sanitizer, containment, out_dir);

    slot slots[MAX_WORKERS];
    for (int w = 0; w < workers; w++) {
        slots[w].job = -1;
        slots[w].log_fd = -1;
    }
    int next = 0, done = 0;
    double t_all = sz_now();
    while (done < n_jobs) {
        for (int w = 0; w < workers && next < n_jobs; w++) {
            if (slots[w].job >= 0) continue;
            int j = next++;
            sz_result *r = &res[j];
            char base[200];
            snprintf(base, sizeof base, "%s.%s", bases[job_run[j]], sz_tool_name(r->tool));
            snprintf(r->xml_path, sizeof r->xml_path, "%s/%s.xml", raw_abs, base);
            snprintf(r->log_path, sizeof r->log_path, "%s/%s.log", raw_abs, base);
            char bin[PATH_MAX + 600];
            if (r->binary[0] == '/') snprintf(bin, sizeof bin, "%s", r->binary);
            else snprintf(bin, sizeof bin, "%s/%s", root_abs, r->binary);
            const char *why = NULL;
            char msg[300] = "";
            /* A multi-GPU run ("gpus: N") gets N devices: its worker's own
             * first, then the next ones in the list (shared with those
             * workers' runs while it lasts: a sanitizer run checks
             * correctness, not speed). Fewer visible: SKIPPED, not run, and
             * not a failure. */
            if (job_gpus[j] > n_ids) {
                r->verdict = SZ_SKIPPED;
                r->exit_code = -1;
                snprintf(r->message, sizeof r->message, "needs %d GPUs; %d visible", job_gpus[j],
                         n_ids);
                r->xml_path[0] = r->log_path[0] = '\0';
                done++;
                w--; /* the slot is still free */
                if (!c.quiet)
                    sz_print_clean(stdout, "# [%d/%d] %-24s %-10s %-10s %6.1f s  %s\n", done, n_jobs,
                                   r->label, sz_tool_name(r->tool), sz_verdict_name(r->verdict),
                                   0.0, r->message);
                continue;
            }
            char *cvd_value = slots[w].cvd;
            cvd_value[0] = '\0';
            for (int k = 0; k < job_gpus[j]; k++) {
                size_t at = strlen(cvd_value);
                snprintf(cvd_value + at, sizeof slots[w].cvd - at, "%s%s", k ? "," : "",
                         dev_ids[(w + k) % n_ids]);
            }
            slots[w].attempts = 0;
            slots[w].first_failure = NULL;
            slots[w].retry_error[0] = '\0';
            slots[w].log_kept = 0;
            slots[w].log_dropped = 0;
            slots[w].t0 = sz_now();
            if (!executable(bin)) {
                why = "not built";
            } else {
                char logname[220];
                snprintf(logname, sizeof logname, "%s.log", base);
                slots[w].log_fd = openat(rawfd, logname,
                                         O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                slots[w].argv = calloc(160, sizeof(char *));
                slots[w].argc = slots[w].argv && slots[w].log_fd >= 0
                                    ? build_argv(sanitizer, r->tool, r->xml_path, &runs.runs[job_run[j]],
                                                 root_abs, w, slots[w].argv, 160, msg, sizeof msg)
                                    : -1;
                if (slots[w].log_fd < 0) snprintf(msg, sizeof msg, "cannot create its log: %s",
                                                  strerror(errno));
                if (slots[w].argc < 0 ||
                    start_attempt(&slots[w], r, root_abs, c.max_log, job_timeout[j],
                                  c.max_report)) {
                    if (!msg[0]) snprintf(msg, sizeof msg, "%s", strerror(errno));
                    why = "cannot start compute-sanitizer";
                    if (slots[w].argc > 0) sz_free_args(slots[w].argv, slots[w].argc);
                    free(slots[w].argv);
                    if (slots[w].log_fd >= 0) close(slots[w].log_fd);
                    slots[w].log_fd = -1;
                }
            }
            if (why) {
                r->verdict = SZ_ERROR;
                r->exit_code = -1;
                if (!strcmp(why, "not built"))
                    snprintf(r->message, sizeof r->message, "%s is not built (run make first)", bin);
                else
                    snprintf(r->message, sizeof r->message, "%s: %s", why, msg);
                r->xml_path[0] = r->log_path[0] = '\0';
                done++;
                w--; /* the slot is still free */
                continue;
            }
            slots[w].job = j;
        }
        /* wait for output or 20 ms, then look at every run */
        struct pollfd pf[MAX_WORKERS];
        int n_pf = 0;
        for (int w = 0; w < workers; w++)
            if (slots[w].job >= 0 && slots[w].proc.out_fd >= 0)
                pf[n_pf++] = (struct pollfd){slots[w].proc.out_fd, POLLIN, 0};
        poll(pf, (nfds_t)n_pf, 20);
        for (int w = 0; w < workers; w++) {
            if (slots[w].job < 0) continue;
            int code, to;
            if (!sz_proc_poll(&slots[w].proc, &code, &to)) continue;
            int j = slots[w].job;
            sz_result *r = &res[j];
            /* compute-sanitizer could not attach: once, run it again */
            if (slots[w].proc.stop_hit && slots[w].attempts == 1 &&
                retry_job(&slots[w], r, root_abs, c.max_log, job_timeout[j], c.max_report,
                          c.quiet) == 0)
                continue;
            finish_job(r, &slots[w], code, to, job_timeout[j], c.max_report);
            sz_free_args(slots[w].argv, slots[w].argc);
            free(slots[w].argv);
            slots[w].job = -1;
            done++;
            if (!c.quiet)
                sz_print_clean(stdout, "# [%d/%d] %-24s %-10s %-10s %6.1f s%s%s\n", done, n_jobs,
                               r->label, sz_tool_name(r->tool), sz_verdict_name(r->verdict),
                               r->seconds, r->message[0] ? "  " : "", r->message);
            fflush(stdout);
        }
    }
    if (!c.quiet) printf("# all runs took %.1f s\n\n", sz_now() - t_all);

    /* Reports. */
    char date[64], git[128];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    /* GIT_COMMIT names the commit where the tree is a copy without .git */
    const char *env_commit = getenv("GIT_COMMIT");
    if (env_commit && *env_commit) {
        sz_clean_text(git, sizeof git, env_commit);
    } else {
        char *gargv[] = {"git", "-C", root_abs, "rev-parse", "--short", "HEAD", NULL};
        command_line_of(gargv, NULL, NULL, git, sizeof git);
    }
    sz_meta meta = {date, git, sanitizer, version, command, containment, workers};
    sz_write_table(stdout, res, n_jobs);
    int ok = 1;
    const char *names[3] = {"summary.txt", "sanitize.json", "sanitize.junit.xml"};
    for (int k = 0; k < 3; k++) {
        char tmp[64];
        FILE *f = open_report(outfd, names[k], tmp, sizeof tmp);
        if (!f) {
            fprintf(stderr, "sanitize: error: ");
            sz_print_clean(stderr, "cannot write %s/%s: %s\n", out_dir, names[k], strerror(errno));
            ok = 0;
            continue;
        }
        if (k == 0) {
            sz_print_clean(f, "# compute-sanitizer over the suite: %s, git %s, %s, %s\n# %s\n",
                           date, git, version, containment, command);
            sz_write_table(f, res, n_jobs);
        }
        int rc = k == 1 ? sz_write_json(f, res, n_jobs, &meta) : k == 2 ? sz_write_junit(f, res, n_jobs) : 0;
        if (fclose(f) || rc || renameat(outfd, tmp, outfd, names[k])) {
            fprintf(stderr, "sanitize: error: ");
            sz_print_clean(stderr, "cannot write %s/%s: %s\n", out_dir, names[k], strerror(errno));
            unlinkat(outfd, tmp, 0);
            ok = 0;
        }
    }
    close(rawfd);
    close(outfd);
    int counts[SZ_N_VERDICTS];
    int failed = sz_count(res, n_jobs, counts);
    for (int j = 0; j < n_jobs; j++) sz_result_free(&res[j]);
    free(res);
    free(job_timeout);
    free(job_run);
    free(job_gpus);
    free(labels);
    free(bases);
    free(runs.runs);
    if (!ok) {
        printf("sanitize: FAIL (could not write the reports)\n");
        return 1;
    }
    printf("sanitize: %s\n", failed ? "FAIL" : "PASS");
    return failed ? 1 : 0;
}
