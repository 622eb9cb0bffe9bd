/* sz_expect.c: the sanitize.expect format (see README.md), matching of
 * detections against it, and the verdict of one run. */
/* snprintf truncation of over-long paths is intended and bounded */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#define _POSIX_C_SOURCE 200809L
#include "sanitize.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *const tool_names[SZ_N_TOOLS] = {"memcheck", "racecheck", "initcheck",
                                                   "synccheck"};

const char *sz_tool_name(int tool)
{
    return tool >= 0 && tool < SZ_N_TOOLS ? tool_names[tool] : "?";
}

int sz_tool_parse(const char *name)
{
    for (int t = 0; t < SZ_N_TOOLS; t++)
        if (!strcmp(name, tool_names[t])) return t;
    return -1;
}

const char *sz_verdict_name(sz_verdict v)
{
    static const char *const n[] = {"CLEAN", "DETECTED", "MISSED", "UNEXPECTED", "ERROR",
                                    "SKIPPED"};
    return v >= SZ_CLEAN && v <= SZ_SKIPPED ? n[v] : "?";
}

static void init_run(sz_run_spec *r, const char *name, const char *folder)
{
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->folder, sizeof r->folder, "%s", folder ? folder : "");
    snprintf(r->binary, sizeof r->binary, "bin/%s", name);
    snprintf(r->args, sizeof r->args, "--quick");
    r->gpus = 1;
    for (int t = 0; t < SZ_N_TOOLS; t++) r->tool[t].enabled = 1;
}

static sz_run_spec *new_run(sz_expect_file *f)
{
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 4;
        sz_run_spec *nr = realloc(f->runs, (size_t)cap * sizeof *nr);
        if (!nr) return NULL;
        f->runs = nr;
        f->cap = cap;
    }
    return &f->runs[f->n++];
}

int sz_expect_default(const char *name, const char *folder, sz_expect_file *out)
{
    memset(out, 0, sizeof *out);
    sz_run_spec *r = new_run(out);
    if (!r) return -1;
    init_run(r, name, folder);
    return 0;
}

