/* static_scan.c: the static track of the kernel gate.
 *
 * The candidate's source is parsed into a real AST by libclang in CUDA
 * host-only mode (the device function bodies are still parsed and kept), and
 * the rules walk it with clang_visitChildren. rules.c is the table of rules
 * (id, severity, family, fix hint); README-static.md documents each one with
 * an example that fires and a near-miss that must not, and
 * tests/test_rule_docs.c scans those examples.
 *
 * The central tool is a small taint analysis per device function: every
 * expression gets a set of "where does this value come from" bits (threadIdx.x,
 * threadIdx.y/z, blockIdx, blockDim, gridDim, an integer parameter, memory,
 * varies per thread, threadIdx.x times a non-unit factor, warp-uniform,
 * shared memory). Local variables collect the union over their initializer
 * and every assignment (a few rounds, so loop-carried updates propagate).
 * Control dependence is ignored on purpose: the rules prefer missing a bug
 * over rejecting a good kernel. Launch sites (`k<<<grid, block, shmem,
 * stream>>>`) are read in host code and their constant configurations are
 * checked against what each kernel does (shared memory it indexes,
 * __launch_bounds__, the stride of its loops).
 *
 * Environment: KGATE_CUDA_PATH (default $CUDA_HOME, else /usr/local/cuda),
 * KGATE_CLANG_RESOURCE_DIR (clang's resource dir when libclang is an unpacked
 * copy away from its install prefix), KGATE_NVCC (the hidden-code check's
 * preprocessor), KGATE_EXTRA_INCLUDES (colon-separated folders searched as
 * system headers: PyTorch's, for its candidates). Not thread-safe: one scan
 * at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <clang-c/Index.h>

#include "kgate_static.h"

/* ---- findings ------------------------------------------------------------ */

#define KG_MAX_FINDINGS 200

/* The severity is the rule's own (rules.c) unless sev >= 0 overrides it
 * (KG-HOSTLIB-DEVICE is P1 in __host__ __device__ code). */
static void add_finding(kg_static_result *r, const char *rule, int sev, int line,
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

enum {
    T_TX = 1 << 0,       /* threadIdx.x (varies inside a warp) */
    T_TYZ = 1 << 1,      /* threadIdx.y / threadIdx.z */
    T_BID = 1 << 2,      /* blockIdx */
    T_BDIM = 1 << 3,     /* blockDim */
    T_GDIM = 1 << 4,     /* gridDim */
    T_PINT = 1 << 5,     /* an integer parameter */
    T_MEM = 1 << 6,      /* loaded from memory */
    T_VARY = 1 << 7,     /* differs between threads of a block (data dependent) */
    T_TXS = 1 << 8,      /* threadIdx.x times a factor other than 1 */
    T_SHARED = 1 << 9,   /* points into shared memory */
    T_LOCALARR = 1 << 10,/* points into a local array */
    T_WU = 1 << 11,      /* derived from threadIdx but the same in a warp (threadIdx.x / 32) */
    T_TXSV = 1 << 12,    /* threadIdx.x times a variable factor */
    T_LANEID = 1 << 13   /* threadIdx.x % 32: the lane */
};
#define T_THREAD (T_TX | T_TYZ | T_WU)
#define T_VARIES (T_TX | T_TYZ | T_VARY | T_WU)
#define T_LANEVAR (T_TX | T_VARY)

static int str_eq(CXString s, const char *lit)
{
    const char *c = clang_getCString(s);
    int eq = c && strcmp(c, lit) == 0;
    clang_disposeString(s);
    return eq;
}

static void spelling(CXCursor c, char *buf, size_t len)
{
    CXString s = clang_getCursorSpelling(c);
    const char *p = clang_getCString(s);
    snprintf(buf, len, "%s", p ? p : "");
    clang_disposeString(s);
}

static void type_spelling(CXType t, char *buf, size_t len)
{
    CXString s = clang_getTypeSpelling(t);
    const char *p = clang_getCString(s);
    snprintf(buf, len, "%s", p ? p : "");
    clang_disposeString(s);
}

static int cursor_line(CXCursor c)
{
    unsigned line = 0;
    clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &line, NULL, NULL);
    return (int)line;
}

/* Written in the candidate: the location where a macro was used counts
 * (a default argument of a header's function does not). */
static int in_main(CXCursor c)
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

typedef struct {
    CXCursor *v;
    int n, cap;
} kids_t;

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

static kids_t kids_of(CXCursor c)
{
    kids_t k = {NULL, 0, 0};
    clang_visitChildren(c, collect_kid, &k);
    return k;
}

/* The parameters of a function or a function template (libclang's argument
 * API does not see a template's). At most max; returns the count. */
static int fn_params(CXCursor fn, CXCursor *out, int max)
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
static CXCursor strip(CXCursor c)
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
static CXCursor strip_implicit(CXCursor c)
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
static void callee_name(CXCursor call, char *buf, size_t len)
{
    buf[0] = '\0';
    CXCursor ref = clang_getCursorReferenced(call);
    if (!clang_Cursor_isNull(ref)) spelling(ref, buf, len);
    if (!buf[0]) spelling(call, buf, len);
}

/* The arguments of a call as the candidate wrote them (default arguments,
 * which live in the headers, are left out). */
static kids_t call_args(CXCursor call)
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
static int eval_number(CXCursor c, double *val)
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
static int literal_number(CXCursor c, double *val)
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

static int is_literal_value(CXCursor c, double v)
{
    double x;
    return literal_number(c, &x) && x == v;
}

static int type_is_integer(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind >= CXType_Bool && t.kind <= CXType_Int128 && t.kind != CXType_Bool;
}

static int type_is_floating(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind == CXType_Float || t.kind == CXType_Double || t.kind == CXType_LongDouble;
}

static int type_is_pointer(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind == CXType_Pointer;
}

/* CUDA attributes of a function or variable declaration. */
typedef struct { int global, device, host, shared, constant; } cuda_attrs;

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

static cuda_attrs attrs_of(CXCursor c)
{
    cuda_attrs a = {0, 0, 0, 0, 0};
    clang_visitChildren(c, attr_visit, &a);
    return a;
}

/* Is the declaration inside namespace `ns` (through inline namespaces)? */
static int in_namespace(CXCursor decl, const char *ns)
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

static int name_in(const char *name, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(name, list[i]) == 0) return 1;
    return 0;
}

/* The main file's tokens, once: spellings in one buffer. */
typedef struct {
    int n;
    int *off;            /* offset of each spelling in text */
    int *line;
    unsigned char *kind; /* CXTokenKind */
    char *text;
} token_list;

static const char *tok(const token_list *t, int i) { return i >= 0 && i < t->n ? t->text + t->off[i] : ""; }
static int tok_is(const token_list *t, int i, const char *s) { return strcmp(tok(t, i), s) == 0; }

static void tokens_of(CXTranslationUnit tu, CXSourceRange range, token_list *t)
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

static void tokens_free(token_list *t)
{
    free(t->off);
    free(t->line);
    free(t->kind);
    free(t->text);
    memset(t, 0, sizeof *t);
}

/* Index of the first token at or after `line`, and of the last one at or
 * before `last` (a cursor's line range). */
static void token_span(const token_list *t, CXCursor c, int *from, int *to)
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
static void expr_text(CXTranslationUnit tu, CXCursor c, char *buf, size_t len)
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

typedef struct {
    int first, last; /* line range of a comment that states precision intent */
} intent_t;

#define MAX_ARRAYS 16
#define MAX_LOOPS 16

/* What the launch sites need to know about a kernel (filled by its analysis). */
typedef struct {
    int line;
    long long dim[2];     /* 1-D: dim[0] elements; 2-D: [dim[0]][dim[1]] */
    int rank;
    int plain;            /* indexed [threadIdx.x] (1-D) or [threadIdx.y][threadIdx.x] (2-D) */
    char name[48];
} smem_array;

typedef struct {
    CXCursor c;
    char name[128];
    int kind;            /* 1 kernel, 2 device, 3 host-device, 0 host */
    int line;
    int multiblock;      /* launched here with a grid not known to be 1 */
    int launched;        /* a launch of it was seen */
    int n_params;
    /* from the kernel's analysis */
    int extern_smem_line;     /* first access to an extern __shared__ array (0: none) */
    long long extern_elem;    /* its element size */
    int extern_plain_tx;      /* accessed at [threadIdx.x] */
    int n_arrays;
    smem_array arrays[MAX_ARRAYS];
    int uses_gdim, uses_bid, has_param_loop, has_loop;
    int n_loops;
    struct { int line; long long step; } tx_loops[MAX_LOOPS];   /* for (i = threadIdx.x; ...; i += step) */
    long long launch_bounds;  /* __launch_bounds__(N): N, else 0 */
    unsigned stored_params, read_params, atomic_params, restrict_params, ptr_params;
    int atomic_line;
} fn_info;

typedef struct {
    int fn;              /* the kernel launched (index in fns), -1 if not the candidate's */
    int line;
    int in_launch;       /* inside extern "C" launch() */
    long long grid[3], block[3];   /* -1: not known */
    long long shmem;     /* -2: no third argument, -1: not known */
    int floor_grid;      /* the grid is n / b without rounding up */
    CXCursor args[12];   /* the kernel's arguments */
    int n_args;
} launch_site;

typedef struct {
    const char *src;
    const kg_scan_opts *opts;
    kg_static_result *r;
    CXTranslationUnit tu;
    token_list toks;
    intent_t *intents;
    int n_intents;
    fn_info *fns;
    int n_fns, cap_fns;
    launch_site *launches;
    int n_launches, cap_launches;
    /* call edges between main-file device functions (for recursion) */
    struct { int from, to, line; } *edges;
    int n_edges, cap_edges;
    int uses_library;
    int device_pass;     /* the second, device-side parse: only the rules on device code */
    /* file-level facts */
    int memset_calls, zero_stores, cublas_compute_line, cublas_set_stream, coop_launch;
    int smem_opt_in;     /* cudaFuncSetAttribute(..MaxDynamicSharedMemorySize..) */
    int grid_sync_line;  /* a cooperative-groups grid sync */
} scan_ctx;

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
static void find_intent_comments(scan_ctx *cx)
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
static int intent_near(const scan_ctx *cx, int line, int fn_line)
{
    for (int i = 0; i < cx->n_intents; i++) {
        const intent_t *t = &cx->intents[i];
        if (t->last >= line - 3 && t->first <= line + 1) return 1;
        if (t->last >= fn_line - 8 && t->first <= fn_line) return 1;
    }
    return 0;
}

/* ---- per-function taint analysis ----------------------------------------- */

typedef struct {
    CXCursor decl;
    unsigned flags;
    int plain_tx;        /* initialised to threadIdx.x itself and never assigned again */
    int assigns;         /* assignments after the declaration */
    int ticket;          /* holds the result of a global atomic (a "last block" ticket) */
} var_t;

typedef struct {
    unsigned fl;         /* taint of the condition */
    int lanevar;         /* the condition differs between lanes of a warp */
    int single;          /* the condition picks one thread (tid == 0, lane == 0) */
    int loop;
} ctrl_t;

#define MAX_PENDING 32

typedef struct {
    scan_ctx *cx;
    int fn;            /* index in cx->fns */
    CXCursor fn_cursor;
    var_t *vars;
    int n_vars, cap_vars;
    int n_int_params;
    int has_guard;     /* a comparison of a thread-derived index with a size */
    int changed;
    int store_line;    /* first unguarded thread-indexed global store, for KG-BOUNDS-NOCHECK */
    ctrl_t ctrl[64];
    int n_ctrl;
    int loop_depth;
    /* KG-SYNC-AFTER-EXIT */
    int exit_line;
    /* KG-SYNC-MISSING: shared writes since the last barrier */
    struct { CXCursor decl; char idx[160]; int line; } pending[MAX_PENDING];
    int n_pending;
    CXCursor skip[128]; /* inner subscripts of a 2-D access, atomic targets: already handled */
    int n_skip;
    /* KG-FENCE-MISSING, KG-ATOMIC-RELAXED-SPIN */
    int ticket_line, has_fence, has_acquire, relaxed_spin_line;
    int has_smem_array;
    int coalesced_load_line, strided_load_line, strided_store_line, coalesced_store_line;
    long long static_smem;
    int replay;        /* a loop body's second walk: only KG-SYNC-MISSING's tracking */
    int offby_line[4], n_offby, has_lower_bound;
    int writes_globals;/* refers to a file-scope __device__ / __managed__ variable */
} fn_ctx;

static var_t *find_var(fn_ctx *f, CXCursor decl)
{
    for (int i = 0; i < f->n_vars; i++)
        if (clang_equalCursors(f->vars[i].decl, decl)) return &f->vars[i];
    return NULL;
}

static var_t *add_var(fn_ctx *f, CXCursor decl, unsigned flags)
{
    var_t *v = find_var(f, decl);
    if (v) return v;
    if (f->n_vars == f->cap_vars) {
        int cap = f->cap_vars ? 2 * f->cap_vars : 16;
        var_t *p = realloc(f->vars, (size_t)cap * sizeof *p);
        if (!p) return NULL;
        f->vars = p;
        f->cap_vars = cap;
    }
    v = &f->vars[f->n_vars++];
    memset(v, 0, sizeof *v);
    v->decl = decl;
    v->flags = flags;
    return v;
}

/* Last token of a cursor's extent (the member name of threadIdx.x). */
static void last_token(CXTranslationUnit tu, CXCursor c, char *buf, size_t len)
{
    buf[0] = '\0';
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(tu, clang_getCursorExtent(c), &toks, &n);
    if (n > 0) {
        CXString s = clang_getTokenSpelling(tu, toks[n - 1]);
        snprintf(buf, len, "%s", clang_getCString(s) ? clang_getCString(s) : "");
        clang_disposeString(s);
    }
    if (toks) clang_disposeTokens(tu, toks, n);
}

static unsigned expr_flags(fn_ctx *f, CXCursor c);

static unsigned union_kids(fn_ctx *f, CXCursor c)
{
    kids_t ks = kids_of(c);
    unsigned u = 0;
    for (int i = 0; i < ks.n; i++) u |= expr_flags(f, ks.v[i]);
    free(ks.v);
    return u;
}

/* Flags of a reference to a declaration. */
static unsigned decl_flags(fn_ctx *f, CXCursor ref)
{
    enum CXCursorKind k = clang_getCursorKind(ref);
    if (k == CXCursor_VarDecl) {
        cuda_attrs a = attrs_of(ref);
        if (a.shared) return T_SHARED | T_MEM; /* block-uniform after a barrier */
        var_t *v = find_var(f, ref);
        if (v) return v->flags;
        CXType t = clang_getCanonicalType(clang_getCursorType(ref));
        if (t.kind == CXType_ConstantArray && clang_getCursorSemanticParent(ref).kind != CXCursor_TranslationUnit)
            return T_LOCALARR;
        return 0;
    }
    if (k == CXCursor_ParmDecl) {
        var_t *v = find_var(f, ref); /* a parameter may be reassigned */
        if (v) return v->flags;
        return type_is_integer(clang_getCursorType(ref)) ? T_PINT : 0;
    }
    return 0;
}

/* threadIdx.x, blockIdx.y, ...: which builtin (0 none, 'T' threadIdx, 'B'
 * blockIdx, 'D' blockDim, 'G' gridDim) and which member ('x', 'y', 'z'). */
static int builtin_of(fn_ctx *f, CXCursor member, char *axis)
{
    CXCursor m = strip(member);
    if (clang_getCursorKind(m) != CXCursor_MemberRefExpr) return 0;
    kids_t ks = kids_of(m);
    int b = 0;
    if (ks.n == 1 && clang_getCursorKind(ks.v[0]) == CXCursor_DeclRefExpr) {
        char nm[32], mem[16];
        spelling(ks.v[0], nm, sizeof nm);
        b = !strcmp(nm, "threadIdx") ? 'T' : !strcmp(nm, "blockIdx") ? 'B' : !strcmp(nm, "blockDim") ? 'D'
            : !strcmp(nm, "gridDim") ? 'G' : 0;
        if (b && axis) {
            last_token(f->cx->tu, m, mem, sizeof mem);
            *axis = mem[0];
        }
    }
    free(ks.v);
    return b;
}

static unsigned builtin_flags(fn_ctx *f, CXCursor member)
{
    char axis = 0;
    int b = builtin_of(f, member, &axis);
    switch (b) {
    case 'T': return axis == 'x' ? T_TX : T_TYZ;
    case 'B': return T_BID;
    case 'D': return T_BDIM;
    case 'G': return T_GDIM;
    default: return union_kids(f, member);
    }
}

/* threadIdx.x itself, or a variable that holds nothing else. */
static int is_plain_tx(fn_ctx *f, CXCursor e)
{
    CXCursor s = strip(e);
    char axis = 0;
    if (builtin_of(f, s, &axis) == 'T') return axis == 'x';
    if (clang_getCursorKind(s) == CXCursor_DeclRefExpr) {
        var_t *v = find_var(f, clang_getCursorReferenced(s));
        return v && v->plain_tx && v->assigns == 0;
    }
    return 0;
}

static int is_plain_ty(fn_ctx *f, CXCursor e)
{
    CXCursor s = strip(e);
    char axis = 0;
    if (builtin_of(f, s, &axis) == 'T') return axis == 'y';
    return 0;
}

static int literal_multiple_of_32(CXCursor c, double *v)
{
    double x;
    if (!literal_number(c, &x) && !eval_number(c, &x)) return 0;
    if (v) *v = x;
    return x >= 32 && (long long)x % 32 == 0;
}

static unsigned expr_flags(fn_ctx *f, CXCursor c)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    switch (k) {
    case CXCursor_IntegerLiteral: case CXCursor_FloatingLiteral:
    case CXCursor_CharacterLiteral: case CXCursor_StringLiteral:
    case CXCursor_CXXBoolLiteralExpr: case CXCursor_CXXNullPtrLiteralExpr:
    case CXCursor_TypeRef: case CXCursor_TemplateRef: case CXCursor_NamespaceRef:
        return 0;
    case CXCursor_DeclRefExpr: {
        CXCursor ref = clang_getCursorReferenced(c);
        return clang_Cursor_isNull(ref) ? 0 : decl_flags(f, ref);
    }
    case CXCursor_MemberRefExpr:
        return builtin_flags(f, c);
    case CXCursor_ArraySubscriptExpr: {
        kids_t ks = kids_of(c);
        unsigned fl = T_MEM;
        if (ks.n == 2) {
            unsigned b = expr_flags(f, ks.v[0]), i = expr_flags(f, ks.v[1]);
            if ((b | i) & (T_TX | T_TYZ | T_VARY)) fl |= T_VARY;
            else if ((b | i) & T_WU) fl |= T_WU;
        }
        free(ks.v);
        return fl;
    }
    case CXCursor_BinaryOperator: case CXCursor_CompoundAssignOperator: {
        kids_t ks = kids_of(c);
        unsigned fl = 0;
        if (ks.n == 2) {
            unsigned l = expr_flags(f, ks.v[0]), r = expr_flags(f, ks.v[1]);
            fl = l | r;
            enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
            if (op == CXBinaryOperator_Mul || op == CXBinaryOperator_MulAssign) {
                if ((l & (T_TX | T_TXS)) && !is_literal_value(ks.v[1], 1)) fl |= T_TXS;
                if ((r & (T_TX | T_TXS)) && !is_literal_value(ks.v[0], 1)) fl |= T_TXS;
                double v;
                if ((l & (T_TX | T_TXS)) && !literal_number(ks.v[1], &v)) fl |= T_TXSV;
                if ((r & (T_TX | T_TXS)) && !literal_number(ks.v[0], &v)) fl |= T_TXSV;
            } else if (op == CXBinaryOperator_Shl || op == CXBinaryOperator_ShlAssign) {
                if ((l & (T_TX | T_TXS)) && !is_literal_value(ks.v[1], 0)) fl |= T_TXS;
            } else if (op == CXBinaryOperator_Div || op == CXBinaryOperator_Rem || op == CXBinaryOperator_Shr || op == CXBinaryOperator_And ||
                       op == CXBinaryOperator_DivAssign || op == CXBinaryOperator_RemAssign || op == CXBinaryOperator_ShrAssign ||
                       op == CXBinaryOperator_AndAssign) {
                fl &= ~(unsigned)(T_TXS | T_TXSV);
                double v;
                /* threadIdx.x / 32 (>> 5): the same for a whole warp */
                if ((l & T_TX) && !(r & T_VARIES) &&
                    (((op == CXBinaryOperator_Div || op == CXBinaryOperator_DivAssign) && literal_multiple_of_32(ks.v[1], NULL)) ||
                     ((op == CXBinaryOperator_Shr || op == CXBinaryOperator_ShrAssign) && literal_number(ks.v[1], &v) && v >= 5)))
                    fl = (fl & ~(unsigned)(T_TX | T_LANEID)) | T_WU;
                /* threadIdx.x % 32, & 31: the lane */
                if ((l & T_TX) && (((op == CXBinaryOperator_Rem) && literal_number(ks.v[1], &v) && v == 32) ||
                                   ((op == CXBinaryOperator_And) && literal_number(ks.v[1], &v) && v == 31)))
                    fl |= T_LANEID;
            }
        }
        free(ks.v);
        return fl;
    }
    case CXCursor_CallExpr: {
        char nm[64];
        callee_name(c, nm, sizeof nm);
        unsigned fl = union_kids(f, c);
        if (!strncmp(nm, "atomic", 6) || !strncmp(nm, "__shfl", 6) || !strcmp(nm, "clock") ||
            !strcmp(nm, "clock64") || !strncmp(nm, "__ballot", 8) || !strncmp(nm, "__match", 7))
            fl |= T_VARY | T_MEM;
        if (fl & (T_TX | T_TYZ | T_VARY)) fl |= T_VARY;
        return fl & ~(unsigned)(T_TXS | T_TXSV);
    }
    default:
        return union_kids(f, c);
    }
}

