/* test_static_views.c: the static track reads what nvcc compiles
 * (scan_views.c), against nvcc itself (the CUDA toolkit's preprocessor
 * runs here; no GPU is needed).
 *
 *   - every conditional block is compared, both passes (host, device per
 *     architecture), both dialects the gate compiles (C++14, C++17): code
 *     under #ifndef __NVCC__, in the #else of #ifdef __clang__, a block of
 *     only #defines, is refused (KG-HIDDEN-CODE); conditionals both read
 *     alike are not;
 *   - a trigraph that changes the code, #line and gcc's line markers, and
 *     the macros only one compiler defines, used in code, are refused;
 *   - device-side code (#ifdef __CUDA_ARCH__, NV_IF_TARGET, a second
 *     architecture) is parsed for the device and judged by the rules;
 *   - the scan reports running out of time (timed_out), not a parse error;
 *   - the corpus's static-track evasions are stopped by the rule their label
 *     names, and its honest candidates with conditionals and cooperative
 *     groups by none.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kgate_static.h"
#include "rules.h"

static kg_static_result scan_opts(const char *src, const char *arch)
{
    kg_scan_opts o;
    memset(&o, 0, sizeof o);
    o.arch = arch;
    kg_static_result r;
    assert_int_equal(kg_static_scan_ex(src, "snippet", &o, &r), 0);
    return r;
}

static int count(const kg_static_result *r, const char *rule)
{
    int n = 0;
    for (int i = 0; i < r->n; i++) n += !strcmp(r->items[i].rule, rule);
    return n;
}

static void dump(const kg_static_result *r)
{
    for (int i = 0; i < r->n; i++)
        fprintf(stderr, "    P%d %s line %d: %s\n", r->items[i].sev, r->items[i].rule, r->items[i].line,
                r->items[i].message);
}

/* `rule` present (P0) or absent in the scan of src. */
static void expect_arch(const char *src, const char *arch, const char *rule, int present)
{
    kg_static_result r = scan_opts(src, arch);
    int n = count(&r, rule);
    if ((n > 0) != present) {
        fprintf(stderr, "    expected %s %s in:\n%s\n    findings:\n", rule, present ? "present" : "absent", src);
        dump(&r);
    }
    assert_int_equal(n > 0, present);
    kg_static_free(&r);
}

static void expect(const char *src, const char *rule, int present) { expect_arch(src, NULL, rule, present); }

/* A kernel around a body: the barrier lines under test go in the middle. */
static char *kernel(const char *before, const char *body)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "#include <cuda_runtime.h>\n%s\n"
             "__global__ void k(float* y, int n) {\n"
             "  __shared__ float s[256];\n  int t = threadIdx.x;\n  s[t] = 1.0f;\n%s\n"
             "  if (t < n) y[t] = s[255 - t];\n}\n",
             before, body);
    return buf;
}

/* Conditional blocks that read differently in nvcc and in the scan. */
static void test_hidden_blocks(void **s)
{
    (void)s;
    expect(kernel("", "#ifndef __NVCC__\n  __syncthreads();\n#else\n  if (t < 128) __syncthreads();\n#endif"),
           "KG-HIDDEN-CODE", 1);
    expect(kernel("#ifdef __clang__\n#define SYNC(t) __syncthreads()\n#else\n#define SYNC(t) if ((t) < 9) __syncthreads()\n#endif",
                  "  SYNC(t);"),
           "KG-HIDDEN-CODE", 1);
    expect(kernel("", "#if defined(__clang__)\n  __syncthreads();\n#elif 1\n  if (t < 128) __syncthreads();\n#endif"),
           "KG-HIDDEN-CODE", 1);
    /* a block the scan reads and nvcc never compiles (a barrier the scan would credit) */
    expect(kernel("", "#ifdef __clang__\n  __syncthreads();\n#endif"), "KG-HIDDEN-CODE", 1);
    /* in one dialect only: C++14 (the gate's first compile) */
    expect(kernel("", "#if __cplusplus < 201703L\n  if (t < 128) __syncthreads();\n#else\n  __syncthreads();\n#endif"),
           "KG-HIDDEN-CODE", 1);
    /* nvcc's compile flags: -O3 defines __OPTIMIZE__, the scan's clang does not */
    expect(kernel("", "#ifdef __OPTIMIZE__\n  if (t < 128) __syncthreads();\n#endif"), "KG-HIDDEN-CODE", 1);
    /* conditionals both read alike */
    expect(kernel("#ifndef TILE\n#define TILE 32\n#endif\n#if TILE > 16 && defined(__CUDACC__)\n#define WIDE 1\n#endif",
                  "  __syncthreads();"),
           "KG-HIDDEN-CODE", 0);
    expect(kernel("#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12\n#define NEW_TOOLKIT 1\n#endif",
                  "  __syncthreads();"),
           "KG-HIDDEN-CODE", 0);
    expect(kernel("", "#if 0\n  if (t < 128) __syncthreads();\n#endif"), "KG-HIDDEN-CODE", 0);
    /* an empty block may differ */
    expect(kernel("#ifdef __clang__\n/* nothing for clang */\n#endif", "  __syncthreads();"), "KG-HIDDEN-CODE", 0);
}

