/* test_late_warps.c: the late-warps run's source (late_warps.c). The delay
 * goes right after the opening brace of every __global__ function's body
 * and nowhere else (not in declarations, comments, literals or directives),
 * every line keeps its number, and the changed corpus candidates still
 * compile with nvcc (the gate builds them for the run). The run itself
 * (the harness, the judge, a verdict) is exercised by test_cli.sh in a dry
 * run and by the corpus on a GPU. */
#define _GNU_SOURCE   /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kgate_static.h"
#include "late_warps.h"

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* src changed: n kernel bodies found, the delay right after each "{" marked
 * by "{@" in want (want without the marks is src), lines unchanged. */
static void changed_as(const char *src, const char *want, int n)
{
    int got_n = -1;
    char *out = kg_late_warps_source(src, &got_n);
    assert_non_null(out);
    size_t dl = strlen(kg_late_warps_delay), wl = strlen(want);
    char *expect = malloc(wl + (size_t)n * dl + 1);
    size_t o = 0;
    for (size_t i = 0; i < wl; i++) {
        if (want[i] == '@') {
            memcpy(expect + o, kg_late_warps_delay, dl);
            o += dl;
        } else {
            expect[o++] = want[i];
        }
    }
    expect[o] = 0;
    if (got_n != n || strcmp(out, expect)) fail_msg("%d kernel(s) changed, want %d:\n%s\n--- want:\n%s", got_n, n, out, expect);
    assert_int_equal(lines(out), lines(src));
    free(expect);
    free(out);
}

static void test_kernel_bodies(void **s)
{
    (void)s;
    changed_as("__global__ void k(float* y) {\n    y[0] = 1;\n}\n",
               "__global__ void k(float* y) {@\n    y[0] = 1;\n}\n", 1);
    /* on one line; the body's own braces left alone */
    changed_as("__global__ void k(){ if (1) { return; } }", "__global__ void k(){@ if (1) { return; } }", 1);
    /* the brace on its own line, launch bounds, a template, extern "C", a namespace */
    changed_as("template <int N>\n__global__ void __launch_bounds__(256, 2)\nk(int n)\n{\n}\n",
               "template <int N>\n__global__ void __launch_bounds__(256, 2)\nk(int n)\n{@\n}\n", 1);
    changed_as("extern \"C\" __global__ void k(int* p) { p[0] = 0; }\nnamespace a { __global__ void j() {} }\n",
               "extern \"C\" __global__ void k(int* p) {@ p[0] = 0; }\nnamespace a { __global__ void j() {@} }\n", 2);
    /* a declaration first: only the definition's body */
    changed_as("__global__ void k(int);\nvoid h() { }\n__global__ void k(int n) { }\n",
               "__global__ void k(int);\nvoid h() { }\n__global__ void k(int n) {@ }\n", 1);
    /* brackets and parentheses in the parameters: an array, an attribute */
    changed_as("__global__ void k(float (*t)[4], [[maybe_unused]] int n) { }\n",
               "__global__ void k(float (*t)[4], [[maybe_unused]] int n) {@ }\n", 1);
    /* host and device functions are not kernels */
    changed_as("__device__ int f() { return 1; }\n__host__ __device__ void g() { }\nint main() { }\n",
               "__device__ int f() { return 1; }\n__host__ __device__ void g() { }\nint main() { }\n", 0);
}

static void test_not_code(void **s)
{
    (void)s;
    /* __global__ in a comment, a string, a character literal, a raw string
     * and a directive (a macro that defines kernels: not changed) */
    changed_as("// __global__ void a() {}\n/* __global__ void b() {} */\nconst char* t = \"__global__ void c() {\";\n"
               "const char* r = R\"x(__global__ void d() { )\" )x\";\nchar q = '{';\n"
               "#define KERNEL(n) __global__ void n() { }\nKERNEL(e)\n",
               "// __global__ void a() {}\n/* __global__ void b() {} */\nconst char* t = \"__global__ void c() {\";\n"
               "const char* r = R\"x(__global__ void d() { )\" )x\";\nchar q = '{';\n"
               "#define KERNEL(n) __global__ void n() { }\nKERNEL(e)\n", 0);
    /* a directive spliced over two lines, then a real kernel */
    changed_as("#define X __global__ \\\n   void k() {}\n__global__ void z() { }\n",
               "#define X __global__ \\\n   void k() {}\n__global__ void z() {@ }\n", 1);
    /* a digit separator is no character literal; a comment before '#' keeps it a directive */
    changed_as("const int n = 1'000;\n/* c */ #define Y {\n__global__ void k() { }\n",
               "const int n = 1'000;\n/* c */ #define Y {\n__global__ void k() {@ }\n", 1);
    /* an identifier that only contains the word */
    changed_as("int my__global__x;\nvoid f() { }\n", "int my__global__x;\nvoid f() { }\n", 0);
}

/* The corpus candidates the run is for, and others of several kinds,
 * changed and compiled by nvcc for sm_90, device code included: the change
 * must never be what fails. (The gate's own compile of the changed source,
 * behind its headers and #line, is test_cli.sh's dry run.) */
static void test_corpus_compiles(void **s)
{
    (void)s;
    static const char *const files[] = {
        "hist_zero_nosync.cu", "sum_race.cu", "sum_warp_volatile.cu", "hist_smem_sms.cu", "sum_cg_block.cu",
        "relu_basic.cu", "sum_two_pass.cu", "relu_arch_guard.cu",
    };
    const char *nvcc = getenv("KGATE_NVCC");
    if (!nvcc || !*nvcc) nvcc = "nvcc";
    char dir[1024], tmp[] = "/tmp/kgate_late_XXXXXX";
    snprintf(dir, sizeof dir, "%s", __FILE__);
    char *p = strstr(dir, "tests/test_late_warps.c");
    assert_non_null(p);
    strcpy(p, "corpus");
    assert_non_null(mkdtemp(tmp));
    int bad = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1400], err[256], out[1400], cmd[4000];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        char *src = kg_load_candidate(path, 1 << 20, err, sizeof err);
        if (!src) fail_msg("%s: %s", files[i], err);
        int n = 0;
        char *late = kg_late_warps_source(src, &n);
        assert_non_null(late);
        snprintf(out, sizeof out, "%s/%zu.cu", tmp, i);
        FILE *f = fopen(out, "w");
        assert_non_null(f);
        fputs(late, f);
        fclose(f);
        snprintf(cmd, sizeof cmd, "%s -std=c++17 -arch=sm_90 -c %s -o %s/%zu.o > %s/%zu.log 2>&1", nvcc, out, tmp, i,
                 tmp, i);
        if (n < 1 || system(cmd) != 0) {
            print_error("%s: %d kernel(s) changed; nvcc: see %s/%zu.log\n", files[i], n, tmp, i);
            bad++;
        }
        free(late);
        free(src);
    }
    if (!bad) {
        char rm[200];
        snprintf(rm, sizeof rm, "rm -rf %s", tmp);
        if (system(rm) != 0) print_error("cannot remove %s\n", tmp);
    }
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernel_bodies),
        cmocka_unit_test(test_not_code),
        cmocka_unit_test(test_corpus_compiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