/* Does the condition differ between the lanes of a warp? threadIdx.x < 32
 * and warp == 0 do not; i < n (i from threadIdx.x) and x[i] > 0 do. */
static int cond_lanevar(fn_ctx *f, CXCursor cond)
{
    CXCursor s = strip(cond);
    if (clang_getCursorKind(s) == CXCursor_BinaryOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(s);
        kids_t ks = kids_of(s);
        int r = -1;
        if (ks.n == 2) {
            if (op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr) {
                r = cond_lanevar(f, ks.v[0]) || cond_lanevar(f, ks.v[1]);
            } else if (op >= CXBinaryOperator_LT && op <= CXBinaryOperator_GE) {
                for (int side = 0; side < 2 && r < 0; side++) {
                    double v;
                    unsigned other = expr_flags(f, ks.v[1 - side]);
                    if (eval_number(ks.v[side], &v) && !(other & T_VARY)) {
                        /* tid < 64, tid >= 32, 31 < tid: warp-aligned edges */
                        int lt_ge = side == 1 ? (op == CXBinaryOperator_LT || op == CXBinaryOperator_GE)
                                              : (op == CXBinaryOperator_GT || op == CXBinaryOperator_LE);
                        long long edge = (long long)v + (lt_ge ? 0 : 1);
                        if (edge % 32 == 0) r = 0;
                    }
                }
            }
        }
        free(ks.v);
        if (r >= 0) return r;
    }
    return (expr_flags(f, cond) & T_LANEVAR) != 0;
}

/* Does the condition pick one thread per block or per warp (tid == 0)? */
static int cond_single(fn_ctx *f, CXCursor cond)
{
    CXCursor s = strip(cond);
    if (clang_getCursorKind(s) != CXCursor_BinaryOperator) return 0;
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(s);
    kids_t ks = kids_of(s);
    int r = 0;
    if (ks.n == 2) {
        if (op == CXBinaryOperator_LAnd) r = cond_single(f, ks.v[0]) || cond_single(f, ks.v[1]);
        else if (op == CXBinaryOperator_EQ) {
            double v;
            for (int side = 0; side < 2; side++)
                if (literal_number(ks.v[side], &v) && (expr_flags(f, ks.v[1 - side]) & (T_TX | T_TYZ))) r = 1;
        }
    }
    free(ks.v);
    return r;
}

/* ---- pass 1: variable flags ---------------------------------------------- */

static int is_atomic_name(const char *nm)
{
    return !strncmp(nm, "atomic", 6) && strcmp(nm, "atomic_ref") != 0;
}

static CXCursor first_expr_child(CXCursor c)
{
    kids_t ks = kids_of(c);
    CXCursor r = clang_getNullCursor();
    for (int i = 0; i < ks.n; i++)
        if (clang_isExpression(clang_getCursorKind(ks.v[i]))) { r = ks.v[i]; break; }
    free(ks.v);
    return r;
}

static void note_assign(fn_ctx *f, CXCursor lhs, unsigned fl)
{
    CXCursor l = strip(lhs);
    if (clang_getCursorKind(l) != CXCursor_DeclRefExpr) return;
    CXCursor ref = clang_getCursorReferenced(l);
    enum CXCursorKind rk = clang_getCursorKind(ref);
    if (!((rk == CXCursor_VarDecl && !attrs_of(ref).shared) || rk == CXCursor_ParmDecl)) return;
    var_t *v = find_var(f, ref);
    if (!v) {
        unsigned base = rk == CXCursor_ParmDecl && type_is_integer(clang_getCursorType(ref)) ? T_PINT : 0;
        v = add_var(f, ref, base | fl);
        if (v) f->changed = 1;
    } else if ((v->flags | fl) != v->flags) {
        v->flags |= fl;
        f->changed = 1;
    }
    if (v) v->assigns++;
}

static enum CXChildVisitResult flow_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    fn_ctx *f = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_LambdaExpr) return CXChildVisit_Continue;
    if (k == CXCursor_VarDecl) {
        cuda_attrs a = attrs_of(c);
        if (!a.shared) {
            CXCursor init = first_expr_child(c);
            unsigned fl = clang_Cursor_isNull(init) ? 0 : expr_flags(f, init);
            if (clang_getCanonicalType(clang_getCursorType(c)).kind == CXType_ConstantArray)
                fl |= T_LOCALARR;
            var_t *v = find_var(f, c);
            if (!v) {
                v = add_var(f, c, fl);
                if (v) {
                    f->changed = 1;
                    v->plain_tx = !clang_Cursor_isNull(init) && is_plain_tx(f, init);
                    CXCursor s = clang_Cursor_isNull(init) ? init : strip(init);
                    if (!clang_Cursor_isNull(s) && clang_getCursorKind(s) == CXCursor_CallExpr) {
                        char nm[64];
                        callee_name(s, nm, sizeof nm);
                        if (is_atomic_name(nm)) v->ticket = 1;
                    }
                }
            } else if ((v->flags | fl) != v->flags) { v->flags |= fl; f->changed = 1; }
        }
    } else if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
        if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign) {
            kids_t ks = kids_of(c);
            if (ks.n == 2) note_assign(f, ks.v[0], expr_flags(f, ks.v[1]) | (op != CXBinaryOperator_Assign ? expr_flags(f, ks.v[0]) : 0));
            free(ks.v);
        }
    } else if (k == CXCursor_UnaryOperator) {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
        if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
            op == CXUnaryOperator_PreDec) {
            kids_t ks = kids_of(c);
            if (ks.n == 1) note_assign(f, ks.v[0], 0);
            free(ks.v);
        }
    }
    return CXChildVisit_Recurse;
}

/* ---- pass 2: the rules on device code ------------------------------------ */

static const char *const fastmath_names[] = {
    "__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__sinf", "__cosf", "__tanf",
    "__sincosf", "__powf", "__fdividef", "__saturatef", "__frcp_rz", NULL};
static const char *const pow_names[] = {"pow", "powf", "__powf", NULL};
static const char *const std_host_only[] = {
    "vector", "string", "basic_string", "map", "unordered_map", "set", "unordered_set",
    "multimap", "multiset", "list", "forward_list", "deque", "queue", "stack",
    "priority_queue", "cout", "cerr", "cin", "clog", "endl", "ostream", "istream",
    "ifstream", "ofstream", "fstream", "stringstream", "ostringstream", "istringstream",
    "thread", "mutex", "lock_guard", "unique_lock", "shared_ptr", "unique_ptr",
    "make_shared", "make_unique", "function", "to_string", "runtime_error", NULL};
static const char *const c_host_only[] = {
    "fprintf", "fopen", "fclose", "fread", "fwrite", "fputs", "fgets", "fflush", "puts",
    "scanf", "fscanf", "exit", "rand", "srand", "time", "getenv", "system", "sleep",
    "usleep", "perror", NULL};
static const char *const sync_names[] = {
    "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", NULL};
static const char *const warp_sync_names[] = {
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync",
    "__all_sync", "__any_sync", "__uni_sync", "__match_any_sync", "__match_all_sync",
    "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
    "__reduce_or_sync", "__reduce_xor_sync", "__syncwarp", NULL};
static const char *const warp_legacy_names[] = {
    "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__ballot", "__any", "__all", NULL};
static const char *const double_math_names[] = {
    "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "cbrt",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "pow", "erf",
    "erfc", "hypot", "fmod", NULL};
static const char *const fence_names[] = {
    "__threadfence", "__threadfence_system", "atomic_thread_fence", "fence_proxy_async", NULL};

/* Where an access goes: 1 global (a pointer parameter, a local pointer not
 * into shared or local memory, a __device__ array), 2 shared, 3 a local
 * array, 0 unknown. rank: subscripts in the chain (t[a][b]: 2); idx[] from
 * the first dimension. */
typedef struct {
    int space, rank, param;   /* param: the pointer parameter's index, or -1 */
    CXCursor decl;
    CXCursor idx[3];
    unsigned base_fl;
} access_t;

static int param_index(fn_ctx *f, CXCursor decl)
{
    CXCursor ps[32];
    int n = fn_params(f->fn_cursor, ps, 32);
    for (int i = 0; i < n; i++)
        if (clang_equalCursors(ps[i], decl)) return i;
    return -1;
}

static int decl_space(fn_ctx *f, CXCursor ref, unsigned *base_fl)
{
    enum CXCursorKind rk = clang_getCursorKind(ref);
    *base_fl = 0;
    if (rk == CXCursor_ParmDecl) {
        if (!type_is_pointer(clang_getCursorType(ref))) return 0;
        var_t *v = find_var(f, ref);
        if (v) *base_fl = v->flags;
        return 1;
    }
    if (rk != CXCursor_VarDecl) return 0;
    cuda_attrs a = attrs_of(ref);
    if (a.shared) return 2;
    CXType t = clang_getCanonicalType(clang_getCursorType(ref));
    int file_scope = clang_getCursorKind(clang_getCursorSemanticParent(ref)) != CXCursor_FunctionDecl &&
                     clang_getCursorKind(clang_getCursorSemanticParent(ref)) != CXCursor_FunctionTemplate;
    if (t.kind == CXType_ConstantArray) {
        if (file_scope) return a.device ? 1 : 0;
        if (clang_Cursor_getStorageClass(ref) == CX_SC_Static) return 0;
        return 3;
    }
    if (t.kind == CXType_Pointer) {
        var_t *v = find_var(f, ref);
        unsigned fl = v ? v->flags : 0;
        *base_fl = fl;
        return (fl & T_SHARED) ? 2 : (fl & T_LOCALARR) ? 3 : 1;
    }
    return 0;
}

static access_t access_of(fn_ctx *f, CXCursor sub)
{
    access_t a;
    memset(&a, 0, sizeof a);
    a.param = -1;
    a.decl = clang_getNullCursor();
    CXCursor cur = sub, rev[3];
    int n = 0;
    for (int guard = 0; guard < 4; guard++) {
        kids_t ks = kids_of(cur);
        if (ks.n != 2) { free(ks.v); return a; }
        if (n < 3) rev[n++] = ks.v[1];
        CXCursor b = strip(ks.v[0]);
        free(ks.v);
        if (clang_getCursorKind(b) == CXCursor_ArraySubscriptExpr) { cur = b; continue; }
        if (clang_getCursorKind(b) != CXCursor_DeclRefExpr) return a;
        CXCursor ref = clang_getCursorReferenced(b);
        a.decl = ref;
        a.space = decl_space(f, ref, &a.base_fl);
        if (a.space == 1 && clang_getCursorKind(ref) == CXCursor_ParmDecl) a.param = param_index(f, ref);
        break;
    }
    a.rank = n;
    for (int i = 0; i < n; i++) a.idx[i] = rev[n - 1 - i];
    return a;
}

/* The index as text, with variables that hold threadIdx.x written as such. */
static void index_text(fn_ctx *f, const access_t *a, char *buf, size_t len)
{
    buf[0] = 0;
    size_t o = 0;
    for (int i = 0; i < a->rank; i++) {
        char t[200];
        if (is_plain_tx(f, a->idx[i])) snprintf(t, sizeof t, "threadIdx . x");
        else expr_text(f->cx->tu, a->idx[i], t, sizeof t);
        o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "[%s]", t);
    }
}

static int ctrl_thread(const fn_ctx *f)
{
    for (int i = 0; i < f->n_ctrl && i < 64; i++)
        if (f->ctrl[i].fl & T_VARIES) return 1;
    return 0;
}
static int ctrl_lanevar(const fn_ctx *f)
{
    for (int i = 0; i < f->n_ctrl && i < 64; i++)
        if (f->ctrl[i].lanevar) return 1;
    return 0;
}
static int ctrl_single(const fn_ctx *f)
{
    for (int i = 0; i < f->n_ctrl && i < 64; i++)
        if (f->ctrl[i].single) return 1;
    return 0;
}

static int skipped(fn_ctx *f, CXCursor c)
{
    for (int i = 0; i < f->n_skip; i++)
        if (clang_equalCursors(f->skip[i], c)) return 1;
    return 0;
}

/* KG-SYNC-MISSING: shared memory written since the last barrier, read at
 * another element (another thread's) before a barrier. */
static void smem_sync_track(fn_ctx *f, const access_t *a, int is_store, int is_atomic, int line)
{
    char idx[160];
    if (is_atomic) snprintf(idx, sizeof idx, "<atomic>");
    else index_text(f, a, idx, sizeof idx);
    unsigned ifl = 0;
    for (int i = 0; i < a->rank; i++) ifl |= expr_flags(f, a->idx[i]);
    int idx_thread = (ifl & T_VARIES) != 0 || is_atomic;
    if (is_store) {
        for (int i = 0; i < f->n_pending; i++)
            if (clang_equalCursors(f->pending[i].decl, a->decl) && !strcmp(f->pending[i].idx, idx)) return;
        if (f->n_pending >= MAX_PENDING) return;
        f->pending[f->n_pending].decl = a->decl;
        snprintf(f->pending[f->n_pending].idx, sizeof f->pending[0].idx, "%s%s", idx_thread ? "T" : (ctrl_thread(f) ? "C" : "U"), idx);
        f->pending[f->n_pending].line = line;
        f->n_pending++;
        return;
    }
    for (int i = 0; i < f->n_pending; i++) {
        if (!clang_equalCursors(f->pending[i].decl, a->decl)) continue;
        char kind = f->pending[i].idx[0];
        const char *widx = f->pending[i].idx + 1;
        int same = !strcmp(widx, idx);
        /* another thread's element: a thread-dependent write read elsewhere,
         * or a write under a thread-dependent branch read by everyone */
        if ((kind == 'T' && !same) || (kind == 'C' && same && !ctrl_single(f))) {
            char nm[48];
            spelling(a->decl, nm, sizeof nm);
            add_finding(f->cx->r, "KG-SYNC-MISSING", -1, line,
                        "shared %s written at line %d and read here at another thread's element with "
                        "no barrier between: a race (put __syncthreads() between)", nm,
                        f->pending[i].line);
            return;
        }
    }
}

/* KG-BANK-CONFLICT on a shared 2-D array a[i][j]: the row index comes from
 * threadIdx.x, the column does not, and the row stride is a multiple of 8
 * banks. */
static void check_bank_2d(fn_ctx *f, const access_t *a, int line)
{
    CXType t = clang_getCanonicalType(clang_getCursorType(a->decl));
    CXType row = clang_getArrayElementType(t);
    CXType el = clang_getArrayElementType(row);
    long long cols = clang_getArraySize(row);
    long long es = clang_Type_getSizeOf(el);
    unsigned ri = expr_flags(f, a->idx[0]), ci = expr_flags(f, a->idx[1]);
    if (cols > 0 && es > 0 && (ri & T_TX) && !(ci & T_TX)) {
        long long words = cols * es / 4;
        if (words > 0 && words % 8 == 0) {
            char nm[64];
            spelling(a->decl, nm, sizeof nm);
            add_finding(f->cx->r, "KG-BANK-CONFLICT", -1, line,
                        "shared %s[..][%lld] indexed by threadIdx.x in the row: a warp reads one "
                        "column, a %lld-word row stride puts it in few banks; pad the row (e.g. [%lld + 1])",
                        nm, cols, words, cols);
        }
    }
}

/* Remember a shared array and how the kernel indexes it (the launch
 * configuration is checked against it later). */
