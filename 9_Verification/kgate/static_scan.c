/* static_scan.c: the static track of the kernel gate, its driver.
 *
 * The candidate's source is parsed into a real AST by libclang in CUDA
 * host-only mode (the device function bodies are still parsed and kept), and
 * the rules walk it with clang_visitChildren (scan_host.c, scan_device.c,
 * scan_taint.c). rules.c is the table of rules (id, severity, family, fix
 * hint); README-static.md documents each one with an example that fires and
 * a near-miss that must not, and tests/test_rule_docs.c scans those examples.
 * scan_views.c then checks that what was parsed is what nvcc compiles.
 *
 * Environment: KGATE_CUDA_PATH (default $CUDA_HOME, else /usr/local/cuda),
 * KGATE_CLANG_RESOURCE_DIR (clang's resource dir when libclang is an unpacked
 * copy away from its install prefix), KGATE_NVCC (the hidden-code check's
 * preprocessor), KGATE_EXTRA_INCLUDES (colon-separated folders searched as
 * system headers: PyTorch's, for its candidates). Not thread-safe: one scan
 * at a time.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scan_internal.h"

/* ---- parsing --------------------------------------------------------------- */

static CXIndex g_index;

static void dispose_index(void)
{
    if (g_index) clang_disposeIndex(g_index);
    g_index = NULL;
}

#define STUB_DIR "/kgate-virtual-stubs"

/* nvcc's version macros, which clang does not define: a condition on them
 * (#if __CUDACC_VER_MAJOR__ >= 12) must read the same in both views. From
 * the toolkit's CUDART_VERSION (13000: 13.0). 0 when it cannot be read. */
static int toolkit_version(const char *cuda)
{
    static int version = -1;
    if (version >= 0) return version;
    version = 0;
    char path[1200];
    snprintf(path, sizeof path, "%s/include/cuda_runtime_api.h", cuda);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        int v = 0;
        if (sscanf(line, " #define CUDART_VERSION %d", &v) == 1 && v > 0) { version = v; break; }
    }
    fclose(f);
    return version;
}

/* Folders of KGATE_EXTRA_INCLUDES (PyTorch's headers, for its candidates). */
int extra_includes(const char **args, int max, char store[][1100])
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

CXTranslationUnit parse_candidate(const char *source, const char *inc1, const char *inc2, int device, char *err,
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
    /* the device pass for sm_<device / 10>; libclang 19 knows GPUs up to
     * sm_90: a newer one is parsed as sm_90 with its own __CUDA_ARCH__ */
    static char arch_def[48];
    args[na++] = "--cuda-gpu-arch=sm_90";
    if (device && device != 900) {
        snprintf(arch_def, sizeof arch_def, "-D__CUDA_ARCH__=%d", device);
        args[na++] = "-U__CUDA_ARCH__";
        args[na++] = arch_def;
    }
    args[na++] = "-std=c++17";
    static char ver[4][64];
    int v = toolkit_version(cuda);
    if (v > 0) {
        snprintf(ver[0], sizeof ver[0], "-D__CUDACC_VER_MAJOR__=%d", v / 1000);
        snprintf(ver[1], sizeof ver[1], "-D__CUDACC_VER_MINOR__=%d", v % 1000 / 10);
        snprintf(ver[2], sizeof ver[2], "-D__CUDA_API_VER_MAJOR__=%d", v / 1000);
        snprintf(ver[3], sizeof ver[3], "-D__CUDA_API_VER_MINOR__=%d", v % 1000 / 10);
        for (int i = 0; i < 4; i++) args[na++] = ver[i];
    }
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
void analyze_tu(CXTranslationUnit tu, const char *source, const kg_scan_opts *opts, kg_static_result *out,
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
    for (int i = 0; i < cx.n_macros; i++) free(cx.macros[i].body);
    free(cx.macros);
    free(cx.bsums);
    free(cx.fns);
    free(cx.launches);
    free(cx.edges);
    free(cx.intents);
    tokens_free(&cx.toks);
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
    CXTranslationUnit tu = parse_candidate(source, NULL, NULL, 0, err, sizeof err);
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
        CXTranslationUnit tu2 = parse_candidate(source, want_half ? "cuda_fp16.h" : NULL, want_bf16 ? "cuda_bf16.h" : NULL,
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

