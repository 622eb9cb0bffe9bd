/* scan_views.c: the static track must read what nvcc compiles.
 *
 * clang parses the candidate with its own macros, its own dialect and its
 * own idea of the host and the device; nvcc compiles it with others. Code
 * that only one of them sees is code the rules judge wrongly: a divergent
 * barrier nvcc compiles under #ifndef __NVCC__'s #else, a uniform one clang
 * reads instead. So, refused as P0 KG-HIDDEN-CODE, with the line:
 *
 *   - from the text alone (pplex.c): a trigraph that changes the tokens
 *     (the gate compiles C++14, which reads ??/ as a splice and ??= as #,
 *     then retries C++17, which does not; clang reads C++17); #line and
 *     gcc's line markers (they rename and renumber the lines the checks
 *     compare); a macro that only one of the compilers defines
 *     (__clang__, __NVCC__, __CUDA_ARCH_LIST__ ...) used in code;
 *     __LINE__ reaching a condition;
 *   - every conditional block (#if, #ifdef, #ifndef, #elif, #else): nvcc's
 *     own preprocessor runs on a copy of the candidate with a marker macro
 *     defined at the start of each block (`#define __kgate_<nonce>_<k>`,
 *     then #line to keep the numbering), with the gate's compile flags
 *     (-O3, -fPIC, the architectures), for the host pass and for each
 *     device pass (__CUDA_ARCH__), in both dialects the gate compiles
 *     (C++14 and C++17); -dD lists the markers each pass defined. A block
 *     nvcc compiles that clang skipped, or that clang read and nvcc did
 *     not, is refused: a block of only #defines too;
 *   - device-side code: when nvcc's device pass reads the candidate
 *     differently from its host pass (#ifdef __CUDA_ARCH__, NV_IF_TARGET),
 *     clang parses it again for the device (--cuda-device-only, per
 *     architecture), the markers are compared with that parse and the rules
 *     run on it too.
 * nvcc runs only for candidates with conditional blocks or target macros
 * (about 0.1 s per pass); its runs share a time budget: running out of it is
 * the scan's failure (timed_out), not the candidate's. Without nvcc (the
 * scan's library used elsewhere), a skipped block whose condition names a
 * compiler is refused, as before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pplex.h"
#include "scan_internal.h"

#define NVCC_BUDGET_S 20.0   /* every nvcc run of one scan together (KGATE_NVCC_BUDGET) */
#define MAX_ARCHS 4
#define MAX_BLOCKS 4096      /* conditional blocks compared (a candidate has a few) */
#define MAX_RUNS (2 * (1 + MAX_ARCHS))

/* ---- what the text says alone ---------------------------------------------- */

/* Macros one compiler defines and the other does not (a prefix ends in *):
 * code that names one reads differently in the two views. Conditions on
 * them are judged by the block comparison below instead. */
static const char *const one_sided[] = {
    "__clang*", "__llvm*", "__CLANG*", "__CUDA__", "__NVPTX__", "__PTX__", "__has_feature", "__has_extension",
    "__is_identifier", "__building_module", "__CUDA_AND_AT_LEAST*", "__CUDA_LIBDEVICE__",
    "__NVCC__", "__NVCC_DIAG_PRAGMA_SUPPORT__", "__CUDACC_VER__", "__CUDACC_VER_BUILD__", "__CUDACC_RDC__", "__CUDACC_EWP__",
    "__CUDACC_DEBUG__", "__CUDACC_EXTENDED_LAMBDA__", "__CUDACC_RELAXED_CONSTEXPR__",
    "__CUDACC_DEVICE_ATOMIC_BUILTINS__", "__CUDACC_RTC__", "__CUDA_ARCH_LIST__",
    "CUDA_DOUBLE_MATH_FUNCTIONS", "__NVCOMPILER*", "__OPTIMIZE__", "__GNUC__", "__GNUC_MINOR__",
    "__GNUC_PATCHLEVEL__", "__VERSION__", NULL};

static int is_one_sided(const char *id, size_t len)
{
    for (int i = 0; one_sided[i]; i++) {
        size_t l = strlen(one_sided[i]);
        if (one_sided[i][l - 1] == '*' ? len >= l - 1 && !strncmp(id, one_sided[i], l - 1)
                                       : len == l && !strncmp(id, one_sided[i], l))
            return 1;
    }
    return 0;
}

