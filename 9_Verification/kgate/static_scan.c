/* static_scan.c: the static track of the kernel gate.
 *
 * The candidate's source is parsed into a real AST by libclang in CUDA
 * host-only mode (the device function bodies are still parsed and kept), and
 * the rules in the table below walk it with clang_visitChildren. README-static.md
 * lists every rule with its severity, rationale and an example.
 *
 * The central tool is a small taint analysis per device function: every
 * expression gets a set of "where does this value come from" bits (threadIdx.x,
 * threadIdx.y/z, blockIdx, blockDim, gridDim, an integer parameter, memory,
 * varies per thread, threadIdx.x times a non-unit factor, shared memory).
 * Local variables collect the union over their initializer and every
 * assignment (a few rounds, so loop-carried updates propagate). Control
 * dependence is ignored on purpose: the rules prefer missing a bug over
 * rejecting a good kernel.
 *
 * Environment: KGATE_CUDA_PATH (default $CUDA_HOME, else /usr/local/cuda) and
 * KGATE_CLANG_RESOURCE_DIR (clang's resource dir when libclang is an unpacked
 * copy away from its install prefix). Not thread-safe: one scan at a time.
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

static void add_finding(kg_static_result *r, const char *rule, kg_severity sev, int line,
                        const char *fmt, ...)
{
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
    f->sev = sev;
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
    T_TX = 1 << 0,       /* threadIdx.x */
    T_TYZ = 1 << 1,      /* threadIdx.y / threadIdx.z */
    T_BID = 1 << 2,      /* blockIdx */
    T_BDIM = 1 << 3,     /* blockDim */
    T_GDIM = 1 << 4,     /* gridDim */
    T_PINT = 1 << 5,     /* an integer parameter */
    T_MEM = 1 << 6,      /* loaded from memory */
    T_VARY = 1 << 7,     /* differs between threads of a block (data dependent) */
    T_TXS = 1 << 8,      /* threadIdx.x times a factor other than 1 */
    T_SHARED = 1 << 9,   /* points into shared memory */
    T_LOCALARR = 1 << 10 /* points into a local array */
};
#define T_THREAD (T_TX | T_TYZ)
#define T_VARIES (T_TX | T_TYZ | T_VARY)

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

static int cursor_line(CXCursor c)
{
    unsigned line = 0;
    clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &line, NULL, NULL);
    return (int)line;
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

/* Name of the function a CallExpr calls ("" if unknown). */
static void callee_name(CXCursor call, char *buf, size_t len)
{
    buf[0] = '\0';
    CXCursor ref = clang_getCursorReferenced(call);
    if (!clang_Cursor_isNull(ref)) spelling(ref, buf, len);
    if (!buf[0]) spelling(call, buf, len);
}

/* Is the (stripped) expression a literal with this integer value? */
static int eval_number(CXCursor c, double *val)
{
    c = strip(c);
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_UnaryOperator) {
        kids_t ks = kids_of(c);
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
    CXEvalResult e = clang_Cursor_Evaluate(c);
    if (!e) return 0;
    int ok = 1;
    switch (clang_EvalResult_getKind(e)) {
    case CXEval_Int: *val = (double)clang_EvalResult_getAsLongLong(e); break;
    case CXEval_Float: *val = clang_EvalResult_getAsDouble(e); break;
    default: ok = 0;
    }
    clang_EvalResult_dispose(e);
    return ok;
}

static int is_literal_value(CXCursor c, double v)
{
    double x;
    return eval_number(c, &x) && x == v;
}

static int type_is_integer(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind >= CXType_Bool && t.kind <= CXType_Int128 && t.kind != CXType_Bool;
}

static int type_is_pointer(CXType t)
{
    t = clang_getCanonicalType(t);
    return t.kind == CXType_Pointer;
}

/* CUDA attributes of a function declaration. */
typedef struct { int global, device, host, shared; } cuda_attrs;

static enum CXChildVisitResult attr_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    cuda_attrs *a = d;
    switch (clang_getCursorKind(c)) {
    case CXCursor_CUDAGlobalAttr: a->global = 1; break;
    case CXCursor_CUDADeviceAttr: a->device = 1; break;
    case CXCursor_CUDAHostAttr: a->host = 1; break;
    case CXCursor_CUDASharedAttr: a->shared = 1; break;
    default: break;
    }
    return CXChildVisit_Continue;
}

