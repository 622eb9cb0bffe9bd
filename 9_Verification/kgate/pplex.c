/* pplex.c: a candidate's text read as the compilers' preprocessors read it
 * (pplex.h).
 *
 * First the logical characters (translation phases 1 and 2): line endings
 * (\n, \r\n, and a lone \r, which gcc and clang both end a line with),
 * trigraphs when asked (??= is #, ??/ a backslash ...), and splices (a
 * backslash, then blanks, then a newline: gcc and clang accept the blanks).
 * Every logical character keeps its offset and physical line in the source.
 * Then the preprocessing tokens (phase 3), as gcc and clang cut them:
 *   - comments: // to the end of the line, / * to * /, each one space;
 *   - string and character literals, with their prefixes (L u U u8), to the
 *     closing quote or the end of the line;
 *   - raw strings R"d(...)d" (also LR uR UR u8R): read from the source as
 *     written, since phases 1 and 2 are reverted inside them; both
 *     compilers read them in skipped #if blocks too;
 *   - pp-numbers with digit separators: 1'000 is one number, its quote does
 *     not open a character literal;
 *   - header names in #include: <...> and "..." verbatim (no comments,
 *     no escapes inside);
 *   - a directive is a # or %: that is the first token of a line (comments
 *     before it count as blanks); it ends at the first newline outside a
 *     comment.
 * Raw strings that gcc and clang would read differently, or that are
 * spelled with a splice or a trigraph, are reported as an error: the gate
 * refuses to guess.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pplex.h"

/* ---- phases 1 and 2: logical characters ------------------------------------ */

typedef struct {
    char *c;         /* the characters; '\n' for every line end */
    size_t *off;     /* each one's offset in the source (its first byte) */
    int *line;       /* and its physical line */
    size_t n;
} lstream;

/* Length of a line end at s[i] (\r\n: 2, \n or a lone \r: 1), 0 if none. */
static size_t newline_at(const char *s, size_t i)
{
    if (s[i] == '\n') return 1;
    if (s[i] == '\r') return s[i + 1] == '\n' ? 2 : 1;
    return 0;
}

static int logical_chars(const char *src, int trigraphs, lstream *L, int *n_lines)
{
    size_t n = strlen(src);
    L->c = malloc(n + 1);
    L->off = malloc((n + 1) * sizeof *L->off);
    L->line = malloc((n + 1) * sizeof *L->line);
    L->n = 0;
    if (!L->c || !L->off || !L->line) return -1;
    int line = 1;
    for (size_t i = 0; i < n;) {
        size_t nl = newline_at(src, i);
        if (nl) {
            L->c[L->n] = '\n'; L->off[L->n] = i; L->line[L->n++] = line;
            line++;
            i += nl;
            continue;
        }
        char ch = src[i];
        size_t len = 1;
        if (trigraphs && ch == '?' && src[i + 1] == '?' && src[i + 2]) {
            static const char from[] = "=/'()!<>-", to[] = "#\\^[]|{}~";
            const char *f = strchr(from, src[i + 2]);
            if (f) { ch = to[f - from]; len = 3; }
        }
        if (ch == '\\') {
            /* a splice: backslash, blanks, newline */
            size_t j = i + len;
            while (src[j] == ' ' || src[j] == '\t' || src[j] == '\v' || src[j] == '\f') j++;
            size_t snl = newline_at(src, j);
            if (snl) {
                line++;
                i = j + snl;
                continue;
            }
        }
        L->c[L->n] = ch; L->off[L->n] = i; L->line[L->n++] = line;
        i += len;
    }
    L->c[L->n] = 0;
    L->off[L->n] = n;
    L->line[L->n] = line;
    *n_lines = line;
    return 0;
}

/* ---- phase 3: tokens and directives -------------------------------------- */

typedef struct {
    const char *src;
    lstream L;
    pp_text *t;
    size_t cap_sig;
    int cap_tok, cap_dir;
    int oom;
} lexer;

static void set_error(lexer *x, int line, const char *msg)
{
    if (x->t->error[0]) return;
    x->t->error_line = line;
    snprintf(x->t->error, sizeof x->t->error, "%s", msg);
}