void sz_expect_free(sz_expect_file *f)
{
    free(f->runs);
    memset(f, 0, sizeof *f);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

static int errf(char *err, size_t errlen, const char *where, int line, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s:%d: %s", where, line, msg);
    return -1;
}

static int valid_kind(const char *k)
{
    if (!*k) return 0;
    for (const char *p = k; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-')) return 0;
    return sz_kind_known(k);
}

/* "detect KIND [at FILE:LINE]" */
static int parse_detect(char *v, sz_expected *e, const char *where, int ln, char *err,
                        size_t errlen)
{
    memset(e, 0, sizeof *e);
    char *kind = strtok(v, " \t");
    if (!kind) return errf(err, errlen, where, ln, "'detect' needs a record kind");
    if (!valid_kind(kind))
        return errf(err, errlen, where, ln,
                    "unknown record kind '%s' (known: oob-global-read, oob-global-write, leak, "
                    "shared-race, uninit-global-read, barrier-error, ... see README.md)", kind);
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    char *at = strtok(NULL, " \t");
    if (!at) return 0;
    if (strcmp(at, "at"))
        return errf(err, errlen, where, ln, "expected 'at FILE:LINE' after '%s', found '%s'",
                    kind, at);
    char *loc = strtok(NULL, " \t");
    if (!loc) return errf(err, errlen, where, ln, "'at' needs FILE:LINE");
    if (strtok(NULL, " \t"))
        return errf(err, errlen, where, ln, "unexpected text after '%s'", loc);
    char *colon = strrchr(loc, ':');
    if (!colon || colon == loc)
        return errf(err, errlen, where, ln, "'%s' is not FILE:LINE", loc);
    *colon = '\0';
    char *end;
    long line = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || line < 1 || line > 10000000)
        return errf(err, errlen, where, ln, "'%s' in '%s:%s' is not a line number", colon + 1,
                    loc, colon + 1);
    if (strlen(loc) >= sizeof e->file) return errf(err, errlen, where, ln, "file name too long");
    snprintf(e->file, sizeof e->file, "%s", loc);
    e->line = (int)line;
    return 0;
}

int sz_expect_parse(const char *text, const char *name, const char *folder, const char *where,
                    sz_expect_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    sz_run_spec *cur = NULL;
    int said[SZ_N_TOOLS]; /* tool lines seen in the current run */
    int said_gpus = 0;    /* a "gpus:" line seen in the current run */
    int ln = 0;
    const char *p = text;
    while (*p) {
        ln++;
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char buf[1200];
        if (n >= sizeof buf) {
            errf(err, errlen, where, ln, "line too long");
            goto fail;
        }
        memcpy(buf, p, n);
        buf[n] = '\0';
        p = nl ? nl + 1 : p + n;
        char *hash = strchr(buf, '#');
        if (hash) *hash = '\0';
        char *line = trim(buf);
        if (!*line) continue;
        char *colon = strchr(line, ':');
        if (!colon) {
            errf(err, errlen, where, ln, "expected 'key: value', found '%s'", line);
            goto fail;
        }
        *colon = '\0';
        char *key = trim(line), *val = trim(colon + 1);
        if (!strcmp(key, "run")) {
            cur = new_run(out);
            if (!cur) {
                errf(err, errlen, where, ln, "out of memory");
                goto fail;
            }
            init_run(cur, name, folder);
            memset(said, 0, sizeof said);
            said_gpus = 0;
            if (!*val) {
                errf(err, errlen, where, ln, "'run:' needs a binary");
                goto fail;
            }
            size_t b = strcspn(val, " \t");
            if (b >= sizeof cur->binary) {
                errf(err, errlen, where, ln, "binary path too long");
                goto fail;
            }
            memcpy(cur->binary, val, b);
            cur->binary[b] = '\0';
            snprintf(cur->args, sizeof cur->args, "%s", trim(val + b));
            const char *slash = strrchr(cur->binary, '/');
            snprintf(cur->name, sizeof cur->name, "%s", slash ? slash + 1 : cur->binary);
            char tmp[1200], *argv[64];
            int na = sz_split_args(cur->args, argv, 64, tmp, sizeof tmp);
            if (na < 0) {
                errf(err, errlen, where, ln, "arguments: %s", tmp);
                goto fail;
            }
            sz_free_args(argv, na);
            continue;
        }
        if (!cur) { /* lines before any run: describe the default run */
            cur = new_run(out);
            if (!cur) {
                errf(err, errlen, where, ln, "out of memory");
                goto fail;
            }
            init_run(cur, name, folder);
            memset(said, 0, sizeof said);
            said_gpus = 0;
        }
        if (!strcmp(key, "name")) {
            if (!*val || strchr(val, ' ') || strlen(val) >= sizeof cur->name) {
                errf(err, errlen, where, ln, "'name:' needs one word");
                goto fail;
            }
            snprintf(cur->name, sizeof cur->name, "%s", val);
        } else if (!strcmp(key, "timeout")) {
            char *end;
            long s = strtol(val, &end, 10);
            if (!*val || *end || s < 1 || s > 86400) {
                errf(err, errlen, where, ln, "'timeout:' needs seconds (1 to 86400), found '%s'",
                     val);
                goto fail;
            }
            cur->timeout_s = (int)s;
        } else if (!strcmp(key, "gpus")) {
            /* a multi-GPU program: the run gets this many devices in
             * CUDA_VISIBLE_DEVICES, and is SKIPPED where fewer are visible.
             * Digits only ("+2", " 2x", "0x2" are typos, not numbers). */
            char *end;
            long n = isdigit((unsigned char)*val) ? strtol(val, &end, 10) : 0;
            if (!isdigit((unsigned char)*val) || *end || n < 1 || n > 64) {
                errf(err, errlen, where, ln, "'gpus:' needs a number of GPUs (1 to 64), found '%s'",
                     val);
                goto fail;
            }
            if (said_gpus++) {
                errf(err, errlen, where, ln, "'gpus:' is declared twice for this run");
                goto fail;
            }
            cur->gpus = (int)n;
        } else if (!strcmp(key, "tools")) {
            int any = 0;
            for (int t = 0; t < SZ_N_TOOLS; t++) cur->tool[t].enabled = 0;
            for (char *w = strtok(val, " \t,"); w; w = strtok(NULL, " \t,")) {
                int t = sz_tool_parse(w);
                if (t < 0) {
                    errf(err, errlen, where, ln, "unknown tool '%s' (memcheck, racecheck, "
                         "initcheck, synccheck)", w);
                    goto fail;
                }
                cur->tool[t].enabled = 1;
                any = 1;
            }
            if (!any) {
                errf(err, errlen, where, ln, "'tools:' needs at least one tool");
                goto fail;
            }
        } else {
            int t = sz_tool_parse(key);
            if (t < 0) {
                errf(err, errlen, where, ln, "unknown key '%s' (run, name, timeout, gpus, tools, "
                     "memcheck, racecheck, initcheck, synccheck)", key);
                goto fail;
            }
            sz_tool_expect *te = &cur->tool[t];
            if (!strcmp(val, "clean")) {
                if (said[t]) {
                    errf(err, errlen, where, ln, "%s is declared twice for this run", key);
                    goto fail;
                }
                said[t] = 1;
                te->detect = 0;
            } else if (!strncmp(val, "detect", 6) && (!val[6] || isspace((unsigned char)val[6]))) {
                if (said[t] && !te->detect) {
                    errf(err, errlen, where, ln, "%s is declared both clean and detect", key);
                    goto fail;
                }
                said[t] = 1;
                if (te->n >= SZ_MAX_EXPECT) {
                    errf(err, errlen, where, ln, "more than %d detections for %s", SZ_MAX_EXPECT,
                         key);
                    goto fail;
                }
                char tmp[1200];
                snprintf(tmp, sizeof tmp, "%s", val + 6);
                if (parse_detect(tmp, &te->e[te->n], where, ln, err, errlen)) goto fail;
                te->detect = 1;
                te->n++;
            } else if (!strncmp(val, "allow", 5) && isspace((unsigned char)val[5])) {
                char *k = trim(val + 5);
                if (!valid_kind(k)) {
                    errf(err, errlen, where, ln, "unknown record kind '%s' after 'allow'", k);
                    goto fail;
                }
                if (te->n_allow >= SZ_MAX_EXPECT) {
                    errf(err, errlen, where, ln, "too many 'allow' lines for %s", key);
                    goto fail;
                }
                snprintf(te->allow[te->n_allow++], sizeof te->allow[0], "%s", k);
            } else {
                errf(err, errlen, where, ln, "%s: expected 'clean', 'detect KIND at FILE:LINE' "
                     "or 'allow KIND', "
                     "found '%s'", key, val);
                goto fail;
            }
        }
    }
    if (out->n == 0) return sz_expect_default(name, folder, out);
    return 0;
fail:
    sz_expect_free(out);
    return -1;
}

int sz_expect_load(const char *path, const char *name, const char *folder, sz_expect_file *out,
                   char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) return sz_expect_default(name, folder, out);
    /* a FIFO or a device would block or never end */
    if (!S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
        snprintf(err, errlen, "%s: not a regular file of at most 1 MiB", path);
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read", path);
        return -1;
    }
    char *text = NULL;
    size_t n = 0, cap = 0;
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (n + got > (1 << 20)) {
            free(text);
            fclose(f);
            snprintf(err, errlen, "%s: larger than 1 MiB", path);
            return -1;
        }
        if (n + got + 1 > cap) {
            cap = (n + got + 1) * 2;
            char *t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(f);
                snprintf(err, errlen, "%s: out of memory", path);
                return -1;
            }
            text = t;
        }
        memcpy(text + n, chunk, got);
        n += got;
    }
    fclose(f);
    if (!text) return sz_expect_default(name, folder, out);
    text[n] = '\0';
    int rc = sz_expect_parse(text, name, folder, path, out, err, errlen);
    free(text);
    return rc;
}