static void note_smem_array(fn_ctx *f, const access_t *a, int line)
{
    fn_info *fi = &f->cx->fns[f->fn];
    int guarded = ctrl_thread(f);   /* if (tid < 16) s[tid]: bounded by the branch */
    CXType t = clang_getCanonicalType(clang_getCursorType(a->decl));
    if (t.kind == CXType_IncompleteArray) {   /* extern __shared__ T s[] */
        if (!fi->extern_smem_line) fi->extern_smem_line = line;
        fi->extern_elem = clang_Type_getSizeOf(clang_getArrayElementType(t));
        if (a->rank == 1 && is_plain_tx(f, a->idx[0]) && !guarded) fi->extern_plain_tx = 1;
        return;
    }
    if (t.kind != CXType_ConstantArray) return;
    char nm[48];
    spelling(a->decl, nm, sizeof nm);
    int plain = (a->rank == 1 && is_plain_tx(f, a->idx[0])) ||
                (a->rank == 2 && is_plain_ty(f, a->idx[0]) && is_plain_tx(f, a->idx[1]));
    if (!plain || guarded) return;
    for (int i = 0; i < fi->n_arrays; i++)
        if (!strcmp(fi->arrays[i].name, nm)) return;
    if (fi->n_arrays >= MAX_ARRAYS) return;
    smem_array *s = &fi->arrays[fi->n_arrays++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", nm);
    s->line = line;
    s->rank = a->rank;
    s->plain = 1;
    s->dim[0] = clang_getArraySize(t);
    if (a->rank == 2) s->dim[1] = clang_getArraySize(clang_getArrayElementType(t));
}

/* Is the index masked or bounded in the expression itself (i & 15, i % 16,
 * min(i, 15))? */
static int index_masked(CXCursor idx)
{
    CXCursor s = strip(idx);
    enum CXCursorKind k = clang_getCursorKind(s);
    if (k == CXCursor_BinaryOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(s);
        return op == CXBinaryOperator_Rem || op == CXBinaryOperator_And;
    }
    if (k == CXCursor_CallExpr) {
        char nm[32];
        callee_name(s, nm, sizeof nm);
        return !strcmp(nm, "min") || !strcmp(nm, "umin") || !strcmp(nm, "max");
    }
    if (k == CXCursor_ConditionalOperator) return 1;
    return 0;
}

static void check_access(fn_ctx *f, CXCursor sub, int is_store, int is_atomic)
{
    fn_info *fi = &f->cx->fns[f->fn];
    access_t a = access_of(f, sub);
    if (a.rank == 0 || clang_Cursor_isNull(a.decl)) return;
    /* the inner subscripts of t[a][b] are part of this access */
    CXCursor cur = sub;
    for (int i = 1; i < a.rank && f->n_skip < 128; i++) {
        kids_t ks = kids_of(cur);
        if (ks.n == 2) { cur = strip(ks.v[0]); f->skip[f->n_skip++] = cur; }
        free(ks.v);
    }
    unsigned idx = 0;
    for (int i = 0; i < a.rank; i++) idx |= expr_flags(f, a.idx[i]);
    unsigned addr = idx | (a.base_fl & ~(unsigned)(T_SHARED | T_LOCALARR));
    int line = cursor_line(sub);
    if (a.space == 2) smem_sync_track(f, &a, is_store, is_atomic, line);
    if (f->replay) return;   /* a loop's second walk: only the race tracking */
    if (a.space == 1 && fi->kind == 1) {
        if (addr & T_TXS)
            add_finding(f->cx->r, "KG-STRIDED", -1, line,
                        "global index scales threadIdx.x by a non-unit factor: neighbouring threads "
                        "touch addresses far apart (uncoalesced); map threadIdx.x to the fastest index");
        if (addr & T_TXS) { if (is_store) { if (!f->strided_store_line) f->strided_store_line = line; }
                            else if (!f->strided_load_line) f->strided_load_line = line; }
        else if (addr & T_TX) { if (is_store) { if (!f->coalesced_store_line) f->coalesced_store_line = line; }
                                else if (!f->coalesced_load_line) f->coalesced_load_line = line; }
        if (is_store && !is_atomic && (addr & T_THREAD) && !(addr & (T_BID | T_GDIM))) {
            if (fi->multiblock)
                add_finding(f->cx->r, "KG-IDX-THREADONLY", -1, line,
                            "global store indexed by threadIdx without blockIdx, but %s is launched "
                            "with more than one block: every block writes the same elements", fi->name);
            add_finding(f->cx->r, "KG-IDX-NO-BLOCK", -1, line,
                        "global store index built from threadIdx without blockIdx and blockDim: only "
                        "right for a one-block launch");
        }
        if (is_store && (addr & (T_THREAD | T_BID)) && !f->store_line) f->store_line = line;
        if (a.param >= 0 && a.param < 32) {
            if (is_store && !is_atomic) fi->stored_params |= 1u << a.param;
            else if (!is_store) fi->read_params |= 1u << a.param;
        }
    } else if (a.space == 2) {
        if (a.rank == 2) check_bank_2d(f, &a, line);
        note_smem_array(f, &a, line);
        if (a.rank == 1) {
            /* 1-D shared array indexed by threadIdx.x times an even literal */
            int done = 0;
            CXCursor ix = strip(a.idx[0]);
            if (clang_getCursorKind(ix) == CXCursor_BinaryOperator &&
                clang_getCursorBinaryOperatorKind(ix) == CXBinaryOperator_Mul) {
                kids_t km = kids_of(ix);
                if (km.n == 2) {
                    for (int s = 0; s < 2 && !done; s++) {
                        double v;
                        unsigned other = expr_flags(f, km.v[1 - s]);
                        if (literal_number(km.v[s], &v) && v >= 2 && (long long)v % 2 == 0 &&
                            (other & T_TX) && !(other & T_TXS)) {
                            add_finding(f->cx->r, "KG-BANK-CONFLICT", -1, line,
                                        "shared index threadIdx.x * %lld: a warp hits the same banks "
                                        "(%lld-way conflict); use an odd stride or sequential addressing",
                                        (long long)v, (long long)v < 32 ? (long long)v : 32LL);
                            done = 1;
                        }
                    }
                }
                free(km.v);
            }
            if (!done && (idx & T_TXSV))
                add_finding(f->cx->r, "KG-BANK-STRIDE-VAR", -1, line,
                            "shared index threadIdx.x times a variable stride (interleaved addressing): "
                            "as the stride grows, a warp's lanes hit the same banks; use sequential "
                            "addressing (s[tid] += s[tid + stride])");
        }
    } else if (a.space == 3) {
        char nm[48];
        spelling(a.decl, nm, sizeof nm);
        if ((idx & T_MEM) && !index_masked(a.idx[0]))
            add_finding(f->cx->r, "KG-LOCAL-ARRAY-DATA-INDEX", -1, line,
                        "local array %s indexed by a value read from memory with no bound in sight: "
                        "data outside [0, size) writes or reads past the array", nm);
        else if (idx & (T_TX | T_TYZ | T_BID | T_BDIM | T_GDIM | T_PINT | T_VARY | T_MEM | T_WU))
            add_finding(f->cx->r, "KG-LOCAL-ARRAY-DYNAMIC", -1, line,
                        "local array %s indexed by a run-time value: it lives in local memory (slow), "
                        "not in registers", nm);
    }
}

/* The subscript an assignment stores to: a[i], or a member of one (a[i].x). */
static CXCursor store_subscript(CXCursor lhs)
{
    CXCursor s = strip(lhs);
    if (clang_getCursorKind(s) == CXCursor_MemberRefExpr) {
        CXCursor b = first_expr_child(s);
        if (!clang_Cursor_isNull(b)) s = strip(b);
    }
    return clang_getCursorKind(s) == CXCursor_ArraySubscriptExpr ? s : clang_getNullCursor();
}

/* The store target of an assignment or ++/--: an ArraySubscriptExpr? */
static void check_store_target(fn_ctx *f, CXCursor lhs)
{
    CXCursor s = store_subscript(lhs);
    if (!clang_Cursor_isNull(s)) {
        check_access(f, s, 1, 0);
        if (f->n_skip < 128) f->skip[f->n_skip++] = s;
    }
}

/* ---- loops ----------------------------------------------------------------- */

/* Does a loop body leave the loop (break not in a nested loop/switch, return,
 * goto, or a trap)? */
typedef struct { int exits; int nest; } exit_ctx;

static enum CXChildVisitResult exit_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    exit_ctx *e = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt || k == CXCursor_CXXThrowExpr ||
        k == CXCursor_AsmStmt || k == CXCursor_GCCAsmStmt) { e->exits = 1; return CXChildVisit_Break; }
    if (k == CXCursor_BreakStmt && e->nest == 0) { e->exits = 1; return CXChildVisit_Break; }
    if (k == CXCursor_CallExpr) {
        char nm[32];
        callee_name(c, nm, sizeof nm);
        if (!strcmp(nm, "__trap") || !strcmp(nm, "asm") || !strcmp(nm, "__brkpt") ||
            !strcmp(nm, "exit") || !strcmp(nm, "abort") || !strcmp(nm, "longjmp")) {
            e->exits = 1;
            return CXChildVisit_Break;
        }
    }
    if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt ||
        k == CXCursor_SwitchStmt || k == CXCursor_CXXForRangeStmt) {
        e->nest++;
        clang_visitChildren(c, exit_visit, e);
        e->nest--;
        return e->exits ? CXChildVisit_Break : CXChildVisit_Continue;
    }
    return CXChildVisit_Recurse;
}

static int body_exits(CXCursor body)
{
    if (clang_Cursor_isNull(body)) return 0;
    exit_ctx e = {0, 0};
    if (clang_getCursorKind(body) == CXCursor_BreakStmt || clang_getCursorKind(body) == CXCursor_ReturnStmt)
        return 1;
    clang_visitChildren(body, exit_visit, &e);
    return e.exits;
}

/* The parts of a for statement (each may be missing: null cursor), found by
 * where they sit against the two semicolons of its header. */
static void for_parts(CXTranslationUnit tu, CXCursor c, CXCursor *init, CXCursor *cond, CXCursor *inc,
                      CXCursor *body)
{
    *init = *cond = *inc = *body = clang_getNullCursor();
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(tu, clang_getCursorExtent(c), &toks, &n);
    unsigned semi[2] = {0, 0}, close = 0;
    int depth = 0, ns = 0;
    for (unsigned i = 1; i < n; i++) {
        CXString s = clang_getTokenSpelling(tu, toks[i]);
        const char *t = clang_getCString(s);
        unsigned off = 0;
        clang_getSpellingLocation(clang_getTokenLocation(tu, toks[i]), NULL, NULL, NULL, &off);
        if (t && !strcmp(t, "(")) depth++;
        else if (t && !strcmp(t, ")")) { depth--; if (depth == 0) { close = off; clang_disposeString(s); break; } }
        else if (t && !strcmp(t, ";") && depth == 1 && ns < 2) semi[ns++] = off;
        clang_disposeString(s);
    }
    if (toks) clang_disposeTokens(tu, toks, n);
    kids_t ks = kids_of(c);
    for (int i = 0; i < ks.n; i++) {
        unsigned off = 0;
        clang_getSpellingLocation(clang_getRangeStart(clang_getCursorExtent(ks.v[i])), NULL, NULL, NULL, &off);
        if (ns == 2 && off < semi[0]) *init = ks.v[i];
        else if (ns == 2 && off < semi[1]) *cond = ks.v[i];
        else if (ns == 2 && close && off < close) *inc = ks.v[i];
        else *body = ks.v[i];
    }
    free(ks.v);
}

/* KG-LOOP-NO-PROGRESS: what the condition reads, and whether the loop can
 * change it. */
typedef struct {
    CXCursor vars[8];
    int n;
    int bad;            /* the condition reads something else (memory, a call, a member) */
} cond_vars;

static enum CXChildVisitResult cond_var_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    cond_vars *cv = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    switch (k) {
    case CXCursor_CallExpr: case CXCursor_ArraySubscriptExpr: case CXCursor_MemberRefExpr:
    case CXCursor_LambdaExpr: case CXCursor_CXXThisExpr: case CXCursor_OverloadedDeclRef:
        cv->bad = 1;
        return CXChildVisit_Break;
    case CXCursor_UnaryOperator:
        if (clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_Deref) { cv->bad = 1; return CXChildVisit_Break; }
        return CXChildVisit_Recurse;
    case CXCursor_DeclRefExpr: {
        CXCursor ref = clang_getCursorReferenced(c);
        enum CXCursorKind rk = clang_getCursorKind(ref);
        CXType t = clang_getCursorType(ref);
        if (rk == CXCursor_EnumConstantDecl) return CXChildVisit_Continue;
        if ((rk != CXCursor_VarDecl && rk != CXCursor_ParmDecl) || clang_isVolatileQualifiedType(t) ||
            !(type_is_integer(t) || type_is_floating(t) || clang_getCanonicalType(t).kind == CXType_Bool)) {
            cv->bad = 1;
            return CXChildVisit_Break;
        }
        if (rk == CXCursor_VarDecl) {
            enum CXCursorKind pk = clang_getCursorKind(clang_getCursorSemanticParent(ref));
            if ((pk != CXCursor_FunctionDecl && pk != CXCursor_FunctionTemplate) ||
                clang_Cursor_getStorageClass(ref) == CX_SC_Static || attrs_of(ref).shared) {
                cv->bad = 1;
                return CXChildVisit_Break;
            }
        }
        if (cv->n < 8) cv->vars[cv->n++] = ref;
        else cv->bad = 1;
        return CXChildVisit_Continue;
    }
    default:
        return CXChildVisit_Recurse;
    }
}

typedef struct { cond_vars *cv; int touched; } touch_ctx;

static int refers_to(const cond_vars *cv, CXCursor e)
{
    CXCursor s = strip(e);
    if (clang_getCursorKind(s) != CXCursor_DeclRefExpr) return 0;
    CXCursor ref = clang_getCursorReferenced(s);
    for (int i = 0; i < cv->n; i++)
        if (clang_equalCursors(cv->vars[i], ref)) return 1;
    return 0;
}

static enum CXChildVisitResult touch_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    touch_ctx *t = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_AsmStmt || k == CXCursor_GCCAsmStmt || k == CXCursor_LambdaExpr) {
        t->touched = 1;
        return CXChildVisit_Break;
    }
    if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
        if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign) {
            kids_t ks = kids_of(c);
            if (ks.n == 2 && refers_to(t->cv, ks.v[0])) t->touched = 1;
            free(ks.v);
        }
    } else if (k == CXCursor_UnaryOperator) {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
        if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
            op == CXUnaryOperator_PreDec || op == CXUnaryOperator_AddrOf) {
            kids_t ks = kids_of(c);
            if (ks.n == 1 && refers_to(t->cv, ks.v[0])) t->touched = 1;
            free(ks.v);
        }
    } else if (k == CXCursor_CallExpr) {
        /* passed by reference to a function that may change it */
        CXCursor fn = clang_getCursorReferenced(c);
        int na = clang_Cursor_getNumArguments(c);
        for (int i = 0; i < na; i++) {
            CXCursor a = clang_Cursor_getArgument(c, (unsigned)i);
            if (!refers_to(t->cv, a)) continue;
            if (clang_Cursor_isNull(fn)) { t->touched = 1; break; }
            CXType pt = clang_getArgType(clang_getCursorType(fn), (unsigned)i);
            if (pt.kind == CXType_LValueReference || pt.kind == CXType_RValueReference || pt.kind == CXType_Invalid)
                t->touched = 1;
        }
    }
    return t->touched ? CXChildVisit_Break : CXChildVisit_Recurse;
}

static int loop_no_progress(CXCursor cond, CXCursor inc, CXCursor body)
{
    if (clang_Cursor_isNull(cond) || clang_Cursor_isNull(body)) return 0;
    cond_vars cv;
    memset(&cv, 0, sizeof cv);
    if (clang_getCursorKind(strip(cond)) == CXCursor_DeclRefExpr) cond_var_visit(strip(cond), cond, &cv);
    else clang_visitChildren(cond, cond_var_visit, &cv);
    if (cv.bad || cv.n == 0) return 0;
    touch_ctx t = {&cv, 0};
    clang_visitChildren(body, touch_visit, &t);
    if (!t.touched && !clang_Cursor_isNull(inc)) {
        touch_visit(inc, body, &t);
        if (!t.touched) clang_visitChildren(inc, touch_visit, &t);
    }
    if (t.touched) return 0;
    if (body_exits(body)) return 0;
    return 1;
}

/* 1 when the for statement has no condition. */
static int cond_is_true_literal(CXCursor cond)
{
    double v;
    return literal_number(cond, &v) && v != 0;
}

static void check_loop(fn_ctx *f, CXCursor c, enum CXCursorKind k)
{
    fn_info *fi = &f->cx->fns[f->fn];
    CXCursor init = clang_getNullCursor(), cond = init, inc = init, body = init;
    if (k == CXCursor_ForStmt) for_parts(f->cx->tu, c, &init, &cond, &inc, &body);
    else {
        kids_t ks = kids_of(c);
        if (ks.n == 2) {
            if (k == CXCursor_WhileStmt) { cond = ks.v[0]; body = ks.v[1]; }
            else { body = ks.v[0]; cond = ks.v[1]; }
        }
        free(ks.v);
    }
    int line = cursor_line(c);
    fi->has_loop = 1;
    int unbounded = k == CXCursor_ForStmt ? clang_Cursor_isNull(cond) : (!clang_Cursor_isNull(cond) && cond_is_true_literal(cond));
    if (k == CXCursor_ForStmt && !clang_Cursor_isNull(cond) && cond_is_true_literal(cond)) unbounded = 1;
    if (unbounded && !clang_Cursor_isNull(body) && !body_exits(body))
        add_finding(f->cx->r, "KG-LOOP-UNBOUNDED", -1, line,
                    "loop without a condition and without break/return in device code: it can "
                    "only end by trapping; the dynamic track's timeout decides");
    if (!unbounded && loop_no_progress(cond, inc, body)) {
        char ct[120];
        expr_text(f->cx->tu, cond, ct, sizeof ct);
        add_finding(f->cx->r, "KG-LOOP-NO-PROGRESS", -1, line,
                    "the loop's condition (%s) reads only variables that nothing in the loop changes, "
                    "and the loop has no break or return: once entered it never ends", ct);
    }
    if (!clang_Cursor_isNull(cond) && (expr_flags(f, cond) & T_PINT)) fi->has_param_loop = 1;
    if (k != CXCursor_ForStmt || clang_Cursor_isNull(init) || clang_Cursor_isNull(inc)) return;
    /* the loop variable: for (int i = <init>; ...; i += <step>) */
    CXCursor var = clang_getNullCursor(), vinit = clang_getNullCursor();
    if (clang_getCursorKind(init) == CXCursor_DeclStmt) {
        kids_t ks = kids_of(init);
        if (ks.n == 1 && clang_getCursorKind(ks.v[0]) == CXCursor_VarDecl) {
            var = ks.v[0];
            vinit = first_expr_child(var);
        }
        free(ks.v);
    }
    if (clang_Cursor_isNull(var) || clang_Cursor_isNull(vinit)) return;
    CXCursor step = clang_getNullCursor();
    CXCursor is = strip(inc);
    if (clang_getCursorKind(is) == CXCursor_CompoundAssignOperator &&
        clang_getCursorBinaryOperatorKind(is) == CXBinaryOperator_AddAssign) {
        kids_t ks = kids_of(is);
        if (ks.n == 2 && clang_getCursorKind(strip(ks.v[0])) == CXCursor_DeclRefExpr &&
            clang_equalCursors(clang_getCursorReferenced(strip(ks.v[0])), var))
            step = ks.v[1];
        free(ks.v);
    }
    if (clang_Cursor_isNull(step)) return;
    unsigned ifl = expr_flags(f, vinit);
    double lit;
    if (is_plain_tx(f, vinit) && literal_number(step, &lit) && lit > 0 && fi->n_loops < MAX_LOOPS) {
        fi->tx_loops[fi->n_loops].line = line;
        fi->tx_loops[fi->n_loops].step = (long long)lit;
        fi->n_loops++;
    }
    int step_b = builtin_of(f, step, NULL);
    if ((ifl & T_BID) && (ifl & (T_TX | T_TYZ)) && (step_b == 'D' || step_b == 'G'))
        add_finding(f->cx->r, "KG-GRID-STRIDE-BLOCK-ONLY", -1, line,
                    "the loop starts at a grid-wide index but steps by %s only: blocks redo each "
                    "other's elements; step by blockDim.x * gridDim.x", step_b == 'D' ? "blockDim" : "gridDim");
}

/* ---- calls in device code ------------------------------------------------- */

static int is_host_api_name(const char *nm)
{
    static const char *const pfx[] = {"cuda", "cublas", "cufft", "cusparse", "cusolver", "curandCreate",
                                      "curandGenerate", "curandDestroy", "curandSet", "nccl", "cudnn", NULL};
    for (int i = 0; pfx[i]; i++)
        if (!strncmp(nm, pfx[i], strlen(pfx[i]))) return 1;
    return 0;
}

/* Is the function declared constexpr (clang and nvcc's relaxed mode treat it
 * as callable from device code)? */
static int decl_is_constexpr(CXTranslationUnit tu, CXCursor decl)
{
    CXToken *toks = NULL;
    unsigned n = 0;
    int r = 0;
    clang_tokenize(tu, clang_getCursorExtent(decl), &toks, &n);
    for (unsigned i = 0; i < n && i < 24 && !r; i++) {
        CXString s = clang_getTokenSpelling(tu, toks[i]);
        const char *t = clang_getCString(s);
        if (t && !strcmp(t, "constexpr")) r = 1;
        if (t && !strcmp(t, "{")) { clang_disposeString(s); break; }
        clang_disposeString(s);
    }
    if (toks) clang_disposeTokens(tu, toks, n);
    return r;
}

/* A host function the candidate defines (not a builtin, not a header's). */
static int host_fn_of_candidate(scan_ctx *cx, CXCursor decl)
{
    CXCursor def = clang_getCursorDefinition(decl);
    if (clang_Cursor_isNull(def)) return 0;
    for (int i = 0; i < cx->n_fns; i++)
        if (clang_equalCursors(cx->fns[i].c, def)) return cx->fns[i].kind == 0;
    return 0;
}

