/* scan_util.c: the static track's small tools: findings (one per rule and
 * line, the rule's own severity from rules.c), libclang helpers (spellings,
 * children, stripping casts, evaluating constants, CUDA attributes), the
 * candidate's token list, and the comments that state a precision intent
 * (KG-FASTMATH reads them).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scan_internal.h"

/* ---- findings ------------------------------------------------------------ */

#define KG_MAX_FINDINGS 200

/* The severity is the rule's own (rules.c) unless sev >= 0 overrides it
 * (KG-HOSTLIB-DEVICE is P1 in __host__ __device__ code). */
void add_finding(kg_static_result *r, const char *rule, int sev, int line,
                        const char *fmt, ...)
{
    int ri = kg_rule_index(rule);
    if (ri < 0) return;   /* every id is in rules.c (tests/test_rule_docs.c checks) */
    if (sev < 0) sev = kg_rule_at(ri)->sev;
    for (int i = 0; i < r->n; i++) /* one finding per rule and line */
        if (r->items[i].line == line && strcmp(r->items[i].rule, rule) == 0) return;
    if (r->n >= KG_MAX_FINDINGS) return;
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        kg_finding *p = realloc(r->items, (size_t)cap * sizeof *p);
        if (!p) return;
        r->items = p;
        r->cap = cap;
    }
    kg_finding *f = &r->items[r->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->rule, sizeof f->rule, "%s", rule);
    f->sev = (kg_severity)sev;
    f->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
}

void kg_static_free(kg_static_result *r)
{
    if (!r) return;
    free(r->items);
    r->items = NULL;
    r->n = r->cap = 0;
}

/* ---- small libclang helpers ---------------------------------------------- */

int str_eq(CXString s, const char *lit)
{
    const char *c = clang_getCString(s);
    int eq = c && strcmp(c, lit) == 0;
    clang_disposeString(s);
    return eq;
}

void spelling(CXCursor c, char *buf, size_t len)
{
    CXString s = clang_getCursorSpelling(c);
    const char *p = clang_getCString(s);
    snprintf(buf, len, "%s", p ? p : "");
    clang_disposeString(s);
}

void type_spelling(CXType t, char *buf, size_t len)
{
    CXString s = clang_getTypeSpelling(t);
    const char *p = clang_getCString(s);
    snprintf(buf, len, "%s", p ? p : "");
    clang_disposeString(s);
}

int cursor_line(CXCursor c)
{
    unsigned line = 0;
    clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &line, NULL, NULL);
    return (int)line;
}

/* Written in the candidate: the location where a macro was used counts
 * (a default argument of a header's function does not). */
int in_main(CXCursor c)
{
    CXSourceLocation loc = clang_getCursorLocation(c);
    if (clang_Location_isFromMainFile(loc)) return 1;
    CXFile f = NULL;
    clang_getExpansionLocation(loc, &f, NULL, NULL, NULL);
    if (!f) return 0;
    CXString n = clang_getFileName(f);
    const char *p = clang_getCString(n);
    int r = p && !strcmp(p, "candidate.cu");
    clang_disposeString(n);
    return r;
}

static enum CXChildVisitResult collect_kid(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    kids_t *k = d;
    if (k->n == k->cap) {
        int cap = k->cap ? 2 * k->cap : 8;
        CXCursor *nv = realloc(k->v, (size_t)cap * sizeof *nv);
        if (!nv) return CXChildVisit_Break;
        k->v = nv;
        k->cap = cap;
    }
    k->v[k->n++] = c;
    return CXChildVisit_Continue;
}

kids_t kids_of(CXCursor c)
{
    kids_t k = {NULL, 0, 0};
    clang_visitChildren(c, collect_kid, &k);
    return k;
}

/* The parameters of a function or a function template (libclang's argument
 * API does not see a template's). At most max; returns the count. */
