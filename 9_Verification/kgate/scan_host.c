/* scan_host.c: host code. The candidate's functions (top_visit), launch
 * sites (`k<<<grid, block, shmem, stream>>>`, read through
 * __cudaPushCallConfiguration) with their constant configurations, library
 * and runtime calls in the launcher, and the checks across launch sites and
 * kernels (a launch against what the kernel indexes, __launch_bounds__, the
 * stride of its loops) and over the file's tokens.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scan_internal.h"

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

enum CXChildVisitResult top_visit(CXCursor c, CXCursor p, CXClientData d)
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

enum CXChildVisitResult host_visit(CXCursor c, CXCursor p, CXClientData d)
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
int dfs_cycle(scan_ctx *cx, int v, int *state, int *line_out)
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

void cross_checks(scan_ctx *cx)
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
void token_checks(scan_ctx *cx, int device)
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
int torch_entry_defined(scan_ctx *cx)
{
    const char *entry = cx->opts && cx->opts->torch_entry && *cx->opts->torch_entry ? cx->opts->torch_entry : "forward";
    const token_list *t = &cx->toks;
    for (int i = 1; i + 1 < t->n; i++)
        if (!strcmp(tok(t, i), entry) && tok_is(t, i + 1, "(") && t->kind[i - 1] == CXToken_Identifier &&
            !tok_is(t, i - 1, "return"))
            return 1;
    return 0;
}

