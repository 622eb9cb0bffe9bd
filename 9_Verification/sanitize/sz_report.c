/* sz_report.c: compute-sanitizer's XML report -> detections.
 *
 * What the reader relies on (compute-sanitizer 2025.3.1, `--xml --save`):
 * the root is <ComputeSanitizerOutput>; each finding is a <record> child
 * with a <kind> (Precise, Imprecise, Leak, Hazard, Analysis, Initcheck,
 * Synccheck, Api, ...), a <level>, a description (<what>, with <text>,
 * access size, address space, direction ...), the thread and block (<who>
 * with <threadIdx>/<blockIdx> of <x> <y> <z>) and frames whose children are
 * <func>, <file> or <path>, and <line>; host frames sit under <hostStack>.
 * The reader does not depend on the exact nesting: it classifies a record
 * from its kind and description words, and collects every element that
 * holds a <line> next to a <file>/<path> as a location, so a schema that
 * moves fields around still reads. The unit tests run it on reports
 * captured on the H200 (tests/fixtures/, see capture_fixtures.sh).
 */
#include "sanitize.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const sz_known_kinds[] = {
    "oob-global-read",   "oob-global-write",   "oob-global-atomic", "oob-global-access",
    "oob-shared-read",   "oob-shared-write",   "oob-shared-atomic", "oob-shared-access",
    "oob-local-read",    "oob-local-write",    "oob-local-atomic",  "oob-local-access",
    "misaligned-global-read", "misaligned-global-write", "misaligned-shared-read",
    "misaligned-shared-write", "hardware-exception", "leak", "shared-race",
    "uninit-global-read", "unused-memory", "uninit-api", "barrier-error", "api-error",
    "stack-overflow", NULL};

int sz_kind_known(const char *kind)
{
    if (!strncmp(kind, "other-", 6) && kind[6]) return 1;
    for (int i = 0; sz_known_kinds[i]; i++)
        if (!strcmp(kind, sz_known_kinds[i])) return 1;
    return 0;
}

/* Every string taken from a report goes through here: valid UTF-8 with no
 * terminal controls, cut at a character boundary (see sz_clean_text). */
static void copy(char *dst, size_t len, const char *src)
{
    sz_clean_text(dst, len, src ? src : "");
}

static int is_frame_field(const char *name)
{
    static const char *const f[] = {"func", "function", "file", "path", "fileName", "module",
                                    "line", "pc", "basePc", NULL};
    for (int i = 0; f[i]; i++)
        if (!strcmp(name, f[i])) return 1;
    return 0;
}

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (!strncasecmp(p, needle, n)) return 1;
    return 0;
}

static int name_has_host(const char *name) { return contains_ci(name, "host"); }

/* The description words of a record: all element text except frames and
 * host stacks, lower-cased, space separated, up to len - 1 bytes (*at is
 * the length so far: no rescans). */
static void gather_words(const xml_node *n, char *buf, size_t len, size_t *at, int top)
{
    if (!top && (name_has_host(n->name) || is_frame_field(n->name))) return;
    size_t tl = strlen(n->text);
    if (tl && *at + tl + 2 < len) {
        buf[(*at)++] = ' ';
        for (size_t i = 0; i < tl; i++) buf[(*at)++] = (char)tolower((unsigned char)n->text[i]);
        buf[*at] = '\0';
    }
    for (int i = 0; i < n->n_kids; i++) gather_words(n->kids[i], buf, len, at, 0);
}

static const char *frame_file(const xml_node *n)
{
    const char *f = xml_child_text(n, "file");
    if (!f || !f[0]) f = xml_child_text(n, "path");
    if (!f || !f[0]) f = xml_child_text(n, "fileName");
    return f && f[0] ? f : NULL;
}

static int parse_int(const char *s, int *out)
{
    if (!s || !*s) return -1;
    char *end;
    long v = strtol(s, &end, 0);
    while (*end && isspace((unsigned char)*end)) end++;
    if (*end || v < 0 || v > 100000000) return -1;
    *out = (int)v;
    return 0;
}