static cuda_attrs attrs_of(CXCursor c)
{
    cuda_attrs a = {0, 0, 0, 0};
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

/* ---- comments: stated precision intent ----------------------------------- */

typedef struct {
    int first, last; /* line range of a comment that states precision intent */
} intent_t;

typedef struct {
    const char *src;
    kg_static_result *r;
    CXTranslationUnit tu;
    intent_t *intents;
    int n_intents;
    /* functions defined in the main file */
    struct fn_info {
        CXCursor c;
        char name[128];
        int kind;       /* 1 kernel, 2 device, 3 host-device, 0 host */
        int line;
        int multiblock; /* kernel launched here with a grid not known to be 1 */
        int launched;   /* a launch of it was seen */
    } *fns;
    int n_fns, cap_fns;
    /* call edges between main-file device functions (for recursion) */
    struct { int from, to, line; } *edges;
    int n_edges, cap_edges;
    int uses_library;
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
} var_t;

typedef struct {
    scan_ctx *cx;
    int fn;            /* index in cx->fns */
    CXCursor fn_cursor;
    var_t *vars;
    int n_vars, cap_vars;
    int n_int_params;
    int has_guard;     /* a comparison of a thread-derived index with a size */
    int changed;
    /* first unguarded thread-indexed global store, for KG-BOUNDS-NOCHECK */
    int store_line;
    /* control stack for the divergent-barrier rule */
    unsigned ctrl[64];
    int n_ctrl;
    int loop_depth;
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
    char nm[32];
    if (k == CXCursor_VarDecl) {
        spelling(ref, nm, sizeof nm);
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

static unsigned builtin_flags(fn_ctx *f, CXCursor member)
{
    kids_t ks = kids_of(member);
    unsigned fl = 0;
    if (ks.n == 1 && clang_getCursorKind(ks.v[0]) == CXCursor_DeclRefExpr) {
        char nm[32], mem[16];
        spelling(ks.v[0], nm, sizeof nm);
        if (!strcmp(nm, "threadIdx")) {
            last_token(f->cx->tu, member, mem, sizeof mem);
            fl = !strcmp(mem, "x") ? T_TX : T_TYZ;
        } else if (!strcmp(nm, "blockIdx")) fl = T_BID;
        else if (!strcmp(nm, "blockDim")) fl = T_BDIM;
        else if (!strcmp(nm, "gridDim")) fl = T_GDIM;
        else fl = expr_flags(f, ks.v[0]);
    } else {
        for (int i = 0; i < ks.n; i++) fl |= expr_flags(f, ks.v[i]);
    }
    free(ks.v);
    return fl;
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
            if ((b | i) & T_VARIES) fl |= T_VARY;
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
            } else if (op == CXBinaryOperator_Shl || op == CXBinaryOperator_ShlAssign) {
                if ((l & (T_TX | T_TXS)) && !is_literal_value(ks.v[1], 0)) fl |= T_TXS;
            } else if (op == CXBinaryOperator_Div || op == CXBinaryOperator_Rem || op == CXBinaryOperator_Shr || op == CXBinaryOperator_And ||
                       op == CXBinaryOperator_DivAssign || op == CXBinaryOperator_RemAssign || op == CXBinaryOperator_ShrAssign ||
                       op == CXBinaryOperator_AndAssign) {
                fl &= ~(unsigned)T_TXS;
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
        if (fl & T_VARIES) fl |= T_VARY;
        return fl & ~(unsigned)T_TXS;
    }
    default:
        return union_kids(f, c);
    }
}

/* ---- pass 1: variable flags ---------------------------------------------- */

static enum CXChildVisitResult flow_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    fn_ctx *f = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_LambdaExpr) return CXChildVisit_Continue;
    if (k == CXCursor_VarDecl) {
        cuda_attrs a = attrs_of(c);
        if (!a.shared) {
            kids_t ks = kids_of(c);
            unsigned fl = 0;
            for (int i = 0; i < ks.n; i++)
                if (clang_isExpression(clang_getCursorKind(ks.v[i]))) fl |= expr_flags(f, ks.v[i]);
            free(ks.v);
            if (clang_getCanonicalType(clang_getCursorType(c)).kind == CXType_ConstantArray)
                fl |= T_LOCALARR;
            var_t *v = find_var(f, c);
            if (!v) { v = add_var(f, c, fl); if (v) f->changed = 1; }
            else if ((v->flags | fl) != v->flags) { v->flags |= fl; f->changed = 1; }
        }
    } else if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
        if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign) {
            kids_t ks = kids_of(c);
            if (ks.n == 2) {
                CXCursor lhs = strip(ks.v[0]);
                if (clang_getCursorKind(lhs) == CXCursor_DeclRefExpr) {
                    CXCursor ref = clang_getCursorReferenced(lhs);
                    enum CXCursorKind rk = clang_getCursorKind(ref);
                    if ((rk == CXCursor_VarDecl && !attrs_of(ref).shared) || rk == CXCursor_ParmDecl) {
                        unsigned fl = expr_flags(f, ks.v[1]);
                        var_t *v = find_var(f, ref);
                        if (!v) {
                            unsigned base = rk == CXCursor_ParmDecl && type_is_integer(clang_getCursorType(ref)) ? T_PINT : 0;
                            v = add_var(f, ref, base | fl);
                            if (v) f->changed = 1;
                        } else if ((v->flags | fl) != v->flags) {
                            v->flags |= fl;
                            f->changed = 1;
                        }
                    }
                }
            }
            free(ks.v);
        }
    }
    return CXChildVisit_Recurse;
}

/* ---- pass 2: the rules ---------------------------------------------------- */

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

/* The base of a subscript: what memory does it point into?
 * 1 global (a pointer parameter or a local pointer not into shared/local
 * memory), 2 shared, 3 other. *base_flags gets a local pointer's flags. */
static int subscript_space(fn_ctx *f, CXCursor sub, unsigned *base_flags, CXCursor *decl_out)
{
    kids_t ks = kids_of(sub);
    int space = 3;
    *base_flags = 0;
    if (ks.n == 2) {
        CXCursor b = strip(ks.v[0]);
        if (clang_getCursorKind(b) == CXCursor_DeclRefExpr) {
            CXCursor ref = clang_getCursorReferenced(b);
            enum CXCursorKind rk = clang_getCursorKind(ref);
            if (decl_out) *decl_out = ref;
            if (rk == CXCursor_ParmDecl && type_is_pointer(clang_getCursorType(ref))) {
                space = 1;
                var_t *v = find_var(f, ref);
                if (v) *base_flags = v->flags;
            } else if (rk == CXCursor_VarDecl) {
                if (attrs_of(ref).shared) space = 2;
                else if (type_is_pointer(clang_getCursorType(ref))) {
                    var_t *v = find_var(f, ref);
                    unsigned fl = v ? v->flags : 0;
                    *base_flags = fl;
                    space = (fl & T_SHARED) ? 2 : (fl & T_LOCALARR) ? 3 : 1;
                }
            }
        } else if (clang_getCursorKind(b) == CXCursor_ArraySubscriptExpr) {
            space = 4; /* a 2-D array's row: handled by the caller */
        }
    }
    free(ks.v);
    return space;
}

