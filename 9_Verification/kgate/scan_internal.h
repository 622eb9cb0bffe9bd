/* scan_internal.h: what the parts of the static track share (not an
 * interface for the rest of the gate: that is kgate_static.h).
 *
 * The static track is split by part, each file read top to bottom:
 *   static_scan.c   the driver: libclang's parse of the candidate, the half
 *                   and bf16 header repair, the scan of one translation unit
 *                   (kg_static_scan_ex, the only entry point)
 *   scan_views.c    the candidate as nvcc sees it against what clang parsed
 *                   (KG-HIDDEN-CODE): both passes, both dialects, every
 *                   conditional block
 *   scan_util.c     findings, small libclang helpers, the token list, comments
 *   scan_taint.c    the taint analysis of a device function ("where does this
 *                   value come from"), the memory-access and loop rules
 *   scan_device.c   calls in device code (warp functions, atomics, host-only
 *                   calls) and the walk over a device function
 *   scan_barriers.c block barriers in every spelling, the helpers and
 *                   lambdas that wait at one (KG-SYNC-DIVERGENT)
 *   scan_host.c     host code: functions, launch sites, library use, the
 *                   checks across launch sites and kernels
 * Not thread-safe: one scan at a time.
 */
#ifndef KGATE_SCAN_INTERNAL_H
#define KGATE_SCAN_INTERNAL_H

#include <stddef.h>
#include <string.h>

#include <clang-c/Index.h>

#include "kgate_static.h"

/* ---- taint bits: where a value comes from ---------------------------------- */
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
    T_LANEID = 1 << 13,  /* threadIdx.x % 32: the lane */
    T_PARAM0 = 1 << 14   /* parameter i of the function: T_PARAM0 << i, i < 8 (the 8th
                            stands for the rest); what decides whether a helper reaches
                            its barrier is checked at each call (scan_device.c) */
};
#define T_PARAMS (0xffu * T_PARAM0)
#define T_THREAD (T_TX | T_TYZ | T_WU)
#define T_VARIES (T_TX | T_TYZ | T_VARY | T_WU)
#define T_LANEVAR (T_TX | T_VARY)

/* ---- shared types -------------------------------------------------------- */

typedef struct {
    CXCursor *v;
    int n, cap;
} kids_t;

/* CUDA attributes of a function or variable declaration. */
typedef struct { int global, device, host, shared, constant; } cuda_attrs;

/* The main file's tokens, once: spellings in one buffer. */
typedef struct {
    int n;
    int *off;            /* offset of each spelling in text */
    int *line;
    unsigned char *kind; /* CXTokenKind */
    char *text;
} token_list;

static inline const char *tok(const token_list *t, int i) { return i >= 0 && i < t->n ? t->text + t->off[i] : ""; }
static inline int tok_is(const token_list *t, int i, const char *s) { return strcmp(tok(t, i), s) == 0; }

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
    /* the candidate's functions and lambdas that wait at a barrier (scan_device.c) */
    struct barrier_sum *bsums;
    int n_bsums, cap_bsums;
    /* the candidate's macros, for reading inline asm (name, then body tokens) */
    struct { char name[64]; char *body; } *macros;
    int n_macros, macros_read;
} scan_ctx;

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

/* Token facts about the candidate: does it mention half or bfloat16 types,
 * include their headers, or name cuBLAS / CUB / Thrust? */
typedef struct { int half_ids, fp16_include, bf16_ids, bf16_include, library, global_kw; } token_facts;

/* A host function's walk: its index, inside extern "C" launch(), the depth of
 * conditions around the current statement. */
typedef struct { scan_ctx *cx; int fn; int in_launch; int cond; } host_ctx;

/* Block barriers, weakest first: a warp's (__syncwarp, a tile of up to 32
 * threads), a named barrier with a thread count (whole warps may skip it,
 * single lanes may not), the block's (__syncthreads in every spelling), the
 * grid's or a cluster's (whole blocks must not skip it either). */
enum { BAR_NONE = 0, BAR_WARP, BAR_PARTIAL, BAR_BLOCK, BAR_GRID };

/* ---- functions shared between the parts ------------------------------------ */