static int is_conditional(const char *name)
{
    return !strcmp(name, "if") || !strcmp(name, "ifdef") || !strcmp(name, "ifndef") || !strcmp(name, "elif") ||
           !strcmp(name, "elifdef") || !strcmp(name, "elifndef") || !strcmp(name, "else");
}

/* Calls fn for every identifier token of the reading (with the directive it
 * sits in, or NULL in code). Stops when fn returns nonzero. */
static int each_identifier(const pp_text *t, int (*fn)(const char *id, size_t len, const char *dir, int line, void *d),
                           void *d)
{
    const char *p = t->sig, *end = t->sig + t->sig_len;
    char dir[32] = "";
    int in_dir = 0;
    for (int k = 0; p < end; k++) {
        const char *e = memchr(p, '\x01', (size_t)(end - p));
        if (!e) break;
        size_t len = (size_t)(e - p);
        if (len >= 1 && p[0] == '#' && len < sizeof dir + 1 && (len == 1 || p[1] != '#')) {
            in_dir = 1;
            snprintf(dir, sizeof dir, "%.*s", (int)len - 1, p + 1);
        } else if (len == 1 && p[0] == '\n') {
            in_dir = 0;
        } else if (len > 0 && (p[0] == '_' || (p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))) {
            int r = fn(p, len, in_dir ? dir : NULL, t->sig_line[k], d);
            if (r) return r;
        }
        p = e + 1;
    }
    return 0;
}

typedef struct { int line; char name[64]; } first_hit;

static int find_one_sided(const char *id, size_t len, const char *dir, int line, void *d)
{
    first_hit *h = d;
    if (dir && is_conditional(dir)) return 0;   /* the block comparison judges conditions */
    if (!is_one_sided(id, len)) return 0;
    h->line = line;
    snprintf(h->name, sizeof h->name, "%.*s", (int)(len < 63 ? len : 63), id);
    return 1;
}

/* __LINE__ in a condition, directly or through macros: the copy nvcc
 * preprocesses has extra lines in skipped blocks, where #line is not read. */
typedef struct { const pp_text *t; char **names; int n; int hit_line; } line_reach;

static int collect_condition_names(const char *id, size_t len, const char *dir, int line, void *d)
{
    line_reach *r = d;
    (void)line;
    if (!dir || !is_conditional(dir) || r->n >= 4096) return 0;
    char *s = strndup(id, len);
    if (s) r->names[r->n++] = s;
    return 0;
}

static int has_name(const line_reach *r, const char *id, size_t len)
{
    for (int i = 0; i < r->n; i++)
        if (strlen(r->names[i]) == len && !strncmp(r->names[i], id, len)) return 1;
    return 0;
}

/* The names in #define bodies of macros a condition names join the set. */
static int line_reaches_condition(const pp_text *t)
{
    line_reach r = {t, calloc(4096, sizeof(char *)), 0, 0};
    if (!r.names) return 0;
    each_identifier(t, collect_condition_names, &r);
    for (int round = 0, grew = 1; grew && round < 16; round++) {
        grew = 0;
        for (int i = 0; i < t->n_dir; i++) {
            const pp_directive *d = &t->dir[i];
            if (strcmp(d->name, "define")) continue;
            /* the directive's text: NAME[(params)] body */
            const char *p = d->text;
            size_t nl = strcspn(p, " (");
            if (!nl || !has_name(&r, p, nl)) continue;
            for (const char *q = p + nl; *q && r.n < 4096;) {
                if (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) {
                    size_t l = 1;
                    while (q[l] == '_' || (q[l] >= 'a' && q[l] <= 'z') || (q[l] >= 'A' && q[l] <= 'Z') ||
                           (q[l] >= '0' && q[l] <= '9'))
                        l++;
                    if (!has_name(&r, q, l)) {
                        char *s = strndup(q, l);
                        if (s) { r.names[r.n++] = s; grew = 1; }
                    }
                    q += l;
                } else {
                    q++;
                }
            }
        }
    }
    int hit = has_name(&r, "__LINE__", 8);
    for (int i = 0; i < r.n; i++) free(r.names[i]);
    free(r.names);
    return hit;
}