static void gather_locs(const xml_node *n, sz_detection *d, int host, int want_host)
{
    int h = host || name_has_host(n->name);
    const char *file = frame_file(n);
    int line;
    if (file && parse_int(xml_child_text(n, "line"), &line) == 0 && h == want_host &&
        d->n_locs < SZ_MAX_LOCS) {
        sz_loc *l = &d->locs[d->n_locs++];
        copy(l->file, sizeof l->file, file);
        l->line = line;
        const char *fn = xml_child_text(n, "func");
        if (!fn) fn = xml_child_text(n, "function");
        copy(l->func, sizeof l->func, fn);
        l->host = h;
    }
    for (int i = 0; i < n->n_kids; i++) gather_locs(n->kids[i], d, h, want_host);
}

static int read_dim3(const xml_node *n, int v[3])
{
    if (!n) return 0;
    const char *ax[3] = {"x", "y", "z"};
    int got = 0;
    for (int i = 0; i < 3; i++) {
        v[i] = 0;
        if (parse_int(xml_child_text(n, ax[i]), &v[i]) == 0) got++;
    }
    if (got) return 1;
    /* "(3,0,0)" or "3 0 0" as text */
    int a, b, c;
    if (sscanf(n->text, " ( %d , %d , %d )", &a, &b, &c) == 3 ||
        sscanf(n->text, " %d %d %d", &a, &b, &c) == 3) {
        v[0] = a;
        v[1] = b;
        v[2] = c;
        return 1;
    }
    return 0;
}

static void classify(const char *raw, const char *w, char *kind, size_t len)
{
    char k[64];
    snprintf(k, sizeof k, "%s", raw);
    for (char *p = k; *p; p++) *p = (char)tolower((unsigned char)*p);
    const char *space = contains_ci(w, "shared") ? "shared" : contains_ci(w, "local") ? "local"
                                                                                      : "global";
    const char *dir = contains_ci(w, "write") ? "write" : contains_ci(w, "read") ? "read"
                      : contains_ci(w, "atomic") ? "atomic" : "access";
    if (strstr(k, "leak") || strstr(w, "leaked")) {
        copy(kind, len, "leak");
    } else if (strstr(k, "hazard") || strstr(k, "analysis") || strstr(k, "race") ||
               strstr(w, "hazard") || strstr(w, "race reported")) {
        copy(kind, len, "shared-race");
    } else if (strstr(k, "initcheckapi") || (strstr(k, "initcheck") && strstr(k, "api"))) {
        copy(kind, len, "uninit-api");
    } else if (strstr(k, "unused") || strstr(w, "unused memory")) {
        copy(kind, len, "unused-memory");
    } else if (strstr(k, "initcheck") || strstr(w, "uninitialized")) {
        copy(kind, len, "uninit-global-read");
    } else if (strstr(k, "synccheck") || strstr(k, "barrier") || strstr(w, "barrier error") ||
               strstr(w, "divergen")) {
        copy(kind, len, "barrier-error");
    } else if (strstr(k, "stackoverflow") || strstr(w, "stack overflow")) {
        copy(kind, len, "stack-overflow");
    } else if (strstr(k, "precise") || strstr(w, "invalid __") || strstr(w, "out of bounds") ||
               strstr(w, "misaligned")) {
        if (!strcmp(k, "imprecise") && !strstr(w, "read") && !strstr(w, "write"))
            copy(kind, len, "hardware-exception");
        else
            snprintf(kind, len, "%s-%s-%s", strstr(w, "misaligned") ? "misaligned" : "oob", space,
                     dir);
    } else if (strstr(k, "api")) {
        copy(kind, len, "api-error");
    } else {
        char o[48] = "other-";
        size_t j = strlen(o);
        for (const char *p = k; *p && j + 1 < sizeof o; p++)
            o[j++] = isalnum((unsigned char)*p) ? *p : '-';
        o[j] = '\0';
        if (j == 6) copy(o, sizeof o, "other-unknown");
        copy(kind, len, o);
    }
}

/* "FILE.cu:LINE" tokens in a description, for records that carry their
 * locations only as text (a racecheck analysis summary, say). */
static void locs_from_text(const char *t, sz_detection *d)
{
    static const char *const ext[] = {".cu:", ".cuh:", ".h:", ".hpp:", ".cpp:", ".cc:", ".c:", NULL};
    for (const char *p = t; *p && d->n_locs < SZ_MAX_LOCS; p++) {
        for (int e = 0; ext[e]; e++) {
            size_t el = strlen(ext[e]);
            if (strncmp(p, ext[e], el) || !isdigit((unsigned char)p[el])) continue;
            const char *b = p;
            while (b > t && (isalnum((unsigned char)b[-1]) || strchr("_./-", b[-1]))) b--;
            if (b == p) continue;
            sz_loc *l = &d->locs[d->n_locs];
            memset(l, 0, sizeof *l);
            snprintf(l->file, sizeof l->file, "%.*s", (int)(p + el - 1 - b), b);
            l->line = atoi(p + el);
            d->n_locs++;
            break;
        }
    }
}