int fn_params(CXCursor fn, CXCursor *out, int max)
{
    int n = clang_Cursor_getNumArguments(fn);
    if (n >= 0 && clang_getCursorKind(fn) != CXCursor_FunctionTemplate) {
        for (int i = 0; i < n && i < max; i++) out[i] = clang_Cursor_getArgument(fn, (unsigned)i);
        return n < max ? n : max;
    }
    kids_t ks = kids_of(fn);
    int k = 0;
    for (int i = 0; i < ks.n && k < max; i++)
        if (clang_getCursorKind(ks.v[i]) == CXCursor_ParmDecl) out[k++] = ks.v[i];
    free(ks.v);
    return k;
}

static int is_cast_kind(enum CXCursorKind k)
{
    return k == CXCursor_CStyleCastExpr || k == CXCursor_CXXStaticCastExpr ||
           k == CXCursor_CXXFunctionalCastExpr || k == CXCursor_CXXConstCastExpr ||
           k == CXCursor_CXXReinterpretCastExpr;
}

/* Strip implicit casts, parentheses and explicit casts. */
CXCursor strip(CXCursor c)
{
    for (int guard = 0; guard < 64; guard++) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && !is_cast_kind(k)) break;
        kids_t ks = kids_of(c);
        CXCursor next = clang_getNullCursor();
        for (int i = ks.n - 1; i >= 0; i--) /* the operand is the last expression */
            if (clang_isExpression(clang_getCursorKind(ks.v[i]))) { next = ks.v[i]; break; }
        free(ks.v);
        if (clang_Cursor_isNull(next)) break;
        c = next;
    }
    return c;
}

/* Strip implicit casts and parentheses only (an explicit cast is kept). */
CXCursor strip_implicit(CXCursor c)
{
    for (int guard = 0; guard < 64; guard++) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr) break;
        kids_t ks = kids_of(c);
        CXCursor next = clang_getNullCursor();
        if (ks.n == 1 && clang_isExpression(clang_getCursorKind(ks.v[0]))) next = ks.v[0];
        free(ks.v);
        if (clang_Cursor_isNull(next)) break;
        c = next;
    }
    return c;
}

/* Name of the function a CallExpr calls ("" if unknown). */
void callee_name(CXCursor call, char *buf, size_t len)
{
    buf[0] = '\0';
    CXCursor ref = clang_getCursorReferenced(call);
    if (!clang_Cursor_isNull(ref)) spelling(ref, buf, len);
    if (!buf[0]) spelling(call, buf, len);
}

/* The arguments of a call as the candidate wrote them (default arguments,
 * which live in the headers, are left out). */
kids_t call_args(CXCursor call)
{
    kids_t ks = kids_of(call), out = {NULL, 0, 0};
    int na = clang_Cursor_getNumArguments(call);
    if (na >= 0) {
        out.v = malloc(sizeof(CXCursor) * (size_t)(na > 0 ? na : 1));
        for (int i = 0; out.v && i < na; i++) {
            CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
            if (!clang_Cursor_isNull(a) && in_main(a)) out.v[out.n++] = a;
        }
    }
    free(ks.v);
    return out;
}

/* Evaluate a constant expression (literals, sizeof, constexpr, macros). */
int eval_number(CXCursor c, double *val)
{
    for (int pass = 0; pass < 2; pass++) {
        CXCursor e = pass ? strip(c) : c;
        if (!clang_isExpression(clang_getCursorKind(e))) continue;
        CXEvalResult r = clang_Cursor_Evaluate(e);
        if (!r) continue;
        int ok = 1;
        switch (clang_EvalResult_getKind(r)) {
        case CXEval_Int: *val = (double)clang_EvalResult_getAsLongLong(r); break;
        case CXEval_Float: *val = clang_EvalResult_getAsDouble(r); break;
        default: ok = 0;
        }
        clang_EvalResult_dispose(r);
        if (ok) return 1;
    }
    return 0;
}

/* A literal (possibly negated): what the candidate wrote as a number. */
int literal_number(CXCursor c, double *val)
{
    CXCursor s = strip(c);
    enum CXCursorKind k = clang_getCursorKind(s);
    if (k == CXCursor_UnaryOperator) {
        kids_t ks = kids_of(s);
        int ok = 0;
        if (ks.n == 1) {
            enum CXCursorKind kk = clang_getCursorKind(strip(ks.v[0]));
            ok = kk == CXCursor_IntegerLiteral || kk == CXCursor_FloatingLiteral;
        }
        free(ks.v);
        if (!ok) return 0;
    } else if (k != CXCursor_IntegerLiteral && k != CXCursor_FloatingLiteral &&
               k != CXCursor_CXXBoolLiteralExpr) {
        return 0;
    }
    return eval_number(s, val);
}