/* A call from device code to a function that exists only on the host. */
static void host_only_call(fn_ctx *f, const char *nm, CXCursor decl, int line)
{
    fn_info *fi = &f->cx->fns[f->fn];
    int sev_hd = fi->kind == 3 ? 1 : -1;
    if (name_in(nm, c_host_only)) {
        add_finding(f->cx->r, "KG-HOSTLIB-DEVICE", fi->kind == 3 ? 1 : 0, line,
                    "%s() is a host-only function called from device code: it does not "
                    "compile for the GPU", nm);
    } else if (is_host_api_name(nm)) {
        add_finding(f->cx->r, "KG-HOST-API-DEVICE", sev_hd, line,
                    "%s() is a host API (CUDA runtime, cuBLAS, ...) called from device code: it does not "
                    "compile for the GPU (kernels cannot copy, allocate or synchronize like the host)", nm);
    } else if (!clang_Cursor_isNull(decl) && host_fn_of_candidate(f->cx, decl) &&
               !decl_is_constexpr(f->cx->tu, decl)) {
        add_finding(f->cx->r, "KG-HOST-FN-DEVICE", sev_hd, line,
                    "%s() is a host function (no __device__) called from device code: nvcc refuses it", nm);
    }
}

/* The address an atomic updates: its space and index flags. */
static int atomic_target(fn_ctx *f, CXCursor arg, access_t *a, unsigned *idx_fl)
{
    memset(a, 0, sizeof *a);
    a->param = -1;
    *idx_fl = 0;
    CXCursor s = strip(arg);
    enum CXCursorKind k = clang_getCursorKind(s);
    if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(s) == CXUnaryOperator_AddrOf) {
        kids_t ka = kids_of(s);
        CXCursor sub = ka.n == 1 ? strip(ka.v[0]) : clang_getNullCursor();
        free(ka.v);
        if (clang_Cursor_isNull(sub) || clang_getCursorKind(sub) != CXCursor_ArraySubscriptExpr) return 0;
        *a = access_of(f, sub);
        if (a->rank == 0) return 0;
        for (int i = 0; i < a->rank; i++) *idx_fl |= expr_flags(f, a->idx[i]);
        check_access(f, sub, 1, 1);
        if (f->n_skip < 128) f->skip[f->n_skip++] = sub;
        return 1;
    }
    CXCursor base = s;
    if (k == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(s) == CXBinaryOperator_Add) {
        kids_t kb = kids_of(s);
        if (kb.n == 2) {
            int pi = type_is_pointer(clang_getCursorType(kb.v[0])) ? 0 : 1;
            base = strip(kb.v[pi]);
            *idx_fl = expr_flags(f, kb.v[1 - pi]);
        }
        free(kb.v);
    }
    if (clang_getCursorKind(base) != CXCursor_DeclRefExpr) return 0;
    a->decl = clang_getCursorReferenced(base);
    a->space = decl_space(f, a->decl, &a->base_fl);
    if (a->space == 1 && clang_getCursorKind(a->decl) == CXCursor_ParmDecl) a->param = param_index(f, a->decl);
    *idx_fl |= a->base_fl & ~(unsigned)(T_SHARED | T_LOCALARR);
    return 1;
}

static void check_atomic(fn_ctx *f, CXCursor c, CXCursor parent, const char *nm, int line)
{
    fn_info *fi = &f->cx->fns[f->fn];
    kids_t args = call_args(c);
    if (args.n < 1) { free(args.v); return; }
    access_t a;
    unsigned ifl;
    int ok = atomic_target(f, args.v[0], &a, &ifl);
    free(args.v);
    if (f->replay) return;
    int accum = !strncmp(nm, "atomicAdd", 9) || !strncmp(nm, "atomicSub", 9) || !strncmp(nm, "atomicInc", 9) ||
                !strncmp(nm, "atomicOr", 8);
    int cas = !strncmp(nm, "atomicCAS", 9);
    size_t l = strlen(nm);
    int block = l > 6 && !strcmp(nm + l - 6, "_block");
    /* discarded: the call is a statement of its own (a condition or a return uses it) */
    enum CXCursorKind pk = clang_getCursorKind(parent);
    int discarded = clang_isStatement(pk) && pk != CXCursor_ReturnStmt;
    if (cas && discarded && f->loop_depth == 0)
        add_finding(f->cx->r, "KG-ATOMIC-CAS-NO-LOOP", -1, line,
                    "the result of %s is ignored and nothing retries it: when another thread changed "
                    "the value first, this update is silently lost", nm);
    if (!ok || a.space != 1 || fi->kind != 1) return;   /* a device function's pointer may point anywhere */
    if (accum && a.param >= 0 && a.param < 32) {
        fi->atomic_params |= 1u << a.param;
        if (!fi->atomic_line) fi->atomic_line = line;
    }
    if (block && fi->multiblock)
        add_finding(f->cx->r, "KG-ATOMIC-BLOCK-SCOPE", -1, line,
                    "%s is atomic only within one block, but this global memory is updated by every "
                    "block of a multi-block launch: updates from other blocks race", nm);
    if (accum && !(ifl & (T_VARIES | T_MEM)) && !ctrl_single(f))
        add_finding(f->cx->r, "KG-ATOMIC-SAME-ADDRESS", -1, line,
                    "every thread does %s on the same global address: the updates serialize in L2; "
                    "reduce in the block first and add once per block", nm);
    else if (accum && (ifl & T_MEM) && !f->has_smem_array)
        add_finding(f->cx->r, "KG-ATOMIC-GLOBAL-HOT", -1, line,
                    "global %s at an address taken from the data, with no shared-memory copy: a few hot "
                    "addresses take every update (privatize per block in shared memory)", nm);
}

static int mask_is_full(double v)
{
    return v == -1.0 || v == 4294967295.0;
}

static void check_warp_call(fn_ctx *f, CXCursor c, const char *nm, int line)
{
    kids_t args = call_args(c);
    double mask = 0;
    int have_mask = args.n >= 1 && eval_number(args.v[0], &mask);
    int full = !strcmp(nm, "__syncwarp") && args.n == 0 ? 1 : have_mask && mask_is_full(mask);
    int lanevar = ctrl_lanevar(f);
    if (full && lanevar)
        add_finding(f->cx->r, "KG-SHFL-DIVERGENT", -1, line,
                    "%s with the full mask inside a branch or loop whose condition differs between "
                    "lanes: lanes that do not arrive leave it undefined (hang or garbage)", nm);
    else if (have_mask && !full && !lanevar)
        add_finding(f->cx->r, "KG-SHFL-MASK-PARTIAL", -1, line,
                    "%s with mask 0x%llx while every lane of the warp executes it: lanes outside the "
                    "mask call it with a mask that does not name them (undefined)", nm,
                    (unsigned long long)(long long)mask & 0xffffffffULL);
    int is_shfl = !strcmp(nm, "__shfl_sync") || !strcmp(nm, "__shfl_up_sync") ||
                  !strcmp(nm, "__shfl_down_sync") || !strcmp(nm, "__shfl_xor_sync");
    double w;
    if (is_shfl && args.n >= 4 && eval_number(args.v[3], &w)) {
        long long wi = (long long)w;
        if (w != (double)wi || wi < 1 || wi > 32 || (wi & (wi - 1)))
            add_finding(f->cx->r, "KG-SHFL-WIDTH", -1, line,
                        "%s with width %g: the width must be a power of two from 1 to 32", nm, w);
    }
    free(args.v);
}

static void check_call(fn_ctx *f, CXCursor c, CXCursor parent)
{
    fn_info *fi = &f->cx->fns[f->fn];
    char nm[128];
    callee_name(c, nm, sizeof nm);
    int line = cursor_line(c);
    CXCursor ref = clang_getCursorReferenced(c);
    int barrier = name_in(nm, sync_names) || !strcmp(nm, "__syncwarp") || !strcmp(nm, "__barrier_sync");
    if (!barrier && !strcmp(nm, "sync") && !clang_Cursor_isNull(ref)) barrier = 1;   /* cooperative groups */
    if (is_atomic_name(nm)) check_atomic(f, c, parent, nm, line);
    if (barrier) f->n_pending = 0;
    if (f->replay) return;

    if (name_in(nm, sync_names)) {
        if (ctrl_thread(f))
            add_finding(f->cx->r, "KG-SYNC-DIVERGENT", -1, line,
                        "%s() inside a branch or loop whose condition depends on the thread: "
                        "threads that skip it leave the block barrier undefined (hang or "
                        "wrong results); move the barrier out of the branch", nm);
        else if (f->exit_line && f->exit_line < line)
            add_finding(f->cx->r, "KG-SYNC-AFTER-EXIT", -1, line,
                        "%s() after a thread-dependent return (line %d): the threads that left never "
                        "arrive at the barrier", nm, f->exit_line);
    }
    if (name_in(nm, warp_sync_names)) check_warp_call(f, c, nm, line);
    if (name_in(nm, warp_legacy_names))
        add_finding(f->cx->r, "KG-SHFL-LEGACY", -1, line,
                    "%s() without _sync was removed for sm_70 and later: it does not compile for this "
                    "GPU; use %s_sync(0xffffffff, ...)", nm, nm);
    if (name_in(nm, fence_names)) f->has_fence = 1;
    if (!strcmp(nm, "sync") && !clang_Cursor_isNull(ref)) {
        char cls[64];
        spelling(clang_getCursorSemanticParent(ref), cls, sizeof cls);
        char ty[128] = "";
        kids_t ks = kids_of(c);
        for (int i = 0; i < ks.n && !ty[0]; i++) {
            type_spelling(clang_getCursorType(strip(ks.v[i])), ty, sizeof ty);
            if (!strstr(ty, "grid_group")) ty[0] = 0;
        }
        free(ks.v);
        if ((!strcmp(cls, "grid_group") || ty[0]) && !f->cx->grid_sync_line) f->cx->grid_sync_line = line;
    }
    if (name_in(nm, fastmath_names) && !intent_near(f->cx, line, fi->line))
        add_finding(f->cx->r, "KG-FASTMATH", -1, line,
                    "%s is a fast approximate intrinsic and no comment near it states the precision "
                    "intent; the dynamic track checks its accuracy closely", nm);
    if (name_in(nm, pow_names)) {
        kids_t args = call_args(c);
        double v;
        if (args.n >= 2 && literal_number(args.v[args.n - 1], &v) &&
            (v == 2 || v == 3 || v == 4 || v == -1 || v == -2 || v == 0.5))
            add_finding(f->cx->r, "KG-POW-SMALL", -1, line,
                        "%s(x, %g): a general power for a small constant exponent is slow and "
                        "less exact; write %s", nm, v,
                        v == 0.5 ? "sqrtf(x)" : v < 0 ? "1.0f / (x * ...)" : "x * x (* x ...)");
        free(args.v);
    }
    if (name_in(nm, double_math_names) && !clang_Cursor_isNull(ref) &&
        clang_getCanonicalType(clang_getResultType(clang_getCursorType(ref))).kind == CXType_Double) {
        kids_t args = call_args(c);
        for (int i = 0; i < args.n; i++)
            if (clang_getCanonicalType(clang_getCursorType(strip_implicit(args.v[i]))).kind == CXType_Float) {
                add_finding(f->cx->r, "KG-DOUBLE-MATH", -1, line,
                            "%s() on a float computes in double precision (a double overload was "
                            "chosen): slower on every GPU; call %sf()", nm, nm);
                break;
            }
        free(args.v);
    }
    if (fi->kind != 0 && clang_Cursor_isNull(ref) && name_in(nm, c_host_only)) {
        host_only_call(f, nm, ref, line);
    } else if (fi->kind != 0 && !clang_Cursor_isNull(ref)) {
        cuda_attrs ra = attrs_of(ref);
        if (!strcmp(nm, "printf"))
            add_finding(f->cx->r, "KG-DEVICE-PRINTF", -1, line,
                        "printf in device code: legal but slow and serializing; remove debug output");
        else if ((!strcmp(nm, "malloc") || !strcmp(nm, "free")) && !in_namespace(ref, "cub"))
            add_finding(f->cx->r, "KG-DEVICE-HEAP", -1, line,
                        "%s in device code: the device heap is small (8 MB by default), slow and "
                        "malloc can return NULL", nm);
        else if (!ra.device && !ra.global &&
                 (clang_getCursorKind(ref) == CXCursor_FunctionDecl || clang_getCursorKind(ref) == CXCursor_FunctionTemplate) &&
                 (name_in(nm, c_host_only) || is_host_api_name(nm) || host_fn_of_candidate(f->cx, ref)))
            host_only_call(f, nm, ref, line);
    }
    /* call edges for the recursion rule */
    if (!clang_Cursor_isNull(ref))
        for (int i = 0; i < f->cx->n_fns; i++)
            if (f->cx->fns[i].kind != 0 && strcmp(f->cx->fns[i].name, nm) == 0) {
                scan_ctx *cx = f->cx;
                if (cx->n_edges == cx->cap_edges) {
                    int cap = cx->cap_edges ? 2 * cx->cap_edges : 16;
                    void *p = realloc(cx->edges, (size_t)cap * sizeof *cx->edges);
                    if (!p) break;
                    cx->edges = p;
                    cx->cap_edges = cap;
                }
                cx->edges[cx->n_edges].from = f->fn;
                cx->edges[cx->n_edges].to = i;
                cx->edges[cx->n_edges].line = line;
                cx->n_edges++;
                break;
            }
}

/* std:: host-only types and objects used in device code. */
static void check_std_ref(fn_ctx *f, CXCursor c)
{
    fn_info *fi = &f->cx->fns[f->fn];
    if (fi->kind == 0) return;
    CXCursor ref = clang_getCursorReferenced(c);
    if (clang_Cursor_isNull(ref)) return;
    char nm[64];
    spelling(ref, nm, sizeof nm);
    if (name_in(nm, std_host_only) && in_namespace(ref, "std"))
        add_finding(f->cx->r, "KG-HOSTLIB-DEVICE", fi->kind == 3 ? 1 : 0, cursor_line(c),
                    "std::%s used in device code: the host C++ library does not compile for the "
                    "GPU (use plain arrays, shared memory or CUB)", nm);
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && clang_getCursorKind(ref) == CXCursor_VarDecl) {
        cuda_attrs a = attrs_of(ref);
        enum CXCursorKind pk = clang_getCursorKind(clang_getCursorSemanticParent(ref));
        /* a __device__ / __managed__ variable of the candidate's (threadIdx and
         * friends are the runtime's) */
        if (a.device && !a.constant && pk != CXCursor_FunctionDecl && pk != CXCursor_FunctionTemplate && in_main(ref))
            f->writes_globals = 1;
    }
}

/* KG-CONST-CAST-INPUT: a cast that drops the const of a pointer parameter. */
static void check_const_cast(scan_ctx *cx, CXCursor c)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_CStyleCastExpr && k != CXCursor_CXXConstCastExpr && k != CXCursor_CXXReinterpretCastExpr)
        return;
    CXType to = clang_getCanonicalType(clang_getCursorType(c));
    if (to.kind != CXType_Pointer || clang_isConstQualifiedType(clang_getPointeeType(to))) return;
    CXCursor op = strip(c);
    if (clang_getCursorKind(op) != CXCursor_DeclRefExpr) return;
    CXCursor ref = clang_getCursorReferenced(op);
    if (clang_getCursorKind(ref) != CXCursor_ParmDecl) return;
    CXType from = clang_getCanonicalType(clang_getCursorType(ref));
    if (from.kind != CXType_Pointer || !clang_isConstQualifiedType(clang_getPointeeType(from))) return;
    char nm[48];
    spelling(ref, nm, sizeof nm);
    add_finding(cx->r, "KG-CONST-CAST-INPUT", -1, cursor_line(c),
                "the const of input %s is cast away: writing through it changes an input the caller "
                "owns (the contract: inputs come back unchanged)", nm);
}

/* ---- the walk over a device function --------------------------------------- */

static void push_ctrl(fn_ctx *f, unsigned fl, int lanevar, int single, int loop)
{
    if (f->n_ctrl < 64) {
        f->ctrl[f->n_ctrl].fl = fl;
        f->ctrl[f->n_ctrl].lanevar = lanevar;
        f->ctrl[f->n_ctrl].single = single;
        f->ctrl[f->n_ctrl].loop = loop;
    }
    f->n_ctrl++;
    if (loop) f->loop_depth++;
}

static void pop_ctrl(fn_ctx *f)
{
    f->n_ctrl--;
    if (f->n_ctrl < 64 && f->ctrl[f->n_ctrl].loop) f->loop_depth--;
}

static enum CXChildVisitResult rule_visit(CXCursor c, CXCursor p, CXClientData d);

static void visit_kids(fn_ctx *f, CXCursor c) { clang_visitChildren(c, rule_visit, f); }

/* Visit one cursor and, when the visitor asks for it, its children. */
static void walk(fn_ctx *f, CXCursor c, CXCursor parent)
{
    if (rule_visit(c, parent, f) == CXChildVisit_Recurse) visit_kids(f, c);
}

/* KG-WARP-DIVERGENCE: a branch on threadIdx.x % k or & k with k below a warp. */
typedef struct { fn_ctx *f; int hit; } div_ctx;

static enum CXChildVisitResult div_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    div_ctx *dc = d;
    if (clang_getCursorKind(c) == CXCursor_BinaryOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
        if (op == CXBinaryOperator_Rem || op == CXBinaryOperator_And) {
            kids_t ks = kids_of(c);
            if (ks.n == 2 && (expr_flags(dc->f, ks.v[0]) & T_TX)) {
                double v;
                int lit = literal_number(ks.v[1], &v) || eval_number(ks.v[1], &v);
                if (!lit || (op == CXBinaryOperator_Rem ? v < 32 : v < 31)) dc->hit = 1;
            }
            free(ks.v);
        }
    }
    return dc->hit ? CXChildVisit_Break : CXChildVisit_Recurse;
}

static int cond_has_tokens(fn_ctx *f, CXCursor cond, const char *const *words)
{
    char t[400];
    expr_text(f->cx->tu, cond, t, sizeof t);
    for (int i = 0; words[i]; i++)
        if (strstr(t, words[i])) return 1;
    return 0;
}