/* ---- matching -------------------------------------------------------- */

int sz_same_file(const char *path, const char *want)
{
    if (!want[0]) return 1;
    if (!strcmp(path, want)) return 1;
    size_t lp = strlen(path), lw = strlen(want);
    if (lp > lw && path[lp - lw - 1] == '/' && !strcmp(path + lp - lw, want)) return 1;
    /* the report may carry only the file name (--strip-paths) */
    const char *wb = strrchr(want, '/');
    if (wb && !strchr(path, '/') && !strcmp(path, wb + 1)) return 1;
    return 0;
}

int sz_matches(const sz_expected *e, const sz_detection *d)
{
    if (strcmp(e->kind, d->kind)) return 0;
    if (!e->line && !e->file[0]) return 1;
    for (int i = 0; i < d->n_locs; i++) {
        const sz_loc *l = &d->locs[i];
        /* device frames; host frames only for a leak (where it was allocated) */
        if (l->host && strcmp(d->kind, "leak") && strcmp(d->kind, "api-error")) continue;
        if ((!e->line || l->line == e->line) && sz_same_file(l->file, e->file)) return 1;
    }
    return 0;
}

sz_verdict sz_judge(const sz_tool_expect *expect, const sz_found *found, int *missed,
                    int *unexpected)
{
    int n_missed = 0, n_unexp = 0;
    for (int i = 0; i < SZ_MAX_EXPECT; i++) missed[i] = 0;
    for (int j = 0; j < found->n; j++) {
        unexpected[j] = 1;
        for (int a = 0; a < expect->n_allow; a++)
            if (!strcmp(expect->allow[a], found->d[j].kind)) unexpected[j] = 0;
        if (expect->detect)
            for (int i = 0; i < expect->n; i++)
                if (sz_matches(&expect->e[i], &found->d[j])) unexpected[j] = 0;
        n_unexp += unexpected[j];
    }
    if (expect->detect) {
        for (int i = 0; i < expect->n; i++) {
            int hit = 0;
            for (int j = 0; j < found->n; j++)
                if (sz_matches(&expect->e[i], &found->d[j])) hit = 1;
            missed[i] = !hit;
            n_missed += !hit;
        }
    }
    if (n_missed) return SZ_MISSED;
    if (n_unexp) return SZ_UNEXPECTED;
    return expect->detect ? SZ_DETECTED : SZ_CLEAN;
}