/* Records fold by (kind, kernel, first location): a hash table of indices
 * into f->d keeps that linear in the number of records. */
static unsigned long fold_hash(const sz_detection *d)
{
    unsigned long h = 1469598103934665603UL;
    const char *parts[3] = {d->kind, d->kernel, d->n_locs ? d->locs[0].file : ""};
    for (int k = 0; k < 3; k++) {
        for (const unsigned char *p = (const unsigned char *)parts[k]; *p; p++)
            h = (h ^ *p) * 1099511628211UL;
        h = (h ^ 0xff) * 1099511628211UL;
    }
    h ^= (unsigned long)(d->n_locs ? d->locs[0].line + 1 : 0);
    return h * 1099511628211UL;
}

static int same_fold(const sz_detection *e, const sz_detection *d)
{
    int same_loc = (e->n_locs == 0 && d->n_locs == 0) ||
                   (e->n_locs && d->n_locs && e->locs[0].line == d->locs[0].line &&
                    !strcmp(e->locs[0].file, d->locs[0].file));
    return same_loc && !strcmp(e->kind, d->kind) && !strcmp(e->kernel, d->kernel);
}

static int rehash(sz_found *f, int slots) /* slots: a power of two */
{
    int *t = malloc((size_t)slots * sizeof *t);
    if (!t) return -1;
    for (int i = 0; i < slots; i++) t[i] = -1;
    for (int j = 0; j < f->n; j++) {
        unsigned long i = fold_hash(&f->d[j]) & (unsigned long)(slots - 1);
        while (t[i] >= 0) i = (i + 1) & (unsigned long)(slots - 1);
        t[i] = j;
    }
    free(f->slot);
    f->slot = t;
    f->n_slots = slots;
    return 0;
}

/* 0, -1 out of memory, -2 too many distinct detections. */
static int add_detection(sz_found *f, const sz_detection *d)
{
    if (f->n_slots) {
        unsigned long i = fold_hash(d) & (unsigned long)(f->n_slots - 1);
        for (; f->slot[i] >= 0; i = (i + 1) & (unsigned long)(f->n_slots - 1)) {
            sz_detection *e = &f->d[f->slot[i]];
            if (!same_fold(e, d)) continue;
            e->count++;
            /* keep every distinct location (a race has two ends) */
            for (int j = 0; j < d->n_locs && e->n_locs < SZ_MAX_LOCS; j++) {
                int have = 0;
                for (int k = 0; k < e->n_locs; k++)
                    if (e->locs[k].line == d->locs[j].line && e->locs[k].host == d->locs[j].host &&
                        !strcmp(e->locs[k].file, d->locs[j].file))
                        have = 1;
                if (!have) e->locs[e->n_locs++] = d->locs[j];
            }
            return 0;
        }
    }
    if (f->n >= SZ_MAX_DETECTIONS) return -2;
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 8;
        sz_detection *nd = realloc(f->d, (size_t)cap * sizeof *nd);
        if (!nd) return -1;
        f->d = nd;
        f->cap = cap;
    }
    f->d[f->n++] = *d;
    /* the table stays at most half full; a rehash places every entry */
    if (2 * f->n > f->n_slots) return rehash(f, f->n_slots ? 2 * f->n_slots : 64);
    unsigned long i = fold_hash(d) & (unsigned long)(f->n_slots - 1);
    while (f->slot[i] >= 0) i = (i + 1) & (unsigned long)(f->n_slots - 1);
    f->slot[i] = f->n - 1;
    return 0;
}