static void check_comparison(fn_ctx *f, CXCursor c, enum CXBinaryOperatorKind op, CXCursor l, CXCursor r)
{
    fn_info *fi = &f->cx->fns[f->fn];
    unsigned lf = expr_flags(f, l), rf = expr_flags(f, r);
    int line = cursor_line(c);
    if (((lf & (T_THREAD | T_BID)) && (rf & T_PINT)) || ((rf & (T_THREAD | T_BID)) && (lf & T_PINT)) ||
        ((lf | rf) & (T_THREAD | T_BID) && (lf | rf) & T_PINT))
        f->has_guard = 1;
    /* a lower bound on a thread index (x > 0, x >= 1): a stencil's interior */
    double v;
    if (((lf & (T_THREAD | T_BID)) && literal_number(r, &v) && v <= 1 &&
         (op == CXBinaryOperator_GT || op == CXBinaryOperator_GE)) ||
        ((rf & (T_THREAD | T_BID)) && literal_number(l, &v) && v <= 1 &&
         (op == CXBinaryOperator_LT || op == CXBinaryOperator_LE)))
        f->has_lower_bound = 1;
    /* KG-BOUNDS-OFF-BY-ONE: i <= n, or i < n - 1 */
    if (fi->kind == 1) {
        CXCursor lp = strip(l), rp = strip(r);
        int r_param = clang_getCursorKind(rp) == CXCursor_DeclRefExpr &&
                      clang_getCursorKind(clang_getCursorReferenced(rp)) == CXCursor_ParmDecl && (rf & T_PINT);
        int l_param = clang_getCursorKind(lp) == CXCursor_DeclRefExpr &&
                      clang_getCursorKind(clang_getCursorReferenced(lp)) == CXCursor_ParmDecl && (lf & T_PINT);
        int minus1 = 0;
        if (clang_getCursorKind(rp) == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(rp) == CXBinaryOperator_Sub) {
            kids_t ks = kids_of(rp);
            if (ks.n == 2 && is_literal_value(ks.v[1], 1) && clang_getCursorKind(strip(ks.v[0])) == CXCursor_DeclRefExpr &&
                clang_getCursorKind(clang_getCursorReferenced(strip(ks.v[0]))) == CXCursor_ParmDecl &&
                type_is_integer(clang_getCursorType(strip(ks.v[0]))))
                minus1 = 1;
            free(ks.v);
        }
        int thr_l = (lf & (T_TX | T_TYZ)) && !(lf & T_PINT), thr_r = (rf & (T_TX | T_TYZ)) && !(rf & T_PINT);
        if (((op == CXBinaryOperator_LE && thr_l && r_param) || (op == CXBinaryOperator_GE && thr_r && l_param)) ||
            (op == CXBinaryOperator_LT && thr_l && minus1)) {
            if (f->n_offby < 4) f->offby_line[f->n_offby++] = line;
        }
    }
    /* KG-FLOAT-EQ */
    if ((op == CXBinaryOperator_EQ || op == CXBinaryOperator_NE) &&
        type_is_floating(clang_getCursorType(strip_implicit(l))) &&
        type_is_floating(clang_getCursorType(strip_implicit(r))) && !literal_number(l, &v) &&
        !literal_number(r, &v))
        add_finding(f->cx->r, "KG-FLOAT-EQ", -1, line,
                    "floating-point values compared with %s: rounding makes exact equality fragile",
                    op == CXBinaryOperator_EQ ? "==" : "!=");
    /* the "last block" ticket: an atomic's result compared with the grid size */
    for (int side = 0; side < 2; side++) {
        CXCursor s = strip(side ? r : l);
        unsigned other = side ? lf : rf;
        int ticket = 0;
        if (clang_getCursorKind(s) == CXCursor_CallExpr) {
            char nm[64];
            callee_name(s, nm, sizeof nm);
            ticket = is_atomic_name(nm);
        } else if (clang_getCursorKind(s) == CXCursor_DeclRefExpr) {
            var_t *tv = find_var(f, clang_getCursorReferenced(s));
            ticket = tv && tv->ticket;
        }
        if (ticket && (other & T_GDIM) && !f->ticket_line) f->ticket_line = line;
    }
}

static void check_double_literal(fn_ctx *f, CXCursor c, CXCursor l, CXCursor r)
{
    for (int side = 0; side < 2; side++) {
        CXCursor lit = strip_implicit(side ? r : l), other = strip_implicit(side ? l : r);
        if (clang_getCursorKind(lit) == CXCursor_FloatingLiteral &&
            clang_getCanonicalType(clang_getCursorType(lit)).kind == CXType_Double &&
            clang_getCanonicalType(clang_getCursorType(other)).kind == CXType_Float) {
            add_finding(f->cx->r, "KG-DOUBLE-LITERAL", -1, cursor_line(c),
                        "a double literal in float arithmetic: the expression is computed in double "
                        "precision and converted back; write the literal with an f suffix");
            return;
        }
    }
}

static enum CXChildVisitResult rule_visit(CXCursor c, CXCursor p, CXClientData d)
{
    fn_ctx *f = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    fn_info *fi = &f->cx->fns[f->fn];
    switch (k) {
    case CXCursor_LambdaExpr:
        return CXChildVisit_Continue;
    case CXCursor_VarDecl: {
        cuda_attrs a = attrs_of(c);
        CXType t = clang_getCanonicalType(clang_getCursorType(c));
        if (!f->replay && !a.shared && t.kind == CXType_ConstantArray &&
            clang_Cursor_getStorageClass(c) != CX_SC_Static && clang_Type_getSizeOf(t) > 1024) {
            char nm[48];
            spelling(c, nm, sizeof nm);
            add_finding(f->cx->r, "KG-LOCAL-ARRAY-LARGE", -1, cursor_line(c),
                        "local array %s is %lld bytes per thread: it lives in local memory and limits "
                        "occupancy", nm, clang_Type_getSizeOf(t));
        }
        return CXChildVisit_Recurse;
    }
    case CXCursor_IfStmt: case CXCursor_SwitchStmt: case CXCursor_WhileStmt:
    case CXCursor_ForStmt: case CXCursor_DoStmt: case CXCursor_ConditionalOperator: {
        int is_loop = k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt;
        if (is_loop && !f->replay) check_loop(f, c, k);
        kids_t ks = kids_of(c);
        /* the controlling part: all children but the body (if: the condition) */
        unsigned fl = 0;
        int body_from = 0, lanevar = 0, single = 0;
        CXCursor cond = clang_getNullCursor();
        if (k == CXCursor_IfStmt || k == CXCursor_SwitchStmt || k == CXCursor_ConditionalOperator) {
            /* condition is the first child (an init-statement would come first:
             * then take the first two) */
            int nc = (ks.n >= 3 && k == CXCursor_IfStmt &&
                      !clang_isExpression(clang_getCursorKind(ks.v[0]))) ? 2 : 1;
            for (int i = 0; i < nc && i < ks.n; i++) fl |= expr_flags(f, ks.v[i]);
            if (nc <= ks.n) cond = ks.v[nc - 1];
            body_from = nc;
        } else if (k == CXCursor_DoStmt) {
            if (ks.n == 2) { fl = expr_flags(f, ks.v[1]); cond = ks.v[1]; }
        } else {
            for (int i = 0; i + 1 < ks.n; i++) fl |= expr_flags(f, ks.v[i]);
            body_from = ks.n - 1;
            if (k == CXCursor_WhileStmt && ks.n == 2) cond = ks.v[0];
            else if (k == CXCursor_ForStmt) {
                CXCursor in, cd, inc, bd;
                for_parts(f->cx->tu, c, &in, &cd, &inc, &bd);
                cond = cd;
            }
        }
        if (!clang_Cursor_isNull(cond)) {
            lanevar = cond_lanevar(f, cond);
            single = cond_single(f, cond);
        } else {
            lanevar = (fl & T_LANEVAR) != 0;
        }
        if (k == CXCursor_ForStmt && clang_Cursor_isNull(cond)) lanevar = 0;
        if (!f->replay && k == CXCursor_IfStmt && !clang_Cursor_isNull(cond)) {
            div_ctx dc = {f, 0};
            div_visit(strip(cond), c, &dc);
            if (!dc.hit) clang_visitChildren(cond, div_visit, &dc);
            if (dc.hit)
                add_finding(f->cx->r, "KG-WARP-DIVERGENCE", -1, cursor_line(c),
                            "the branch splits every warp (threadIdx.x %% k or & k with k below 32): "
                            "the two paths run one after the other and half the lanes idle");
        }
        if (!f->replay && is_loop && !clang_Cursor_isNull(cond)) {
            static const char *const relaxed[] = {"memory_order_relaxed", "__ATOMIC_RELAXED", "volatile",
                                                  "atomicAdd", "atomicOr", "atomicCAS", "atomicExch", NULL};
            if (cond_has_tokens(f, cond, relaxed) && !f->relaxed_spin_line) f->relaxed_spin_line = cursor_line(c);
        }
        /* visit the controlling expressions outside the branch, the rest inside */
        for (int i = 0; i < ks.n; i++) {
            int is_body = k == CXCursor_DoStmt ? i == 0 : i >= body_from;
            if (is_body) {
                push_ctrl(f, fl, lanevar, single, is_loop);
                walk(f, ks.v[i], c);
                if (is_loop && !f->replay && f->loop_depth <= 2) {
                    /* once more: a shared write at the end of an iteration and
                     * a read at the start of the next race without a barrier */
                    f->replay = 1;
                    walk(f, ks.v[i], c);
                    f->replay = 0;
                }
                pop_ctrl(f);
            } else {
                walk(f, ks.v[i], c);
            }
        }
        free(ks.v);
        return CXChildVisit_Continue;
    }
    case CXCursor_ReturnStmt:
        if (ctrl_thread(f) && !f->exit_line) f->exit_line = cursor_line(c);
        return CXChildVisit_Recurse;
    case CXCursor_BinaryOperator: case CXCursor_CompoundAssignOperator: {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
        kids_t ks = kids_of(c);
        if (ks.n == 2) {
            if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign) {
                CXCursor l = store_subscript(ks.v[0]);
                if (!f->replay && (op == CXBinaryOperator_MulAssign || op == CXBinaryOperator_DivAssign ||
                                   op == CXBinaryOperator_AddAssign || op == CXBinaryOperator_SubAssign) && fi->kind != 0)
                    check_double_literal(f, c, ks.v[0], ks.v[1]);
                if (!clang_Cursor_isNull(l)) {
                    /* reads first (the right side, the indices), then the store */
                    walk(f, ks.v[1], c);
                    visit_kids(f, l);
                    check_store_target(f, ks.v[0]);
                    if (!f->replay && op == CXBinaryOperator_Assign && is_literal_value(ks.v[1], 0)) {
                        access_t a = access_of(f, l);
                        if (a.space == 1) f->cx->zero_stores++;
                    }
                    free(ks.v);
                    return CXChildVisit_Continue;
                }
            } else if (!f->replay && op >= CXBinaryOperator_LT && op <= CXBinaryOperator_NE) {
                check_comparison(f, c, op, ks.v[0], ks.v[1]);
            } else if (op == CXBinaryOperator_Rem) {
                if (expr_flags(f, ks.v[1]) & T_PINT) f->has_guard = 1;
            } else if (!f->replay && fi->kind != 0 &&
                       (op == CXBinaryOperator_Mul || op == CXBinaryOperator_Div ||
                        op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub)) {
                check_double_literal(f, c, ks.v[0], ks.v[1]);
            }
            if (op == CXBinaryOperator_RemAssign && (expr_flags(f, ks.v[1]) & T_PINT)) f->has_guard = 1;
        }
        free(ks.v);
        return CXChildVisit_Recurse;
    }
    case CXCursor_UnaryOperator: {
        kids_t ks = kids_of(c);
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
        if (ks.n == 1 && (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
                          op == CXUnaryOperator_PreDec))
            check_store_target(f, ks.v[0]);
        free(ks.v);
        return CXChildVisit_Recurse;
    }
    case CXCursor_ArraySubscriptExpr:
        /* a read (stores are handled at their assignment) */
        if (!skipped(f, c)) check_access(f, c, 0, 0);
        return CXChildVisit_Recurse;
    case CXCursor_CallExpr: {
        char nm[64];
        callee_name(c, nm, sizeof nm);
        size_t nl = strlen(nm);
        if (!strncmp(nm, "operator", 8) && nl > 8 && nm[nl - 1] == '=' && strcmp(nm, "operator==") &&
            strcmp(nm, "operator!=") && strcmp(nm, "operator<=") && strcmp(nm, "operator>=")) {
            /* a struct (float4) assigned to an element: a store */
            kids_t ks = kids_of(c);
            CXCursor l = ks.n > 0 ? store_subscript(ks.v[0]) : clang_getNullCursor();
            if (!clang_Cursor_isNull(l)) {
                for (int i = 1; i < ks.n; i++) walk(f, ks.v[i], c);
                visit_kids(f, l);
                check_store_target(f, ks.v[0]);
                free(ks.v);
                return CXChildVisit_Continue;
            }
            free(ks.v);
        }
        check_call(f, c, p);
        if (!f->replay && (!strcmp(nm, "min") || !strcmp(nm, "max") || !strcmp(nm, "umin") || !strcmp(nm, "fminf"))) {
            if ((expr_flags(f, c) & (T_THREAD | T_BID)) && (expr_flags(f, c) & T_PINT)) f->has_guard = 1;
        }
        return CXChildVisit_Recurse;
    }
    case CXCursor_TypeRef: case CXCursor_TemplateRef: case CXCursor_DeclRefExpr:
        if (!f->replay) check_std_ref(f, c);
        return CXChildVisit_Recurse;
    case CXCursor_OverloadedDeclRef: {
        /* a call clang could not resolve (a RecoveryExpr): in device code that
         * is what a call to a host-only function looks like */
        if (f->replay || fi->kind == 0) return CXChildVisit_Continue;
        char nm[64];
        spelling(c, nm, sizeof nm);
        unsigned nd = clang_getNumOverloadedDecls(c);
        int host_only = nd > 0;
        CXCursor first = clang_getNullCursor();
        for (unsigned i = 0; i < nd; i++) {
            CXCursor dcl = clang_getOverloadedDecl(c, i);
            if (i == 0) first = dcl;
            cuda_attrs a = attrs_of(dcl);
            if (a.device || a.global) host_only = 0;
        }
        if (host_only || name_in(nm, c_host_only)) host_only_call(f, nm, first, cursor_line(c));
        return CXChildVisit_Continue;
    }
    case CXCursor_CXXNewExpr: case CXCursor_CXXDeleteExpr:
        if (!f->replay && fi->kind != 0)
            add_finding(f->cx->r, "KG-DEVICE-HEAP", -1, cursor_line(c),
                        "new/delete in device code: the device heap is small (8 MB by default) "
                        "and slow; allocation can fail");
        return CXChildVisit_Recurse;
    case CXCursor_CStyleCastExpr: case CXCursor_CXXConstCastExpr: case CXCursor_CXXReinterpretCastExpr:
        if (!f->replay) check_const_cast(f->cx, c);
        return CXChildVisit_Recurse;
    default:
        return CXChildVisit_Recurse;
    }
}

static enum CXChildVisitResult find_body(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    if (clang_getCursorKind(c) == CXCursor_CompoundStmt) { *(CXCursor *)d = c; return CXChildVisit_Break; }
    return CXChildVisit_Continue;
}

/* Shared variables declared in the function: their total size. */
static enum CXChildVisitResult smem_decl_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    fn_ctx *f = d;
    if (clang_getCursorKind(c) == CXCursor_LambdaExpr) return CXChildVisit_Continue;
    if (clang_getCursorKind(c) == CXCursor_VarDecl && attrs_of(c).shared) {
        f->has_smem_array = 1;
        long long sz = clang_Type_getSizeOf(clang_getCursorType(c));
        if (sz > 0) f->static_smem += sz;
    }
    return CXChildVisit_Recurse;
}

static enum CXChildVisitResult fence_token_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    fn_ctx *f = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_AsmStmt || k == CXCursor_GCCAsmStmt) {
        char t[400];
        expr_text(f->cx->tu, c, t, sizeof t);
        if (strstr(t, "fence") || strstr(t, "membar")) f->has_fence = 1;
        if (strstr(t, "acquire")) f->has_acquire = 1;
    }
    return CXChildVisit_Recurse;
}

static void analyze_function(scan_ctx *cx, int fn)
{
    if (cx->fns[fn].kind == 0) return; /* host code: see host_visit */
    fn_ctx f;
    memset(&f, 0, sizeof f);
    f.cx = cx;
    f.fn = fn;
    f.fn_cursor = cx->fns[fn].c;
    CXCursor body = clang_getNullCursor();
    clang_visitChildren(f.fn_cursor, find_body, &body);
    if (clang_Cursor_isNull(body)) return;
    fn_info *fi = &cx->fns[fn];
    CXCursor params[32];
    int nargs = fn_params(f.fn_cursor, params, 32);
    for (int i = 0; i < nargs; i++) {
        CXType t = clang_getCursorType(params[i]);
        if (type_is_integer(t)) f.n_int_params++;
        if (type_is_pointer(t) && i < 32) {
            fi->ptr_params |= 1u << i;
            if (clang_isRestrictQualifiedType(t)) fi->restrict_params |= 1u << i;
        }
    }
    for (int round = 0; round < 4; round++) {
        f.changed = 0;
        clang_visitChildren(body, flow_visit, &f);
        if (!f.changed) break;
    }
    clang_visitChildren(body, smem_decl_visit, &f);
    clang_visitChildren(body, fence_token_visit, &f);
    /* acquire / seq_cst orders anywhere in the function */
    {
        int a = 0, b = 0;
        token_span(&cx->toks, f.fn_cursor, &a, &b);
        for (int i = a; i <= b; i++) {
            const char *t = tok(&cx->toks, i);
            if (!strcmp(t, "memory_order_acquire") || !strcmp(t, "memory_order_seq_cst") ||
                !strcmp(t, "memory_order_acq_rel") || !strcmp(t, "__ATOMIC_ACQUIRE") ||
                !strcmp(t, "__ATOMIC_SEQ_CST") || !strcmp(t, "__ATOMIC_ACQ_REL"))
                f.has_acquire = 1;
        }
    }
    clang_visitChildren(body, rule_visit, &f);
    if (fi->kind == 1 && f.store_line && !f.has_guard && f.n_int_params > 0)
        add_finding(cx->r, "KG-BOUNDS-NOCHECK", -1, f.store_line,
                    "global store at a thread-derived index, but %s never compares a thread index "
                    "with a size parameter: the last block writes past the end when the size is not "
                    "a multiple of the block", fi->name);
    if (!f.has_lower_bound)
        for (int i = 0; i < f.n_offby; i++)
            add_finding(cx->r, "KG-BOUNDS-OFF-BY-ONE", -1, f.offby_line[i],
                        "the bound compares a thread index with the size off by one (i <= n writes "
                        "element n, i < n - 1 never writes the last one)");
    if (f.ticket_line && !f.has_fence)
        add_finding(cx->r, "KG-FENCE-MISSING", -1, f.ticket_line,
                    "a block takes a ticket with an atomic to find the last block, but nothing fences "
                    "its results first: the last block may read other blocks' stale values "
                    "(call __threadfence() before the atomic)");
    if (f.relaxed_spin_line && !f.has_fence && !f.has_acquire)
        add_finding(cx->r, "KG-ATOMIC-RELAXED-SPIN", -1, f.relaxed_spin_line,
                    "a loop polls a flag with relaxed (or volatile) reads and nothing orders what "
                    "follows: data published with the flag may not be visible yet");
    if (fi->kind == 1 && f.static_smem > 49152)
        add_finding(cx->r, "KG-STATIC-SMEM-LIMIT", -1, fi->line,
                    "%s declares %lld bytes of static shared memory: more than the 48 KiB a kernel "
                    "may have statically (ptxas refuses it)", fi->name, f.static_smem);
    if (fi->kind == 1) {
        unsigned written = fi->stored_params | fi->atomic_params;
        unsigned others = fi->read_params & ~written;
        int nptr = __builtin_popcount(fi->ptr_params);
        if (nptr >= 2 && written && others && !fi->restrict_params)
            add_finding(cx->r, "KG-NO-RESTRICT", -1, fi->line,
                        "%s reads and writes through pointer parameters none of which is __restrict__: "
                        "the compiler must assume they alias and reloads every input after each store",
                        fi->name);
        if (!f.has_smem_array) {
            int strided = f.strided_store_line && f.coalesced_load_line ? f.strided_store_line
                          : f.strided_load_line && f.coalesced_store_line ? f.strided_load_line : 0;
            if (strided)
                add_finding(cx->r, "KG-TRANSPOSE-UNCOALESCED", -1, strided,
                            "one side of this copy is coalesced and the other strided by threadIdx.x "
                            "(a transpose straight through global memory): stage it through a "
                            "shared-memory tile");
        }
        /* the last statement of the kernel is a barrier */
        kids_t ks = kids_of(body);
        if (ks.n > 0) {
            CXCursor last = strip(ks.v[ks.n - 1]);
            char nm[32] = "";
            if (clang_getCursorKind(last) == CXCursor_CallExpr) callee_name(last, nm, sizeof nm);
            if (name_in(nm, sync_names))
                add_finding(cx->r, "KG-SYNC-REDUNDANT", -1, cursor_line(last),
                            "%s() is the kernel's last statement: nothing after it reads shared memory, "
                            "so the barrier only costs time", nm);
        }
        /* a kernel without pointer parameters writes nothing the caller sees */
        int all_scalar = 1;
        for (int i = 0; i < nargs; i++) {
            CXType t = clang_getCanonicalType(clang_getCursorType(params[i]));
            if (!(type_is_integer(t) || type_is_floating(t) || t.kind == CXType_Bool || t.kind == CXType_Enum)) all_scalar = 0;
        }
        if (all_scalar && ks.n > 0 && fi->launched && !f.writes_globals)
            add_finding(cx->r, "KG-KERNEL-NO-POINTER", -1, fi->line,
                        "%s takes no pointer and writes no __device__ variable: whatever it computes "
                        "never reaches the caller", fi->name);
        free(ks.v);
        int a = 0, b = 0;
        token_span(&cx->toks, f.fn_cursor, &a, &b);
        for (int i = a; i <= b; i++) {
            if (tok_is(&cx->toks, i, "gridDim")) fi->uses_gdim = 1;
            if (tok_is(&cx->toks, i, "blockIdx")) fi->uses_bid = 1;
        }
    }
    free(f.vars);
}