/* ---- one run, after the process ended -------------------------------- */

void sz_note(sz_result *r, const char *fmt, ...)
{
    size_t at = strlen(r->message);
    if (at && at + 3 < sizeof r->message) {
        strcat(r->message, "; ");
        at += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message + at, sizeof r->message - at, fmt, ap);
    va_end(ap);
}

void sz_evaluate(sz_result *r, int exit_code, int timed_out, int timeout_s)
{
    r->exit_code = timed_out ? -1 : exit_code;
    r->timed_out = timed_out;
    memset(&r->found, 0, sizeof r->found);
    if (timed_out) {
        r->verdict = SZ_ERROR;
        sz_note(r, "timed out after %d s (process group killed)", timeout_s);
        return;
    }
    /* No report is never "no findings": compute-sanitizer with --xml --save
     * always writes one (an empty <ComputeSanitizerOutput/> when clean). A
     * tool that wrote none did not check anything. */
    struct stat st;
    int have_xml = r->xml_path[0] && lstat(r->xml_path, &st) == 0 && st.st_size > 0;
    if (!have_xml) {
        r->verdict = SZ_ERROR;
        sz_note(r, "compute-sanitizer exited %d and wrote no XML report (see %s)", exit_code,
                r->log_path[0] ? r->log_path : "its output");
        return;
    }
    char err[400];
    if (sz_report_read_file_limited(r->xml_path, r->max_report ? r->max_report
                                                                : SZ_DEFAULT_MAX_REPORT,
                                    r->deadline, &r->found, err, sizeof err)) {
        r->verdict = SZ_ERROR;
        sz_note(r, "unreadable report: %s", err);
        return;
    }
    r->unexpected = calloc((size_t)(r->found.n ? r->found.n : 1), sizeof(int));
    if (!r->unexpected) {
        r->verdict = SZ_ERROR;
        sz_note(r, "out of memory");
        return;
    }
    r->verdict = sz_judge(&r->expect, &r->found, r->missed, r->unexpected);
    if (exit_code == SZ_ERROR_EXITCODE && r->found.n == 0) {
        r->verdict = SZ_ERROR;
        sz_note(r, "compute-sanitizer reported errors (exit %d) but the report holds no records",
             exit_code);
    } else if (exit_code == 2) {
        r->verdict = SZ_ERROR;
        sz_note(r, "the program was WAIVED (exit 2) under %s: device unsupported?",
             sz_tool_name(r->tool));
    } else if (exit_code != 0 && exit_code != SZ_ERROR_EXITCODE) {
        if (r->verdict == SZ_CLEAN) {
            r->verdict = SZ_ERROR;
            sz_note(r, "the program or the tool failed (exit %d, see %s)", exit_code,
                 r->log_path[0] ? r->log_path : "its output");
        } else {
            sz_note(r, "exit %d (the program failed after the detection)", exit_code);
        }
    }
}

void sz_result_free(sz_result *r)
{
    sz_found_free(&r->found);
    free(r->unexpected);
    r->unexpected = NULL;
}
