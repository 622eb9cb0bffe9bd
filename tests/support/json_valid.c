/* json_valid.c: recursive-descent JSON validator (no values are built). */
#include "json_valid.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *s;
    size_t n, i;
    int depth;
    char *err;
    size_t errlen;
} jp;

static int fail(jp *p, const char *what)
{
    snprintf(p->err, p->errlen, "%s at byte %zu", what, p->i);
    return 0;
}

static void ws(jp *p)
{
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
                           p->s[p->i] == '\r'))
        p->i++;
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int string(jp *p)
{
    p->i++; /* opening quote */
    while (p->i < p->n) {
        unsigned char c = (unsigned char)p->s[p->i];
        if (c == '"') { p->i++; return 1; }
        if (c < 0x20) return fail(p, "control character in string");
        if (c == '\\') {
            p->i++;
            if (p->i >= p->n) break;
            char e = p->s[p->i];
            if (e == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (p->i + k >= p->n || !is_hex(p->s[p->i + k])) return fail(p, "bad \\u escape");
                p->i += 4;
            } else if (!strchr("\"\\/bfnrt", e)) {
                return fail(p, "bad escape");
            }
        }
        p->i++;
    }
    return fail(p, "unterminated string");
}

static int digits(jp *p)
{
    size_t start = p->i;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
    return p->i > start;
}

static int number(jp *p)
{
    if (p->s[p->i] == '-') p->i++;
    if (p->i < p->n && p->s[p->i] == '0') p->i++;
    else if (!digits(p)) return fail(p, "bad number");
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        if (!digits(p)) return fail(p, "bad fraction");
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
        if (!digits(p)) return fail(p, "bad exponent");
    }
    return 1;
}

static int literal(jp *p, const char *word)
{
    size_t l = strlen(word);
    if (p->n - p->i < l || strncmp(p->s + p->i, word, l) != 0) return fail(p, "unexpected token");
    p->i += l;
    return 1;
}

static int value(jp *p);

static int container(jp *p, char close, int is_object)
{
    if (++p->depth > 256) return fail(p, "nesting too deep");
    p->i++;
    ws(p);
    if (p->i < p->n && p->s[p->i] == close) { p->i++; p->depth--; return 1; }
    for (;;) {
        ws(p);
        if (is_object) {
            if (p->i >= p->n || p->s[p->i] != '"') return fail(p, "expected a key");
            if (!string(p)) return 0;
            ws(p);
            if (p->i >= p->n || p->s[p->i] != ':') return fail(p, "expected ':'");
            p->i++;
        }
        if (!value(p)) return 0;
        ws(p);
        if (p->i >= p->n) return fail(p, "unterminated container");
        if (p->s[p->i] == ',') { p->i++; continue; }
        if (p->s[p->i] == close) { p->i++; p->depth--; return 1; }
        return fail(p, "expected ',' or end of container");
    }
}

static int value(jp *p)
{
    ws(p);
    if (p->i >= p->n) return fail(p, "unexpected end");
    char c = p->s[p->i];
    if (c == '{') return container(p, '}', 1);
    if (c == '[') return container(p, ']', 0);
    if (c == '"') return string(p);
    if (c == '-' || (c >= '0' && c <= '9')) return number(p);
    if (c == 't') return literal(p, "true");
    if (c == 'f') return literal(p, "false");
    if (c == 'n') return literal(p, "null");
    return fail(p, "unexpected character");
}

int json_valid(const char *text, size_t len, char *err, size_t errlen)
{
    jp p = {text, len, 0, 0, err, errlen};
    if (errlen) err[0] = '\0';
    if (!value(&p)) return 0;
    ws(&p);
    if (p.i != p.n) return fail(&p, "trailing characters");
    return 1;
}

int json_lines_valid(const char *text, size_t len, char *err, size_t errlen)
{
    size_t start = 0, line = 1, docs = 0;
    while (start < len) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        int blank = 1;
        for (size_t k = start; k < end; k++)
            if (text[k] != ' ' && text[k] != '\t' && text[k] != '\r') blank = 0;
        if (!blank) {
            char sub[200];
            if (!json_valid(text + start, end - start, sub, sizeof sub)) {
                snprintf(err, errlen, "line %zu: %s", line, sub);
                return 0;
            }
            docs++;
        }
        start = end + 1;
        line++;
    }
    if (docs == 0) {
        snprintf(err, errlen, "no JSON lines");
        return 0;
    }
    return 1;
}