/* Append one token (kind letter or spelling) to the signature. */
static void emit(lexer *x, const char *s, size_t len, int line)
{
    pp_text *t = x->t;
    if (x->oom) return;
    if (t->sig_len + len + 2 > x->cap_sig) {
        size_t cap = x->cap_sig ? x->cap_sig : 4096;
        while (t->sig_len + len + 2 > cap) cap *= 2;
        char *ns = realloc(t->sig, cap);
        if (!ns) { x->oom = 1; return; }
        t->sig = ns;
        x->cap_sig = cap;
    }
    if (t->n_tok == x->cap_tok) {
        int cap = x->cap_tok ? 2 * x->cap_tok : 1024;
        int *nl = realloc(t->sig_line, (size_t)cap * sizeof *nl);
        if (!nl) { x->oom = 1; return; }
        t->sig_line = nl;
        x->cap_tok = cap;
    }
    memcpy(t->sig + t->sig_len, s, len);
    t->sig_len += len;
    t->sig[t->sig_len++] = '\x01';
    t->sig[t->sig_len] = 0;
    t->sig_line[t->n_tok++] = line;
}

/* Append to the current directive's text. */
static void dir_text(pp_directive *d, const char *s, size_t len)
{
    if (!d) return;
    size_t o = strlen(d->text);
    if (o && o + 1 < sizeof d->text && d->text[o - 1] != ' ') d->text[o++] = ' ';
    for (size_t i = 0; i < len && o + 1 < sizeof d->text; i++) d->text[o++] = s[i];
    d->text[o] = 0;
}

static int is_ident(unsigned char c, int first)
{
    return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 ||
           (!first && c >= '0' && c <= '9');
}

/* A raw string whose opening quote is logical character q (its prefix just
 * before it). Returns the logical index just past it, or 0 after an error. */
static size_t raw_string(lexer *x, size_t prefix_at, size_t q, int in_directive)
{
    const lstream *L = &x->L;
    const char *s = x->src;
    size_t o = L->off[q], p = o + 1;
    int line = L->line[prefix_at];
    /* the prefix and the opening quote as written, without splices or trigraphs */
    for (size_t k = prefix_at; k < q; k++)
        if (L->off[k + 1] != L->off[k] + 1) {
            set_error(x, line, "a raw string literal spelled with a splice or a trigraph in its prefix");
            return 0;
        }
    char delim[17];
    size_t dl = 0;
    while (s[p] && s[p] != '(') {
        char ch = s[p];
        if (dl == 16 || ch == ' ' || ch == ')' || ch == '\\' || ch == '"' || (unsigned char)ch < 0x20 || ch == 0x7f) {
            set_error(x, line, "a raw string literal with a delimiter the compilers refuse (more than 16 "
                               "characters, a blank, a backslash or a parenthesis)");
            return 0;
        }
        delim[dl++] = ch;
        p++;
    }
    if (!s[p]) {
        set_error(x, line, "an unterminated raw string literal");
        return 0;
    }
    delim[dl] = 0;
    p++;
    /* the closing )delim" in the text as written */
    int spans = 0;
    for (;; p++) {
        if (!s[p]) {
            set_error(x, line, "an unterminated raw string literal");
            return 0;
        }
        if (newline_at(s, p)) spans = 1;
        if (s[p] == ')' && !strncmp(s + p + 1, delim, dl) && s[p + 1 + dl] == '"') break;
    }
    if (spans && in_directive) {
        set_error(x, line, "a raw string literal that spans lines inside a directive (gcc ends the "
                           "directive at the line's end, clang does not)");
        return 0;
    }
    size_t end = p + dl + 2;   /* just past the closing quote */
    size_t k = q;
    while (k < L->n && L->off[k] < end) k++;
    return k;
}

/* A quoted literal from logical index i (at the quote): to the closing
 * quote, escapes honoured, or to the end of the line. Returns the index
 * past it. */
static size_t quoted(const lstream *L, size_t i)
{
    char qch = L->c[i++];
    while (i < L->n && L->c[i] != '\n' && L->c[i] != qch) {
        if (L->c[i] == '\\' && i + 1 < L->n && L->c[i + 1] != '\n') i++;
        i++;
    }
    if (i < L->n && L->c[i] == qch) i++;
    return i;
}