/* Returns 1 when a finding refused the candidate. */
static int text_checks(const pp_text *a, const pp_text *b, kg_static_result *out)
{
    int l = pp_first_difference(a, b);
    if (l) {
        add_finding(out, "KG-HIDDEN-CODE", -1, l,
                    "line %d reads differently with trigraphs (the gate's C++14 compile: ?\?/ splices a "
                    "line, ?\?= is #) and without (C++17, the static track): remove the trigraph", l);
        return 1;
    }
    for (int i = 0; i < a->n_dir; i++)
        if (a->dir[i].line_marker || !strcmp(a->dir[i].name, "line")) {
            add_finding(out, "KG-HIDDEN-CODE", -1, a->dir[i].line,
                        "#line renames or renumbers the candidate's lines: the gate does not trust it "
                        "to say where code is; remove it");
            return 1;
        }
    first_hit h = {0, ""};
    if (each_identifier(a, find_one_sided, &h)) {
        add_finding(out, "KG-HIDDEN-CODE", -1, h.line,
                    "%s is a macro that only one of nvcc and the static track's clang defines (or "
                    "defines alike): the code that uses it reads differently in the two; remove it", h.name);
        return 1;
    }
    if (line_reaches_condition(a)) {
        add_finding(out, "KG-HIDDEN-CODE", -1, 0,
                    "a preprocessor condition depends on __LINE__: the gate cannot check which "
                    "blocks nvcc compiles; remove it");
        return 1;
    }
    return 0;
}

/* ---- nvcc's views ---------------------------------------------------------- */

typedef struct {
    int host;              /* 1: the host pass; 0: the device pass for arch */
    int arch;              /* 90, 100, ... */
    int cpp17;             /* the dialect */
    pid_t pid;
    char out[600];         /* its preprocessed output */
    int ok;                /* it ran and exited 0 */
    unsigned char *active; /* marker k defined in this pass */
    char *text;            /* the candidate's lines of the output, blanks squeezed */
} nvcc_run;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Start `nvcc -E` on the probe for one pass: the gate's compile flags
 * (dynamic.c, kg_compile_argv: -O3, -fPIC, the dialect, the architecture),
 * -dD to keep the #defines. */
/* The runs in flight, for kg_static_abort (a signal handler). */
static volatile pid_t live[2 * MAX_RUNS];

static void note_live(pid_t pid, int on)
{
    for (int i = 0; i < 2 * MAX_RUNS; i++)
        if (on ? live[i] == 0 : live[i] == pid) { live[i] = on ? pid : 0; return; }
}

void kg_static_abort(void)
{
    for (int i = 0; i < 2 * MAX_RUNS; i++)
        if (live[i] > 0) { kill(-live[i], SIGKILL); kill(live[i], SIGKILL); }
}

static int start_nvcc(const char *nvcc, const char *probe, nvcc_run *r, int is_torch)
{
    r->pid = fork();
    if (r->pid < 0) return -1;
    if (r->pid > 0) { note_live(r->pid, 1); return 0; }
    setpgid(0, 0);
    int nul = open("/dev/null", O_RDWR);
    if (nul >= 0) { dup2(nul, 0); dup2(nul, 1); dup2(nul, 2); }
    const char *argv[48];
    int a = 0;
    char archflag[32];
    snprintf(archflag, sizeof archflag, "-arch=sm_%d", r->arch);
    argv[a++] = nvcc; argv[a++] = "-E"; argv[a++] = "-x"; argv[a++] = "cu";
    argv[a++] = r->cpp17 ? "-std=c++17" : "-std=c++14";
    argv[a++] = "-O3"; argv[a++] = "-Xcompiler"; argv[a++] = "-fPIC";
    argv[a++] = archflag;
    if (r->host) { argv[a++] = "-U__CUDA_ARCH__"; argv[a++] = "-UCUDA_DOUBLE_MATH_FUNCTIONS"; }
    if (is_torch) {
        /* what PyTorch's load_inline adds (kgate_torch_build.py, cpp_extension) */
        static const char *const torch_flags[] = {
            "-DTORCH_EXTENSION_NAME=kgate_cand", "-DTORCH_API_INCLUDE_EXTENSION_H", "-D__CUDA_NO_HALF_OPERATORS__",
            "-D__CUDA_NO_HALF_CONVERSIONS__", "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__",
            "--expt-relaxed-constexpr", NULL};
        for (int i = 0; torch_flags[i]; i++) argv[a++] = torch_flags[i];
    }
    argv[a++] = "-Xcompiler"; argv[a++] = "-dD";
    char store[4][1100];
    const char *inc[8];
    int ni = extra_includes(inc, 8, store);
    for (int i = 0; i < ni; i++) argv[a++] = inc[i];
    argv[a++] = probe; argv[a++] = "-o"; argv[a++] = r->out; argv[a] = NULL;
    execvp(nvcc, (char *const *)argv);
    _exit(127);
}