int is_literal_value(CXCursor c, double v)
{
    double x;
    return literal_number(c, &x) && x == v;
}

int type_is_integer(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind >= CXType_Bool && t.kind <= CXType_Int128 && t.kind != CXType_Bool;
}

int type_is_floating(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind == CXType_Float || t.kind == CXType_Double || t.kind == CXType_LongDouble;
}

int type_is_pointer(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind == CXType_Pointer;
}

static enum CXChildVisitResult attr_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    cuda_attrs *a = d;
    switch (clang_getCursorKind(c)) {
    case CXCursor_CUDAGlobalAttr: a->global = 1; break;
    case CXCursor_CUDADeviceAttr: a->device = 1; break;
    case CXCursor_CUDAHostAttr: a->host = 1; break;
    case CXCursor_CUDASharedAttr: a->shared = 1; break;
    case CXCursor_CUDAConstantAttr: a->constant = 1; break;
    default: break;
    }
    return CXChildVisit_Continue;
}

cuda_attrs attrs_of(CXCursor c)
{
    cuda_attrs a = {0, 0, 0, 0, 0};
    clang_visitChildren(c, attr_visit, &a);
    return a;
}

/* Is the declaration inside namespace `ns` (through inline namespaces)? */
int in_namespace(CXCursor decl, const char *ns)
{
    CXCursor p = clang_getCursorSemanticParent(decl);
    for (int guard = 0; guard < 16 && !clang_Cursor_isNull(p); guard++) {
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k == CXCursor_TranslationUnit || clang_isInvalid(k)) return 0;
        if (k == CXCursor_Namespace) {
            char nm[64];
            spelling(p, nm, sizeof nm);
            if (strcmp(nm, ns) == 0) {
                CXCursor pp = clang_getCursorSemanticParent(p);
                return clang_getCursorKind(pp) == CXCursor_TranslationUnit;
            }
        }
        p = clang_getCursorSemanticParent(p);
    }
    return 0;
}

int name_in(const char *name, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(name, list[i]) == 0) return 1;
    return 0;
}

void tokens_of(CXTranslationUnit tu, CXSourceRange range, token_list *t)
{
    memset(t, 0, sizeof *t);
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(tu, range, &toks, &n);
    size_t cap = 4096, used = 0;
    t->text = malloc(cap);
    t->off = malloc(sizeof(int) * (n + 1));
    t->line = malloc(sizeof(int) * (n + 1));
    t->kind = malloc(n + 1);
    if (!t->text || !t->off || !t->line || !t->kind) { n = 0; }
    for (unsigned i = 0; i < n; i++) {
        CXString s = clang_getTokenSpelling(tu, toks[i]);
        const char *p = clang_getCString(s);
        size_t l = p ? strlen(p) : 0;
        if (used + l + 1 > cap) {
            while (used + l + 1 > cap) cap *= 2;
            char *nt = realloc(t->text, cap);
            if (!nt) { clang_disposeString(s); break; }
            t->text = nt;
        }
        memcpy(t->text + used, p ? p : "", l + 1);
        t->off[t->n] = (int)used;
        used += l + 1;
        unsigned line = 0;
        clang_getSpellingLocation(clang_getTokenLocation(tu, toks[i]), NULL, &line, NULL, NULL);
        t->line[t->n] = (int)line;
        t->kind[t->n] = (unsigned char)clang_getTokenKind(toks[i]);
        t->n++;
        clang_disposeString(s);
    }
    if (toks) clang_disposeTokens(tu, toks, n);
}

void tokens_free(token_list *t)
{
    free(t->off);
    free(t->line);
    free(t->kind);
    free(t->text);
    memset(t, 0, sizeof *t);
}

/* Index of the first token at or after `line`, and of the last one at or
 * before `last` (a cursor's line range). */