/* KG-BANK-CONFLICT on a shared 2-D array access a[i][j]: the row index comes
 * from threadIdx.x, the column does not, and the row stride is a multiple of
 * 8 banks. */
static void check_bank_2d(fn_ctx *f, CXCursor outer)
{
    kids_t ko = kids_of(outer);
    if (ko.n == 2) {
        CXCursor inner = strip(ko.v[0]);
        if (clang_getCursorKind(inner) == CXCursor_ArraySubscriptExpr) {
            kids_t ki = kids_of(inner);
            if (ki.n == 2) {
                CXCursor b = strip(ki.v[0]);
                if (clang_getCursorKind(b) == CXCursor_DeclRefExpr) {
                    CXCursor ref = clang_getCursorReferenced(b);
                    if (clang_getCursorKind(ref) == CXCursor_VarDecl && attrs_of(ref).shared) {
                        CXType t = clang_getCanonicalType(clang_getCursorType(ref));
                        CXType row = clang_getArrayElementType(t);
                        CXType el = clang_getArrayElementType(row);
                        long long cols = clang_getArraySize(row);
                        long long es = clang_Type_getSizeOf(el);
                        unsigned ri = expr_flags(f, ki.v[1]), ci = expr_flags(f, ko.v[1]);
                        if (cols > 0 && es > 0 && (ri & T_TX) && !(ci & T_TX)) {
                            long long words = cols * es / 4;
                            if (words > 0 && words % 8 == 0) {
                                char nm[64];
                                spelling(ref, nm, sizeof nm);
                                add_finding(f->cx->r, "KG-BANK-CONFLICT", KG_P2, cursor_line(outer),
                                            "shared %s[..][%lld] indexed by threadIdx.x in the row: "
                                            "a warp reads one column, a %lld-word row stride puts it in "
                                            "few banks; pad the row (e.g. [%lld + 1])",
                                            nm, cols, words, cols);
                            }
                        }
                    }
                }
            }
            free(ki.v);
        }
    }
    free(ko.v);
}

static void check_access(fn_ctx *f, CXCursor sub, int is_store, int is_atomic)
{
    struct fn_info *fi = &f->cx->fns[f->fn];
    unsigned base_fl = 0;
    CXCursor decl = clang_getNullCursor();
    int space = subscript_space(f, sub, &base_fl, &decl);
    if (space == 4) { check_bank_2d(f, sub); return; }
    kids_t ks = kids_of(sub);
    if (ks.n != 2) { free(ks.v); return; }
    unsigned idx = expr_flags(f, ks.v[1]);
    unsigned addr = idx | (base_fl & ~(unsigned)(T_SHARED | T_LOCALARR));
    int line = cursor_line(sub);
    if (space == 1 && fi->kind == 1) {
        if (addr & T_TXS)
            add_finding(f->cx->r, "KG-STRIDED", KG_P2, line,
                        "global index scales threadIdx.x by a non-unit factor: neighbouring threads "
                        "touch addresses far apart (uncoalesced); map threadIdx.x to the fastest index");
        if (is_store && !is_atomic && (addr & T_THREAD) && !(addr & (T_BID | T_GDIM)) &&
            fi->multiblock)
            add_finding(f->cx->r, "KG-IDX-THREADONLY", KG_P1, line,
                        "global store indexed by threadIdx without blockIdx, but %s is launched "
                        "with more than one block: every block writes the same elements",
                        fi->name);
        if (is_store && (addr & (T_THREAD | T_BID)) && !f->store_line) f->store_line = line;
    } else if (space == 2) {
        /* 1-D shared array indexed by threadIdx.x times an even literal */
        CXCursor ix = strip(ks.v[1]);
        if (clang_getCursorKind(ix) == CXCursor_BinaryOperator &&
            clang_getCursorBinaryOperatorKind(ix) == CXBinaryOperator_Mul) {
            kids_t km = kids_of(ix);
            if (km.n == 2) {
                for (int s = 0; s < 2; s++) {
                    double v;
                    unsigned other = expr_flags(f, km.v[1 - s]);
                    if (eval_number(km.v[s], &v) && v >= 2 && (long long)v % 2 == 0 &&
                        (other & T_TX) && !(other & T_TXS)) {
                        add_finding(f->cx->r, "KG-BANK-CONFLICT", KG_P2, line,
                                    "shared index threadIdx.x * %lld: a warp hits the same banks "
                                    "(%lld-way conflict); use an odd stride or sequential addressing",
                                    (long long)v, (long long)v < 32 ? (long long)v : 32LL);
                        break;
                    }
                }
            }
            free(km.v);
        }
    }
    free(ks.v);
}