/* scan_util.c: findings, libclang helpers, the token list, comments */
void add_finding(kg_static_result *r, const char *rule, int sev, int line, const char *fmt, ...);
int str_eq(CXString s, const char *lit);
void spelling(CXCursor c, char *buf, size_t len);
void type_spelling(CXType t, char *buf, size_t len);
int cursor_line(CXCursor c);
int in_main(CXCursor c);
kids_t kids_of(CXCursor c);
int fn_params(CXCursor fn, CXCursor *out, int max);
CXCursor strip(CXCursor c);
CXCursor strip_implicit(CXCursor c);
void callee_name(CXCursor call, char *buf, size_t len);
kids_t call_args(CXCursor call);
int eval_number(CXCursor c, double *val);
int literal_number(CXCursor c, double *val);
int is_literal_value(CXCursor c, double v);
int type_is_integer(CXType t);
int type_is_floating(CXType t);
int type_is_pointer(CXType t);
cuda_attrs attrs_of(CXCursor c);
int in_namespace(CXCursor decl, const char *ns);
int name_in(const char *name, const char *const *list);
void tokens_of(CXTranslationUnit tu, CXSourceRange range, token_list *t);
void tokens_free(token_list *t);
void token_span(const token_list *t, CXCursor c, int *from, int *to);
void expr_text(CXTranslationUnit tu, CXCursor c, char *buf, size_t len);
void find_intent_comments(scan_ctx *cx);
int intent_near(const scan_ctx *cx, int line, int fn_line);

/* scan_taint.c: the taint analysis, memory accesses, loops */
var_t *find_var(fn_ctx *f, CXCursor decl);
void last_token(CXTranslationUnit tu, CXCursor c, char *buf, size_t len);
unsigned param_bit(fn_ctx *f, CXCursor parm);
unsigned expr_flags(fn_ctx *f, CXCursor c);
int cond_lanevar(fn_ctx *f, CXCursor cond);
int cond_single(fn_ctx *f, CXCursor cond);
int is_atomic_name(const char *nm);
CXCursor first_expr_child(CXCursor c);
enum CXChildVisitResult flow_visit(CXCursor c, CXCursor p, CXClientData d);
int param_index(fn_ctx *f, CXCursor decl);
int decl_space(fn_ctx *f, CXCursor ref, unsigned *base_fl);
access_t access_of(fn_ctx *f, CXCursor sub);
int ctrl_thread(const fn_ctx *f);
int ctrl_lanevar(const fn_ctx *f);
int ctrl_single(const fn_ctx *f);
int skipped(fn_ctx *f, CXCursor c);
void check_access(fn_ctx *f, CXCursor sub, int is_store, int is_atomic);
CXCursor store_subscript(CXCursor lhs);
void check_store_target(fn_ctx *f, CXCursor lhs);
void for_parts(CXTranslationUnit tu, CXCursor c, CXCursor *init, CXCursor *cond, CXCursor *inc, CXCursor *body);
void check_loop(fn_ctx *f, CXCursor c, enum CXCursorKind k);

/* scan_device.c: calls and barriers, the walk over a device function */
void check_const_cast(scan_ctx *cx, CXCursor c);
void analyze_function(scan_ctx *cx, int fn);

/* scan_barriers.c: block barriers in every spelling */
void push_ctrl(fn_ctx *f, unsigned fl, int lanevar, int single, int loop);
void pop_ctrl(fn_ctx *f);
enum CXChildVisitResult find_body(CXCursor c, CXCursor p, CXClientData d);
int judge_barrier(fn_ctx *f, int kind, int line, const char *what);
void written_name(fn_ctx *f, CXCursor call, char *nm, size_t len);
int call_barrier_kind(fn_ctx *f, CXCursor call, const char *nm, CXCursor ref, char *what, size_t len);
void call_of_barrier_helper(fn_ctx *f, CXCursor call, CXCursor ref, const char *nm, int line);
void lambda_barriers(fn_ctx *f, CXCursor lambda);
void check_asm(fn_ctx *f, CXCursor c);

/* scan_host.c: host code, launch sites, checks across the file */
enum CXChildVisitResult top_visit(CXCursor c, CXCursor p, CXClientData d);
enum CXChildVisitResult host_visit(CXCursor c, CXCursor p, CXClientData d);
int dfs_cycle(scan_ctx *cx, int v, int *state, int *line_out);
void cross_checks(scan_ctx *cx);
void token_checks(scan_ctx *cx, int device);
int torch_entry_defined(scan_ctx *cx);

/* static_scan.c: parsing and the scan of one translation unit */
int extra_includes(const char **args, int max, char store[][1100]);
CXTranslationUnit parse_candidate(const char *source, const char *inc1, const char *inc2, int device, char *err, size_t errlen);
void analyze_tu(CXTranslationUnit tu, const char *source, const kg_scan_opts *opts, kg_static_result *out, const token_facts *tf, int device);

/* scan_views.c: what nvcc compiles against what the scan parsed */
int hidden_code_check(CXTranslationUnit tu, const char *source, const kg_scan_opts *opts, kg_static_result *out, const token_facts *tf);

#endif /* KGATE_SCAN_INTERNAL_H */
