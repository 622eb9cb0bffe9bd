/* scan_barriers.c: block barriers in every spelling (KG-SYNC-DIVERGENT).
 *
 * A barrier is a barrier however it is written: __syncthreads() and its
 * _count/_and/_or forms, __barrier_sync(), the NVVM builtins, bar.sync /
 * barrier.sync / bar.red in inline asm (the asm template is read with the
 * candidate's macros expanded), cooperative groups' sync() and
 * barrier_wait() on a thread_block (a variable, a reference, a
 * this_thread_block() temporary, cg::sync(block), a thread_group), and a
 * call of the candidate's own function or lambda that waits at one (a
 * summary per function: what it waits at, and which of its parameters decide
 * whether it gets there). scan_device.c's walk calls judge_barrier where it
 * meets one; a lambda's body, which that walk does not enter, gets a walk of
 * its own here.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_internal.h"

static const char *const block_barrier_names[] = {
    "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__barrier_sync",
    "__nvvm_bar0", "__nvvm_bar0_popc", "__nvvm_bar0_and", "__nvvm_bar0_or", "__nvvm_bar_sync",
    "__nvvm_barrier_sync", "__nvvm_barrier0", NULL};
static const char *const partial_barrier_names[] = {
    "__barrier_sync_count", "__nvvm_barrier_sync_cnt", "__nvvm_bar_sync_cnt", NULL};

/* What a function or lambda of the candidate waits at: the strongest kind,
 * the first line, and the parameters that decide whether it is reached
 * (T_PARAM bits: the branches around it, an earlier return). */
struct barrier_sum {
    CXCursor def;
    int state;          /* 1 being computed (a recursive call sees nothing), 2 done */
    int kind, line;
    unsigned params;
};

void push_ctrl(fn_ctx *f, unsigned fl, int lanevar, int single, int loop)
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

void pop_ctrl(fn_ctx *f)
{
    f->n_ctrl--;
    if (f->n_ctrl < 64 && f->ctrl[f->n_ctrl].loop) f->loop_depth--;
}

enum CXChildVisitResult find_body(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    if (clang_getCursorKind(c) == CXCursor_CompoundStmt) { *(CXCursor *)d = c; return CXChildVisit_Break; }
    return CXChildVisit_Continue;
}

/* The conditions around the current statement: their parameter bits, and
 * whether one of them differs between blocks (a grid barrier's concern). */
static unsigned ctrl_params(const fn_ctx *f)
{
    unsigned p = 0;
    for (int i = 0; i < f->n_ctrl && i < 64; i++) p |= f->ctrl[i].fl & T_PARAMS;
    return p;
}
static int ctrl_block(const fn_ctx *f)
{
    for (int i = 0; i < f->n_ctrl && i < 64; i++)
        if (f->ctrl[i].fl & (T_VARIES | T_BID)) return 1;
    return 0;
}

/* KG-SYNC-DIVERGENT for a barrier of this kind under the current conditions;
 * `what` names the spelling. Returns 1 when it fired. */
int judge_barrier(fn_ctx *f, int kind, int line, const char *what)
{
    if (kind == BAR_BLOCK && ctrl_thread(f)) {
        add_finding(f->cx->r, "KG-SYNC-DIVERGENT", -1, line,
                    "%s inside a branch or loop whose condition depends on the thread: "
                    "threads that skip it leave the block barrier undefined (hang or "
                    "wrong results); move the barrier out of the branch", what);
        return 1;
    }
    if (kind == BAR_GRID && ctrl_block(f)) {
        add_finding(f->cx->r, "KG-SYNC-DIVERGENT", -1, line,
                    "%s inside a branch or loop whose condition depends on the thread or the block: "
                    "threads or blocks that skip a grid-wide barrier leave it hanging; move it out "
                    "of the branch", what);
        return 1;
    }
    if (kind == BAR_PARTIAL && ctrl_lanevar(f)) {
        add_finding(f->cx->r, "KG-SYNC-DIVERGENT", -1, line,
                    "%s (a barrier for a count of threads) inside a branch whose condition differs "
                    "between the lanes of a warp: whole warps may skip it, single lanes may not "
                    "(hang or wrong results)", what);
        return 1;
    }
    return 0;
}

