/* kb_core.c: the pure parts of the KernelBench mode (kbgate.h): a runner's
 * reply line, output dtypes and shapes, KernelBench's allclose, fast_p, the
 * judge's per-call figure, pairing and labels. Nothing here trusts its
 * input: every number is range-checked, every string bounded. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamic.h"
#include "kb_internal.h"
#include "kbgate.h"

/* ---- reply lines ---- */

int kb_parse_reply(const char *line, kb_reply *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->nbytes = -1;
    size_t len = strnlen(line, KB_LINE_MAX + 1);
    if (len > KB_LINE_MAX) { snprintf(err, errlen, "a reply line longer than %d bytes", KB_LINE_MAX); return -1; }
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)line[i] < 32 || (unsigned char)line[i] > 126) {
            snprintf(err, errlen, "a byte 0x%02x in a reply line", (unsigned char)line[i]);
            return -1;
        }
    const char *p = line;
    if (!strncmp(p, "OK", 2) && (p[2] == 0 || p[2] == ' ')) { r->ok = 1; p += 2; }
    else if (!strncmp(p, "ERR", 3) && (p[3] == 0 || p[3] == ' ')) { r->ok = 0; p += 3; }
    else { snprintf(err, errlen, "a reply that is neither OK nor ERR: \"%.40s\"", line); return -1; }
    while (*p == ' ') p++;
    while (*p) {
        const char *eq = strchr(p, '=');
        const char *sp = strchr(p, ' ');
        if (!eq || (sp && sp < eq) || eq == p || eq - p >= 16) {
            snprintf(err, errlen, "a malformed field in a reply: \"%.40s\"", p);
            return -1;
        }
        size_t kl = (size_t)(eq - p);
        for (size_t i = 0; i < kl; i++)
            if (!isalnum((unsigned char)p[i]) && p[i] != '_') {
                snprintf(err, errlen, "a malformed key in a reply: \"%.20s\"", p);
                return -1;
            }
        if (kl == 3 && !strncmp(p, "msg", 3)) {   /* the rest of the line */
            snprintf(r->msg, sizeof r->msg, "%s", eq + 1);
            break;
        }
        const char *end = sp ? sp : eq + strlen(eq);
        size_t vl = (size_t)(end - eq - 1);
        if (vl >= sizeof r->val[0] || r->n >= KB_MAX_FIELDS) {
            snprintf(err, errlen, "a reply with too many or too long fields");
            return -1;
        }
        memcpy(r->key[r->n], p, kl);
        r->key[r->n][kl] = 0;
        memcpy(r->val[r->n], eq + 1, vl);
        r->val[r->n][vl] = 0;
        r->n++;
        p = end;
        while (*p == ' ') p++;
    }
    if (kb_field(r, "bytes")) {
        long long nb;
        if (kb_field_ll(r, "bytes", 0, (long long)KB_MAX_BYTES, &nb) != 0) {
            snprintf(err, errlen, "bytes=%.30s: not a size the gate accepts (at most %llu)", kb_field(r, "bytes"),
                     (unsigned long long)KB_MAX_BYTES);
            return -1;
        }
        r->nbytes = nb;
    }
    return 0;
}

const char *kb_field(const kb_reply *r, const char *key)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->key[i], key)) return r->val[i];
    return NULL;
}

