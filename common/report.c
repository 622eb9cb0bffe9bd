/* report.c: one formatter for RESULT lines and JSON records. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *g_sample = "sample";
static int g_json = 0;
static int g_failures = 0;

void report_init(const char *sample, int json)
{
    g_sample = sample;
    g_json = json;
    g_failures = 0;
}

int report_json(void) { return g_json; }

static void add_field(result_rec *r, const char *key, const char *val, rec_type type)
{
    if (r->n >= REC_MAX_FIELDS) {
        fprintf(stderr, "report: too many fields in one record (dropping %s)\n", key);
        return;
    }
    snprintf(r->f[r->n].key, REC_KEY_LEN, "%s", key);
    snprintf(r->f[r->n].val, REC_VAL_LEN, "%s", val);
    r->f[r->n].type = type;
    r->n++;
}

void rec_begin(result_rec *r, const char *variant)
{
    r->n = 0;
    add_field(r, "sample", g_sample, REC_STR);
    add_field(r, "variant", variant, REC_STR);
}

void rec_int(result_rec *r, const char *key, long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    add_field(r, key, b, REC_NUM);
}

void rec_format_number(double v, char *buf, size_t len)
{
    if (isnan(v)) { snprintf(buf, len, "nan"); return; }
    if (isinf(v)) { snprintf(buf, len, v > 0 ? "inf" : "-inf"); return; }
    if (v == 0) { snprintf(buf, len, "0"); return; }
    int mag = (int)floor(log10(fabs(v)));
    int decimals = 3 - mag;
    if (decimals < 0) decimals = 0;
    if (decimals > 9) decimals = 9;
    snprintf(buf, len, "%.*f", decimals, v);
    if (strchr(buf, '.')) {
        char *e = buf + strlen(buf) - 1;
        while (*e == '0') *e-- = '\0';
        if (*e == '.') *e = '\0';
    }
    if (strcmp(buf, "-0") == 0) snprintf(buf, len, "0");
}

void rec_num(result_rec *r, const char *key, double v)
{
    char b[64];
    rec_format_number(v, b, sizeof b);
    add_field(r, key, b, (isnan(v) || isinf(v)) ? REC_NULL : REC_NUM);
}

void rec_str(result_rec *r, const char *key, const char *v)
{
    add_field(r, key, v ? v : "", REC_STR);
}

void rec_perf(result_rec *r, double time_ms, const char *unit, double value, double peak,
              const char *ref, double ref_value)
{
    rec_num(r, "time_ms", time_ms);
    rec_num(r, unit, value);
    if (peak > 0) rec_num(r, "pct_peak", 100.0 * value / peak);
    if (ref && ref_value > 0) {
        rec_str(r, "ref", ref);
        rec_num(r, "pct_ref", 100.0 * value / ref_value);
    }
}

/* Append helpers that track remaining space; any overflow poisons the result. */
typedef struct {
    char *p;
    size_t left;
    int overflow;
} outbuf;

static void put(outbuf *o, const char *s, size_t n)
{
    if (o->overflow || n >= o->left) {
        o->overflow = 1;
        return;
    }
    memcpy(o->p, s, n);
    o->p += n;
    o->left -= n;
    *o->p = '\0';
}

static void puts_(outbuf *o, const char *s) { put(o, s, strlen(s)); }

static int needs_quotes(const char *s)
{
    if (*s == '\0') return 1;
    for (; *s; s++)
        if (*s == ' ' || *s == '"' || *s == '=' || *s == '\\' || (unsigned char)*s < 0x20)
            return 1;
    return 0;
}

/* JSON string escaping (also used for quoted text values). */
static void put_escaped(outbuf *o, const char *s)
{
    puts_(o, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char e[8];
        if (c == '"') puts_(o, "\\\"");
        else if (c == '\\') puts_(o, "\\\\");
        else if (c == '\n') puts_(o, "\\n");
        else if (c == '\t') puts_(o, "\\t");
        else if (c < 0x20) {
            snprintf(e, sizeof e, "\\u%04x", c);
            puts_(o, e);
        } else put(o, (const char *)&c, 1);
    }
    puts_(o, "\"");
}

int rec_format_text(const result_rec *r, char *buf, size_t len)
{
    if (len == 0) return -1;
    outbuf o = {buf, len, 0};
    buf[0] = '\0';
    puts_(&o, "RESULT");
    for (int i = 0; i < r->n; i++) {
        puts_(&o, " ");
        puts_(&o, r->f[i].key);
        puts_(&o, "=");
        if (r->f[i].type == REC_STR && needs_quotes(r->f[i].val)) put_escaped(&o, r->f[i].val);
        else puts_(&o, r->f[i].val);
    }
    return o.overflow ? -1 : (int)(o.p - buf);
}

int rec_format_json(const result_rec *r, char *buf, size_t len)
{
    if (len == 0) return -1;
    outbuf o = {buf, len, 0};
    buf[0] = '\0';
    puts_(&o, "{");
    for (int i = 0; i < r->n; i++) {
        if (i) puts_(&o, ",");
        put_escaped(&o, r->f[i].key);
        puts_(&o, ":");
        switch (r->f[i].type) {
        case REC_STR: put_escaped(&o, r->f[i].val); break;
        case REC_NUM: puts_(&o, r->f[i].val); break;
        case REC_NULL: puts_(&o, "null"); break;
        }
    }
    puts_(&o, "}");
    return o.overflow ? -1 : (int)(o.p - buf);
}

void rec_emit(const result_rec *r)
{
    char line[REC_MAX_FIELDS * (REC_KEY_LEN + 2 * REC_VAL_LEN + 8) + 16];
    int n = g_json ? rec_format_json(r, line, sizeof line) : rec_format_text(r, line, sizeof line);
    if (n < 0) {
        fprintf(stderr, "report: record too long\n");
        g_failures++;
        return;
    }
    printf("%s\n", line);
    fflush(stdout);
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->f[i].key, "status") == 0 && strcmp(r->f[i].val, "FAIL") == 0) g_failures++;
}

void report_note(const char *fmt, ...)
{
    FILE *f = g_json ? stderr : stdout;
    va_list ap;
    va_start(ap, fmt);
    fputs("# ", f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
    fflush(f);
}

void report_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: FAIL: ", g_sample);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    g_failures++;
}

int report_finish(void)
{
    const char *status = g_failures ? "FAIL" : "PASS";
    fflush(stderr);
    if (g_json) printf("{\"sample\":\"%s\",\"status\":\"%s\"}\n", g_sample, status);
    else printf("%s: %s\n", g_sample, status);
    fflush(stdout);
    return g_failures ? 1 : 0;
}