/* Wait for every run until the deadline; those still running are killed.
 * Returns 1 when one ran out of time, -1 when nvcc could not be started. */
static int wait_runs(nvcc_run *runs, int n, double deadline)
{
    int left = 0, timed_out = 0, missing = 0;
    for (int i = 0; i < n; i++) left += runs[i].pid > 0;
    while (left > 0) {
        for (int i = 0; i < n; i++) {
            int st = 0;
            if (runs[i].pid <= 0) continue;
            pid_t p = waitpid(runs[i].pid, &st, WNOHANG);
            if (p == 0 || (p < 0 && errno == EINTR)) continue;
            note_live(runs[i].pid, 0);
            runs[i].pid = 0;
            runs[i].ok = p > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
            missing |= p > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 127;
            left--;
        }
        if (left == 0) break;
        if (now_s() > deadline) { timed_out = 1; break; }
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < n; i++)
        if (runs[i].pid > 0) {
            kill(-runs[i].pid, SIGKILL);
            kill(runs[i].pid, SIGKILL);
            while (waitpid(runs[i].pid, NULL, 0) < 0 && errno == EINTR) {}
            note_live(runs[i].pid, 0);
            runs[i].pid = 0;
        }
    return timed_out ? 1 : missing ? -1 : 0;
}

/* Read one run's output: which markers it defined, and the candidate's
 * lines (those under a line marker naming the probe), blanks squeezed. */
static int read_run(nvcc_run *r, const char *probe, const char *marker, int n_markers)
{
    FILE *f = fopen(r->out, "r");
    if (!f) return -1;
    r->active = calloc((size_t)n_markers + 1, 1);
    size_t cap = 4096, used = 0;
    r->text = malloc(cap);
    if (!r->active || !r->text) { fclose(f); return -1; }
    char *line = NULL;
    size_t lcap = 0, plen = strlen(probe), mlen = strlen(marker);
    int in_main = 0;
    while (getline(&line, &lcap, f) > 0) {
        if (line[0] == '#' && line[1] == ' ' && line[2] >= '0' && line[2] <= '9') {
            char *q = strchr(line, '"');
            in_main = q && !strncmp(q + 1, probe, plen) && q[1 + plen] == '"';
            continue;
        }
        if (!strncmp(line, "#define ", 8) && !strncmp(line + 8, marker, mlen)) {
            int k = atoi(line + 8 + mlen);
            if (k >= 0 && k < n_markers) r->active[k] = 1;
            continue;
        }
        if (!in_main) continue;
        for (char *c = line; *c; c++) {
            int blank = *c == ' ' || *c == '\t' || *c == '\n' || *c == '\r';
            if (blank && (used == 0 || r->text[used - 1] == ' ')) continue;
            if (used + 2 > cap) {
                char *nt = realloc(r->text, cap *= 2);
                if (!nt) { free(line); fclose(f); return -1; }
                r->text = nt;
            }
            r->text[used++] = blank ? ' ' : *c;
        }
    }
    r->text[used] = 0;
    free(line);
    fclose(f);
    return 0;
}

/* The probe: the gate's repairs (kg_static_fixed_source), then the
 * candidate with a marker after each conditional directive. */
static char *make_probe(const char *source, const kg_static_result *out, const pp_text *a, const char *marker,
                        int *dir_of_marker, int *n_markers)
{
    char *fixed = kg_static_fixed_source(source, out);
    if (!fixed) return NULL;
    size_t src_len = strlen(source), pre = strlen(fixed) - src_len;
    size_t cap = strlen(fixed) + 1 + (size_t)a->n_dir * 128, o = 0;
    char *p = malloc(cap);
    if (!p) { free(fixed); return NULL; }
    memcpy(p, fixed, pre);
    o = pre;
    size_t from = 0;
    int k = 0;
    for (int i = 0; i < a->n_dir; i++) {
        const pp_directive *d = &a->dir[i];
        if (!is_conditional(d->name)) continue;
        memcpy(p + o, source + from, d->end - from);
        o += d->end - from;
        from = d->end;
        if (o == 0 || p[o - 1] != '\n') p[o++] = '\n';
        o += (size_t)sprintf(p + o, "#define %s%d 1\n#line %d\n", marker, k, d->last_line + 1);
        dir_of_marker[k++] = i;
    }
    memcpy(p + o, source + from, src_len - from + 1);
    free(fixed);
    *n_markers = k;
    return p;
}