/* ---- host code: functions, launches, library use --------------------------- */

static int find_fn(scan_ctx *cx, const char *name)
{
    for (int i = 0; i < cx->n_fns; i++)
        if (strcmp(cx->fns[i].name, name) == 0) return i;
    return -1;
}

/* __launch_bounds__(N, ...) in the tokens before the function's body. */
static long long launch_bounds_of(scan_ctx *cx, CXCursor fn)
{
    int a = 0, b = 0;
    token_span(&cx->toks, fn, &a, &b);
    /* the attribute may sit on the line before the name */
    int from = a > 8 ? a - 8 : 0;
    for (int i = from; i <= b && i + 2 < cx->toks.n; i++) {
        if (tok_is(&cx->toks, i, "{")) break;
        if (tok_is(&cx->toks, i, "__launch_bounds__") && tok_is(&cx->toks, i + 1, "(")) {
            char *end = NULL;
            long long v = strtoll(tok(&cx->toks, i + 2), &end, 0);
            if (end && *end == 0 && v > 0) return v;
        }
    }
    return 0;
}

/* The launcher's parameters against the task's signature ("void launch(const
 * float* x, float* y, int n, cudaStream_t stream)"). A parameter's class:
 * ptr:<pointee> / int / stream / other. */
static void param_class_text(const char *decl, char *out, size_t len)
{
    /* drop the parameter's name (the last identifier) and blanks */
    char t[128];
    snprintf(t, sizeof t, "%s", decl);
    size_t n = strlen(t);
    while (n && (t[n - 1] == ' ' || t[n - 1] == '\t')) t[--n] = 0;
    size_t e = n;
    while (e && (t[e - 1] == '_' || (t[e - 1] >= 'a' && t[e - 1] <= 'z') || (t[e - 1] >= 'A' && t[e - 1] <= 'Z') ||
                 (t[e - 1] >= '0' && t[e - 1] <= '9')))
        e--;
    if (e < n && e > 0) t[e] = 0;
    char ty[128] = "";
    size_t o = 0;
    for (const char *p = t; *p && o + 1 < sizeof ty; p++)
        if (*p != ' ' || (o && ty[o - 1] != ' ')) ty[o++] = *p;
    ty[o] = 0;
    while (o && ty[o - 1] == ' ') ty[--o] = 0;
    if (strstr(ty, "cudaStream_t")) snprintf(out, len, "stream");
    else if (strchr(ty, '*')) {
        char pt[64];
        size_t k = 0;
        for (const char *p = ty; *p && *p != '*' && k + 1 < sizeof pt; p++) pt[k++] = *p;
        pt[k] = 0;
        char *q = strstr(pt, "const ");
        if (q) memmove(q, q + 6, strlen(q + 6) + 1);
        while (k && (pt[strlen(pt) - 1] == ' ')) pt[strlen(pt) - 1] = 0;
        snprintf(out, len, "ptr:%s", pt);
    } else snprintf(out, len, "%s", ty);
}

static void param_class_type(CXType t, char *out, size_t len)
{
    char sp[128];
    type_spelling(t, sp, sizeof sp);
    CXType ct = clang_getCanonicalType(t);
    if (strstr(sp, "cudaStream_t") || (ct.kind == CXType_Pointer && (type_spelling(clang_getPointeeType(ct), sp, sizeof sp), strstr(sp, "CUstream_st")))) {
        snprintf(out, len, "stream");
        return;
    }
    if (ct.kind == CXType_Pointer) {
        CXType pt = clang_getCanonicalType(clang_getPointeeType(ct));
        char ps[96];
        type_spelling(pt, ps, sizeof ps);
        ps[90] = 0;
        char *q = strstr(ps, "const ");
        if (q) memmove(q, q + 6, strlen(q + 6) + 1);
        q = strstr(ps, "volatile ");
        if (q) memmove(q, q + 9, strlen(q + 9) + 1);
        snprintf(out, len, "ptr:%s", ps);
        return;
    }
    type_spelling(ct, sp, sizeof sp);
    char *q = strstr(sp, "const ");
    if (q) memmove(q, q + 6, strlen(q + 6) + 1);
    snprintf(out, len, "%.120s", sp);
}

static void check_signature(scan_ctx *cx, CXCursor fn, int line)
{
    const char *sig = cx->opts ? cx->opts->launch_signature : NULL;
    if (!sig || cx->r->is_torch) return;
    const char *lp = strchr(sig, '('), *rp = strrchr(sig, ')');
    if (!lp || !rp || rp < lp) return;
    char want[12][128];
    int nw = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(rp - lp - 1), lp + 1);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && nw < 12; t = strtok_r(NULL, ",", &save))
        param_class_text(t, want[nw++], sizeof want[0]);
    int n = clang_Cursor_getNumArguments(fn);
    char got[1600] = "", exp[1600] = "";
    int bad = n != nw;
    for (int i = 0; i < n && i < 12; i++) {
        char cl[128];
        param_class_type(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)i)), cl, sizeof cl);
        /* an unsigned count is ABI-compatible with int */
        int same = i < nw && (!strcmp(cl, want[i]) || (!strcmp(want[i], "int") && !strcmp(cl, "unsigned int")));
        if (!same) bad = 1;
        size_t l = strlen(got);
        snprintf(got + l, sizeof got - l, "%s%s", i ? ", " : "", cl);
    }
    for (int i = 0; i < nw; i++) {
        size_t l = strlen(exp);
        snprintf(exp + l, sizeof exp - l, "%s%s", i ? ", " : "", want[i]);
    }
    if (bad)
        add_finding(cx->r, "KG-LAUNCH-SIGNATURE", -1, line,
                    "launch(%.100s) does not match the task's launch(%.100s): the gate calls it with the "
                    "task's arguments", got, exp);
}

static enum CXChildVisitResult top_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    scan_ctx *cx = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (!in_main(c)) return CXChildVisit_Continue;
    if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
        return CXChildVisit_Recurse;
    if ((k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate) && clang_isCursorDefinition(c)) {
        cuda_attrs a = attrs_of(c);
        char nm[128];
        spelling(c, nm, sizeof nm);
        if (cx->n_fns == cx->cap_fns) {
            int cap = cx->cap_fns ? 2 * cx->cap_fns : 16;
            void *np = realloc(cx->fns, (size_t)cap * sizeof *cx->fns);
            if (!np) return CXChildVisit_Break;
            cx->fns = np;
            cx->cap_fns = cap;
        }
        fn_info *fi = &cx->fns[cx->n_fns++];
        memset(fi, 0, sizeof *fi);
        fi->c = c;
        snprintf(fi->name, sizeof fi->name, "%s", nm);
        fi->kind = a.global ? 1 : (a.device && a.host) ? 3 : a.device ? 2 : 0;
        fi->line = cursor_line(c);
        CXCursor ps[32];
        fi->n_params = fn_params(c, ps, 32);
        if (a.global) {
            if (!cx->device_pass) cx->r->n_kernels++;
            fi->launch_bounds = launch_bounds_of(cx, c);
            if (clang_Cursor_getStorageClass(c) == CX_SC_Static)
                add_finding(cx->r, "KG-STATIC-GLOBAL", -1, fi->line,
                            "static __global__ %s: internal linkage; it works when launched from this "
                            "file, but tools and other files cannot name it, and some toolchains "
                            "warn; drop `static`", nm);
        }
        if (!strcmp(nm, "launch") && k == CXCursor_FunctionDecl) {
            CXString m = clang_Cursor_getMangling(c);
            int c_linkage = str_eq(m, "launch");
            if (c_linkage) {
                cx->r->has_launch = 1;
                check_signature(cx, c, fi->line);
            } else
                add_finding(cx->r, "KG-LAUNCH-LINKAGE", -1, fi->line,
                            "launch() is defined with C++ linkage: the gate loads `launch` by its C "
                            "name; declare it extern \"C\"");
        }
        return CXChildVisit_Continue;
    }
    return CXChildVisit_Continue;
}

/* Is the variable assigned anywhere after its declaration? */
typedef struct { CXCursor decl; int hit; } assign_ctx;