int kb_field_ll(const kb_reply *r, const char *key, long long lo, long long hi, long long *out)
{
    const char *v = kb_field(r, key);
    if (!v || !*v) return -1;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || *end || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

int kb_field_ms(const kb_reply *r, const char *key, double *out)
{
    const char *v = kb_field(r, key);
    if (!v || !*v) return -1;
    char *end;
    double x = strtod(v, &end);
    if (*end || !isfinite(x) || x < 0) return -1;
    *out = x;
    return 0;
}

/* ---- dtypes and shapes ---- */

static const char *const dt_names[KB_DTYPES] = {"float32", "float16", "bfloat16", "float64", "int64",
                                                 "int32", "int16", "int8", "uint8", "bool"};
static const size_t dt_sizes[KB_DTYPES] = {4, 2, 2, 8, 8, 4, 2, 1, 1, 1};

int kb_dtype_parse(const char *s)
{
    for (int i = 0; i < KB_DTYPES; i++)
        if (!strcmp(s, dt_names[i])) return i;
    return -1;
}
const char *kb_dtype_name(int dt) { return dt >= 0 && dt < KB_DTYPES ? dt_names[dt] : "?"; }
size_t kb_dtype_size(int dt) { return dt >= 0 && dt < KB_DTYPES ? dt_sizes[dt] : 0; }

static double half_to_double(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0) v = ldexp((double)m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexp((double)(m | 1024), e - 25);
    return s ? -v : v;
}

double kb_elem(const void *data, int dt, size_t i)
{
    const unsigned char *b = (const unsigned char *)data + i * kb_dtype_size(dt);
    switch (dt) {
    case KB_F32: { float f; memcpy(&f, b, 4); return f; }
    case KB_F16: { uint16_t h; memcpy(&h, b, 2); return half_to_double(h); }
    case KB_BF16: { uint16_t h; memcpy(&h, b, 2); uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
    case KB_F64: { double d; memcpy(&d, b, 8); return d; }
    case KB_I64: { int64_t x; memcpy(&x, b, 8); return (double)x; }
    case KB_I32: { int32_t x; memcpy(&x, b, 4); return x; }
    case KB_I16: { int16_t x; memcpy(&x, b, 2); return x; }
    case KB_I8: return (double)(signed char)b[0];
    case KB_U8: return b[0];
    case KB_BOOL: return b[0] != 0;
    }
    return NAN;
}

double kb_tolerance(int dt)
{
    if (dt == KB_F16 || dt == KB_BF16) return 1e-2;
    if (dt == KB_F32 || dt == KB_F64) return 1e-4;
    return 0;
}

int kb_shape_parse(const char *s, kb_shape *sh)
{
    memset(sh, 0, sizeof *sh);
    if (!s || s[0] != '[') return -1;
    const char *p = s + 1;
    sh->numel = 1;
    if (*p == ']') return p[1] == 0 ? 0 : -1;
    for (;;) {
        if (!isdigit((unsigned char)*p) || sh->ndim >= KB_MAX_DIMS) return -1;
        char *end;
        errno = 0;
        long long d = strtoll(p, &end, 10);
        if (errno || d < 0 || d > (1LL << 40)) return -1;
        sh->dim[sh->ndim++] = d;
        if (d && sh->numel > (1LL << 40) / d) return -1;
        sh->numel *= d;
        p = end;
        if (*p == ']') return p[1] == 0 ? 0 : -1;
        if (*p != ',') return -1;
        p++;
    }
}

int kb_shape_equal(const kb_shape *a, const kb_shape *b)
{
    if (a->ndim != b->ndim) return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->dim[i] != b->dim[i]) return 0;
    return 1;
}

void kb_shape_str(const kb_shape *sh, char *buf, size_t len)
{
    size_t l = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < sh->ndim && l < len; i++)
        l += (size_t)snprintf(buf + l, len - l, "%s%lld", i ? "," : "", sh->dim[i]);
    if (l < len) snprintf(buf + l, len - l, "]");
}

/* ---- comparisons ---- */

static int close_enough(double a, double b, double tol)
{
    if (isnan(a) || isnan(b)) return 0;
    if (isinf(a) || isinf(b)) return a == b;
    if (tol == 0) return a == b;
    return fabs(a - b) <= tol + tol * fabs(b);
}

long long kb_allclose(const void *ref, const void *got, int dt, long long n, double tol, long long *first)
{
    long long bad = 0;
    *first = -1;
    for (long long i = 0; i < n; i++)
        if (!close_enough(kb_elem(ref, dt, (size_t)i), kb_elem(got, dt, (size_t)i), tol)) {
            if (*first < 0) *first = i;
            bad++;
        }
    return bad;
}

long long kb_slice_bytes(long long chunk, size_t es)
{
    if (!es) return 1;
    long long b = chunk - chunk % (long long)es;
    return b < (long long)es ? (long long)es : b;
}

void kb_cmp_init(kb_cmp *c)
{
    memset(c, 0, sizeof *c);
    c->first = -1;
}

void kb_allclose_slice(kb_cmp *c, const void *ref, const void *got, int dt, long long n, long long base, double tol)
{
    long long first;
    long long bad = kb_allclose(ref, got, dt, n, tol, &first);
    if (bad && c->first < 0) {   /* the earliest slice's first: the whole output's first */
        c->first = base + first;
        c->want = kb_elem(ref, dt, (size_t)first);
        c->got = kb_elem(got, dt, (size_t)first);
    }
    c->bad += bad;
}

/* ---- scores ---- */

static int kb_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double kb_median(double *v, int n)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof v[0], kb_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double kb_union_seconds(const double *t0, const double *t1, int n)
{
    double covered = 0, end = -INFINITY;
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order), m = 0;
    if (!order) return -1;
    for (int i = 0; i < n; i++)
        if (t1[i] > t0[i]) order[m++] = i;
    for (int x = 1; x < m; x++)   /* by start (insertion sort: a few hundred at most) */
        for (int y = x; y > 0 && t0[order[y]] < t0[order[y - 1]]; y--) {
            int tmp = order[y]; order[y] = order[y - 1]; order[y - 1] = tmp;
        }
    for (int x = 0; x < m; x++) {
        double s0 = t0[order[x]], s1 = t1[order[x]];
        if (s0 > end) covered += s1 - s0;
        else if (s1 > end) covered += s1 - end;
        if (s1 > end) end = s1;
    }
    free(order);
    return covered;
}