/* A cooperative group's barrier kind from the group's type, -1 when the
 * type says nothing (a template's parameter). */
static int group_kind(CXType t)
{
    char ty[256];
    type_spelling(clang_getCanonicalType(clang_getNonReferenceType(t)), ty, sizeof ty);
    const char *tile = strstr(ty, "thread_block_tile<");
    if (tile) return strtol(tile + 18, NULL, 10) > 32 ? BAR_PARTIAL : BAR_WARP;
    if (strstr(ty, "coalesced_group")) return BAR_WARP;
    if (strstr(ty, "grid_group") || strstr(ty, "cluster_group")) return BAR_GRID;
    if (strstr(ty, "thread_block") || strstr(ty, "thread_group")) return BAR_BLOCK;
    return -1;
}

/* The name a call is written with: the callee's, or for a call in a
 * template that clang could not resolve (g.sync() on a template's group),
 * the member's last token. */
void written_name(fn_ctx *f, CXCursor call, char *nm, size_t len)
{
    callee_name(call, nm, len);
    if (nm[0]) return;
    kids_t ks = kids_of(call);
    if (ks.n > 0 && clang_getCursorKind(strip(ks.v[0])) == CXCursor_MemberRefExpr)
        last_token(f->cx->tu, strip(ks.v[0]), nm, len);
    free(ks.v);
}

/* A call that is a barrier itself (not a helper that contains one): its
 * kind, and how it is written in `what`. */
int call_barrier_kind(fn_ctx *f, CXCursor call, const char *nm, CXCursor ref, char *what, size_t len)
{
    if (name_in(nm, block_barrier_names)) { snprintf(what, len, "%s()", nm); return BAR_BLOCK; }
    if (name_in(nm, partial_barrier_names)) { snprintf(what, len, "%s()", nm); return BAR_PARTIAL; }
    if (strcmp(nm, "sync") && strcmp(nm, "barrier_wait")) return BAR_NONE;
    /* cooperative groups: a member call on the group, or sync(group) */
    if (!clang_Cursor_isNull(ref) && !in_namespace(ref, "cooperative_groups")) return BAR_NONE;
    CXCursor group = clang_getNullCursor();
    kids_t ks = kids_of(call);
    if (ks.n > 0 && clang_getCursorKind(strip(ks.v[0])) == CXCursor_MemberRefExpr)
        group = first_expr_child(strip(ks.v[0]));
    free(ks.v);
    if (clang_Cursor_isNull(group) && clang_Cursor_getNumArguments(call) > 0)
        group = clang_Cursor_getArgument(call, 0);
    int kind = clang_Cursor_isNull(group) ? -1 : group_kind(clang_getCursorType(strip(group)));
    if (kind < 0 && !clang_Cursor_isNull(ref)) {
        char cls[96];
        spelling(clang_getCursorSemanticParent(ref), cls, sizeof cls);
        kind = !strcmp(cls, "grid_group") ? BAR_GRID : !strcmp(cls, "thread_block_tile") ? BAR_WARP : -1;
    }
    /* an unresolved call in a template (its group unknown) counts as a block's */
    if (kind < 0) kind = BAR_BLOCK;
    char gt[96] = "a group";
    if (!clang_Cursor_isNull(group)) {
        expr_text(f->cx->tu, group, gt, sizeof gt);
        /* "cg :: this_thread_block ( )" as written: cg::this_thread_block() */
        size_t o = 0;
        for (size_t i = 0; gt[i]; i++)
            if (gt[i] != ' ' || !(strchr(":().", gt[i + 1]) || (o && strchr(":(.", gt[o - 1])))) gt[o++] = gt[i];
        gt[o] = 0;
    }
    snprintf(what, len, "cooperative groups' %s() on %.80s", nm, gt);
    return kind;
}

/* ---- inline asm ---- */

/* The candidate's macros, read once: an asm template may be one. Each body
 * is its tokens separated by \x01. */
static void read_macros(scan_ctx *cx);
static const char *macro_body(scan_ctx *cx, const char *name)
{
    if (!cx->macros_read) read_macros(cx);
    for (int i = 0; i < cx->n_macros; i++)
        if (!strcmp(cx->macros[i].name, name)) return cx->macros[i].body;
    return NULL;
}