/* The passes nvcc refused, again on the candidate without markers: 1 when
 * one of them passes now, 0 when none does, -1 when time ran out. */
static int unmarked_passes(const char *nvcc, const char *source, const kg_static_result *out, const nvcc_run *runs,
                           int n_runs, double budget)
{
    char *fixed = kg_static_fixed_source(source, out);
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/kgate_plain_XXXXXX.cu", tmp && *tmp ? tmp : "/tmp");
    int fd = fixed ? mkstemps(path, 3) : -1;
    if (fd < 0) { free(fixed); return 0; }
    size_t len = strlen(fixed);
    ssize_t w = write(fd, fixed, len);
    close(fd);
    free(fixed);
    nvcc_run again[MAX_RUNS];
    int n = 0;
    memset(again, 0, sizeof again);
    for (int i = 0; i < n_runs && w == (ssize_t)len; i++) {
        if (runs[i].ok) continue;
        again[n] = runs[i];
        again[n].active = NULL;
        again[n].text = NULL;
        again[n].ok = 0;
        snprintf(again[n].out, sizeof again[n].out, "%s.%d.ii", path, n);
        if (start_nvcc(nvcc, path, &again[n], out->is_torch) == 0) n++;
    }
    int waited = wait_runs(again, n, now_s() + budget), passes = 0;
    for (int i = 0; i < n; i++) {
        passes |= again[i].ok;
        unlink(again[i].out);
    }
    unlink(path);
    return waited > 0 ? -1 : passes;
}

/* ---- clang's views --------------------------------------------------------- */

/* Marker k is in a block clang skipped: its position (just past its
 * directive) lies inside a skipped range, which runs from the # of the
 * directive that opened it to the end of the one that closed it. */
static void clang_active(CXTranslationUnit tu, const pp_text *a, const int *dir_of_marker, int n,
                         unsigned char *active)
{
    memset(active, 1, (size_t)n);
    CXFile f = clang_getFile(tu, "candidate.cu");
    if (!f) return;
    CXSourceRangeList *rl = clang_getSkippedRanges(tu, f);
    for (unsigned i = 0; rl && i < rl->count; i++) {
        unsigned s = 0, e = 0;
        clang_getSpellingLocation(clang_getRangeStart(rl->ranges[i]), NULL, NULL, NULL, &s);
        clang_getSpellingLocation(clang_getRangeEnd(rl->ranges[i]), NULL, NULL, NULL, &e);
        for (int k = 0; k < n; k++) {
            size_t pos = a->dir[dir_of_marker[k]].end;
            if (s < pos && pos <= e) active[k] = 0;
        }
    }
    if (rl) clang_disposeSourceRangeList(rl);
}

/* The candidate's conditional blocks: marker k follows directive dir_of[k]. */
typedef struct {
    const pp_text *a;
    const int *dir_of;
    const char *src;
    int n;
} blocks;

/* Marker k's block holds something (a token, any directive but the #elif,
 * #else or #endif that ends it): an empty block may differ between the views
 * without harm. A comment with a backslash or a question mark counts as
 * something. */
static int block_has_content(const blocks *bl, int k)
{
    int i = bl->dir_of[k], j = i + 1;
    const char *s = bl->src;
    while (j < bl->a->n_dir && strcmp(bl->a->dir[j].name, "elif") && strcmp(bl->a->dir[j].name, "elifdef") &&
           strcmp(bl->a->dir[j].name, "elifndef") && strcmp(bl->a->dir[j].name, "else") &&
           strcmp(bl->a->dir[j].name, "endif"))
        j++;
    size_t p = bl->a->dir[i].end, e = j < bl->a->n_dir ? bl->a->dir[j].start : strlen(s);
    while (p < e) {
        if (strchr(" \t\n\r\f\v", s[p])) { p++; continue; }
        if (s[p] == '/' && s[p + 1] == '/') {
            while (p < e && s[p] != '\n' && s[p] != '\r') {
                if (s[p] == '\\' || s[p] == '?') return 1;
                p++;
            }
            continue;
        }
        if (s[p] == '/' && s[p + 1] == '*') {
            const char *c = strstr(s + p + 2, "*/");
            if (!c || (size_t)(c - s) + 2 > e) return 1;
            p = (size_t)(c - s) + 2;
            continue;
        }
        return 1;
    }
    return 0;
}