static enum CXChildVisitResult assign_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    assign_ctx *a = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    CXCursor target = clang_getNullCursor();
    if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
        if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign) target = first_expr_child(c);
    } else if (k == CXCursor_UnaryOperator) {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
        if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
            op == CXUnaryOperator_PreDec || op == CXUnaryOperator_AddrOf)
            target = first_expr_child(c);
    }
    if (!clang_Cursor_isNull(target)) {
        CXCursor s = strip(target);
        if (clang_getCursorKind(s) == CXCursor_DeclRefExpr &&
            clang_equalCursors(clang_getCursorReferenced(s), a->decl)) {
            a->hit = 1;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

static int eval_dim3(CXCursor fn, CXCursor e, long long d[3], int depth);

/* An integer expression of constants and of local variables declared with a
 * constant and never assigned again (int threads = 256; threads * 4). */
static int eval_int_expr(CXCursor fn, CXCursor e, long long *out, int depth)
{
    if (depth > 16) return 0;
    double v;
    if (eval_number(e, &v)) { *out = (long long)v; return 1; }
    CXCursor s = strip(e);
    enum CXCursorKind k = clang_getCursorKind(s);
    if (k == CXCursor_DeclRefExpr) {
        long long d[3];
        if (eval_dim3(fn, s, d, depth + 1) && d[1] == 1 && d[2] == 1) { *out = d[0]; return 1; }
        return 0;
    }
    if (k == CXCursor_BinaryOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(s);
        kids_t ks = kids_of(s);
        long long a, b;
        int ok = ks.n == 2 && eval_int_expr(fn, ks.v[0], &a, depth + 1) && eval_int_expr(fn, ks.v[1], &b, depth + 1);
        free(ks.v);
        if (!ok) return 0;
        switch (op) {
        case CXBinaryOperator_Mul: *out = a * b; return 1;
        case CXBinaryOperator_Add: *out = a + b; return 1;
        case CXBinaryOperator_Sub: *out = a - b; return 1;
        case CXBinaryOperator_Div: if (!b) return 0; *out = a / b; return 1;
        case CXBinaryOperator_Shl: if (b < 0 || b > 40) return 0; *out = a << b; return 1;
        default: return 0;
        }
    }
    return 0;
}

/* A launch dimension: dim3(x, y, z), an integer, or a variable holding one
 * (declared with a constant and never assigned again). -1 where unknown. */
static int eval_dim3(CXCursor fn, CXCursor e, long long d[3], int depth)
{
    d[0] = d[1] = d[2] = -1;
    if (depth > 16) return 0;
    CXCursor s = strip(e);
    enum CXCursorKind k = clang_getCursorKind(s);
    char ty[64];
    type_spelling(clang_getCanonicalType(clang_getCursorType(s)), ty, sizeof ty);
    int is_dim3 = strstr(ty, "dim3") != NULL;
    if ((k == CXCursor_CallExpr || k == CXCursor_UnexposedExpr) && is_dim3) {
        kids_t ks = kids_of(s);
        CXCursor args[3];
        int n = 0;
        for (int i = 0; i < ks.n; i++)
            if (clang_isExpression(clang_getCursorKind(ks.v[i])) && in_main(ks.v[i]) && n < 3) args[n++] = ks.v[i];
        free(ks.v);
        if (n == 1) {
            char at[64];
            type_spelling(clang_getCanonicalType(clang_getCursorType(strip(args[0]))), at, sizeof at);
            if (strstr(at, "dim3")) return eval_dim3(fn, args[0], d, depth + 1);
        }
        if (n == 0) { d[0] = d[1] = d[2] = 1; return 1; }
        for (int i = 0; i < 3; i++) d[i] = 1;
        int ok = 1;
        for (int i = 0; i < n; i++) {
            long long one[3];
            if (eval_dim3(fn, args[i], one, depth + 1) && one[0] >= 0) d[i] = one[0];
            else { d[i] = -1; ok = 0; }
        }
        return ok;
    }
    long long iv;
    if (k != CXCursor_DeclRefExpr && eval_int_expr(fn, s, &iv, depth + 1)) { d[0] = iv; d[1] = d[2] = 1; return 1; }
    if (k == CXCursor_DeclRefExpr) {
        CXCursor ref = clang_getCursorReferenced(s);
        if (clang_getCursorKind(ref) != CXCursor_VarDecl) return 0;
        CXCursor init = first_expr_child(ref);
        if (clang_Cursor_isNull(init)) {
            /* dim3 b(32, 8): the constructor call is the VarDecl's child */
            kids_t ks = kids_of(ref);
            for (int i = 0; i < ks.n && clang_Cursor_isNull(init); i++)
                if (clang_getCursorKind(ks.v[i]) == CXCursor_CallExpr) init = ks.v[i];
            free(ks.v);
        }
        if (clang_Cursor_isNull(init)) return 0;
        assign_ctx a = {ref, 0};
        clang_visitChildren(fn, assign_visit, &a);
        if (a.hit) return 0;
        return eval_dim3(fn, init, d, depth + 1);
    }
    return 0;
}

/* The grid is n / b (rounded down) instead of (n + b - 1) / b. */
static int grid_floor_div(CXCursor grid)
{
    CXCursor s = strip(grid);
    char ty[64];
    type_spelling(clang_getCanonicalType(clang_getCursorType(s)), ty, sizeof ty);
    if (strstr(ty, "dim3") && (clang_getCursorKind(s) == CXCursor_CallExpr)) {
        kids_t ks = kids_of(s);
        CXCursor first = clang_getNullCursor();
        for (int i = 0; i < ks.n && clang_Cursor_isNull(first); i++)
            if (clang_isExpression(clang_getCursorKind(ks.v[i])) && in_main(ks.v[i])) first = ks.v[i];
        free(ks.v);
        if (clang_Cursor_isNull(first)) return 0;
        s = strip(first);
    }
    if (clang_getCursorKind(s) != CXCursor_BinaryOperator || clang_getCursorBinaryOperatorKind(s) != CXBinaryOperator_Div)
        return 0;
    kids_t ks = kids_of(s);
    int r = 0;
    if (ks.n == 2) {
        CXCursor l = strip(ks.v[0]);
        enum CXCursorKind lk = clang_getCursorKind(l);
        double v;
        r = lk == CXCursor_DeclRefExpr && !eval_number(l, &v) &&
            type_is_integer(clang_getCursorType(l));
    }
    free(ks.v);
    return r;
}

typedef struct { scan_ctx *cx; int fn; int in_launch; int cond; } host_ctx;

static void record_launch(host_ctx *h, CXCursor call, CXCursor config, const char *kernel)
{
    scan_ctx *cx = h->cx;
    int fi = find_fn(cx, kernel);
    kids_t kc = kids_of(config); /* callee, grid, block[, shmem[, stream]] */
    /* default arguments live in the runtime header: keep what the candidate wrote */
    int w = 0;
    for (int i = 0; i < kc.n; i++)
        if (i == 0 || in_main(kc.v[i])) kc.v[w++] = kc.v[i];
    kc.n = w;
    int line = cursor_line(call);
    if (fi >= 0) {
        cx->fns[fi].launched = 1;
        if (kc.n >= 2) {
            long long g[3];
            if (!(eval_dim3(cx->fns[h->fn].c, kc.v[1], g, 0) && g[0] == 1 && g[1] == 1 && g[2] == 1))
                cx->fns[fi].multiblock = 1;
        }
    }
    if (cx->n_launches == cx->cap_launches) {
        int cap = cx->cap_launches ? 2 * cx->cap_launches : 8;
        void *np = realloc(cx->launches, (size_t)cap * sizeof *cx->launches);
        if (!np) { free(kc.v); return; }
        cx->launches = np;
        cx->cap_launches = cap;
    }
    launch_site *L = &cx->launches[cx->n_launches++];
    memset(L, 0, sizeof *L);
    L->fn = fi;
    L->line = line;
    L->in_launch = h->in_launch;
    CXCursor host = cx->fns[h->fn].c;
    if (kc.n < 2 || !eval_dim3(host, kc.v[1], L->grid, 0)) { if (kc.n < 2) L->grid[0] = L->grid[1] = L->grid[2] = -1; }
    if (kc.n < 3 || !eval_dim3(host, kc.v[2], L->block, 0)) { if (kc.n < 3) L->block[0] = L->block[1] = L->block[2] = -1; }
    long long sm[3];
    L->shmem = kc.n < 4 ? -2 : eval_dim3(host, kc.v[3], sm, 0) && sm[0] >= 0 ? sm[0] : -1;
    if (kc.n >= 2) L->floor_grid = grid_floor_div(kc.v[1]);
    int na = clang_Cursor_getNumArguments(call);
    for (int i = 0; i < na && L->n_args < 12; i++) L->args[L->n_args++] = clang_Cursor_getArgument(call, (unsigned)i);
    /* the stream */
    int torch = cx->r->is_torch;
    if (h->in_launch || torch) {
        const char *rule = torch ? "KG-TORCH-STREAM" : "KG-STREAM-IGNORED";
        if (kc.n < 5)
            add_finding(cx->r, rule, -1, line,
                        torch ? "kernel launched without a stream: it runs on the legacy default stream, "
                                "not PyTorch's current stream; pass at::cuda::getCurrentCUDAStream()"
                              : "kernel launched without the `stream` argument: it runs on the default "
                                "stream, unordered with the gate's stream; pass <<<grid, block, shmem, stream>>>");
        else if (is_literal_value(kc.v[4], 0) || clang_getCursorKind(strip(kc.v[4])) == CXCursor_CXXNullPtrLiteralExpr)
            add_finding(cx->r, rule, -1, line, "kernel launched on stream 0 instead of the %s",
                        torch ? "current PyTorch stream" : "`stream` argument");
        else if (!torch) {
            CXCursor st = strip(kc.v[4]);
            if (clang_getCursorKind(st) == CXCursor_DeclRefExpr) {
                CXCursor ref = clang_getCursorReferenced(st);
                int ok = clang_getCursorKind(ref) == CXCursor_ParmDecl;
                if (!ok && clang_getCursorKind(ref) == CXCursor_VarDecl) {
                    /* cudaStream_t s = stream; is the same stream */
                    CXCursor init = first_expr_child(ref);
                    ok = !clang_Cursor_isNull(init) && clang_getCursorKind(strip(init)) == CXCursor_DeclRefExpr &&
                         clang_getCursorKind(clang_getCursorReferenced(strip(init))) == CXCursor_ParmDecl;
                }
                if (!ok)
                    add_finding(cx->r, "KG-STREAM-OTHER", -1, line,
                                "kernel launched on a stream of the candidate's own, not the `stream` "
                                "argument: the gate's stream does not wait for it");
            }
        }
    }
    free(kc.v);
}

static void host_call(host_ctx *h, CXCursor c)
{
    scan_ctx *cx = h->cx;
    char nm[128];
    callee_name(c, nm, sizeof nm);
    int line = cursor_line(c);
    if (!strncmp(nm, "cublas", 6)) cx->uses_library = 1;
    CXCursor ref = clang_getCursorReferenced(c);
    int in_cub = !clang_Cursor_isNull(ref) && in_namespace(ref, "cub");
    if (!clang_Cursor_isNull(ref) && (in_cub || in_namespace(ref, "thrust"))) cx->uses_library = 1;
    /* a kernel launch: a child call of __cudaPushCallConfiguration */
    kids_t ks = kids_of(c);
    for (int i = 0; i < ks.n; i++) {
        CXCursor s = strip(ks.v[i]);
        if (clang_getCursorKind(s) == CXCursor_CallExpr) {
            char cn[64];
            callee_name(s, cn, sizeof cn);
            if (!strcmp(cn, "__cudaPushCallConfiguration")) { record_launch(h, c, s, nm); break; }
        }
    }
    free(ks.v);
    if (!strncmp(nm, "cudaMemset", 10) || !strcmp(nm, "memset")) cx->memset_calls++;
    if (!strcmp(nm, "cublasSetStream") || !strcmp(nm, "cublasSetStream_v2")) cx->cublas_set_stream = 1;
    if (!strncmp(nm, "cublas", 6) && strncmp(nm, "cublasCreate", 12) && strncmp(nm, "cublasDestroy", 13) &&
        strncmp(nm, "cublasSet", 9) && strncmp(nm, "cublasGet", 9) && !cx->cublas_compute_line)
        cx->cublas_compute_line = line;
    kids_t args = call_args(c);
    /* asynchronous copies on the default stream */
    int spos = !strcmp(nm, "cudaMemcpyAsync") ? 4 : !strcmp(nm, "cudaMemsetAsync") ? 3
             : !strcmp(nm, "cudaMemcpy2DAsync") ? 7 : !strcmp(nm, "cudaMallocAsync") ? 2
             : !strcmp(nm, "cudaFreeAsync") ? 1 : -1;
    if (spos >= 0 && h->in_launch &&
        (args.n <= spos || is_literal_value(args.v[spos], 0) ||
         clang_getCursorKind(strip(args.v[spos])) == CXCursor_CXXNullPtrLiteralExpr))
        add_finding(cx->r, "KG-ASYNC-DEFAULT-STREAM", -1, line,
                    "%s on the default stream: it is not ordered with the gate's stream; pass `stream`", nm);
    /* CUB calls that do work without the stream argument */
    if (in_cub && h->in_launch && !clang_Cursor_isNull(ref)) {
        int np = clang_Cursor_getNumArguments(ref);
        char last[64] = "";
        if (np > 0) type_spelling(clang_getCursorType(clang_Cursor_getArgument(ref, (unsigned)(np - 1))), last, sizeof last);
        int query = args.n > 0 && (is_literal_value(args.v[0], 0) ||
                                   clang_getCursorKind(strip(args.v[0])) == CXCursor_CXXNullPtrLiteralExpr ||
                                   clang_getCursorKind(strip(args.v[0])) == CXCursor_GNUNullExpr);
        if (strstr(last, "cudaStream_t") && args.n < np && !query)
            add_finding(cx->r, "KG-LIB-STREAM-UNSET", -1, line,
                        "cub::%s without the stream argument: it runs on the default stream", nm);
    }
    if (!strcmp(nm, "cudaMemcpy") || !strcmp(nm, "cudaMemset") || !strcmp(nm, "cudaMemcpy2D") ||
        !strcmp(nm, "cudaMemcpyToSymbol") || !strcmp(nm, "cudaMemcpyFromSymbol"))
        add_finding(cx->r, "KG-LAUNCH-SYNC-COPY", -1, line,
                    "%s is synchronous and runs on the legacy default stream: not ordered with the "
                    "gate's stream, and it blocks the host", nm);
    if (!strcmp(nm, "cudaDeviceSynchronize") || !strcmp(nm, "cudaStreamSynchronize") ||
        !strcmp(nm, "cudaEventSynchronize"))
        add_finding(cx->r, "KG-LAUNCH-DEVICE-SYNC", -1, line,
                    "%s in host code: the host waits for the GPU on every call (the caller orders "
                    "work on the stream)", nm);
    if ((!strcmp(nm, "cudaMalloc") || !strcmp(nm, "cudaFree") || !strcmp(nm, "cudaMallocManaged") ||
         !strcmp(nm, "cudaMallocHost")) && h->cond == 0 && h->in_launch)
        add_finding(cx->r, "KG-LAUNCH-MALLOC", -1, line,
                    "%s on every call: allocation synchronizes and costs far more than a small kernel", nm);
    if (!strcmp(nm, "cublasCreate") || !strcmp(nm, "cublasCreate_v2")) {
        if (h->cond == 0 && args.n >= 1) {
            CXCursor a = strip(args.v[0]);
            if (clang_getCursorKind(a) == CXCursor_UnaryOperator) {
                CXCursor v = strip(first_expr_child(a));
                if (clang_getCursorKind(v) == CXCursor_DeclRefExpr) {
                    CXCursor ref2 = clang_getCursorReferenced(v);
                    enum CXCursorKind pk = clang_getCursorKind(clang_getCursorSemanticParent(ref2));
                    if (clang_getCursorKind(ref2) == CXCursor_VarDecl && clang_Cursor_getStorageClass(ref2) != CX_SC_Static &&
                        (pk == CXCursor_FunctionDecl || pk == CXCursor_FunctionTemplate))
                        add_finding(cx->r, "KG-CUBLAS-HANDLE-PER-CALL", -1, line,
                                    "a new cuBLAS handle on every call: cublasCreate costs milliseconds; "
                                    "create it once (a static) and reuse it");
                }
            }
        }
    }
    free(args.v);
}

static enum CXChildVisitResult host_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    host_ctx *h = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    switch (k) {
    case CXCursor_LambdaExpr:
        return CXChildVisit_Continue;
    case CXCursor_IfStmt: case CXCursor_ForStmt: case CXCursor_WhileStmt: case CXCursor_DoStmt:
    case CXCursor_SwitchStmt: case CXCursor_ConditionalOperator:
        h->cond++;
        clang_visitChildren(c, host_visit, h);
        h->cond--;
        return CXChildVisit_Continue;
    case CXCursor_CallExpr:
        host_call(h, c);
        return CXChildVisit_Recurse;
    case CXCursor_CStyleCastExpr: case CXCursor_CXXConstCastExpr: case CXCursor_CXXReinterpretCastExpr:
        check_const_cast(h->cx, c);
        return CXChildVisit_Recurse;
    default:
        return CXChildVisit_Recurse;
    }
}

/* Recursion: a cycle in the call graph of device functions. */
static int dfs_cycle(scan_ctx *cx, int v, int *state, int *line_out)
{
    state[v] = 1;
    for (int e = 0; e < cx->n_edges; e++) {
        if (cx->edges[e].from != v) continue;
        int w = cx->edges[e].to;
        if (state[w] == 1) { *line_out = cx->edges[e].line; return 1; }
        if (state[w] == 0 && dfs_cycle(cx, w, state, line_out)) return 1;
    }
    state[v] = 2;
    return 0;
}

/* ---- checks across launch sites and kernels, and over the whole file ------- */

static void cross_checks(scan_ctx *cx)
{
    for (int i = 0; i < cx->n_launches; i++) {
        launch_site *L = &cx->launches[i];
        long long bx = L->block[0], by = L->block[1], bz = L->block[2];
        int known = bx >= 0 && by >= 0 && bz >= 0;
        long long total = known ? bx * by * bz : -1;
        if (known && (total > 1024 || bx > 1024 || by > 1024 || bz > 64))
            add_finding(cx->r, "KG-BLOCK-TOO-LARGE", -1, L->line,
                        "a block of %lld x %lld x %lld = %lld threads: the limit is 1024 (z: 64), so "
                        "every launch fails", bx, by, bz, total);
        if (known && total > 1 && total % 32)
            add_finding(cx->r, "KG-BLOCK-NOT-WARP-MULTIPLE", -1, L->line,
                        "%lld threads per block is not a multiple of 32: the last warp runs partly empty",
                        total);
        if (known && total > 1 && total < 64)
            add_finding(cx->r, "KG-BLOCK-SMALL", -1, L->line,
                        "%lld threads per block: an SM holds at most 32 blocks, so at most %lld of its "
                        "2048 threads can be resident", total, 32 * total);
        if (L->shmem > 232448 || (L->shmem > 49152 && !cx->smem_opt_in))
            add_finding(cx->r, "KG-DYN-SMEM-LIMIT", -1, L->line,
                        "%lld bytes of dynamic shared memory %s: every launch fails", L->shmem,
                        L->shmem > 232448 ? "exceed the 227 KiB an SM can give a block"
                                          : "exceed 48 KiB without cudaFuncSetAttribute(..., "
                                            "cudaFuncAttributeMaxDynamicSharedMemorySize, ...)");
        if (L->fn < 0) continue;
        fn_info *fi = &cx->fns[L->fn];
        if (fi->kind != 1) continue;
        if (known && fi->launch_bounds > 0 && total > fi->launch_bounds)
            add_finding(cx->r, "KG-LAUNCH-BOUNDS-EXCEEDED", -1, L->line,
                        "%s is compiled for at most %lld threads per block (__launch_bounds__) and "
                        "launched with %lld: the launch fails", fi->name, fi->launch_bounds, total);
        if (L->grid[0] == 1 && L->grid[1] == 1 && L->grid[2] == 1 && total == 1 && fi->has_param_loop)
            add_finding(cx->r, "KG-LAUNCH-SERIAL", -1, L->line,
                        "%s is launched with one thread (<<<1, 1>>>) and loops over the input: the "
                        "whole job runs serially on one core of the GPU", fi->name);
        if (fi->extern_plain_tx && L->shmem >= 0 && bx > 0 && fi->extern_elem > 0 && L->shmem < bx * fi->extern_elem)
            add_finding(cx->r, "KG-DYN-SMEM-SIZE", -1, L->line,
                        "%s indexes its extern shared array at [threadIdx.x] (%lld bytes for %lld "
                        "threads) but the launch gives %lld bytes: the last threads write past it",
                        fi->name, bx * fi->extern_elem, bx, L->shmem);
        for (int a = 0; a < fi->n_arrays; a++) {
            smem_array *s = &fi->arrays[a];
            if ((s->rank == 1 && bx > s->dim[0]) || (s->rank == 2 && (bx > s->dim[1] || by > s->dim[0])))
                add_finding(cx->r, "KG-SMEM-ARRAY-BLOCK", -1, L->line,
                            "shared %s (line %d) is indexed by the thread index but is smaller than "
                            "the %lld x %lld block launched here: threads index past it",
                            s->name, s->line, bx, by);
        }
        for (int k = 0; k < fi->n_loops; k++)
            if (bx > 1 && fi->tx_loops[k].step != bx)
                add_finding(cx->r, "KG-STRIDE-MISMATCH", -1, fi->tx_loops[k].line,
                            "the loop starts at threadIdx.x and steps by %lld, but %s is launched with "
                            "%lld threads in x: elements are %s", fi->tx_loops[k].step, fi->name, bx,
                            fi->tx_loops[k].step < bx ? "done by several threads" : "skipped");
        if (L->floor_grid && fi->uses_bid && !fi->uses_gdim)
            add_finding(cx->r, "KG-GRID-NO-ROUNDUP", -1, L->line,
                        "the grid is n / block, rounded down, and %s has no grid-stride loop: the "
                        "last n %% block elements are never processed", fi->name);
        for (int a = 0; a < L->n_args && a < 32; a++)
            for (int b = a + 1; b < L->n_args && b < 32; b++) {
                if (!((fi->restrict_params >> a) & 1) || !((fi->restrict_params >> b) & 1)) continue;
                /* in place: one written, the other read (two read-only views, or two
                 * written halves, are not the bug) */
                int wa = (fi->stored_params >> a) & 1, wb = (fi->stored_params >> b) & 1;
                int ra = (fi->read_params >> a) & 1, rb = (fi->read_params >> b) & 1;
                if (!((wa && !wb && rb) || (wb && !wa && ra))) continue;
                CXCursor x = strip(L->args[a]), y = strip(L->args[b]);
                if (clang_getCursorKind(x) == CXCursor_DeclRefExpr && clang_getCursorKind(y) == CXCursor_DeclRefExpr &&
                    clang_equalCursors(clang_getCursorReferenced(x), clang_getCursorReferenced(y)))
                    add_finding(cx->r, "KG-RESTRICT-ALIAS", -1, L->line,
                                "the same pointer is passed to two __restrict__ parameters of %s: the "
                                "compiler may reorder their loads and stores (undefined)", fi->name);
            }
    }
    for (int k = 0; k < cx->n_fns; k++) {
        fn_info *fi = &cx->fns[k];
        if (fi->kind != 1) continue;
        if (fi->extern_smem_line && fi->launched) {
            int all_missing = 1, first = 0;
            for (int i = 0; i < cx->n_launches; i++) {
                if (cx->launches[i].fn != k) continue;
                if (!first) first = cx->launches[i].line;
                if (!(cx->launches[i].shmem == -2 || cx->launches[i].shmem == 0)) all_missing = 0;
            }
            if (first && all_missing)
                add_finding(cx->r, "KG-DYN-SMEM-MISSING", -1, first,
                            "%s uses an extern __shared__ array (line %d) but is launched with no "
                            "dynamic shared memory: every access is out of bounds", fi->name,
                            fi->extern_smem_line);
        }
        unsigned unzeroed = fi->atomic_params & ~fi->stored_params;
        if (unzeroed && !cx->memset_calls && !cx->zero_stores)
            add_finding(cx->r, "KG-OUT-NOT-ZEROED", -1, fi->atomic_line,
                        "%s accumulates into its output with atomics, but nothing (cudaMemsetAsync, a "
                        "store of 0) clears it first: the result adds to whatever the buffer held",
                        fi->name);
    }
    if (cx->cublas_compute_line && !cx->cublas_set_stream)
        add_finding(cx->r, "KG-LIB-STREAM-UNSET", -1, cx->cublas_compute_line,
                    "cuBLAS is called without cublasSetStream(handle, stream): it runs on the "
                    "default stream, not the gate's");
    if (cx->grid_sync_line && !cx->coop_launch)
        add_finding(cx->r, "KG-CG-GRID-SYNC", -1, cx->grid_sync_line,
                    "a grid-wide sync in a kernel that is not launched cooperatively "
                    "(cudaLaunchCooperativeKernel): undefined, usually a hang or an error");
}

/* Rules read off the tokens of the whole file. */
static void token_checks(scan_ctx *cx, int device)
{
    const token_list *t = &cx->toks;
    static const char *const removed[] = {
        "cudaThreadSynchronize", "cudaThreadExit", "cudaThreadSetLimit", "cudaThreadGetLimit",
        "cudaThreadSetCacheConfig", "cudaThreadGetCacheConfig", "cudaBindTexture", "cudaBindTexture2D",
        "cudaBindTextureToArray", "cudaBindTextureToMipmappedArray", "cudaUnbindTexture",
        "cudaGetTextureReference", "cudaGetTextureAlignmentOffset", "cudaBindSurfaceToArray",
        "cudaGetSurfaceReference", NULL};
    static const char *const removed_fields[] = {
        "clockRate", "memoryClockRate", "deviceOverlap", "kernelExecTimeoutEnabled", "computeMode",
        "maxTexture1DLinear", "singleToDoublePrecisionPerfRatio", "cooperativeMultiDeviceLaunch", NULL};
    int has_prop = 0, data_ptr_line = 0, contiguous = 0, checks = 0;
    for (int i = 0; i < t->n; i++) {
        const char *s = tok(t, i);
        if (!strcmp(s, "cudaDeviceProp")) has_prop = 1;
        if (!strcmp(s, "cudaFuncAttributeMaxDynamicSharedMemorySize")) cx->smem_opt_in = 1;
        if (!strcmp(s, "cudaLaunchCooperativeKernel") || !strcmp(s, "cudaLaunchAttributeCooperative") ||
            !strcmp(s, "cuLaunchCooperativeKernel"))
            cx->coop_launch = 1;
        if (!strcmp(s, "data_ptr") || (!strcmp(s, "data") && i > 0 && tok_is(t, i - 1, ".") && tok_is(t, i + 1, "<")))
            if (!data_ptr_line) data_ptr_line = t->line[i];
        if (!strcmp(s, "contiguous") || !strcmp(s, "is_contiguous")) contiguous = 1;
        if (!strcmp(s, "TORCH_CHECK") || !strcmp(s, "AT_ASSERT") || !strcmp(s, "TORCH_INTERNAL_ASSERT") ||
            !strcmp(s, "is_cuda") || !strcmp(s, "CHECK_INPUT") || !strcmp(s, "CHECK_CUDA") || !strcmp(s, "AT_ASSERTM"))
            checks = 1;
    }
    if (device) return;
    /* names the candidate defines itself (a macro or a declaration) are its own */
    for (int i = 0; i < t->n; i++) {
        const char *s = tok(t, i);
        if (t->kind[i] != CXToken_Identifier) continue;
        int hit = name_in(s, removed) && tok_is(t, i + 1, "(");
        if (!hit && (!strcmp(s, "texture") || !strcmp(s, "surface")) && tok_is(t, i + 1, "<") &&
            !(i > 0 && (tok_is(t, i - 1, "struct") || tok_is(t, i - 1, "class") || tok_is(t, i - 1, "#"))))
            hit = 1;
        if (!hit && has_prop && name_in(s, removed_fields) && i > 0 && (tok_is(t, i - 1, ".") || tok_is(t, i - 1, "->")))
            hit = 1;
        if (hit && !(i > 1 && tok_is(t, i - 1, "define")))
            add_finding(cx->r, "KG-REMOVED-API", -1, t->line[i],
                        "%s was removed from CUDA (legacy texture references and thread APIs in 12, "
                        "these cudaDeviceProp fields in 13): it does not compile with this toolkit", s);
    }
    if (cx->r->is_torch) {
        if (data_ptr_line && !contiguous)
            add_finding(cx->r, "KG-TORCH-CONTIGUOUS", -1, data_ptr_line,
                        "data_ptr() of a tensor that is never made contiguous nor checked: a strided "
                        "view (a transpose, a slice) is read as if it were dense");
        if (!checks)
            add_finding(cx->r, "KG-TORCH-CHECKS", -1, 0,
                        "no TORCH_CHECK of the inputs' device and dtype: a CPU or double tensor reaches "
                        "the kernel as a bad pointer");
    }
}

/* A PyTorch candidate's entry function is defined (the tokens `NAME (`
 * after a type). */
static int torch_entry_defined(scan_ctx *cx)
{
    const char *entry = cx->opts && cx->opts->torch_entry && *cx->opts->torch_entry ? cx->opts->torch_entry : "forward";
    const token_list *t = &cx->toks;
    for (int i = 1; i + 1 < t->n; i++)
        if (!strcmp(tok(t, i), entry) && tok_is(t, i + 1, "(") && t->kind[i - 1] == CXToken_Identifier &&
            !tok_is(t, i - 1, "return"))
            return 1;
    return 0;
}


/* ---- parsing --------------------------------------------------------------- */

static CXIndex g_index;

static void dispose_index(void)
{
    if (g_index) clang_disposeIndex(g_index);
    g_index = NULL;
}

#define STUB_DIR "/kgate-virtual-stubs"

/* Folders of KGATE_EXTRA_INCLUDES (PyTorch's headers, for its candidates). */
static int extra_includes(const char **args, int max, char store[][1100])
{
    const char *env = getenv("KGATE_EXTRA_INCLUDES");
    int n = 0;
    if (!env || !*env) return 0;
    char buf[4400];
    snprintf(buf, sizeof buf, "%s", env);
    for (char *save = NULL, *t = strtok_r(buf, ":", &save); t && n + 2 <= max; t = strtok_r(NULL, ":", &save)) {
        snprintf(store[n / 2], 1100, "%s", t);
        args[n++] = "-isystem";
        args[n] = store[(n - 1) / 2];
        n++;
    }
    return n;
}

static CXTranslationUnit parse(const char *source, const char *inc1, const char *inc2, int device, char *err,
                                size_t errlen)
{
    if (!g_index) {
        g_index = clang_createIndex(0, 0);
        if (!g_index) { snprintf(err, errlen, "libclang: cannot create an index"); return NULL; }
        atexit(dispose_index);
    }
    const char *cuda = getenv("KGATE_CUDA_PATH");
    if (!cuda || !*cuda) cuda = getenv("CUDA_HOME");
    if (!cuda || !*cuda) cuda = "/usr/local/cuda";
    static char cuda_arg[1100], cccl_arg[1100], res_dir[1100], extra[4][1100];
    snprintf(cuda_arg, sizeof cuda_arg, "--cuda-path=%s", cuda);
    snprintf(cccl_arg, sizeof cccl_arg, "%s/include/cccl", cuda);
    const char *args[40];
    int na = 0;
    args[na++] = "-x"; args[na++] = "cuda";
    args[na++] = device ? "--cuda-device-only" : "--cuda-host-only";
    args[na++] = cuda_arg;
    args[na++] = "-nocudalib";
    args[na++] = "--cuda-gpu-arch=sm_90";
    args[na++] = "-std=c++17";
    args[na++] = "-I" STUB_DIR;
    args[na++] = "-isystem"; args[na++] = cccl_arg;
    na += extra_includes(args + na, 8, extra);
    args[na++] = "-w";
    args[na++] = "-fno-spell-checking";
    args[na++] = "-ferror-limit=20";
    const char *rd = getenv("KGATE_CLANG_RESOURCE_DIR");
    if (rd && *rd) {
        snprintf(res_dir, sizeof res_dir, "%s", rd);
        args[na++] = "-resource-dir"; args[na++] = res_dir;
    }
    if (inc1) { args[na++] = "-include"; args[na++] = inc1; }
    if (inc2) { args[na++] = "-include"; args[na++] = inc2; }
    struct CXUnsavedFile files[2] = {
        {"candidate.cu", source, (unsigned long)strlen(source)},
        /* CUDA 13 dropped the header clang's CUDA wrapper still includes */
        {STUB_DIR "/texture_fetch_functions.h", "\n", 1},
    };
    CXTranslationUnit tu = NULL;
    enum CXErrorCode ec = clang_parseTranslationUnit2(g_index, "candidate.cu", args, na, files, 2,
                                                      CXTranslationUnit_KeepGoing | CXTranslationUnit_DetailedPreprocessingRecord, &tu);
    if (ec != CXError_Success || !tu) {
        snprintf(err, errlen, "libclang could not parse the candidate (error %d%s)", (int)ec,
                 ec == CXError_Crashed ? ": it crashed, e.g. out of memory under the scan's limit" : "");
        return NULL;
    }
    return tu;
}

/* Errors located in the candidate itself; the first one goes into msg. */
static int main_file_errors(CXTranslationUnit tu, char *msg, size_t len, int *line)
{
    int n = 0;
    unsigned nd = clang_getNumDiagnostics(tu);
    for (unsigned i = 0; i < nd; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
        CXSourceLocation loc = clang_getDiagnosticLocation(d);
        if (sev >= CXDiagnostic_Error && (clang_Location_isFromMainFile(loc) || sev == CXDiagnostic_Fatal)) {
            if (n == 0 && msg) {
                unsigned l = 0;
                clang_getExpansionLocation(loc, NULL, &l, NULL, NULL);
                CXString s = clang_getDiagnosticSpelling(d);
                snprintf(msg, len, "line %u: %s", l, clang_getCString(s) ? clang_getCString(s) : "?");
                clang_disposeString(s);
                if (line) *line = (int)l;
            }
            n++;
        }
        clang_disposeDiagnostic(d);
    }
    return n;
}

/* Token facts about the candidate: does it mention half or bfloat16 types,
 * include their headers, or name cuBLAS / CUB / Thrust? */
typedef struct { int half_ids, fp16_include, bf16_ids, bf16_include, library, global_kw; } token_facts;

static token_facts scan_tokens(const token_list *t)
{
    token_facts f;
    memset(&f, 0, sizeof f);
    for (int i = 0; i < t->n; i++) {
        const char *p = tok(t, i), *prev = i ? tok(t, i - 1) : "";
        int kind = t->kind[i];
        if (kind == CXToken_Identifier) {
            if (strstr(p, "bfloat16")) f.bf16_ids = 1;
            else if (strstr(p, "half") || !strncmp(p, "__h", 3)) f.half_ids = 1;
            if (!strncmp(p, "cublas", 6)) f.library = 1;
            if (!strcmp(p, "__global__")) f.global_kw = 1;
            if (!strcmp(prev, "cuda_fp16") || !strcmp(p, "cuda_fp16")) f.fp16_include = 1;
            if (!strcmp(prev, "cuda_bf16") || !strcmp(p, "cuda_bf16")) f.bf16_include = 1;
        } else if (kind == CXToken_Punctuation && !strcmp(p, "::")) {
            if (!strcmp(prev, "cub") || !strcmp(prev, "thrust")) f.library = 1;
        } else if (kind == CXToken_Literal || kind == CXToken_Punctuation) {
            /* #include <cuda_fp16.h> lexes as identifiers/punctuation; a quoted one is a literal */
            if (strstr(p, "cuda_fp16.h")) f.fp16_include = 1;
            if (strstr(p, "cuda_bf16.h")) f.bf16_include = 1;
        }
    }
    return f;
}

/* The rules on one parse. The device-side pass (device = 1) only adds rule
 * findings: the counts and the library flag come from the host pass. */
static void analyze_tu(CXTranslationUnit tu, const char *source, const kg_scan_opts *opts, kg_static_result *out,
                       const token_facts *tf, int device)
{
    int keep_kernels = out->n_kernels, keep_launch = out->has_launch;
    scan_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.src = source;
    cx.opts = opts;
    cx.r = out;
    cx.tu = tu;
    cx.device_pass = device;
    CXCursor root = clang_getTranslationUnitCursor(tu);
    CXFile mf = clang_getFile(tu, "candidate.cu");
    CXSourceRange all = clang_getCursorExtent(root);
    if (mf) {
        size_t len = strlen(source);
        all = clang_getRange(clang_getLocationForOffset(tu, mf, 0), clang_getLocationForOffset(tu, mf, (unsigned)len));
    }
    tokens_of(tu, all, &cx.toks);
    token_checks(&cx, device);
    clang_visitChildren(root, top_visit, &cx);
    for (int i = 0; i < cx.n_fns; i++) {
        if (cx.fns[i].kind == 1 || cx.fns[i].kind == 2) continue;
        host_ctx h = {&cx, i, !strcmp(cx.fns[i].name, "launch"), 0};
        clang_visitChildren(cx.fns[i].c, host_visit, &h);
    }
    /* The rules also run on a TU with errors: clang's recovery drops what it
     * could not understand, which can only hide findings. */
    find_intent_comments(&cx);
    for (int i = 0; i < cx.n_fns; i++)
        analyze_function(&cx, i);
    cross_checks(&cx);
    if (cx.n_fns > 0) {
        int *state = calloc((size_t)cx.n_fns, sizeof *state);
        if (state) {
            for (int i = 0; i < cx.n_fns; i++) {
                int line = 0;
                if (cx.fns[i].kind != 0 && state[i] == 0 && dfs_cycle(&cx, i, state, &line)) {
                    add_finding(out, "KG-RECURSION", -1, line,
                                "recursion in device code (through %s): the per-thread stack is "
                                "small and the depth unknown at compile time", cx.fns[i].name);
                    /* the functions on that path are done: one finding per cycle */
                    for (int k = 0; k < cx.n_fns; k++)
                        if (state[k] == 1) state[k] = 2;
                }
            }
            free(state);
        }
    }
    if (device) {
        out->n_kernels = keep_kernels;
        out->has_launch = keep_launch;
    } else {
        if (out->is_torch) {
            if (!torch_entry_defined(&cx))
                add_finding(out, "KG-NO-LAUNCH", -1, 0,
                            "no %s(...) defined: the gate calls the PyTorch candidate's entry function "
                            "(`// kgate-entry: NAME` names another)",
                            opts && opts->torch_entry && *opts->torch_entry ? opts->torch_entry : "forward");
        } else if (!out->has_launch && out->parsed) {
            add_finding(out, "KG-NO-LAUNCH", -1, 0,
                        "no extern \"C\" launch(...) defined: the gate has nothing to call");
        }
        if (tf->library) cx.uses_library = 1;
        /* library-only: cuBLAS/CUB/Thrust calls, or a PyTorch candidate made of
         * PyTorch's own operations, and no kernel of its own */
        out->is_external = (cx.uses_library || out->is_torch) && out->n_kernels == 0 && !tf->global_kw;
        if (out->is_external)
            add_finding(out, "KG-EXTERNAL", -1, 0, "library-only candidate: %s and no kernel of its own (EXTERNAL)",
                        out->is_torch ? "PyTorch operations" : "calls cuBLAS/CUB");
    }
    free(cx.fns);
    free(cx.launches);
    free(cx.edges);
    free(cx.intents);
    tokens_free(&cx.toks);
}

/* ---- what nvcc compiles that clang did not see --------------------------- */

#define KG_MAX_LINES 200000

/* Lines of the candidate skipped by clang's preprocessor (1 = skipped). */
static int skipped_lines(CXTranslationUnit tu, unsigned char *skip, int nlines)
{
    CXFile f = clang_getFile(tu, "candidate.cu");
    if (!f) return 0;
    CXSourceRangeList *rl = clang_getSkippedRanges(tu, f);
    int any = 0;
    for (unsigned i = 0; rl && i < rl->count; i++) {
        unsigned a = 0, b = 0;
        clang_getSpellingLocation(clang_getRangeStart(rl->ranges[i]), NULL, &a, NULL, NULL);
        clang_getSpellingLocation(clang_getRangeEnd(rl->ranges[i]), NULL, &b, NULL, NULL);
        for (unsigned l = a; l <= b && (int)l < nlines; l++) { skip[l] = 1; any = 1; }
    }
    if (rl) clang_disposeSourceRangeList(rl);
    return any;
}

/* Lines of `path` that put tokens into nvcc's preprocessed output (the
 * device pass with __CUDA_ARCH__, or the host pass without). -1 when nvcc
 * did not run or failed. */
static int nvcc_lines(const char *nvcc, const char *path, int host, unsigned char *mark,
                      int nlines)
{
    char out[512];
    snprintf(out, sizeof out, "%s.%s.ii", path, host ? "host" : "dev");
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) { dup2(nul, 0); dup2(nul, 1); dup2(nul, 2); }
        const char *argv[32];
        int a = 0;
        argv[a++] = nvcc; argv[a++] = "-E"; argv[a++] = "-x"; argv[a++] = "cu"; argv[a++] = "-std=c++17";
        argv[a++] = host ? "-U__CUDA_ARCH__" : "-arch=sm_90";
        char store[4][1100];
        const char *inc[8];
        int ni = extra_includes(inc, 8, store);
        for (int i = 0; i < ni; i++) argv[a++] = inc[i];
        argv[a++] = path; argv[a++] = "-o"; argv[a++] = out; argv[a] = NULL;
        execvp(nvcc, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    FILE *f = fopen(out, "r");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !f) {
        if (f) fclose(f);
        unlink(out);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int in_main = 0;
    long cur = 0;
    size_t plen = strlen(path);
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[0] == '#' && line[1] == ' ' && line[2] >= '0' && line[2] <= '9') {
            char *q = NULL;
            cur = strtol(line + 2, &q, 10);
            while (q && *q == ' ') q++;
            in_main = q && *q == '"' && !strncmp(q + 1, path, plen) && q[1 + plen] == '"';
            continue;
        }
        if (in_main) {
            for (char *c = line; *c; c++)
                if (*c != ' ' && *c != '\t' && *c != '\n' && *c != '\r') {
                    if (cur > 0 && cur < nlines) mark[cur] = 1;
                    break;
                }
        }
        cur++;
    }
    free(line);
    fclose(f);
    unlink(out);
    return 0;
}