static enum CXChildVisitResult macro_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    scan_ctx *cx = d;
    if (clang_getCursorKind(c) != CXCursor_MacroDefinition || !clang_Location_isFromMainFile(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    if (cx->n_macros >= 512) return CXChildVisit_Break;
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(cx->tu, clang_getCursorExtent(c), &toks, &n);
    size_t cap = 64, used = 0;
    char *body = malloc(cap);
    unsigned i = 1;
    if (clang_Cursor_isMacroFunctionLike(c)) {   /* skip the parameter list */
        for (; i < n; i++) {
            CXString s = clang_getTokenSpelling(cx->tu, toks[i]);
            int close = clang_getCString(s) && !strcmp(clang_getCString(s), ")");
            clang_disposeString(s);
            if (close) { i++; break; }
        }
    }
    for (; body && i < n; i++) {
        CXString s = clang_getTokenSpelling(cx->tu, toks[i]);
        const char *t = clang_getCString(s) ? clang_getCString(s) : "";
        size_t l = strlen(t);
        if (used + l + 2 > cap) {
            while (used + l + 2 > cap) cap *= 2;
            char *nb = realloc(body, cap);
            if (!nb) { free(body); body = NULL; clang_disposeString(s); break; }
            body = nb;
        }
        memcpy(body + used, t, l);
        used += l;
        body[used++] = '\x01';
        clang_disposeString(s);
    }
    if (toks) clang_disposeTokens(cx->tu, toks, n);
    if (!body) return CXChildVisit_Continue;
    body[used] = 0;
    if (cx->n_macros % 32 == 0) {
        void *nm = realloc(cx->macros, (size_t)(cx->n_macros + 32) * sizeof *cx->macros);
        if (!nm) { free(body); return CXChildVisit_Break; }
        cx->macros = nm;
    }
    spelling(c, cx->macros[cx->n_macros].name, sizeof cx->macros[0].name);
    cx->macros[cx->n_macros++].body = body;
    return CXChildVisit_Continue;
}

static void read_macros(scan_ctx *cx)
{
    cx->macros_read = 1;
    clang_visitChildren(clang_getTranslationUnitCursor(cx->tu), macro_visit, cx);
}

/* An asm statement's tokens with the candidate's macros expanded
 * (depth-limited; a function-like macro's body is put in front of its
 * arguments, which is enough to read an instruction's name); `unk` marks a
 * name that is not the candidate's macro. */
typedef struct { char **v; unsigned char *unk; int n, cap; } tok_vec;

static void push_tok(tok_vec *tv, const char *s, size_t l, int unknown)
{
    if (tv->n >= 4096) return;
    if (tv->n == tv->cap) {
        int nc = tv->cap ? 2 * tv->cap : 64;
        char **nv = realloc(tv->v, (size_t)nc * sizeof *nv);
        if (!nv) return;
        tv->v = nv;
        unsigned char *nu = realloc(tv->unk, (size_t)nc);
        if (!nu) return;
        tv->unk = nu;
        tv->cap = nc;
    }
    char *t = malloc(l + 1);
    if (!t) return;
    memcpy(t, s, l);
    t[l] = 0;
    tv->unk[tv->n] = (unsigned char)unknown;
    tv->v[tv->n++] = t;
}

static int is_ident_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static void expand_into(scan_ctx *cx, tok_vec *tv, const char *s, size_t l, int depth)
{
    char name[64];
    if (l > 0 && l < sizeof name && is_ident_start(s[0])) {
        memcpy(name, s, l);
        name[l] = 0;
        const char *body = depth < 8 ? macro_body(cx, name) : NULL;
        if (body) {
            for (const char *p = body; *p;) {
                const char *e = strchr(p, '\x01');
                size_t tl = e ? (size_t)(e - p) : strlen(p);
                expand_into(cx, tv, p, tl, depth + 1);
                p = e ? e + 1 : p + tl;
            }
            return;
        }
        push_tok(tv, s, l, depth == 0);   /* written in the statement, not a macro of the candidate */
        return;
    }
    push_tok(tv, s, l, 0);
}

/* The text of an asm statement's template: the contents of its string
 * literals, other tokens as written. *unknown is set when a name written in
 * the template is not the candidate's macro (a header's: not readable here). */
static void asm_template(scan_ctx *cx, CXCursor c, char *out, size_t len, int *unknown)
{
    out[0] = 0;
    *unknown = 0;
    CXToken *toks = NULL;
    unsigned n = 0;
    clang_tokenize(cx->tu, clang_getCursorExtent(c), &toks, &n);
    tok_vec tv = {NULL, NULL, 0, 0};
    for (unsigned i = 0; i < n; i++) {
        CXString s = clang_getTokenSpelling(cx->tu, toks[i]);
        const char *t = clang_getCString(s) ? clang_getCString(s) : "";
        expand_into(cx, &tv, t, strlen(t), 0);
        clang_disposeString(s);
    }
    if (toks) clang_disposeTokens(cx->tu, toks, n);
    /* asm [volatile|inline|goto ...] ( template [: ...] ) */
    int i = 0;
    while (i < tv.n && strcmp(tv.v[i], "asm") && strcmp(tv.v[i], "__asm__") && strcmp(tv.v[i], "__asm")) i++;
    while (i < tv.n && strcmp(tv.v[i], "(")) i++;
    size_t o = 0;
    int depth = 0;
    for (i++; i < tv.n; i++) {
        const char *t = tv.v[i];
        if (!strcmp(t, "(")) depth++;
        if (!strcmp(t, ")") && depth-- == 0) break;
        if ((!strcmp(t, ":") || !strcmp(t, "::")) && depth == 0) break;
        const char *q = strchr(t, '"');
        if (q && q - t <= 3 && strrchr(t, '"') > q) {
            /* a string literal: its contents (a raw one's between its parentheses) */
            const char *b = q + 1, *e = strrchr(t, '"');
            if (q > t && q[-1] == 'R') {
                const char *lp = strchr(b, '('), *rp = e;
                while (rp > b && *rp != ')') rp--;
                if (lp && rp > lp) { b = lp + 1; e = rp; }
            }
            for (const char *p = b; p < e && o + 2 < len; p++) out[o++] = *p;
        } else {
            if (o && o + 2 < len && out[o - 1] != '.' && strcmp(t, ".")) out[o++] = ' ';
            for (const char *p = t; *p && o + 2 < len; p++) out[o++] = *p;
            if (tv.unk[i]) *unknown = 1;
        }
    }
    out[o] = 0;
    for (int k = 0; k < tv.n; k++) free(tv.v[k]);
    free(tv.v);
    free(tv.unk);
}

/* The barrier an asm template waits at: bar.sync, barrier.sync (.cta,
 * .aligned), bar.red, barrier.red, bar alone. With a thread count operand
 * it waits for that many threads only (BAR_PARTIAL); bar.warp.sync and
 * bar.arrive do not wait for the block. */
static int asm_barrier_kind(const char *text, char *what, size_t len)
{
    int kind = BAR_NONE;
    for (const char *p = text; *p; p++) {
        int word = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.' || p[-1] == '%' || p[-1] == '$');
        if (!word || strncmp(p, "bar", 3)) continue;
        const char *q = p + 3;
        if (!strncmp(q, "rier", 4)) q += 4;
        if (isalnum((unsigned char)*q) || *q == '_') continue;
        if (!strncmp(q, ".cta", 4)) q += 4;
        int red = 0;
        if (!strncmp(q, ".warp", 5) || !strncmp(q, ".arrive", 7)) continue;
        if (!strncmp(q, ".sync", 5)) q += 5;
        else if (!strncmp(q, ".red", 4)) { q += 4; red = 1; }
        else if (q[-1] == 'r' && q == p + 7) continue;   /* "barrier" needs .sync or .red */
        else if (*q != ' ' && *q != '\t') continue;
        const char *e = q;
        while (*e && *e != ';' && *e != '\n') e++;
        int operands = 1;
        for (const char *r = q; r < e; r++) operands += *r == ',';
        while (*q == '.' || isalnum((unsigned char)*q)) q++;   /* .aligned, .popc.u32 ... */
        int k = operands > (red ? 3 : 1) ? BAR_PARTIAL : BAR_BLOCK;
        if (k > kind) {
            kind = k;
            snprintf(what, len, "%.*s in inline asm", (int)(e - p > 40 ? 40 : e - p), p);
        }
    }
    return kind;
}

/* ---- helpers that wait at a barrier ---- */

/* A walk over a function's or a lambda's body that follows the conditions
 * around each statement and notes every barrier: in summary mode what the
 * body waits at (for its callers), in report mode KG-SYNC-DIVERGENT inside
 * it (a lambda's body, which the rules' walk does not enter). */
typedef struct {
    fn_ctx *f;
    int report;
    struct barrier_sum s;
    unsigned exit_params;   /* parameters that decide an earlier return */
} bwalk_ctx;

static enum CXChildVisitResult bwalk_visit(CXCursor c, CXCursor p, CXClientData d);
void lambda_barriers(fn_ctx *f, CXCursor lambda);

static void note_barrier(bwalk_ctx *b, int kind, int line, unsigned params, const char *what)
{
    if (b->report) { judge_barrier(b->f, kind, line, what); return; }
    if (kind > b->s.kind) b->s.kind = kind;
    if (!b->s.line) b->s.line = line;
    b->s.params |= ctrl_params(b->f) | b->exit_params | params;
}

/* What a function or lambda of the candidate waits at (memoised). `outer`
 * is the function a lambda is defined in: its variables are the lambda's
 * captures. */
static struct barrier_sum barrier_summary(scan_ctx *cx, fn_ctx *outer, CXCursor def)
{
    struct barrier_sum none;
    memset(&none, 0, sizeof none);
    for (int i = 0; i < cx->n_bsums; i++)
        if (clang_equalCursors(cx->bsums[i].def, def)) return cx->bsums[i].state == 2 ? cx->bsums[i] : none;
    if (cx->n_bsums >= 256) return none;
    if (cx->n_bsums == cx->cap_bsums) {
        int cap = cx->cap_bsums ? 2 * cx->cap_bsums : 16;
        struct barrier_sum *nb = realloc(cx->bsums, (size_t)cap * sizeof *nb);
        if (!nb) return none;
        cx->bsums = nb;
        cx->cap_bsums = cap;
    }
    int at = cx->n_bsums++;
    cx->bsums[at] = none;
    cx->bsums[at].def = def;
    cx->bsums[at].state = 1;
    CXCursor body = clang_getNullCursor();
    clang_visitChildren(def, find_body, &body);
    bwalk_ctx b;
    memset(&b, 0, sizeof b);
    if (!clang_Cursor_isNull(body)) {
        fn_ctx g;
        memset(&g, 0, sizeof g);
        g.cx = cx;
        g.fn = -1;
        g.fn_cursor = def;
        if (outer && outer->n_vars > 0 && (g.vars = malloc((size_t)outer->n_vars * sizeof *g.vars)) != NULL) {
            memcpy(g.vars, outer->vars, (size_t)outer->n_vars * sizeof *g.vars);
            g.n_vars = g.cap_vars = outer->n_vars;
        }
        for (int round = 0; round < 4; round++) {
            g.changed = 0;
            clang_visitChildren(body, flow_visit, &g);
            if (!g.changed) break;
        }
        b.f = &g;
        clang_visitChildren(body, bwalk_visit, &b);
        free(g.vars);
    }
    b.s.def = def;
    b.s.state = 2;
    cx->bsums[at] = b.s;
    return b.s;
}

/* A call of the candidate's own function or lambda: what it waits at, judged
 * at the call (the branch around the call, or an argument that decides
 * inside it whether the barrier is reached). b: the walk it is met in (NULL
 * in the rules' walk). */
static void helper_call(fn_ctx *f, CXCursor call, CXCursor ref, const char *nm, int line, bwalk_ctx *b)
{
    if (clang_Cursor_isNull(ref)) return;
    CXCursor def = clang_getCursorDefinition(ref);
    enum CXCursorKind dk = clang_getCursorKind(def);
    if (clang_Cursor_isNull(def) || !in_main(def) ||
        (dk != CXCursor_FunctionDecl && dk != CXCursor_CXXMethod && dk != CXCursor_FunctionTemplate))
        return;
    int lambda = dk == CXCursor_CXXMethod && !strcmp(nm, "operator()");
    struct barrier_sum s = barrier_summary(f->cx, lambda ? f : NULL, def);
    if (s.kind <= BAR_WARP) return;
    /* the arguments that decide, inside, whether the barrier is reached (an
     * operator() call's first argument is the lambda itself) */
    int na = clang_Cursor_getNumArguments(call), np = clang_Cursor_getNumArguments(def);
    int shift = np >= 0 && na == np + 1 ? 1 : 0, varying = 0;
    unsigned argp = 0;
    for (int i = shift; i < na; i++) {
        int pi = i - shift;
        if (!(s.params & (T_PARAM0 << (pi < 7 ? pi : 7)))) continue;
        unsigned fl = expr_flags(f, clang_Cursor_getArgument(call, (unsigned)i));
        argp |= fl & T_PARAMS;
        if (!varying && (fl & (s.kind == BAR_PARTIAL ? T_LANEVAR : s.kind == BAR_GRID ? (T_VARIES | T_BID) : T_VARIES)))
            varying = pi + 1;
    }
    char what[200];
    snprintf(what, sizeof what, "%.60s() (it waits at a barrier, line %d)", lambda ? "a lambda's operator" : nm, s.line);
    if (b && !b->report) { note_barrier(b, s.kind, line, argp, what); return; }
    if (b) f = b->f;
    if (!judge_barrier(f, s.kind, line, what) && varying)
        add_finding(f->cx->r, "KG-SYNC-DIVERGENT", -1, line,
                    "%s is passed a thread-dependent value (argument %d) that decides whether it "
                    "reaches its barrier: threads that skip it leave the barrier undefined (hang or "
                    "wrong results)", what, varying);
}

/* The same in the rules' walk (scan_device.c). */
void call_of_barrier_helper(fn_ctx *f, CXCursor call, CXCursor ref, const char *nm, int line)
{
    helper_call(f, call, ref, nm, line, NULL);
}

/* The controlling part of an if, switch, loop or ?: (its condition's taint,
 * lane-variance, the condition itself) and where its body starts, as the
 * rules' walk reads them. */
static void control_parts(fn_ctx *f, CXCursor c, enum CXCursorKind k, const kids_t *ks, unsigned *fl,
                          int *lanevar, int *body_from)
{
    CXCursor cond = clang_getNullCursor();
    *fl = 0;
    *body_from = 0;
    if (k == CXCursor_IfStmt || k == CXCursor_SwitchStmt || k == CXCursor_ConditionalOperator) {
        int nc = (ks->n >= 3 && k == CXCursor_IfStmt && !clang_isExpression(clang_getCursorKind(ks->v[0]))) ? 2 : 1;
        for (int i = 0; i < nc && i < ks->n; i++) *fl |= expr_flags(f, ks->v[i]);
        if (nc <= ks->n) cond = ks->v[nc - 1];
        *body_from = nc;
    } else if (k == CXCursor_DoStmt) {
        if (ks->n == 2) { *fl = expr_flags(f, ks->v[1]); cond = ks->v[1]; }
    } else {
        for (int i = 0; i + 1 < ks->n; i++) *fl |= expr_flags(f, ks->v[i]);
        *body_from = ks->n - 1;
        if (k == CXCursor_WhileStmt && ks->n == 2) cond = ks->v[0];
        else if (k == CXCursor_ForStmt) {
            CXCursor in, inc, bd;
            for_parts(f->cx->tu, c, &in, &cond, &inc, &bd);
        }
    }
    *lanevar = !clang_Cursor_isNull(cond) ? cond_lanevar(f, cond) : (*fl & T_LANEVAR) != 0;
    if (k == CXCursor_ForStmt && clang_Cursor_isNull(cond)) *lanevar = 0;
}

static enum CXChildVisitResult bwalk_visit(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    bwalk_ctx *b = d;
    fn_ctx *f = b->f;
    enum CXCursorKind k = clang_getCursorKind(c);
    switch (k) {
    case CXCursor_LambdaExpr:
        if (b->report) lambda_barriers(f, c);
        return CXChildVisit_Continue;
    case CXCursor_IfStmt: case CXCursor_SwitchStmt: case CXCursor_WhileStmt:
    case CXCursor_ForStmt: case CXCursor_DoStmt: case CXCursor_ConditionalOperator: {
        kids_t ks = kids_of(c);
        unsigned fl;
        int lanevar, body_from;
        control_parts(f, c, k, &ks, &fl, &lanevar, &body_from);
        int is_loop = k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt;
        for (int i = 0; i < ks.n; i++) {
            int is_body = k == CXCursor_DoStmt ? i == 0 : i >= body_from;
            if (is_body) push_ctrl(f, fl, lanevar, 0, is_loop);
            if (bwalk_visit(ks.v[i], c, b) == CXChildVisit_Recurse) clang_visitChildren(ks.v[i], bwalk_visit, b);
            if (is_body) pop_ctrl(f);
        }
        free(ks.v);
        return CXChildVisit_Continue;
    }
    case CXCursor_ReturnStmt:
        b->exit_params |= ctrl_params(f);
        return CXChildVisit_Recurse;
    case CXCursor_GCCAsmStmt: {
        char text[600], what[96];
        int unknown = 0;
        asm_template(f->cx, c, text, sizeof text, &unknown);
        int kind = asm_barrier_kind(text, what, sizeof what);
        if (!kind && unknown) { kind = BAR_BLOCK; snprintf(what, sizeof what, "inline asm the scan cannot read"); }
        if (kind) note_barrier(b, kind, cursor_line(c), 0, what);
        return CXChildVisit_Recurse;
    }
    case CXCursor_CallExpr: {
        char nm[128], what[160];
        written_name(f, c, nm, sizeof nm);
        CXCursor ref = clang_getCursorReferenced(c);
        int kind = call_barrier_kind(f, c, nm, ref, what, sizeof what);
        if (kind) note_barrier(b, kind, cursor_line(c), 0, what);
        else helper_call(f, c, ref, nm, cursor_line(c), b);
        return CXChildVisit_Recurse;
    }
    default:
        return CXChildVisit_Recurse;
    }
}

/* A lambda's body (the rules' walk does not enter it: it runs where it is
 * called): its barriers under its own thread-dependent conditions. */
void lambda_barriers(fn_ctx *f, CXCursor lambda)
{
    CXCursor body = clang_getNullCursor();
    clang_visitChildren(lambda, find_body, &body);
    if (clang_Cursor_isNull(body)) return;
    fn_ctx g;
    memset(&g, 0, sizeof g);
    g.cx = f->cx;
    g.fn = -1;
    g.fn_cursor = lambda;
    if (f->n_vars > 0 && (g.vars = malloc((size_t)f->n_vars * sizeof *g.vars)) != NULL) {
        memcpy(g.vars, f->vars, (size_t)f->n_vars * sizeof *g.vars);
        g.n_vars = g.cap_vars = f->n_vars;
    }
    for (int round = 0; round < 4; round++) {
        g.changed = 0;
        clang_visitChildren(body, flow_visit, &g);
        if (!g.changed) break;
    }
    bwalk_ctx b;
    memset(&b, 0, sizeof b);
    b.f = &g;
    b.report = 1;
    clang_visitChildren(body, bwalk_visit, &b);
    free(g.vars);
}

/* An asm statement in the rules' walk: a barrier resets the shared-memory
 * race tracking and is judged like __syncthreads(). */
void check_asm(fn_ctx *f, CXCursor c)
{
    char text[600], what[96];
    int unknown = 0;
    asm_template(f->cx, c, text, sizeof text, &unknown);
    int kind = asm_barrier_kind(text, what, sizeof what);
    if (kind >= BAR_BLOCK) f->n_pending = 0;   /* a barrier read in the text */
    if (!kind && unknown) { kind = BAR_BLOCK; snprintf(what, sizeof what, "inline asm the scan cannot read"); }
    if (f->replay || !kind) return;
    int line = cursor_line(c);
    if (!judge_barrier(f, kind, line, what) && kind >= BAR_BLOCK && f->exit_line && f->exit_line < line)
        add_finding(f->cx->r, "KG-SYNC-AFTER-EXIT", -1, line,
                    "%s after a thread-dependent return (line %d): the threads that left never "
                    "arrive at the barrier", what, f->exit_line);
}