double kb_fast_p(const int *correct, const double *speedup, int n, double p)
{
    if (n <= 0) return 0;
    int hits = 0;
    for (int i = 0; i < n; i++) hits += correct[i] && speedup[i] > 0 && speedup[i] > p;
    return (double)hits / n;
}

double kb_batch_ms(double interval_ms, double allowance_ms, double charged_ms, int calls)
{
    if (calls <= 0) return NAN;
    double t = interval_ms - allowance_ms + charged_ms;
    double floor = 0.02 * interval_ms;
    return (t > floor ? t : floor) / calls;
}

int kb_batch_calls(double one_ms, double null_ms, long long per_bytes, long long cap_bytes)
{
    /* a call's own time: a batch of one holds RUN and DIGEST's fixed cost
     * too. Sized by one_ms alone, the corpus's batches on the H200 held 0.7
     * to 4.3 ms of the reference's work, not 8. A net time under a
     * microsecond (noise) asks for the most calls */
    double net = one_ms - (null_ms > 0 ? null_ms : 0);
    int k = net > 1e-3 ? (int)fmin(ceil(KB_BATCH_MS / net), KB_MAX_CALLS) : KB_MAX_CALLS;
    if (k < KB_MIN_CALLS) k = KB_MIN_CALLS;   /* several calls, so that a skipped one can show */
    if (per_bytes > 0 && (long long)k > cap_bytes / per_bytes) k = (int)(cap_bytes / per_bytes);
    return k < 1 ? 1 : k;
}

double kb_charge(double prep_ms, double base_ms, double ref_prep_ms)
{
    double b = ref_prep_ms > base_ms ? ref_prep_ms : base_ms;
    double c = prep_ms - (1.1 * b + 0.5);
    return c > 0 ? c : 0;
}

double kb_call_ms(double net1_ms, double netk_ms, int k)
{
    /* a batch of k calls holds k calls and the batch's first-call cost F once:
     * netk = k c + F, net1 = c + F. Never above netk / k (F below zero is
     * noise), never below zero (none: the most calls) */
    if (k < 2 || !(netk_ms > 0)) return net1_ms > 0 ? net1_ms : 0;
    double c = (netk_ms - net1_ms) / (k - 1);
    if (c > netk_ms / k) c = netk_ms / k;
    return c > 0 ? c : 0;
}

/* ---- pairing and labels ---- */

int kb_problem_of(const char *cand_file, char *out, size_t len)
{
    const char *base = strrchr(cand_file, '/');
    base = base ? base + 1 : cand_file;
    const char *sep = strstr(base, "__");
    size_t bl = strlen(base);
    if (!sep || sep == base || bl < 4 || strcmp(base + bl - 3, ".py") || (size_t)(sep - base) >= len) return -1;
    memcpy(out, base, (size_t)(sep - base));
    out[sep - base] = 0;
    return 0;
}

int kb_labels_parse(const char *text, kb_label *out, int max, char *err, size_t errlen)
{
    int n = 0, lineno = 0;
    const char *p = text;
    while (*p) {
        lineno++;
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char line[1024];
        if (l >= sizeof line) { snprintf(err, errlen, "line %d: longer than %zu bytes", lineno, sizeof line - 1); return -1; }
        memcpy(line, p, l);
        line[l] = 0;
        if (l && line[l - 1] == '\r') line[--l] = 0;
        p = e ? e + 1 : p + l;
        if (!l || line[0] == '#') continue;
        char *f[4] = {0};
        int nf = 0;
        for (char *s = line; s && nf < 4; nf++) {
            f[nf] = s;
            char *t = strchr(s, '\t');
            if (t && nf < 3) { *t = 0; s = t + 1; } else s = NULL;
        }
        if (nf < 3) { snprintf(err, errlen, "line %d: expected file, problem, verdict (tab-separated)", lineno); return -1; }
        if (n >= max) { snprintf(err, errlen, "line %d: more than %d labels", lineno, max); return -1; }
        int v = kg_verdict_parse(f[2]);
        if (v < 0) { snprintf(err, errlen, "line %d: unknown verdict \"%.20s\"", lineno, f[2]); return -1; }
        for (int k = 0; k < n; k++)
            if (!strcmp(out[k].file, f[0])) { snprintf(err, errlen, "line %d: %.100s is labeled twice", lineno, f[0]); return -1; }
        snprintf(out[n].file, sizeof out[n].file, "%.255s", f[0]);
        snprintf(out[n].problem, sizeof out[n].problem, "%.127s", f[1]);
        out[n].expected = v;
        snprintf(out[n].defect, sizeof out[n].defect, "%.255s", nf > 3 ? f[3] : "");
        n++;
    }
    return n;
}