/* The static track must see what nvcc compiles. Lines clang's host pass
 * skipped (#ifndef __clang__, #ifdef __NVCC__, #ifdef __CUDA_ARCH__ ...) are
 * compared with what nvcc's preprocessor keeps; device-side code
 * (__CUDA_ARCH__) is parsed again by clang in device mode and scanned;
 * anything nvcc compiles that neither clang pass sees is hidden from the
 * rules: P0, KG-HIDDEN-CODE. Without nvcc, a skipped block whose condition
 * names a compiler (__clang__, __NVCC__, __CUDACC_VER...) is treated so.
 * Returns 0, or -1 when the text rule was used. */
static int hidden_code_check(CXTranslationUnit tu, const char *source, const kg_scan_opts *opts,
                             kg_static_result *out, const token_facts *tf)
{
    int nlines = 2;
    for (const char *p = source; *p; p++) nlines += *p == '\n';
    if (nlines > KG_MAX_LINES) return 0;
    unsigned char *skip = calloc((size_t)nlines, 1), *nv = calloc((size_t)nlines, 1),
                  *dskip = calloc((size_t)nlines, 1);
    int rc = 0;
    if (!skip || !nv || !dskip) goto done;
    if (!skipped_lines(tu, skip, nlines)) goto done;
    const char *nvcc = getenv("KGATE_NVCC");
    if (!nvcc || !*nvcc) nvcc = "nvcc";
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/kgate_hidden_XXXXXX.cu", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemps(path, 3);
    int ran = 0;
    if (fd >= 0) {
        char *fixed = kg_static_fixed_source(source, out);
        size_t len = fixed ? strlen(fixed) : 0;
        ssize_t w = fixed ? write(fd, fixed, len) : -1;
        close(fd);
        free(fixed);
        if (w == (ssize_t)len) {
            int a = nvcc_lines(nvcc, path, 0, nv, nlines);
            int b = nvcc_lines(nvcc, path, 1, nv, nlines);
            ran = a == 0 && b == 0;
        }
        unlink(path);
    }
    int first = 0, last = 0;
    if (ran) {
        int any_dev = 0;
        for (int l = 1; l < nlines; l++) any_dev |= skip[l] && nv[l];
        if (!any_dev) goto done;
        /* device-side code: clang in device mode */
        char err[256];
        CXTranslationUnit dtu = parse(source, out->needs_half_header ? "cuda_fp16.h" : NULL,
                                      out->needs_bf16_header ? "cuda_bf16.h" : NULL, 1, err, sizeof err);
        if (dtu) skipped_lines(dtu, dskip, nlines);
        else memset(dskip, 1, (size_t)nlines);
        for (int l = 1; l < nlines; l++)
            if (skip[l] && nv[l] && dskip[l]) {
                if (!first) first = l;
                last = l;
            }
        if (dtu) {
            if (!first) analyze_tu(dtu, source, opts, out, tf, 1);
            clang_disposeTranslationUnit(dtu);
        }
    } else {
        rc = -1;
        /* no nvcc here: judge the directives that open skipped blocks */
        static const char *const compilers[] = {"__clang__", "__NVCC__", "__CUDACC_VER", "__NVCOMPILER",
                                                "__GNUC__", "__CUDACC_RTC__", NULL};
        const char *p = source;
        for (int l = 1; *p && l < nlines; l++) {
            const char *eol = strchr(p, '\n');
            size_t n = eol ? (size_t)(eol - p) : strlen(p);
            if (l + 1 < nlines && skip[l + 1] && !skip[l]) {
                for (int k = 0; compilers[k]; k++) {
                    const char *hit = strstr(p, compilers[k]);
                    if (hit && hit < p + n) {
                        first = l + 1;
                        last = l + 1;
                        while (last + 1 < nlines && skip[last + 1]) last++;
                        break;
                    }
                }
            }
            if (first || !eol) break;
            p = eol + 1;
        }
    }
    if (first)
        add_finding(out, "KG-HIDDEN-CODE", -1, first,
                    "lines %d-%d are compiled by nvcc but hidden from the static track "
                    "(a conditional on the compiler, e.g. #ifndef __clang__): the gate refuses what it "
                    "cannot read", first, last);
done:
    free(skip);
    free(nv);
    free(dskip);
    return rc;
}

int kg_static_scan(const char *source, const char *name, kg_static_result *out)
{
    return kg_static_scan_ex(source, name, NULL, out);
}

int kg_static_scan_ex(const char *source, const char *name, const kg_scan_opts *opts, kg_static_result *out)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    if (!name) name = "candidate";
    if (!source) {
        snprintf(out->parse_error, sizeof out->parse_error, "%s: no source", name);
        return -1;
    }
    char why[300];
    int iline = 0;
    if (kg_include_check(source, why, sizeof why, &iline)) {
        /* refused before anything opens an included file */
        add_finding(out, "KG-INCLUDE", -1, iline, "%s", why);
        snprintf(out->parse_error, sizeof out->parse_error, "%.60s: not parsed: %.180s", name, why);
        return 0;
    }
    out->is_torch = kg_is_torch_source(source);
    char err[256] = "";
    CXTranslationUnit tu = parse(source, NULL, NULL, 0, err, sizeof err);
    if (!tu) {
        snprintf(out->parse_error, sizeof out->parse_error, "%s: %s", name, err);
        return -1;
    }
    int eline = 0;
    char emsg[224] = "";
    int nerr = main_file_errors(tu, emsg, sizeof emsg, &eline);
    token_list tl;
    {
        CXFile mf = clang_getFile(tu, "candidate.cu");
        CXSourceRange all = clang_getCursorExtent(clang_getTranslationUnitCursor(tu));
        if (mf) all = clang_getRange(clang_getLocationForOffset(tu, mf, 0),
                                     clang_getLocationForOffset(tu, mf, (unsigned)strlen(source)));
        tokens_of(tu, all, &tl);
    }
    token_facts tf = scan_tokens(&tl);
    tokens_free(&tl);
    int want_half = tf.half_ids && !tf.fp16_include, want_bf16 = tf.bf16_ids && !tf.bf16_include;
    if (nerr > 0 && (want_half || want_bf16)) {
        /* parse again with the missing headers: if that fixes it, the gate adds them */
        char err2[256] = "";
        CXTranslationUnit tu2 = parse(source, want_half ? "cuda_fp16.h" : NULL, want_bf16 ? "cuda_bf16.h" : NULL,
                                      0, err2, sizeof err2);
        if (tu2) {
            int eline2 = 0;
            char emsg2[224] = "";
            int nerr2 = main_file_errors(tu2, emsg2, sizeof emsg2, &eline2);
            if (nerr2 < nerr) {
                clang_disposeTranslationUnit(tu);
                tu = tu2;
                nerr = nerr2;
                eline = eline2;
                snprintf(emsg, sizeof emsg, "%s", emsg2);
                out->needs_half_header = want_half;
                out->needs_bf16_header = want_bf16;
                if (want_half)
                    add_finding(out, "KG-HALF-HEADER", -1, 0,
                                "half types used without #include <cuda_fp16.h>: the gate adds it");
                if (want_bf16)
                    add_finding(out, "KG-BF16-HEADER", -1, 0,
                                "__nv_bfloat16 used without #include <cuda_bf16.h>: the gate adds it");
            } else {
                clang_disposeTranslationUnit(tu2);
            }
        }
    }
    out->parsed = nerr == 0;
    if (!out->parsed) {
        snprintf(out->parse_error, sizeof out->parse_error, "%s: %s", name, emsg);
        add_finding(out, "KG-PARSE", -1, eline,
                    "not valid C/CUDA for clang (%s); the compile step decides", emsg);
    }

    analyze_tu(tu, source, opts, out, &tf, 0);
    if (hidden_code_check(tu, source, opts, out, &tf) < 0) { /* no nvcc: the text rule decided */ }
    clang_disposeTranslationUnit(tu);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return 0;
}