/* The first block with content where two views differ, or -1. */
static int first_mismatch(const blocks *bl, const unsigned char *x, const unsigned char *y)
{
    for (int k = 0; k < bl->n; k++)
        if (!x[k] != !y[k] && block_has_content(bl, k)) return k;
    return -1;
}

static void report_mismatch(kg_static_result *out, const pp_text *a, int dir, int nvcc_has, const nvcc_run *r)
{
    const pp_directive *d = &a->dir[dir];
    char pass[48];
    if (r->host) snprintf(pass, sizeof pass, "host pass, C++%d", r->cpp17 ? 17 : 14);
    else snprintf(pass, sizeof pass, "device pass for sm_%d, C++%d", r->arch, r->cpp17 ? 17 : 14);
    if (nvcc_has)
        add_finding(out, "KG-HIDDEN-CODE", -1, d->last_line + 1,
                    "the block from line %d (after #%s on line %d) is compiled by nvcc (%s) but hidden from "
                    "the static track (a condition on the compiler, e.g. #ifndef __clang__ or #ifdef __NVCC__): "
                    "the gate refuses what it cannot read", d->last_line + 1, d->name, d->line, pass);
    else
        add_finding(out, "KG-HIDDEN-CODE", -1, d->last_line + 1,
                    "the block from line %d (after #%s on line %d) is read by the static track but not "
                    "compiled by nvcc (%s): the rules would judge code that does not run", d->last_line + 1,
                    d->name, d->line, pass);
}

/* ---- the check ------------------------------------------------------------- */

/* Does the candidate name a macro that dispatches on the target
 * (NV_IF_TARGET, __CUDA_ARCH__ ...)? Its device code may differ from its
 * host code without a conditional block of its own. */
static int target_name(const char *id, size_t len, const char *dir, int line, void *d)
{
    (void)dir; (void)line; (void)d;
    static const char *const pfx[] = {"NV_IF", "NV_DISPATCH", "NV_IS_", "NV_PROVIDES", "NV_HAS", "NV_NO_TARGET",
                                      "NV_ANY_TARGET", "_NV_", "__NV_", "__CUDA_ARCH", "_CCCL_", "_LIBCUDACXX_", NULL};
    for (int i = 0; pfx[i]; i++)
        if (len >= strlen(pfx[i]) && !strncmp(id, pfx[i], strlen(pfx[i]))) return 1;
    return 0;
}

/* Without nvcc: a skipped block whose opening condition names a compiler. */
static void text_rule(CXTranslationUnit tu, const pp_text *a, kg_static_result *out)
{
    static const char *const compilers[] = {"__clang__", "__NVCC__", "__CUDACC_VER", "__NVCOMPILER",
                                            "__GNUC__", "__CUDACC_RTC__", NULL};
    int n = 0, dir_of[1024] = {0};
    for (int i = 0; i < a->n_dir && n < 1024; i++)
        if (is_conditional(a->dir[i].name)) dir_of[n++] = i;
    unsigned char *act = malloc((size_t)n + 1);
    if (!act) return;
    clang_active(tu, a, dir_of, n, act);
    for (int k = 0; k < n; k++) {
        const pp_directive *d = &a->dir[dir_of[k]];
        int names = 0;
        /* the condition of this block: an #else's is its #if's */
        for (int j = dir_of[k]; j >= 0 && !names; j--) {
            for (int c = 0; compilers[c]; c++) names |= strstr(a->dir[j].text, compilers[c]) != NULL;
            if (strcmp(a->dir[j].name, "else") && strcmp(a->dir[j].name, "elif")) break;
        }
        if (!act[k] && names) {
            add_finding(out, "KG-HIDDEN-CODE", -1, d->line,
                        "the block after #%s on line %d is skipped by the static track under a condition on "
                        "the compiler, and nvcc was not there to say what it compiles: the gate refuses what "
                        "it cannot read", d->name, d->line);
            break;
        }
    }
    free(act);
}

