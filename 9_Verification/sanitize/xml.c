/* xml.c: see xml.h. A recursive-descent reader with a depth limit; every
 * read goes through peek()/at_end() so a truncated document stops with a
 * message at the point where it ends. Every step is linear in the input
 * (children and buffers grow geometrically, attributes are capped, text is
 * copied in runs), the elements held at once are capped, and the clock is
 * read every few thousand steps against the caller's deadline. */
#define _POSIX_C_SOURCE 200809L
#include "xml.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const char *s;
    size_t len, pos;
    char *err;
    size_t errlen;
    int failed;
    size_t nodes, max_nodes; /* elements held now, and the cap */
    double deadline;
    unsigned ticks;
    /* streaming: children of the root go to fn and are freed */
    xml_child_fn fn;
    void *ctx;
} xml_parser;

typedef struct {
    char *p;
    size_t n, cap;
} sbuf;

static int sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap < b->n + n + 1) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) return -1;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 0;
}

static char *sb_take(sbuf *b)
{
    if (!b->p) {
        char *e = malloc(1);
        if (e) e[0] = '\0';
        return e;
    }
    char *p = b->p;
    b->p = NULL;
    b->n = b->cap = 0;
    return p;
}

static void fail(xml_parser *x, const char *fmt, ...)
{
    if (x->failed) return;
    x->failed = 1;
    int line = 1, col = 1;
    for (size_t i = 0; i < x->pos && i < x->len; i++) {
        if (x->s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* anything that fails at the very end of the input is a cut-off document */
    int cut = x->pos >= x->len && x->len > 0 && !strstr(msg, "truncated");
    if (x->err && x->errlen)
        snprintf(x->err, x->errlen, "line %d, column %d: %s%s", line, col, msg,
                 cut ? " (document truncated?)" : "");
}

static double mono_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Called once per loop step: every 4096 steps, the deadline. */
static int over_time(xml_parser *x)
{
    if (x->deadline <= 0 || (++x->ticks & 4095)) return 0;
    if (mono_now() <= x->deadline) return 0;
    fail(x, "reading stopped: the run's time limit was reached");
    return 1;
}

static int at_end(const xml_parser *x) { return x->pos >= x->len; }
static int peek(const xml_parser *x) { return at_end(x) ? -1 : (unsigned char)x->s[x->pos]; }
static int starts(const xml_parser *x, const char *lit)
{
    size_t n = strlen(lit);
    return x->len - x->pos >= n && memcmp(x->s + x->pos, lit, n) == 0;
}
static void skip_ws(xml_parser *x)
{
    while (!at_end(x) && strchr(" \t\r\n", x->s[x->pos])) x->pos++;
}
static int name_start(int c) { return c == '_' || c == ':' || isalpha(c) || c >= 0x80; }
static int name_char(int c) { return name_start(c) || c == '-' || c == '.' || isdigit(c); }

static char *read_name(xml_parser *x)
{
    if (at_end(x)) {
        fail(x, "document ends where a name was expected");
        return NULL;
    }
    if (!name_start(peek(x))) {
        fail(x, "expected a name, found '%c'", peek(x));
        return NULL;
    }
    size_t b = x->pos;
    while (!at_end(x) && name_char(peek(x))) x->pos++;
    char *n = malloc(x->pos - b + 1);
    if (!n) {
        fail(x, "out of memory");
        return NULL;
    }
    memcpy(n, x->s + b, x->pos - b);
    n[x->pos - b] = '\0';
    return n;
}

static void put_utf8(sbuf *b, unsigned long cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    sb_put(b, u, n);
}

/* At '&': decode one reference into b. */
static int read_entity(xml_parser *x, sbuf *b)
{
    size_t start = x->pos++;
    size_t semi = x->pos;
    while (semi < x->len && semi - start < 12 && x->s[semi] != ';') semi++;
    if (semi >= x->len) {
        x->pos = start;
        fail(x, "document ends inside an entity reference");
        return -1;
    }
    if (x->s[semi] != ';') {
        x->pos = start;
        fail(x, "'&' not followed by an entity reference ending in ';'");
        return -1;
    }
    const char *e = x->s + x->pos;
    size_t n = semi - x->pos;
    static const struct { const char *name; char c; } named[] = {
        {"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        if (strlen(named[i].name) == n && memcmp(e, named[i].name, n) == 0) {
            sb_put(b, &named[i].c, 1);
            x->pos = semi + 1;
            return 0;
        }
    }
    if (n >= 2 && e[0] == '#') {
        int hex = e[1] == 'x';
        size_t i = hex ? 2 : 1;
        unsigned long cp = 0;
        if (i >= n) goto bad;
        for (; i < n; i++) {
            int c = (unsigned char)e[i];
            int d = isdigit(c) ? c - '0' : (hex && isxdigit(c)) ? (tolower(c) - 'a' + 10) : -1;
            if (d < 0) goto bad;
            cp = cp * (hex ? 16 : 10) + (unsigned long)d;
            if (cp > 0x10FFFF) goto bad;
        }
        if (cp == 0) goto bad;
        put_utf8(b, cp);
        x->pos = semi + 1;
        return 0;
    }
bad:
    x->pos = start;
    fail(x, "unknown or invalid entity '&%.*s;'", (int)n, e);
    return -1;
}

/* Skip a comment, PI or DOCTYPE at the cursor. Returns 1 if one was skipped,
 * 0 if none is here, -1 on error. */
static int skip_misc(xml_parser *x)
{
    if (starts(x, "<!--")) {
        size_t b = x->pos;
        x->pos += 4;
        while (!at_end(x) && !starts(x, "-->")) x->pos++;
        if (at_end(x)) {
            x->pos = b;
            fail(x, "comment is not closed (document truncated?)");
            return -1;
        }
        x->pos += 3;
        return 1;
    }
    if (starts(x, "<?")) {
        size_t b = x->pos;
        x->pos += 2;
        while (!at_end(x) && !starts(x, "?>")) x->pos++;
        if (at_end(x)) {
            x->pos = b;
            fail(x, "processing instruction is not closed (document truncated?)");
            return -1;
        }
        x->pos += 2;
        return 1;
    }
    if (starts(x, "<!DOCTYPE")) {
        size_t b = x->pos;
        while (!at_end(x) && peek(x) != '>') {
            if (peek(x) == '[') {
                fail(x, "DOCTYPE with an internal subset is not supported");
                return -1;
            }
            x->pos++;
        }
        if (at_end(x)) {
            x->pos = b;
            fail(x, "DOCTYPE is not closed (document truncated?)");
            return -1;
        }
        x->pos++;
        return 1;
    }
    return 0;
}

static void free_node(xml_node *n)
{
    if (!n) return;
    for (int i = 0; i < n->n_kids; i++) free_node(n->kids[i]);
    for (int i = 0; i < n->n_attrs; i++) {
        free(n->attrs[i].name);
        free(n->attrs[i].value);
    }
    free(n->kids);
    free(n->attrs);
    free(n->name);
    free(n->text);
    free(n);
}

static char *trim_dup(const char *s)
{
    if (!s) s = "";
    while (*s && strchr(" \t\r\n", *s)) s++;
    size_t n = strlen(s);
    while (n && strchr(" \t\r\n", s[n - 1])) n--;
    char *r = malloc(n + 1);
    if (r) {
        memcpy(r, s, n);
        r[n] = '\0';
    }
    return r;
}

/* At '<' of a start tag. */
static xml_node *read_element(xml_parser *x, xml_node *parent, int depth)
{
    if (depth > XML_MAX_DEPTH) {
        fail(x, "elements nested deeper than %d", XML_MAX_DEPTH);
        return NULL;
    }
    size_t tag_pos = x->pos;
    x->pos++; /* '<' */
    xml_node *n = calloc(1, sizeof *n);
    if (!n) {
        fail(x, "out of memory");
        return NULL;
    }
    n->parent = parent;
    if (++x->nodes > x->max_nodes) {
        fail(x, "more than %zu elements in one %s", x->max_nodes,
             x->fn ? "child of the root" : "document");
        free(n);
        return NULL;
    }
    if (over_time(x)) {
        free(n);
        return NULL;
    }
    sbuf text = {0};
    int kids_cap = 0;
    n->name = read_name(x);
    if (!n->name) goto error;
    /* attributes */
    for (;;) {
        skip_ws(x);
        if (at_end(x)) {
            fail(x, "document ends inside the start tag <%s>", n->name);
            goto error;
        }
        if (starts(x, "/>")) {
            x->pos += 2;
            n->text = trim_dup("");
            return n;
        }
        if (peek(x) == '>') {
            x->pos++;
            break;
        }
        if (n->n_attrs >= XML_MAX_ATTRS) {
            fail(x, "more than %d attributes in <%s>", XML_MAX_ATTRS, n->name);
            goto error;
        }
        char *an = read_name(x);
        if (!an) goto error;
        for (int i = 0; i < n->n_attrs; i++) {
            if (!strcmp(n->attrs[i].name, an)) {
                fail(x, "attribute '%s' repeated in <%s>", an, n->name);
                free(an);
                goto error;
            }
        }
        if (!n->attrs) {
            n->attrs = malloc(XML_MAX_ATTRS * sizeof *n->attrs);
            if (!n->attrs) {
                free(an);
                fail(x, "out of memory");
                goto error;
            }
        }
        n->attrs[n->n_attrs].name = an;
        n->attrs[n->n_attrs].value = NULL;
        n->n_attrs++;
        skip_ws(x);
        if (peek(x) != '=') {
            fail(x, at_end(x) ? "document ends inside the start tag <%s>"
                              : "expected '=' after an attribute name in <%s>", n->name);
            goto error;
        }
        x->pos++;
        skip_ws(x);
        int q = peek(x);
        if (q != '"' && q != '\'') {
            fail(x, at_end(x) ? "document ends inside the start tag <%s>"
                              : "attribute value in <%s> must be quoted", n->name);
            goto error;
        }
        x->pos++;
        sbuf v = {0};
        while (!at_end(x) && peek(x) != q) {
            if (over_time(x)) {
                free(v.p);
                goto error;
            }
            if (peek(x) == '<') {
                fail(x, "'<' inside an attribute value");
                free(v.p);
                goto error;
            }
            if (peek(x) == '&') {
                if (read_entity(x, &v)) {
                    free(v.p);
                    goto error;
                }
                continue;
            }
            size_t b = x->pos;
            while (!at_end(x) && peek(x) != q && peek(x) != '<' && peek(x) != '&') x->pos++;
            if (sb_put(&v, x->s + b, x->pos - b)) {
                free(v.p);
                fail(x, "out of memory");
                goto error;
            }
        }
        if (at_end(x)) {
            free(v.p);
            fail(x, "document ends inside an attribute value of <%s>", n->name);
            goto error;
        }
        x->pos++;
        n->attrs[n->n_attrs - 1].value = sb_take(&v);
    }
    /* content */
    for (;;) {
        if (over_time(x)) goto error;
        if (at_end(x)) {
            x->pos = tag_pos;
            fail(x, "element <%s> is not closed (document truncated?)", n->name);
            goto error;
        }
        if (starts(x, "</")) {
            x->pos += 2;
            char *cn = read_name(x);
            if (!cn) goto error;
            if (at_end(x)) {
                fail(x, "document ends inside the closing tag </%s", cn);
                free(cn);
                goto error;
            }
            int same = !strcmp(cn, n->name);
            if (!same) {
                fail(x, "closing tag </%s> does not match <%s>", cn, n->name);
                free(cn);
                goto error;
            }
            free(cn);
            skip_ws(x);
            if (peek(x) != '>') {
                fail(x, at_end(x) ? "document ends inside the closing tag </%s>"
                                  : "expected '>' to end the closing tag </%s>", n->name);
                goto error;
            }
            x->pos++;
            n->text = trim_dup(text.p);
            free(text.p);
            return n;
        }
        if (starts(x, "<![CDATA[")) {
            size_t b = x->pos;
            x->pos += 9;
            size_t s0 = x->pos;
            while (!at_end(x) && !starts(x, "]]>")) x->pos++;
            if (at_end(x)) {
                x->pos = b;
                fail(x, "CDATA section is not closed (document truncated?)");
                goto error;
            }
            if (!(x->fn && depth == 0) && sb_put(&text, x->s + s0, x->pos - s0)) {
                fail(x, "out of memory");
                goto error;
            }
            x->pos += 3;
            continue;
        }
        int m = skip_misc(x);
        if (m < 0) goto error;
        if (m > 0) continue;
        if (peek(x) == '<') {
            size_t held = x->nodes;
            xml_node *k = read_element(x, n, depth + 1);
            if (!k) goto error;
            if (x->fn && depth == 0) {
                /* streaming: hand the root's child over, then let it go */
                int rc = x->fn(n, k, x->ctx, x->err, x->errlen);
                free_node(k);
                x->nodes = held;
                if (rc) {
                    x->failed = 1; /* the callback wrote the message */
                    goto error;
                }
                continue;
            }
            if (n->n_kids == kids_cap) {
                int cap = kids_cap ? 2 * kids_cap : 4;
                xml_node **nk = realloc(n->kids, (size_t)cap * sizeof *nk);
                if (!nk) {
                    free_node(k);
                    fail(x, "out of memory");
                    goto error;
                }
                n->kids = nk;
                kids_cap = cap;
            }
            n->kids[n->n_kids++] = k;
            continue;
        }
        if (peek(x) == '&') {
            sbuf scratch = {0};
            int rc = read_entity(x, x->fn && depth == 0 ? &scratch : &text);
            free(scratch.p);
            if (rc) goto error;
            continue;
        }
        size_t b = x->pos;
        while (!at_end(x) && peek(x) != '<' && peek(x) != '&') x->pos++;
        if (!(x->fn && depth == 0) && sb_put(&text, x->s + b, x->pos - b)) {
            fail(x, "out of memory");
            goto error;
        }
    }
error:
    free(text.p);
    free_node(n);
    return NULL;
}

static xml_node *parse(xml_parser *x)
{
    const char *text = x->s;
    size_t len = x->len;
    if (x->err && x->errlen) x->err[0] = '\0';
    if (!text) {
        fail(x, "no input");
        return NULL;
    }
    if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF)
        x->pos = 3; /* UTF-8 byte order mark */
    if (memchr(text, '\0', len)) {
        fail(x, "document contains a NUL byte (not text)");
        return NULL;
    }
    xml_node *root = NULL;
    for (;;) {
        skip_ws(x);
        if (at_end(x)) break;
        int m = skip_misc(x);
        if (m < 0) goto error;
        if (m > 0) continue;
        if (peek(x) != '<') {
            fail(x, "text outside the root element");
            goto error;
        }
        if (root) {
            fail(x, "a second root element after </%s>", root->name);
            goto error;
        }
        root = read_element(x, NULL, 0);
        if (!root) goto error;
    }
    if (!root) {
        fail(x, len == 0 ? "empty document" : "no root element (document truncated?)");
        return NULL;
    }
    return root;
error:
    free_node(root);
    return NULL;
}

static void init_parser(xml_parser *x, const char *text, size_t len, const xml_limits *lim,
                        char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    x->s = text;
    x->len = len;
    x->err = err;
    x->errlen = errlen;
    x->max_nodes = lim && lim->max_nodes ? lim->max_nodes : XML_DEFAULT_MAX_NODES;
    x->deadline = lim ? lim->deadline : 0;
}

xml_node *xml_parse_limited(const char *text, size_t len, const xml_limits *lim, char *err,
                            size_t errlen)
{
    xml_parser x;
    init_parser(&x, text, len, lim, err, errlen);
    return parse(&x);
}

xml_node *xml_parse(const char *text, size_t len, char *err, size_t errlen)
{
    return xml_parse_limited(text, len, NULL, err, errlen);
}

int xml_parse_stream(const char *text, size_t len, const xml_limits *lim, xml_child_fn fn,
                     void *ctx, char *root_name, size_t root_len, char *err, size_t errlen)
{
    xml_parser x;
    init_parser(&x, text, len, lim, err, errlen);
    x.fn = fn;
    x.ctx = ctx;
    if (root_name && root_len) root_name[0] = '\0';
    xml_node *root = parse(&x);
    if (!root) return -1;
    if (root_name && root_len) snprintf(root_name, root_len, "%s", root->name);
    free_node(root);
    return 0;
}

int xml_read_file(const char *path, size_t max_bytes, char **text, size_t *len, char *err,
                  size_t errlen)
{
    *text = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open (%s)", path,
                 errno == ELOOP ? "a symbolic link" : strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(err, errlen, "%s: not a regular file", path);
        return -1;
    }
    if ((unsigned long long)st.st_size > max_bytes) {
        close(fd);
        snprintf(err, errlen, "%s: %lld bytes, larger than %zu (see --max-report)", path,
                 (long long)st.st_size, max_bytes);
        return -1;
    }
    /* read at most max_bytes + 1, so a file that grows meanwhile is seen */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *b = malloc(cap + 1);
    if (!b) {
        close(fd);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    for (;;) {
        if (n == cap) {
            if (cap > max_bytes) break;
            size_t nc = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            char *nb = realloc(b, nc + 1);
            if (!nb) {
                free(b);
                close(fd);
                snprintf(err, errlen, "%s: out of memory", path);
                return -1;
            }
            b = nb;
            cap = nc;
        }
        ssize_t got = read(fd, b + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            free(b);
            close(fd);
            snprintf(err, errlen, "%s: read error (%s)", path, strerror(errno));
            return -1;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    close(fd);
    if (n > max_bytes) {
        free(b);
        snprintf(err, errlen, "%s: larger than %zu bytes (see --max-report)", path, max_bytes);
        return -1;
    }
    b[n] = '\0';
    *text = b;
    *len = n;
    return 0;
}

xml_node *xml_parse_file(const char *path, char *err, size_t errlen)
{
    char *text;
    size_t len;
    if (xml_read_file(path, (size_t)64 << 20, &text, &len, err, errlen)) return NULL;
    char e[240];
    xml_node *r = xml_parse(text, len, e, sizeof e);
    free(text);
    if (!r) snprintf(err, errlen, "%s: %s", path, e);
    return r;
}

void xml_free(xml_node *root) { free_node(root); }

const xml_node *xml_child(const xml_node *n, const char *name)
{
    if (!n) return NULL;
    for (int i = 0; i < n->n_kids; i++)
        if (!strcmp(n->kids[i]->name, name)) return n->kids[i];
    return NULL;
}

const char *xml_child_text(const xml_node *n, const char *name)
{
    const xml_node *c = xml_child(n, name);
    return c ? c->text : NULL;
}

const char *xml_attr_get(const xml_node *n, const char *name)
{
    if (!n) return NULL;
    for (int i = 0; i < n->n_attrs; i++)
        if (!strcmp(n->attrs[i].name, name)) return n->attrs[i].value;
    return NULL;
}

const xml_node *xml_find(const xml_node *n, const char *name)
{
    if (!n) return NULL;
    if (!strcmp(n->name, name)) return n;
    for (int i = 0; i < n->n_kids; i++) {
        const xml_node *r = xml_find(n->kids[i], name);
        if (r) return r;
    }
    return NULL;
}
