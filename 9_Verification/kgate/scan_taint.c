/* scan_taint.c: the taint analysis of a device function and the rules that
 * read it directly.
 *
 * Every expression gets a set of "where does this value come from" bits
 * (scan_internal.h: threadIdx.x, threadIdx.y/z, blockIdx, blockDim, gridDim,
 * an integer parameter, memory, varies per thread, threadIdx.x times a
 * non-unit factor, warp-uniform, shared memory). Local variables collect the
 * union over their initializer and every assignment (a few rounds, so
 * loop-carried updates propagate: flow_visit). Control dependence is ignored
 * on purpose: the rules prefer missing a bug over rejecting a good kernel.
 * Then the memory-access rules (global, shared and local arrays: coalescing,
 * bank conflicts, races on shared memory, bounds) and the loop rules.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scan_internal.h"

/* ---- per-function taint analysis ----------------------------------------- */

var_t *find_var(fn_ctx *f, CXCursor decl)
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
void last_token(CXTranslationUnit tu, CXCursor c, char *buf, size_t len)
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

unsigned expr_flags(fn_ctx *f, CXCursor c);

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
        return (type_is_integer(clang_getCursorType(ref)) ? T_PINT : 0) | param_bit(f, ref);
    }
    return 0;
}

/* T_PARAM0 << i for parameter i of the function analysed (0 for another's). */
unsigned param_bit(fn_ctx *f, CXCursor parm)
{
    int i = param_index(f, parm);
    return i < 0 ? 0 : T_PARAM0 << (i < 7 ? i : 7);
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

unsigned expr_flags(fn_ctx *f, CXCursor c)
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
int cond_lanevar(fn_ctx *f, CXCursor cond)
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
int cond_single(fn_ctx *f, CXCursor cond)
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

int is_atomic_name(const char *nm)
{
    return !strncmp(nm, "atomic", 6) && strcmp(nm, "atomic_ref") != 0;
}

CXCursor first_expr_child(CXCursor c)
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
        if (rk == CXCursor_ParmDecl) base |= param_bit(f, ref);
        v = add_var(f, ref, base | fl);
        if (v) f->changed = 1;
    } else if ((v->flags | fl) != v->flags) {
        v->flags |= fl;
        f->changed = 1;
    }
    if (v) v->assigns++;
}

enum CXChildVisitResult flow_visit(CXCursor c, CXCursor p, CXClientData d)
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

/* ---- pass 2: memory accesses ------------------------------------------------ */

int param_index(fn_ctx *f, CXCursor decl)
{
    CXCursor ps[32];
    int n = fn_params(f->fn_cursor, ps, 32);
    for (int i = 0; i < n; i++)
        if (clang_equalCursors(ps[i], decl)) return i;
    return -1;
}

int decl_space(fn_ctx *f, CXCursor ref, unsigned *base_fl)
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

access_t access_of(fn_ctx *f, CXCursor sub)
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

int ctrl_thread(const fn_ctx *f)
{
    for (int i = 0; i < f->n_ctrl && i < 64; i++)
        if (f->ctrl[i].fl & T_VARIES) return 1;
    return 0;
}
int ctrl_lanevar(const fn_ctx *f)
{
    for (int i = 0; i < f->n_ctrl && i < 64; i++)
        if (f->ctrl[i].lanevar) return 1;
    return 0;
}
int ctrl_single(const fn_ctx *f)
{
    for (int i = 0; i < f->n_ctrl && i < 64; i++)
        if (f->ctrl[i].single) return 1;
    return 0;
}

int skipped(fn_ctx *f, CXCursor c)
{
    for (int i = 0; i < f->n_skip; i++)
        if (clang_equalCursors(f->skip[i], c)) return 1;
    return 0;
}

/* KG-SYNC-MISSING: shared memory written since the last barrier, read at
 * another element (another thread's) before a barrier. An atomic is a read
 * too: a plain store to the array, then an atomic at another element with no
 * barrier between, is a race (on our H200 racecheck did not report one:
 * corpus/hist_zero_nosync.cu); atomics after atomics are not. */
static void smem_sync_track(fn_ctx *f, const access_t *a, int is_store, int is_atomic, int line)
{
    char idx[160];
    index_text(f, a, idx, sizeof idx);
    unsigned ifl = 0;
    for (int i = 0; i < a->rank; i++) ifl |= expr_flags(f, a->idx[i]);
    if (is_atomic && is_store) {
        smem_sync_track(f, a, 0, 1, line);   /* the read half, at its real index */
        /* the write half: a plain read at the same thread-dependent index is
         * the thread's own element; any read races with an atomic on one
         * element that all threads share */
        char at[sizeof idx];
        snprintf(at, sizeof at, "<atomic%c>%s", (ifl & T_VARIES) ? 'T' : 'U', idx);
        memcpy(idx, at, sizeof idx);
    }
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
    /* libclang may show an atomic's operand (a float atomicAdd's) once more
     * as a plain read: not a read of its own */
    if (!is_atomic)
        for (int i = 0; i < f->n_pending; i++)
            if (f->pending[i].line == line && clang_equalCursors(f->pending[i].decl, a->decl) &&
                !strncmp(f->pending[i].idx + 1, "<atomic", 7) && !strcmp(f->pending[i].idx + 10, idx)) return;
    for (int i = 0; i < f->n_pending; i++) {
        if (!clang_equalCursors(f->pending[i].decl, a->decl)) continue;
        char kind = f->pending[i].idx[0];
        const char *widx = f->pending[i].idx + 1;
        int was_atomic = !strncmp(widx, "<atomic", 7);
        if (is_atomic && was_atomic) continue;   /* atomic after atomic */
        int same;
        if (was_atomic) {   /* a plain read after an atomic */
            int shared_elem = widx[7] == 'U';
            widx += 9;
            same = !strcmp(widx, idx);
            if (shared_elem) same = 0;   /* one element every thread updates */
        } else same = !strcmp(widx, idx);
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

void check_access(fn_ctx *f, CXCursor sub, int is_store, int is_atomic)
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
CXCursor store_subscript(CXCursor lhs)
{
    CXCursor s = strip(lhs);
    if (clang_getCursorKind(s) == CXCursor_MemberRefExpr) {
        CXCursor b = first_expr_child(s);
        if (!clang_Cursor_isNull(b)) s = strip(b);
    }
    return clang_getCursorKind(s) == CXCursor_ArraySubscriptExpr ? s : clang_getNullCursor();
}

/* The store target of an assignment or ++/--: an ArraySubscriptExpr? */
void check_store_target(fn_ctx *f, CXCursor lhs)
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
void for_parts(CXTranslationUnit tu, CXCursor c, CXCursor *init, CXCursor *cond, CXCursor *inc,
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

void check_loop(fn_ctx *f, CXCursor c, enum CXCursorKind k)
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