/* The architectures to compare (opts->arch, "90,100"; default 90). */
static int arch_list(const kg_scan_opts *opts, int *archs)
{
    const char *s = opts && opts->arch && *opts->arch ? opts->arch : "90";
    int n = 0;
    while (*s && n < MAX_ARCHS) {
        char *e = NULL;
        long v = strtol(s, &e, 10);
        if (e == s) break;
        if (v >= 50 && v <= 200) archs[n++] = (int)v;
        s = *e == ',' ? e + 1 : e;
        if (*e && *e != ',') break;
    }
    if (!n) archs[n++] = 90;
    return n;
}

int hidden_code_check(CXTranslationUnit tu, const char *source, const kg_scan_opts *opts, kg_static_result *out,
                      const token_facts *tf)
{
    pp_text a, b;
    if (pp_read(source, 0, &a) != 0) return 0;
    if (pp_read(source, 1, &b) != 0) { pp_free(&a); return 0; }
    int rc = 0, n_cond = 0;
    for (int i = 0; i < a.n_dir; i++) n_cond += is_conditional(a.dir[i].name);
    int dispatch = each_identifier(&a, target_name, NULL);
    nvcc_run runs[MAX_RUNS];
    int n_runs = 0;
    memset(runs, 0, sizeof runs);
    char probe_path[512] = "";
    unsigned char *clang_host = NULL;
    int *dir_of_marker = NULL;
    if (text_checks(&a, &b, out) || (!n_cond && !dispatch)) goto done;
    if (n_cond > MAX_BLOCKS) {
        add_finding(out, "KG-HIDDEN-CODE", -1, 0,
                    "%d conditional blocks: more than the %d the gate checks against nvcc; the gate refuses "
                    "what it cannot read", n_cond, MAX_BLOCKS);
        goto done;
    }

    /* the probe and the passes: host and each architecture's device pass, in
     * C++17, and in C++14 too when there are blocks to compare */
    const char *nvcc = getenv("KGATE_NVCC");
    if (!nvcc || !*nvcc) nvcc = "nvcc";
    unsigned long long nonce = (unsigned long long)now_s() * 1000003ull ^ (unsigned long long)getpid() << 20;
    int ur = open("/dev/urandom", O_RDONLY);
    if (ur >= 0) {
        if (read(ur, &nonce, sizeof nonce) != (ssize_t)sizeof nonce) nonce ^= (unsigned long long)clock();
        close(ur);
    }
    char marker[64];
    snprintf(marker, sizeof marker, "__kgate_%016llx_", nonce);
    dir_of_marker = calloc((size_t)a.n_dir + 1, sizeof *dir_of_marker);
    int n_markers = 0;
    char *probe = dir_of_marker ? make_probe(source, out, &a, marker, dir_of_marker, &n_markers) : NULL;
    const char *tmp = getenv("TMPDIR");
    snprintf(probe_path, sizeof probe_path, "%s/kgate_view_XXXXXX.cu", tmp && *tmp ? tmp : "/tmp");
    int fd = probe ? mkstemps(probe_path, 3) : -1;
    if (fd < 0) { free(probe); probe_path[0] = 0; goto done; }
    size_t plen = strlen(probe);
    ssize_t w = write(fd, probe, plen);
    close(fd);
    free(probe);
    if (w != (ssize_t)plen) goto done;
    int archs[MAX_ARCHS], n_archs = arch_list(opts, archs);
    for (int dialect = 1; dialect >= 0; dialect--) {
        if (!dialect && !n_cond) break;
        for (int p = -1; p < n_archs; p++) {
            nvcc_run *r = &runs[n_runs];
            r->host = p < 0;
            r->arch = p < 0 ? archs[0] : archs[p];
            r->cpp17 = dialect;
            snprintf(r->out, sizeof r->out, "%s.%d.ii", probe_path, n_runs);
            if (start_nvcc(nvcc, probe_path, r, out->is_torch) == 0) n_runs++;
        }
    }
    const char *be = getenv("KGATE_NVCC_BUDGET");
    double budget = be && atof(be) > 0 ? atof(be) : NVCC_BUDGET_S;
    int waited = wait_runs(runs, n_runs, now_s() + budget);
    if (waited > 0) {
        out->timed_out = 1;
        snprintf(out->parse_error, sizeof out->parse_error,
                 "the hidden-code check timed out: nvcc's preprocessor did not finish within %g s "
                 "(the gate's failure, not the candidate's)", budget);
        goto done;
    }
    int any_ok = 0, any_failed = 0;
    for (int i = 0; i < n_runs; i++) {
        if (runs[i].ok && read_run(&runs[i], probe_path, marker, n_markers) != 0) runs[i].ok = 0;
        any_ok |= runs[i].ok;
        any_failed |= !runs[i].ok;
    }
    if (any_failed && waited == 0) {
        /* a pass nvcc refused: the compile fails in it too, unless the
         * markers broke it (a block inside a macro's arguments ...) */
        int r2 = unmarked_passes(nvcc, source, out, runs, n_runs, budget);
        if (r2 > 0) {
            add_finding(out, "KG-HIDDEN-CODE", -1, 0,
                        "the gate could not check which conditional blocks nvcc compiles (its preprocessor "
                        "refused the marked copy, not the candidate): the gate refuses what it cannot read");
            goto done;
        }
        if (r2 < 0) {
            out->timed_out = 1;
            snprintf(out->parse_error, sizeof out->parse_error,
                     "the hidden-code check timed out: nvcc's preprocessor did not finish within %g s "
                     "(the gate's failure, not the candidate's)", budget);
            goto done;
        }
    }
    if (waited < 0 || !any_ok) {
        /* nvcc missing, or its preprocessor refused every pass (then the
         * compile fails too): judge by the text */
        if (waited < 0 || n_runs == 0) { rc = -1; text_rule(tu, &a, out); }
        goto done;
    }
    clang_host = malloc((size_t)n_markers + 1);
    if (!clang_host) goto done;
    blocks bl = {&a, dir_of_marker, source, n_markers};
    clang_active(tu, &a, dir_of_marker, n_markers, clang_host);
    /* the host passes against clang's host parse */
    for (int i = 0; i < n_runs; i++) {
        if (!runs[i].ok || !runs[i].host) continue;
        int k = first_mismatch(&bl, runs[i].active, clang_host);
        if (k >= 0) {
            report_mismatch(out, &a, dir_of_marker[k], runs[i].active[k], &runs[i]);
            goto done;
        }
    }
    /* each device pass: the same as its dialect's host pass (then the host
     * parse has read it), or clang reads it again for that architecture */
    for (int p = 0; p < n_archs; p++) {
        int differs = 0;
        for (int i = 0; i < n_runs; i++) {
            if (!runs[i].ok || runs[i].host || runs[i].arch != archs[p]) continue;
            const nvcc_run *h = NULL;
            for (int j = 0; j < n_runs; j++)
                if (runs[j].ok && runs[j].host && runs[j].cpp17 == runs[i].cpp17) h = &runs[j];
            if (!h || first_mismatch(&bl, runs[i].active, h->active) >= 0 || strcmp(runs[i].text, h->text))
                differs = 1;
        }
        if (!differs) continue;
        char err[256];
        CXTranslationUnit dtu = parse_candidate(source, out->needs_half_header ? "cuda_fp16.h" : NULL,
                                                out->needs_bf16_header ? "cuda_bf16.h" : NULL, archs[p] * 10, err,
                                                sizeof err);
        if (!dtu) {
            add_finding(out, "KG-HIDDEN-CODE", -1, 0,
                        "the candidate's device code for sm_%d differs from its host code and clang could not "
                        "parse it for the device (%.120s): the gate refuses what it cannot read", archs[p], err);
            goto done;
        }
        unsigned char *clang_dev = malloc((size_t)n_markers + 1);
        int bad = 0;
        if (clang_dev) {
            clang_active(dtu, &a, dir_of_marker, n_markers, clang_dev);
            for (int i = 0; i < n_runs && !bad; i++) {
                if (!runs[i].ok || runs[i].host || runs[i].arch != archs[p]) continue;
                int k = first_mismatch(&bl, runs[i].active, clang_dev);
                if (k >= 0) {
                    report_mismatch(out, &a, dir_of_marker[k], runs[i].active[k], &runs[i]);
                    bad = 1;
                }
            }
            free(clang_dev);
        }
        if (!bad) analyze_tu(dtu, source, opts, out, tf, 1);
        clang_disposeTranslationUnit(dtu);
        if (bad) goto done;
    }
done:
    for (int i = 0; i < n_runs; i++) {
        if (runs[i].out[0]) unlink(runs[i].out);
        free(runs[i].active);
        free(runs[i].text);
    }
    if (probe_path[0]) unlink(probe_path);
    free(clang_host);
    free(dir_of_marker);
    pp_free(&a);
    pp_free(&b);
    return rc;
}