/* The store target of an assignment or ++/--: an ArraySubscriptExpr? */
static void check_store_target(fn_ctx *f, CXCursor lhs)
{
    CXCursor s = strip(lhs);
    if (clang_getCursorKind(s) == CXCursor_ArraySubscriptExpr) check_access(f, s, 1, 0);
}

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
        if (!strcmp(nm, "__trap") || !strcmp(nm, "asm") || !strcmp(nm, "__brkpt")) {
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

/* 1 when the for statement has no condition: tokens "for ( init ; ; inc )". */
static int for_has_no_condition(CXTranslationUnit tu, CXCursor c)
{
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(tu, clang_getCursorExtent(c), &toks, &n);
    int depth = 0, semis = 0, cond_tokens = 0, result = 0;
    for (unsigned i = 1; i < n; i++) {
        CXString s = clang_getTokenSpelling(tu, toks[i]);
        const char *t = clang_getCString(s);
        int done = 0;
        if (!t) t = "";
        if (!strcmp(t, "(")) {
            if (depth >= 1 && semis == 1) cond_tokens++;
            depth++;
        } else if (!strcmp(t, ")")) {
            depth--;
            if (depth == 0) done = 1;
            else if (semis == 1) cond_tokens++;
        } else if (!strcmp(t, ";") && depth == 1) {
            semis++;
        } else if (depth >= 1 && semis == 1) {
            cond_tokens++;
        }
        clang_disposeString(s);
        if (done || depth < 0) { result = done && semis == 2 && cond_tokens == 0; break; }
    }
    if (toks) clang_disposeTokens(tu, toks, n);
    return result;
}

static int cond_is_true_literal(CXCursor cond)
{
    double v;
    return eval_number(cond, &v) && v != 0;
}

static void check_loop(fn_ctx *f, CXCursor c, enum CXCursorKind k)
{
    kids_t ks = kids_of(c);
    int unbounded = 0;
    if (k == CXCursor_ForStmt) unbounded = for_has_no_condition(f->cx->tu, c);
    else if (k == CXCursor_WhileStmt && ks.n == 2) unbounded = cond_is_true_literal(ks.v[0]);
    else if (k == CXCursor_DoStmt && ks.n == 2) unbounded = cond_is_true_literal(ks.v[1]);
    if (unbounded && ks.n > 0) {
        exit_ctx e = {0, 0};
        clang_visitChildren(ks.v[ks.n - (k == CXCursor_DoStmt ? 2 : 1)], exit_visit, &e);
        if (!e.exits)
            add_finding(f->cx->r, "KG-LOOP-UNBOUNDED", KG_P1, cursor_line(c),
                        "loop without a condition and without break/return in device code: it can "
                        "only end by trapping; the dynamic track's timeout decides");
    }
    free(ks.v);
}

static void check_call(fn_ctx *f, CXCursor c)
{
    struct fn_info *fi = &f->cx->fns[f->fn];
    char nm[128];
    callee_name(c, nm, sizeof nm);
    int line = cursor_line(c);
    CXCursor ref = clang_getCursorReferenced(c);

    if (name_in(nm, sync_names)) {
        for (int i = 0; i < f->n_ctrl; i++)
            if (f->ctrl[i] & T_VARIES) {
                add_finding(f->cx->r, "KG-SYNC-DIVERGENT", KG_P0, line,
                            "%s() inside a branch or loop whose condition depends on the thread: "
                            "threads that skip it leave the block barrier undefined (hang or "
                            "wrong results); move the barrier out of the branch", nm);
                break;
            }
    }
    if (name_in(nm, fastmath_names) && !intent_near(f->cx, line, fi->line))
        add_finding(f->cx->r, "KG-FASTMATH", KG_P1, line,
                    "%s is a fast approximate intrinsic and no comment near it states the precision "
                    "intent; the dynamic track checks its accuracy closely", nm);
    if (name_in(nm, pow_names)) {
        kids_t ks = kids_of(c);
        if (ks.n >= 3) { /* callee, base, exponent */
            double v;
            if (eval_number(ks.v[ks.n - 1], &v) && (v == 2 || v == 3 || v == 4 || v == -1 ||
                                                     v == -2 || v == 0.5))
                add_finding(f->cx->r, "KG-POW-SMALL", KG_P2, line,
                            "%s(x, %g): a general power for a small constant exponent is slow and "
                            "less exact; write %s", nm, v,
                            v == 0.5 ? "sqrtf(x)" : v < 0 ? "1.0f / (x * ...)" : "x * x (* x ...)");
        }
        free(ks.v);
    }
    if (fi->kind != 0 && clang_Cursor_isNull(ref) && name_in(nm, c_host_only)) {
        /* clang found no viable (device-side) function: the host one is all there is */
        add_finding(f->cx->r, "KG-HOSTLIB-DEVICE", fi->kind == 3 ? KG_P1 : KG_P0, line,
                    "%s() is a host-only function called from device code: it does not "
                    "compile for the GPU", nm);
    } else if (fi->kind != 0 && !clang_Cursor_isNull(ref)) {
        if (!strcmp(nm, "printf"))
            add_finding(f->cx->r, "KG-DEVICE-PRINTF", KG_P2, line,
                        "printf in device code: legal but slow and serializing; remove debug output");
        else if ((!strcmp(nm, "malloc") || !strcmp(nm, "free")) && !in_namespace(ref, "cub"))
            add_finding(f->cx->r, "KG-DEVICE-HEAP", KG_P1, line,
                        "%s in device code: the device heap is small (8 MB by default), slow and "
                        "malloc can return NULL", nm);
        else if (name_in(nm, c_host_only) && !attrs_of(ref).device)
            add_finding(f->cx->r, "KG-HOSTLIB-DEVICE", fi->kind == 3 ? KG_P1 : KG_P0, line,
                        "%s() is a host-only function called from device code: it does not "
                        "compile for the GPU", nm);
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
    struct fn_info *fi = &f->cx->fns[f->fn];
    if (fi->kind == 0) return;
    CXCursor ref = clang_getCursorReferenced(c);
    if (clang_Cursor_isNull(ref)) return;
    char nm[64];
    spelling(ref, nm, sizeof nm);
    if (name_in(nm, std_host_only) && in_namespace(ref, "std"))
        add_finding(f->cx->r, "KG-HOSTLIB-DEVICE", fi->kind == 3 ? KG_P1 : KG_P0, cursor_line(c),
                    "std::%s used in device code: the host C++ library does not compile for the "
                    "GPU (use plain arrays, shared memory or CUB)", nm);
}

static void push_ctrl(fn_ctx *f, unsigned fl)
{
    if (f->n_ctrl < (int)(sizeof f->ctrl / sizeof f->ctrl[0])) f->ctrl[f->n_ctrl] = fl;
    f->n_ctrl++;
}

static enum CXChildVisitResult rule_visit(CXCursor c, CXCursor p, CXClientData d);

static void visit_kids(fn_ctx *f, CXCursor c) { clang_visitChildren(c, rule_visit, f); }

/* Visit one cursor and, when the visitor asks for it, its children. */
static void walk(fn_ctx *f, CXCursor c, CXCursor parent)
{
    if (rule_visit(c, parent, f) == CXChildVisit_Recurse) visit_kids(f, c);
}

static enum CXChildVisitResult rule_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    fn_ctx *f = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    switch (k) {
    case CXCursor_LambdaExpr:
        return CXChildVisit_Continue;
    case CXCursor_IfStmt: case CXCursor_SwitchStmt: case CXCursor_WhileStmt:
    case CXCursor_ForStmt: case CXCursor_DoStmt: case CXCursor_ConditionalOperator: {
        if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt)
            check_loop(f, c, k);
        kids_t ks = kids_of(c);
        /* the controlling part: all children but the body (if: the condition) */
        unsigned fl = 0;
        int body_from = 0;
        if (k == CXCursor_IfStmt || k == CXCursor_SwitchStmt || k == CXCursor_ConditionalOperator) {
            /* condition is the first child (an init-statement would come first:
             * then take the first two) */
            int nc = (ks.n >= 3 && k == CXCursor_IfStmt &&
                      !clang_isExpression(clang_getCursorKind(ks.v[0]))) ? 2 : 1;
            for (int i = 0; i < nc && i < ks.n; i++) fl |= expr_flags(f, ks.v[i]);
            body_from = nc;
        } else if (k == CXCursor_DoStmt) {
            if (ks.n == 2) fl = expr_flags(f, ks.v[1]);
        } else {
            for (int i = 0; i + 1 < ks.n; i++) fl |= expr_flags(f, ks.v[i]);
            body_from = ks.n - 1;
        }
        /* visit the controlling expressions outside the branch, the rest inside */
        for (int i = 0; i < ks.n; i++) {
            int is_body = k == CXCursor_DoStmt ? i == 0 : i >= body_from;
            if (is_body) {
                push_ctrl(f, fl);
                walk(f, ks.v[i], c);
                f->n_ctrl--;
            } else {
                walk(f, ks.v[i], c);
            }
        }
        free(ks.v);
        return CXChildVisit_Continue;
    }
    case CXCursor_BinaryOperator: case CXCursor_CompoundAssignOperator: {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
        kids_t ks = kids_of(c);
        if (ks.n == 2) {
            if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign) {
                check_store_target(f, ks.v[0]);
                CXCursor l = strip(ks.v[0]);
                if (clang_getCursorKind(l) == CXCursor_ArraySubscriptExpr) {
                    /* the store's own index is checked; visit its subexpressions */
                    visit_kids(f, l);
                    walk(f, ks.v[1], c);
                    free(ks.v);
                    return CXChildVisit_Continue;
                }
            } else if (op >= CXBinaryOperator_LT && op <= CXBinaryOperator_NE) {
                unsigned l = expr_flags(f, ks.v[0]), r = expr_flags(f, ks.v[1]);
                if (((l & (T_THREAD | T_BID)) && (r & T_PINT)) || ((r & (T_THREAD | T_BID)) && (l & T_PINT)) ||
                    ((l | r) & (T_THREAD | T_BID) && (l | r) & T_PINT))
                    f->has_guard = 1;
            } else if (op == CXBinaryOperator_Rem || op == CXBinaryOperator_RemAssign) {
                if (expr_flags(f, ks.v[1]) & T_PINT) f->has_guard = 1;
            }
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
    case CXCursor_ArraySubscriptExpr: {
        /* a read (stores are handled at their assignment) */
        check_access(f, c, 0, 0);
        return CXChildVisit_Recurse;
    }
    case CXCursor_CallExpr: {
        char nm[64];
        callee_name(c, nm, sizeof nm);
        check_call(f, c);
        if (!strcmp(nm, "min") || !strcmp(nm, "max") || !strcmp(nm, "umin") || !strcmp(nm, "fminf")) {
            if ((expr_flags(f, c) & (T_THREAD | T_BID)) && (expr_flags(f, c) & T_PINT)) f->has_guard = 1;
        }
        if (!strncmp(nm, "atomic", 6)) { /* atomicAdd(&out[i], v): a store, atomic */
            kids_t ks = kids_of(c);
            if (ks.n >= 2) {
                CXCursor a = strip(ks.v[1]);
                if (clang_getCursorKind(a) == CXCursor_UnaryOperator &&
                    clang_getCursorUnaryOperatorKind(a) == CXUnaryOperator_AddrOf) {
                    kids_t ka = kids_of(a);
                    if (ka.n == 1 && clang_getCursorKind(strip(ka.v[0])) == CXCursor_ArraySubscriptExpr)
                        check_access(f, strip(ka.v[0]), 1, 1);
                    free(ka.v);
                }
            }
            free(ks.v);
        }
        return CXChildVisit_Recurse;
    }
    case CXCursor_TypeRef: case CXCursor_TemplateRef: case CXCursor_DeclRefExpr:
        check_std_ref(f, c);
        return CXChildVisit_Recurse;
    case CXCursor_OverloadedDeclRef: {
        /* a call clang could not resolve (RecoveryExpr): in device code that is
         * what a host-only function looks like */
        char nm[64];
        spelling(c, nm, sizeof nm);
        int kind = f->cx->fns[f->fn].kind;
        if (kind != 0 && name_in(nm, c_host_only))
            add_finding(f->cx->r, "KG-HOSTLIB-DEVICE", kind == 3 ? KG_P1 : KG_P0, cursor_line(c),
                        "%s() is a host-only function called from device code: it does not "
                        "compile for the GPU", nm);
        return CXChildVisit_Continue;
    }
    case CXCursor_CXXNewExpr: case CXCursor_CXXDeleteExpr:
        if (f->cx->fns[f->fn].kind != 0)
            add_finding(f->cx->r, "KG-DEVICE-HEAP", KG_P1, cursor_line(c),
                        "new/delete in device code: the device heap is small (8 MB by default) "
                        "and slow; allocation can fail");
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

static void analyze_function(scan_ctx *cx, int fn)
{
    if (cx->fns[fn].kind == 0) return; /* host code: the rules are about device code */
    fn_ctx f;
    memset(&f, 0, sizeof f);
    f.cx = cx;
    f.fn = fn;
    f.fn_cursor = cx->fns[fn].c;
    CXCursor body = clang_getNullCursor();
    clang_visitChildren(f.fn_cursor, find_body, &body);
    if (clang_Cursor_isNull(body)) return;
    int nargs = clang_Cursor_getNumArguments(f.fn_cursor);
    for (int i = 0; i < nargs; i++)
        if (type_is_integer(clang_getCursorType(clang_Cursor_getArgument(f.fn_cursor, (unsigned)i))))
            f.n_int_params++;
    for (int round = 0; round < 4; round++) {
        f.changed = 0;
        clang_visitChildren(body, flow_visit, &f);
        if (!f.changed) break;
    }
    clang_visitChildren(body, rule_visit, &f);
    struct fn_info *fi = &cx->fns[fn];
    if (fi->kind == 1 && f.store_line && !f.has_guard && f.n_int_params > 0)
        add_finding(cx->r, "KG-BOUNDS-NOCHECK", KG_P1, f.store_line,
                    "global store at a thread-derived index, but %s never compares a thread index "
                    "with a size parameter: the last block writes past the end when the size is not "
                    "a multiple of the block", fi->name);
    free(f.vars);
}

/* ---- top level: functions, launches, library use -------------------------- */

static int find_fn(scan_ctx *cx, const char *name)
{
    for (int i = 0; i < cx->n_fns; i++)
        if (strcmp(cx->fns[i].name, name) == 0) return i;
    return -1;
}

static enum CXChildVisitResult top_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    scan_ctx *cx = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
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
        struct fn_info *fi = &cx->fns[cx->n_fns++];
        memset(fi, 0, sizeof *fi);
        fi->c = c;
        snprintf(fi->name, sizeof fi->name, "%s", nm);
        fi->kind = a.global ? 1 : (a.device && a.host) ? 3 : a.device ? 2 : 0;
        fi->line = cursor_line(c);
        if (a.global) {
            cx->r->n_kernels++;
            if (clang_Cursor_getStorageClass(c) == CX_SC_Static)
                add_finding(cx->r, "KG-STATIC-GLOBAL", KG_P2, fi->line,
                            "static __global__ %s: internal linkage; it works when launched from this "
                            "file, but tools and other files cannot name it, and some toolchains "
                            "warn; drop `static`", nm);
        }
        if (!strcmp(nm, "launch") && k == CXCursor_FunctionDecl) {
            CXString m = clang_Cursor_getMangling(c);
            int c_linkage = str_eq(m, "launch");
            if (c_linkage) cx->r->has_launch = 1;
            else
                add_finding(cx->r, "KG-LAUNCH-LINKAGE", KG_P1, fi->line,
                            "launch() is defined with C++ linkage: the gate loads `launch` by its C "
                            "name; declare it extern \"C\"");
        }
        return CXChildVisit_Continue;
    }
    return CXChildVisit_Continue;
}

/* Launch sites: CallExpr with a __cudaPushCallConfiguration child. */
typedef struct { scan_ctx *cx; int in_launch; } launch_ctx;

static int grid_is_one(CXCursor grid)
{
    CXCursor g = strip(grid);
    if (clang_getCursorKind(g) == CXCursor_CallExpr) { /* dim3(x, y, z) */
        kids_t ks = kids_of(g);
        int n_expr = 0, all_one = 1;
        for (int i = 0; i < ks.n; i++) {
            if (!clang_isExpression(clang_getCursorKind(ks.v[i]))) continue;
            /* dim3's default arguments live in the runtime header (they are 1) */
            if (!clang_Location_isFromMainFile(clang_getCursorLocation(ks.v[i]))) continue;
            n_expr++;
            if (!is_literal_value(ks.v[i], 1)) all_one = 0;
        }
        free(ks.v);
        if (n_expr == 1 && clang_getCursorKind(strip(g)) == CXCursor_CallExpr) {
            /* a converting dim3(unsigned) call wrapping the literal */
        }
        return n_expr > 0 && all_one;
    }
    return is_literal_value(g, 1);
}

static enum CXChildVisitResult launch_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    launch_ctx *lc = d;
    scan_ctx *cx = lc->cx;
    if (clang_getCursorKind(c) != CXCursor_CallExpr) return CXChildVisit_Recurse;
    char nm[128];
    callee_name(c, nm, sizeof nm);
    if (!strncmp(nm, "cublas", 6)) cx->uses_library = 1;
    CXCursor ref = clang_getCursorReferenced(c);
    if (!clang_Cursor_isNull(ref) && (in_namespace(ref, "cub") || in_namespace(ref, "thrust")))
        cx->uses_library = 1;
    kids_t ks = kids_of(c);
    CXCursor config = clang_getNullCursor();
    for (int i = 0; i < ks.n; i++) {
        CXCursor s = strip(ks.v[i]);
        if (clang_getCursorKind(s) == CXCursor_CallExpr) {
            char cn[64];
            callee_name(s, cn, sizeof cn);
            if (!strcmp(cn, "__cudaPushCallConfiguration")) { config = s; break; }
        }
    }
    if (!clang_Cursor_isNull(config)) {
        int fi = find_fn(cx, nm);
        kids_t kc = kids_of(config); /* callee, grid, block[, shmem[, stream]] */
        /* default arguments live in the runtime header: keep what the candidate wrote */
        int w = 0;
        for (int i = 0; i < kc.n; i++)
            if (i == 0 || clang_Location_isFromMainFile(clang_getCursorLocation(kc.v[i]))) kc.v[w++] = kc.v[i];
        kc.n = w;
        int line = cursor_line(c);
        if (fi >= 0) {
            cx->fns[fi].launched = 1;
            if (kc.n >= 2 && !grid_is_one(kc.v[1])) cx->fns[fi].multiblock = 1;
        }
        if (lc->in_launch) {
            if (kc.n < 5)
                add_finding(cx->r, "KG-STREAM-IGNORED", KG_P1, line,
                            "kernel launched without the `stream` argument: it runs on the default "
                            "stream, unordered with the gate's stream; pass <<<grid, block, shmem, stream>>>");
            else if (is_literal_value(kc.v[4], 0) ||
                     clang_getCursorKind(strip(kc.v[4])) == CXCursor_CXXNullPtrLiteralExpr)
                add_finding(cx->r, "KG-STREAM-IGNORED", KG_P1, line,
                            "kernel launched on stream 0 instead of the `stream` argument");
        }
        free(kc.v);
    }
    free(ks.v);
    return CXChildVisit_Recurse;
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

/* ---- parsing --------------------------------------------------------------- */

static CXIndex g_index;

static void dispose_index(void)
{
    if (g_index) clang_disposeIndex(g_index);
    g_index = NULL;
}

#define STUB_DIR "/kgate-virtual-stubs"

static CXTranslationUnit parse(const char *source, const char *extra_include, int device, char *err,
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
    static char cuda_arg[1100], cccl_arg[1100], res_dir[1100];
    snprintf(cuda_arg, sizeof cuda_arg, "--cuda-path=%s", cuda);
    snprintf(cccl_arg, sizeof cccl_arg, "%s/include/cccl", cuda);
    const char *args[24];
    int na = 0;
    args[na++] = "-x"; args[na++] = "cuda";
    args[na++] = device ? "--cuda-device-only" : "--cuda-host-only";
    args[na++] = cuda_arg;
    args[na++] = "-nocudalib";
    args[na++] = "--cuda-gpu-arch=sm_90";
    args[na++] = "-std=c++17";
    args[na++] = "-I" STUB_DIR;
    args[na++] = "-isystem"; args[na++] = cccl_arg;
    args[na++] = "-w";
    args[na++] = "-fno-spell-checking";
    args[na++] = "-ferror-limit=20";
    const char *rd = getenv("KGATE_CLANG_RESOURCE_DIR");
    if (rd && *rd) {
        snprintf(res_dir, sizeof res_dir, "%s", rd);
        args[na++] = "-resource-dir"; args[na++] = res_dir;
    }
    if (extra_include) { args[na++] = "-include"; args[na++] = extra_include; }
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

/* Token facts about the candidate: does it mention half types, include
 * cuda_fp16.h, or name cuBLAS / CUB / Thrust? */
typedef struct { int half_ids, fp16_include, library, global_kw; } token_facts;

static token_facts scan_tokens(CXTranslationUnit tu)
{
    token_facts t = {0, 0, 0, 0};
    CXCursor root = clang_getTranslationUnitCursor(tu);
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(tu, clang_getCursorExtent(root), &toks, &n);
    char prev[64] = "";
    for (unsigned i = 0; i < n; i++) {
        CXTokenKind kind = clang_getTokenKind(toks[i]);
        CXString s = clang_getTokenSpelling(tu, toks[i]);
        const char *p = clang_getCString(s);
        if (!p) p = "";
        if (kind == CXToken_Identifier) {
            if (strstr(p, "half") || !strncmp(p, "__h", 3)) t.half_ids = 1;
            if (!strncmp(p, "cublas", 6)) t.library = 1;
            if (!strcmp(p, "__global__")) t.global_kw = 1;
        } else if (kind == CXToken_Punctuation && !strcmp(p, "::")) {
            if (!strcmp(prev, "cub") || !strcmp(prev, "thrust")) t.library = 1;
        } else if (kind == CXToken_Literal || kind == CXToken_Punctuation) {
            /* #include <cuda_fp16.h> lexes as identifiers/punctuation; a quoted one is a literal */
            if (strstr(p, "cuda_fp16.h")) t.fp16_include = 1;
        }
        if (kind == CXToken_Identifier && (!strcmp(prev, "cuda_fp16") || !strcmp(p, "cuda_fp16")))
            t.fp16_include = 1;
        snprintf(prev, sizeof prev, "%s", p);
        clang_disposeString(s);
    }
    if (toks) clang_disposeTokens(tu, toks, n);
    return t;
}

/* The rules on one parse. The device-side pass (device = 1) only adds rule
 * findings: the counts and the library flag come from the host pass. */
static void analyze_tu(CXTranslationUnit tu, const char *source, kg_static_result *out,
                       const token_facts *tf, int device)
{
    int keep_kernels = out->n_kernels, keep_launch = out->has_launch;
    scan_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.src = source;
    cx.r = out;
    cx.tu = tu;
    CXCursor root = clang_getTranslationUnitCursor(tu);
    clang_visitChildren(root, top_visit, &cx);
    launch_ctx lc = {&cx, 0};
    for (int i = 0; i < cx.n_fns; i++) {
        lc.in_launch = !strcmp(cx.fns[i].name, "launch");
        clang_visitChildren(cx.fns[i].c, launch_visit, &lc);
    }
    /* The rules also run on a TU with errors: clang's recovery drops what it
     * could not understand, which can only hide findings. */
    find_intent_comments(&cx);
    for (int i = 0; i < cx.n_fns; i++)
        analyze_function(&cx, i);
    if (cx.n_fns > 0) {
        int *state = calloc((size_t)cx.n_fns, sizeof *state);
        if (state) {
            for (int i = 0; i < cx.n_fns; i++) {
                int line = 0;
                if (cx.fns[i].kind != 0 && state[i] == 0 && dfs_cycle(&cx, i, state, &line))
                    add_finding(out, "KG-RECURSION", KG_P1, line,
                                "recursion in device code (through %s): the per-thread stack is "
                                "small and the depth unknown at compile time", cx.fns[i].name);
            }
            free(state);
        }
    }
    if (device) {
        out->n_kernels = keep_kernels;
        out->has_launch = keep_launch;
    } else {
        if (!out->has_launch && out->parsed)
            add_finding(out, "KG-NO-LAUNCH", KG_P1, 0,
                        "no extern \"C\" launch(...) defined: the gate has nothing to call");
        if (tf->library) cx.uses_library = 1;
        out->is_external = cx.uses_library && out->n_kernels == 0 && !tf->global_kw;
        if (out->is_external)
            add_finding(out, "KG-EXTERNAL", KG_P2, 0,
                        "library-only candidate: calls cuBLAS/CUB and defines no kernel (EXTERNAL)");
    }
    free(cx.fns);
    free(cx.edges);
    free(cx.intents);
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
        if (host)
            execlp(nvcc, nvcc, "-E", "-x", "cu", "-std=c++17", "-U__CUDA_ARCH__", path, "-o", out, (char *)NULL);
        else
            execlp(nvcc, nvcc, "-E", "-x", "cu", "-std=c++17", "-arch=sm_90", path, "-o", out, (char *)NULL);
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
static int hidden_code_check(CXTranslationUnit tu, const char *source, kg_static_result *out,
                             const token_facts *tf)
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
        CXTranslationUnit dtu = parse(source, out->needs_half_header ? "cuda_fp16.h" : NULL, 1, err,
                                      sizeof err);
        if (dtu) skipped_lines(dtu, dskip, nlines);
        else memset(dskip, 1, (size_t)nlines);
        for (int l = 1; l < nlines; l++)
            if (skip[l] && nv[l] && dskip[l]) {
                if (!first) first = l;
                last = l;
            }
        if (dtu) {
            if (!first) analyze_tu(dtu, source, out, tf, 1);
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
        add_finding(out, "KG-HIDDEN-CODE", KG_P0, first,
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
        add_finding(out, "KG-INCLUDE", KG_P0, iline, "%s", why);
        snprintf(out->parse_error, sizeof out->parse_error, "%.60s: not parsed: %.180s", name, why);
        return 0;
    }
    char err[256] = "";
    CXTranslationUnit tu = parse(source, NULL, 0, err, sizeof err);
    if (!tu) {
        snprintf(out->parse_error, sizeof out->parse_error, "%s: %s", name, err);
        return -1;
    }
    int eline = 0;
    char emsg[224] = "";
    int nerr = main_file_errors(tu, emsg, sizeof emsg, &eline);
    token_facts tf = scan_tokens(tu);
    if (nerr > 0 && tf.half_ids && !tf.fp16_include) {
        /* try again with the half header: if that fixes it, auto-include */
        char err2[256] = "";
        CXTranslationUnit tu2 = parse(source, "cuda_fp16.h", 0, err2, sizeof err2);
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
                out->needs_half_header = 1;
                add_finding(out, "KG-HALF-HEADER", KG_P2, 0,
                            "half types used without #include <cuda_fp16.h>: the gate adds it");
            } else {
                clang_disposeTranslationUnit(tu2);
            }
        }
    }
    out->parsed = nerr == 0;
    if (!out->parsed) {
        snprintf(out->parse_error, sizeof out->parse_error, "%s: %s", name, emsg);
        add_finding(out, "KG-PARSE", KG_P1, eline,
                    "not valid C/CUDA for clang (%s); the compile step decides", emsg);
    }

    analyze_tu(tu, source, out, &tf, 0);
    if (hidden_code_check(tu, source, out, &tf) < 0) { /* no nvcc: the text rule decided */ }
    clang_disposeTranslationUnit(tu);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return 0;
}