static int read_record(const xml_node *rec, sz_found *f)
{
    sz_detection d;
    memset(&d, 0, sizeof d);
    d.count = 1;
    const char *raw = xml_child_text(rec, "kind");
    if (!raw) raw = xml_attr_get(rec, "kind");
    copy(d.raw_kind, sizeof d.raw_kind, raw ? raw : "");
    char words[2048] = "";
    size_t at = 0;
    gather_words(rec, words, sizeof words, &at, 1);
    classify(d.raw_kind, words, d.kind, sizeof d.kind);
    const xml_node *what = xml_child(rec, "what");
    const char *text = what ? xml_child_text(what, "text") : NULL;
    if (!text) text = xml_child_text(rec, "text");
    copy(d.text, sizeof d.text, text);
    gather_locs(rec, &d, 0, 0); /* device frames first */
    if (d.n_locs == 0) locs_from_text(d.text, &d); /* e.g. "... in shared_race.cu:12 and ..." */
    gather_locs(rec, &d, 0, 1); /* then host frames */
    for (int i = 0; i < d.n_locs; i++) {
        if (!d.locs[i].host && d.locs[i].func[0]) {
            copy(d.kernel, sizeof d.kernel, d.locs[i].func);
            break;
        }
    }
    d.has_thread = read_dim3(xml_find(rec, "threadIdx"), d.thread);
    d.has_block = read_dim3(xml_find(rec, "blockIdx"), d.block);
    return add_detection(f, &d);
}

static const char *const root_want = "ComputeSanitizerOutput";

static int bad_root(const char *name, char *err, size_t errlen)
{
    char clean[64];
    sz_clean_text(clean, sizeof clean, name);
    snprintf(err, errlen, "not a compute-sanitizer XML report: root element is <%s>, "
             "expected <%s>", clean, root_want);
    return -1;
}

/* One child of the root: a <record> becomes a detection. */
static int take_child(const xml_node *root, const xml_node *child, sz_found *out, char *err,
                      size_t errlen)
{
    if (strcmp(root->name, root_want)) return bad_root(root->name, err, errlen);
    if (strcmp(child->name, "record")) return 0;
    out->n_records++;
    int rc = read_record(child, out);
    if (rc == -2)
        snprintf(err, errlen, "more than %d distinct detections: too many to judge "
                 "(reduce the program's size or the tool's reports)", SZ_MAX_DETECTIONS);
    else if (rc)
        snprintf(err, errlen, "out of memory");
    return rc ? -1 : 0;
}

int sz_report_read(const xml_node *root, sz_found *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!root) return bad_root("?", err, errlen);
    if (strcmp(root->name, root_want)) return bad_root(root->name, err, errlen);
    for (int i = 0; i < root->n_kids; i++) {
        if (take_child(root, root->kids[i], out, err, errlen)) {
            sz_found_free(out);
            return -1;
        }
    }
    return 0;
}

static int stream_child(const xml_node *root, const xml_node *child, void *ctx, char *err,
                        size_t errlen)
{
    return take_child(root, child, ctx, err, errlen);
}

int sz_report_read_text(const char *text, size_t len, double deadline, sz_found *out, char *err,
                        size_t errlen)
{
    memset(out, 0, sizeof *out);
    xml_limits lim = {SZ_MAX_RECORD_ELEMENTS, deadline};
    char root[128];
    if (xml_parse_stream(text, len, &lim, stream_child, out, root, sizeof root, err, errlen) ||
        (strcmp(root, root_want) && bad_root(root, err, errlen))) {
        sz_found_free(out);
        return -1;
    }
    return 0;
}

int sz_report_read_file_limited(const char *path, size_t max_bytes, double deadline,
                                sz_found *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    if (xml_read_file(path, max_bytes, &text, &len, err, errlen)) return -1;
    char e[400];
    int rc = sz_report_read_text(text, len, deadline, out, e, sizeof e);
    free(text);
    if (rc) snprintf(err, errlen, "%s: %s", path, e);
    return rc;
}

int sz_report_read_file(const char *path, sz_found *out, char *err, size_t errlen)
{
    return sz_report_read_file_limited(path, SZ_DEFAULT_MAX_REPORT, 0, out, err, errlen);
}

void sz_found_free(sz_found *f)
{
    free(f->d);
    free(f->slot);
    memset(f, 0, sizeof *f);
}

void sz_detection_where(const sz_detection *d, char *buf, size_t len)
{
    if (!d->n_locs) {
        snprintf(buf, len, "?");
        return;
    }
    const char *f = d->locs[0].file;
    const char *slash = strrchr(f, '/');
    snprintf(buf, len, "%s:%d", slash ? slash + 1 : f, d->locs[0].line);
}
