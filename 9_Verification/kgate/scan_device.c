/* scan_device.c: calls in device code and the walk over a device function.
 *
 * check_call judges one call: block barriers (in every spelling:
 * scan_barriers.c), warp functions, atomics, fences, math, host-only
 * functions. rule_visit walks a function's body keeping the stack of
 * conditions that control the current statement (is it thread-dependent?
 * lane-dependent? one thread?); analyze_function runs the passes on one
 * function and the rules that need the whole function.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scan_internal.h"

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
    char bname[128], what[160];
    written_name(f, c, bname, sizeof bname);
    int bk = call_barrier_kind(f, c, bname, ref, what, sizeof what);
    int barrier = bk >= BAR_BLOCK || !strcmp(nm, "__syncwarp");
    if (!barrier && !strcmp(nm, "sync") && !clang_Cursor_isNull(ref)) barrier = 1;   /* cooperative groups */
    if (is_atomic_name(nm)) check_atomic(f, c, parent, nm, line);
    if (barrier) f->n_pending = 0;
    if (f->replay) return;

    if (bk) {
        if (!judge_barrier(f, bk, line, what) && bk >= BAR_BLOCK && f->exit_line && f->exit_line < line)
            add_finding(f->cx->r, "KG-SYNC-AFTER-EXIT", -1, line,
                        "%s after a thread-dependent return (line %d): the threads that left never "
                        "arrive at the barrier", what, f->exit_line);
    } else {
        call_of_barrier_helper(f, c, ref, nm, line);
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
void check_const_cast(scan_ctx *cx, CXCursor c)
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
        /* its body runs where it is called: only its barriers are judged */
        if (!f->replay) lambda_barriers(f, c);
        return CXChildVisit_Continue;
    case CXCursor_GCCAsmStmt:
        check_asm(f, c);
        return CXChildVisit_Recurse;
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

void analyze_function(scan_ctx *cx, int fn)
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