/* Blanks and comments inside a line (a // comment runs to the line's end,
 * which is left for the caller). */
static size_t skip_blanks(const lstream *L, size_t i)
{
    for (;;) {
        char ch = L->c[i];
        if (ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f') { i++; continue; }
        if (ch == '/' && L->c[i + 1] == '*') {
            i += 2;
            while (i < L->n && !(L->c[i] == '*' && L->c[i + 1] == '/')) i++;
            if (i < L->n) i += 2;
            continue;
        }
        if (ch == '/' && L->c[i + 1] == '/') {
            while (i < L->n && L->c[i] != '\n') i++;
        }
        return i;
    }
}

static pp_directive *new_directive(lexer *x)
{
    pp_text *t = x->t;
    if (t->n_dir == x->cap_dir) {
        int cap = x->cap_dir ? 2 * x->cap_dir : 32;
        pp_directive *nd = realloc(t->dir, (size_t)cap * sizeof *nd);
        if (!nd) { x->oom = 1; return NULL; }
        t->dir = nd;
        x->cap_dir = cap;
    }
    pp_directive *d = &t->dir[t->n_dir++];
    memset(d, 0, sizeof *d);
    return d;
}

/* The start of a directive at logical index i (its # or %:, hash_len
 * characters): its name, and for an include its header name. Returns the
 * index where the rest of the directive's tokens start. */
static size_t directive_head(lexer *x, size_t i, size_t hash_len, pp_directive *d)
{
    const lstream *L = &x->L;
    d->start = L->off[i];
    d->line = d->last_line = L->line[i];
    i = skip_blanks(L, i + hash_len);
    size_t k = 0;
    if (L->c[i] >= '0' && L->c[i] <= '9') {
        d->line_marker = 1;
        while (L->c[i] >= '0' && L->c[i] <= '9' && k + 1 < sizeof d->name) d->name[k++] = L->c[i++];
    } else {
        while (i < L->n && is_ident((unsigned char)L->c[i], k == 0) && k + 1 < sizeof d->name) d->name[k++] = L->c[i++];
        while (i < L->n && is_ident((unsigned char)L->c[i], 0)) i++;
    }
    d->name[k] = 0;
    char tok[40];
    snprintf(tok, sizeof tok, "#%s", d->name);
    emit(x, tok, strlen(tok), d->line);
    if (strcmp(d->name, "include") && strcmp(d->name, "include_next") && strcmp(d->name, "import") &&
        strcmp(d->name, "embed"))
        return i;
    i = skip_blanks(L, i);
    char open = L->c[i];
    if (open != '<' && open != '"') return i;   /* computed: a macro names it */
    char close = open == '<' ? '>' : '"';
    size_t h = 0;
    for (i++; i < L->n && L->c[i] != '\n' && L->c[i] != close; i++)
        if (h + 1 < sizeof d->header) d->header[h++] = L->c[i];
    d->header[h] = 0;
    d->close = close;
    if (L->c[i] == close) i++;
    else d->header_unterminated = 1;
    emit(x, "H", 1, d->line);
    return i;
}

int pp_read(const char *src, int trigraphs, pp_text *out)
{
    memset(out, 0, sizeof *out);
    lexer x;
    memset(&x, 0, sizeof x);
    x.src = src;
    x.t = out;
    if (logical_chars(src, trigraphs, &x.L, &out->n_lines) != 0) goto oom;
    const lstream *L = &x.L;
    int bol = 1;
    pp_directive *d = NULL;   /* the directive being read */
    size_t i = 0;
    while (i < L->n && !x.oom) {
        char ch = L->c[i];
        int line = L->line[i];
        if (ch == '\n') {
            if (d) {
                size_t o = L->off[i];
                d->end = o + newline_at(src, o);
                d->last_line = line;
                emit(&x, "\n", 1, line);
                d = NULL;
            }
            bol = 1;
            i++;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f') { i++; continue; }
        if (ch == '/' && L->c[i + 1] == '/') {
            while (i < L->n && L->c[i] != '\n') i++;
            continue;
        }
        if (ch == '/' && L->c[i + 1] == '*') {
            i += 2;
            while (i < L->n && !(L->c[i] == '*' && L->c[i + 1] == '/')) i++;
            if (i < L->n) i += 2;
            if (d) dir_text(d, " ", 1);
            continue;
        }
        size_t start = i;
        /* a directive: # or %: first on its line (## and %:%: are not) */
        size_t hash = ch == '#' && L->c[i + 1] != '#' ? 1
                    : ch == '%' && L->c[i + 1] == ':' && !(L->c[i + 2] == '%' && L->c[i + 3] == ':') ? 2 : 0;
        if (hash && bol && !d) {
            d = new_directive(&x);
            if (!d) break;
            i = directive_head(&x, i, hash, d);
            bol = 0;
            continue;
        }
        bol = 0;
        char kind = 0;   /* 0: spelled in the signature; else the literal's kind */
        if (is_ident((unsigned char)ch, 1) || (ch == '\\' && (L->c[i + 1] == 'u' || L->c[i + 1] == 'U'))) {
            while (i < L->n && (is_ident((unsigned char)L->c[i], 0) ||
                                (L->c[i] == '\\' && (L->c[i + 1] == 'u' || L->c[i + 1] == 'U'))))
                i += L->c[i] == '\\' ? 2 : 1;
            size_t il = i - start;
            const char *id = L->c + start;
            int raw = L->c[i] == '"' && ((il == 1 && id[0] == 'R') ||
                      (il == 2 && id[1] == 'R' && strchr("LuU", id[0])) || (il == 3 && !strncmp(id, "u8R", 3)));
            int prefix = (L->c[i] == '"' || L->c[i] == '\'') &&
                         ((il == 1 && strchr("LuU", id[0])) || (il == 2 && !strncmp(id, "u8", 2)));
            if (raw) {
                size_t past = raw_string(&x, start, i, d != NULL);
                if (!past) break;
                i = past;
                kind = 'R';
            } else if (prefix) {
                kind = L->c[i] == '"' ? 'S' : 'C';
                i = quoted(L, i);
            }
        } else if ((ch >= '0' && ch <= '9') || (ch == '.' && L->c[i + 1] >= '0' && L->c[i + 1] <= '9')) {
            i++;
            while (i < L->n) {
                char c = L->c[i];
                if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && (L->c[i + 1] == '+' || L->c[i + 1] == '-')) i += 2;
                else if (c == '\'' && is_ident((unsigned char)L->c[i + 1], 0)) i += 2;   /* 1'000 */
                else if (is_ident((unsigned char)c, 0) || c == '.') i++;
                else break;
            }
        } else if (ch == '"' || ch == '\'') {
            kind = ch == '"' ? 'S' : 'C';
            i = quoted(L, i);
        } else {
            i++;
        }
        if (kind) emit(&x, &kind, 1, line);
        else emit(&x, L->c + start, i - start, line);
        if (d) {
            /* the directive's text keeps literals as written (from the source, where they are raw) */
            if (kind == 'R') dir_text(d, src + L->off[start], L->off[i - 1] - L->off[start] + 1);
            else dir_text(d, L->c + start, i - start);
        }
    }
    if (d && !out->error[0]) {
        d->end = strlen(src);
        d->last_line = L->line[L->n];
    }
    free(x.L.c);
    free(x.L.off);
    free(x.L.line);
    if (x.oom) goto oom_freed;
    return 0;
oom:
    free(x.L.c);
    free(x.L.off);
    free(x.L.line);
oom_freed:
    pp_free(out);
    return -1;
}

void pp_free(pp_text *t)
{
    if (!t) return;
    free(t->dir);
    free(t->sig);
    free(t->sig_line);
    memset(t, 0, sizeof *t);
}

int pp_first_difference(const pp_text *a, const pp_text *b)
{
    size_t i = 0;
    int tok = 0;
    while (i < a->sig_len && i < b->sig_len && a->sig[i] == b->sig[i]) {
        if (a->sig[i] == '\x01') tok++;
        i++;
    }
    if (i == a->sig_len && i == b->sig_len) return 0;
    if (tok < a->n_tok) return a->sig_line[tok];
    return tok > 0 && a->n_tok > 0 ? a->sig_line[a->n_tok - 1] : 1;
}