/* What the text alone says: trigraphs, #line, one-sided macros, __LINE__. */
static void test_text(void **s)
{
    (void)s;
    expect(kernel("", "  if (t < 128) // ?\?/\n  {}\n  __syncthreads();"), "KG-HIDDEN-CODE", 1);
    expect(kernel("?\?=define Q 1", "  __syncthreads();"), "KG-HIDDEN-CODE", 1);
    expect(kernel("", "  __syncthreads(); // really?\?!"), "KG-HIDDEN-CODE", 0);   /* a comment's trigraph */
    expect(kernel("#line 1 \"other.h\"", "  __syncthreads();"), "KG-HIDDEN-CODE", 1);
    expect(kernel("#line 40", "  __syncthreads();"), "KG-HIDDEN-CODE", 1);
    expect(kernel("# 7 \"x.h\" 3", "  __syncthreads();"), "KG-HIDDEN-CODE", 1);
    expect(kernel("", "  if (t < 128 * __NVCC__) __syncthreads();"), "KG-HIDDEN-CODE", 1);
    expect(kernel("#define CL __clang_major__", "  __syncthreads();"), "KG-HIDDEN-CODE", 1);
    expect(kernel("", "  int b = __CUDACC_VER_BUILD__;\n  __syncthreads();"), "KG-HIDDEN-CODE", 1);
    expect(kernel("#define HERE __LINE__\n#if HERE > 3\n#define LATE 1\n#endif", "  __syncthreads();"),
           "KG-HIDDEN-CODE", 1);
    /* __LINE__ in code is fine (an error message) */
    expect(kernel("", "  if (n < 0) printf(\"line %d\\n\", __LINE__);\n  __syncthreads();"), "KG-HIDDEN-CODE", 0);
}

/* Device-side code is read by a device parse and judged. */
static void test_device_views(void **s)
{
    (void)s;
    const char *arch_bad = "__global__ void k(float* y, int n) {\n  __shared__ float s[64];\n  s[threadIdx.x] = 1.f;\n"
                           "#ifdef __CUDA_ARCH__\n  if (threadIdx.x < 16) __syncthreads();\n#endif\n"
                           "  y[threadIdx.x] = s[0];\n}\n";
    expect(arch_bad, "KG-SYNC-DIVERGENT", 1);
    expect(arch_bad, "KG-HIDDEN-CODE", 0);
    /* a target macro, no conditional block: the device pass still differs */
    const char *target = "#include <nv/target>\n__global__ void k(float* y) {\n  __shared__ float s[64];\n"
                         "  s[threadIdx.x] = 1.f;\n"
                         "  NV_IF_TARGET(NV_IS_DEVICE, (if (threadIdx.x < 16) __syncthreads();))\n"
                         "  y[threadIdx.x] = s[0];\n}\n";
    expect(target, "KG-SYNC-DIVERGENT", 1);
    /* a second architecture: code only its device pass compiles */
    const char *sm100 = "__global__ void k(float* y, int n) {\n  __shared__ float s[64];\n  s[threadIdx.x] = 1.f;\n"
                        "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000\n  if (threadIdx.x < 16) __syncthreads();\n"
                        "#endif\n  y[threadIdx.x] = s[0];\n}\n";
    expect_arch(sm100, "90", "KG-SYNC-DIVERGENT", 0);
    expect_arch(sm100, "90,100", "KG-SYNC-DIVERGENT", 1);
    /* honest device-side code: no P0 */
    const char *fine = "__device__ float f(float x) {\n#if __CUDA_ARCH__ >= 800\n  return fmaxf(x, 0.f);\n#else\n"
                       "  return x > 0.f ? x : 0.f;\n#endif\n}\n"
                       "__global__ void k(const float* x, float* y, int n) {\n"
                       "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = f(x[i]);\n}\n";
    kg_static_result r = scan_opts(fine, "90,100");
    if (kg_static_worst(&r) == KG_P0) dump(&r);
    assert_true(kg_static_worst(&r) > KG_P0);
    kg_static_free(&r);
}