void token_span(const token_list *t, CXCursor c, int *from, int *to)
{
    CXSourceRange r = clang_getCursorExtent(c);
    unsigned a = 0, b = 0;
    clang_getExpansionLocation(clang_getRangeStart(r), NULL, &a, NULL, NULL);
    clang_getExpansionLocation(clang_getRangeEnd(r), NULL, &b, NULL, NULL);
    int lo = 0, hi = t->n - 1;
    while (lo < t->n && t->line[lo] < (int)a) lo++;
    while (hi >= 0 && t->line[hi] > (int)b) hi--;
    *from = lo;
    *to = hi;
}

/* The spelling of an expression, tokens joined by nothing (for comparing
 * two indices of the same array). */
void expr_text(CXTranslationUnit tu, CXCursor c, char *buf, size_t len)
{
    buf[0] = 0;
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(tu, clang_getCursorExtent(c), &toks, &n);
    size_t o = 0;
    for (unsigned i = 0; i < n; i++) {
        CXString s = clang_getTokenSpelling(tu, toks[i]);
        const char *p = clang_getCString(s);
        size_t l = p ? strlen(p) : 0;
        if (o + l + 2 < len) {
            memcpy(buf + o, p, l);
            o += l;
            buf[o++] = ' ';
        }
        clang_disposeString(s);
    }
    while (o > 0 && buf[o - 1] == ' ') o--;
    buf[o] = 0;
    if (toks) clang_disposeTokens(tu, toks, n);
}

/* ---- comments: stated precision intent ----------------------------------- */

static int has_intent_word(const char *p, size_t n)
{
    static const char *words[] = {"precision", "fast-math", "fast math", "fastmath",
                                  "fast_math", "approximat", "ulp", "accura",
                                  "tolerance", "intrinsic", NULL};
    for (int w = 0; words[w]; w++) {
        size_t m = strlen(words[w]);
        for (size_t i = 0; i + m <= n; i++)
            if (strncasecmp(p + i, words[w], m) == 0) return 1;
    }
    return 0;
}

/* A small lexer over the source: finds comments (skipping string and char
 * literals) and records those that state precision intent. */
void find_intent_comments(scan_ctx *cx)
{
    const char *s = cx->src;
    int line = 1, cap = 0;
    for (size_t i = 0; s[i];) {
        char c = s[i];
        if (c == '\n') { line++; i++; continue; }
        if (c == '"' || c == '\'') {
            char q = c;
            i++;
            while (s[i] && s[i] != q && s[i] != '\n') {
                if (s[i] == '\\' && s[i + 1]) { if (s[i + 1] == '\n') line++; i++; }
                i++;
            }
            if (s[i] == q) i++;
            continue;
        }
        if (c == '/' && (s[i + 1] == '/' || s[i + 1] == '*')) {
            int first = line;
            size_t start = i;
            if (s[i + 1] == '/') {
                while (s[i] && s[i] != '\n') i++;
            } else {
                i += 2;
                while (s[i] && !(s[i] == '*' && s[i + 1] == '/')) { if (s[i] == '\n') line++; i++; }
                if (s[i]) i += 2;
            }
            if (has_intent_word(s + start, i - start)) {
                if (cx->n_intents == cap) {
                    cap = cap ? 2 * cap : 8;
                    intent_t *p = realloc(cx->intents, (size_t)cap * sizeof *p);
                    if (!p) return;
                    cx->intents = p;
                }
                cx->intents[cx->n_intents].first = first;
                cx->intents[cx->n_intents].last = line;
                cx->n_intents++;
            }
            continue;
        }
        i++;
    }
}

/* Intent is stated by a comment from 3 lines above to 1 line below the call,
 * or in the 8 lines above the enclosing function. */
int intent_near(const scan_ctx *cx, int line, int fn_line)
{
    for (int i = 0; i < cx->n_intents; i++) {
        const intent_t *t = &cx->intents[i];
        if (t->last >= line - 3 && t->first <= line + 1) return 1;
        if (t->last >= fn_line - 8 && t->first <= fn_line) return 1;
    }
    return 0;
}