/* Running out of time is the scan's failure, and says so. */
static void test_timeout(void **s)
{
    (void)s;
    setenv("KGATE_NVCC_BUDGET", "0.000001", 1);
    kg_static_result r = scan_opts(kernel("#ifndef TILE\n#define TILE 32\n#endif", "  __syncthreads();"), NULL);
    unsetenv("KGATE_NVCC_BUDGET");
    assert_int_equal(r.timed_out, 1);
    assert_non_null(strstr(r.parse_error, "timed out"));
    kg_static_msg m;
    kg_static_msg_from(&r, 0, KG_POLICY_DEFAULT, &m);
    assert_int_equal(m.timed_out, 1);
    assert_int_equal(m.rc, -1);
    assert_true(kg_static_msg_valid(&m));
    m.rc = 0;   /* a record that says both "timed out" and "judged" is malformed */
    assert_false(kg_static_msg_valid(&m));
    kg_static_free(&r);
    /* with time, the same candidate is judged */
    r = scan_opts(kernel("#ifndef TILE\n#define TILE 32\n#endif", "  __syncthreads();"), NULL);
    assert_int_equal(r.timed_out, 0);
    kg_static_free(&r);
}

/* The corpus: each static-track evasion stopped by its rule, the honest
 * candidates with conditionals and cooperative groups by none. */
static void test_corpus(void **s)
{
    (void)s;
    static const struct { const char *file, *rule; } cases[] = {
        {"hostile_hidden_ifndef_nvcc.cu", "KG-HIDDEN-CODE"},
        {"hostile_hidden_clang_else_define.cu", "KG-HIDDEN-CODE"},
        {"hostile_clang_evasion.cu", "KG-HIDDEN-CODE"},
        {"hostile_trigraph_splice.cu", "KG-HIDDEN-CODE"},
        {"hostile_trigraph_define.cu", "KG-HIDDEN-CODE"},
        {"hostile_line_rename.cu", "KG-HIDDEN-CODE"},
        {"hostile_line_marker.cu", "KG-HIDDEN-CODE"},
        {"hostile_cg_block_sync.cu", "KG-SYNC-DIVERGENT"},
        {"hostile_cg_sync_alias.cu", "KG-SYNC-DIVERGENT"},
        {"hostile_asm_bar_sync.cu", "KG-SYNC-DIVERGENT"},
        {"hostile_barrier_helper.cu", "KG-SYNC-DIVERGENT"},
        {"hostile_rawstring_include.cu", "KG-INCLUDE"},
        {"hostile_digitsep_include.cu", "KG-INCLUDE"},
        {"sum_cg_block.cu", NULL},
        {"relu_arch_guard.cu", NULL},
        {"relu_printf_guarded.cu", NULL},
    };
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", __FILE__);
    char *p = strstr(dir, "tests/test_static_views.c");
    assert_non_null(p);
    strcpy(p, "corpus");
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1400], err[256];
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
        char *src = kg_load_candidate(path, 1 << 20, err, sizeof err);
        if (!src) fail_msg("%s: %s", cases[i].file, err);
        kg_static_result r;
        assert_int_equal(kg_static_scan(src, cases[i].file, &r), 0);
        int ok;
        if (cases[i].rule) {
            ok = 0;
            for (int k = 0; k < r.n; k++) ok |= !strcmp(r.items[k].rule, cases[i].rule) && r.items[k].sev == KG_P0;
        } else {
            ok = kg_static_worst(&r) >= KG_P2;   /* not stopped, not even flagged */
            if (!strcmp(cases[i].file, "relu_printf_guarded.cu")) ok = kg_static_worst(&r) > KG_P0;
        }
        if (!ok) {
            fprintf(stderr, "%s: expected %s%s; findings:\n", cases[i].file, cases[i].rule ? "P0 " : "no P0/P1",
                    cases[i].rule ? cases[i].rule : "");
            dump(&r);
            bad++;
        }
        kg_static_free(&r);
        free(src);
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hidden_blocks),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_device_views),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
