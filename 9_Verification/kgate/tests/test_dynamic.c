/* test_dynamic.c: the CPU-testable parts of the dynamic track: the ptxas
 * parser, the compiler-log reader, the verdict table, the task table, the CPU
 * references, the tolerance profiles, the device probe's child and the nvcc
 * command line (C++14 first, C++17 when needed). The sandbox, the judge and
 * the harness protocol have tests of their own (test_sandbox.c,
 * test_judge.c). */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <cmocka.h>

#include "dynamic.h"
#include "kgate_static.h"
#include "tasks.h"

static const char *PTXAS_LOG =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z4tilePKfPfii' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z4tilePKfPfii\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 4224 bytes smem, 380 bytes cmem[0]\n"
    "ptxas info    : Compile time = 3.1 ms\n"
    "ptxas info    : Compiling entry function '_Z3bigPf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z3bigPf\n"
    "    48 bytes stack frame, 40 bytes spill stores, 24 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 0 barriers, 368 bytes cmem[0]\n";

static void test_ptxas_two_kernels(void **s)
{
    (void)s;
    kg_ptxas p;
    assert_int_equal(kg_parse_ptxas(PTXAS_LOG, &p), 2);
    assert_int_equal(p.n_funcs, 2);
    assert_int_equal(p.max_regs, 255);
    assert_int_equal(p.smem_bytes, 4224);
    assert_int_equal(p.stack_bytes, 48);
    assert_int_equal(p.spill_stores, 40);
    assert_int_equal(p.spill_loads, 24);
    assert_int_equal(p.lmem_bytes, 0);
}

static void test_ptxas_old_format_and_empty(void **s)
{
    (void)s;
    kg_ptxas p;
    assert_int_equal(kg_parse_ptxas("ptxas info    : Used 12 registers, 16 bytes lmem, 0 bytes smem", &p), 1);
    assert_int_equal(p.max_regs, 12);
    assert_int_equal(p.lmem_bytes, 16);
    assert_int_equal(kg_parse_ptxas("", &p), 0);
    assert_int_equal(kg_parse_ptxas(NULL, &p), 0);
    assert_int_equal(kg_parse_ptxas("nvcc fatal: something\n", &p), 0);
}

static void test_first_error(void **s)
{
    (void)s;
    char b[128];
    kg_first_error("ptxas info    : 0 bytes gmem\nx.cu(5): error: identifier \"X\" is undefined\n"
                   "1 error detected\n", b, sizeof b);
    assert_string_equal(b, "x.cu(5): error: identifier \"X\" is undefined");
    kg_first_error("x/torch/cuda/__init__.py:180: UserWarning: Unexpected error from cudaGetDeviceCount()\n"
                   "c.cu(3): error: bad\n", b, sizeof b);
    assert_string_equal(b, "c.cu(3): error: bad");
    kg_first_error("\nsomething odd\n", b, sizeof b);
    assert_string_equal(b, "something odd");
    kg_first_error("", b, sizeof b);
    assert_string_equal(b, "");
    kg_first_error("error: a very long line that does not fit", b, 8);
    assert_string_equal(b, "error: ");
}

static void test_verdicts(void **s)
{
    (void)s;
    for (int v = 0; v < KG_V_COUNT; v++) assert_int_equal(kg_verdict_parse(kg_verdict_name(v)), v);
    assert_int_equal(kg_verdict_parse("L5"), -1);
    assert_int_equal(kg_verdict_parse(NULL), -1);
    assert_true(kg_verdict_is_stop(KG_V_P0));
    assert_true(kg_verdict_is_stop(KG_V_L4));
    assert_false(kg_verdict_is_stop(KG_V_PASS));
    assert_false(kg_verdict_is_stop(KG_V_EXTERNAL));
    assert_false(kg_verdict_is_stop(KG_V_STATIC_OK));
}

/* The task shapes: n = 1, 37, 1000, 4097 and non-multiples of 32 elsewhere. */
static void test_task_table(void **s)
{
    (void)s;
    const char *names[] = {"vector_add", "relu", "tanh", "sum_reduce", "softmax_rows",
                           "transpose", "sgemm", "histogram256", "blur3x3"};
    assert_int_equal(kg_task_count(), 9);
    for (int i = 0; i < 9; i++) {
        const kg_task *t = kg_task_find(names[i]);
        assert_non_null(t);
        assert_true(t->n_small >= 4 && t->n_small <= KG_MAX_SMALL);
        int odd = 0;
        for (int k = 0; k < t->n_small; k++)
            for (int d = 0; d < 3; d++) odd |= t->small[k].d[d] % 32 != 0;
        assert_true(odd);
        assert_true(kg_task_sizes(t, t->mid).out > 0);
    }
    const kg_task *v = kg_task_find("vector_add");
    assert_int_equal(v->small[0].d[0], 1);
    assert_int_equal(v->small[1].d[0], 37);
    assert_int_equal(v->small[2].d[0], 1000);
    assert_int_equal(v->small[3].d[0], 4097);
    assert_null(kg_task_find("conv2d"));
    assert_null(kg_task_find(NULL));
}

static void test_sizes(void **s)
{
    (void)s;
    kg_shape g = {{37, 53, 29}};
    kg_sizes z = kg_task_sizes(kg_task_find("sgemm"), g);
    assert_int_equal(z.in0, 37 * 29);
    assert_int_equal(z.in1, 29 * 53);
    assert_int_equal(z.out, 37 * 53);
    kg_shape h = {{4097, 0, 0}};
    z = kg_task_sizes(kg_task_find("histogram256"), h);
    assert_int_equal(z.in_elem, 1);
    assert_int_equal(z.out, 256);
    z = kg_task_sizes(kg_task_find("sum_reduce"), h);
    assert_int_equal(z.out, 1);
    kg_shape b = {{37, 23, 40}};
    const kg_task *bt = kg_task_find("blur3x3");
    z = kg_task_sizes(bt, b);
    assert_int_equal(z.out, 23 * 40);
    assert_true(kg_out_checked(bt, b, 36));
    assert_false(kg_out_checked(bt, b, 37));     /* padding */
    assert_true(kg_out_checked(bt, b, 40));      /* row 1, x = 0 */
}

/* Tolerance profiles: general float rel 1e-4 / abs 1e-5; exp rel 1e-2;
 * reductions rel 1e-3 plus a magnitude term; integers exact; NaN never. */
static void test_profiles(void **s)
{
    (void)s;
    const kg_profile *f = kg_profile_of(KG_PROF_FLOAT), *e = kg_profile_of(KG_PROF_EXP);
    const kg_profile *r = kg_profile_of(KG_PROF_REDUCE), *i = kg_profile_of(KG_PROF_INT);
    assert_true(kg_close(f, 1.00009, 1.0, 0));
    assert_false(kg_close(f, 1.0002, 1.0, 0));
    assert_true(kg_close(f, 5e-6, 0.0, 0));       /* abs 1e-5 */
    assert_false(kg_close(f, 2e-5, 0.0, 0));
    assert_true(kg_close(e, 1.009, 1.0, 0));
    assert_false(kg_close(e, 1.02, 1.0, 0));
    assert_true(kg_close(r, 100.09, 100.0, 0));
    assert_false(kg_close(r, 100.2, 100.0, 0));
    assert_true(kg_close(r, 0.01, 0.0, 20000.0)); /* cancelled sum of large terms */
    assert_false(kg_close(r, 0.01, 0.0, 100.0));
    assert_true(kg_close(i, 7.0, 7.0, 0));
    assert_false(kg_close(i, 7.0, 8.0, 0));
    const kg_profile *all[] = {f, e, r, i};
    for (int k = 0; k < 4; k++) {
        assert_false(kg_close(all[k], NAN, 1.0, 0));
        assert_false(kg_close(all[k], NAN, NAN, 0));
        assert_false(kg_close(all[k], 1.0, NAN, 0));
        assert_true(kg_close(all[k], INFINITY, INFINITY, 0));
        assert_false(kg_close(all[k], INFINITY, -INFINITY, 0));
        assert_false(kg_close(all[k], 1e30, INFINITY, 0));
    }
}

static void test_cpu_references(void **s)
{
    (void)s;
    /* softmax of a row with large values: stable, sums to 1 */
    float x[6] = {50, 49, -50, 0, 1, 2};
    double ref[6];
    kg_shape sh = {{2, 3, 0}};
    kg_cpu_reference(kg_task_find("softmax_rows"), sh, x, NULL, ref, NULL);
    assert_true(fabs(ref[0] + ref[1] + ref[2] - 1.0) < 1e-12);
    assert_true(fabs(ref[0] / ref[1] - exp(1.0)) < 1e-9);
    /* transpose 2x3 -> 3x2 */
    float t[6] = {1, 2, 3, 4, 5, 6};
    kg_cpu_reference(kg_task_find("transpose"), sh, t, NULL, ref, NULL);
    double want[6] = {1, 4, 2, 5, 3, 6};
    for (int k = 0; k < 6; k++) assert_true(ref[k] == want[k]);
    /* blur: corner mean of 4, edge of 6, padding untouched */
    float img[3 * 4] = {1, 2, 3, 99, 4, 5, 6, 99, 7, 8, 9, 99};
    double out[12], mag[12];
    kg_shape b = {{3, 3, 4}};
    kg_cpu_reference(kg_task_find("blur3x3"), b, img, NULL, out, mag);
    assert_true(fabs(out[0] - 3.0) < 1e-12);          /* (1+2+4+5)/4 */
    assert_true(fabs(out[1] - 3.5) < 1e-12);          /* (1+2+3+4+5+6)/6 */
    assert_true(fabs(out[5] - 5.0) < 1e-12);          /* centre: mean of 1..9 */
    /* sgemm magnitude and sum magnitude */
    float A[2] = {1, -2}, B[2] = {3, 4};
    kg_shape g = {{1, 1, 2}};
    kg_cpu_reference(kg_task_find("sgemm"), g, A, B, out, mag);
    assert_true(out[0] == -5.0 && mag[0] == 11.0);
    float v[3] = {1e8f, 1.0f, -1e8f};
    kg_shape n3 = {{3, 0, 0}};
    kg_cpu_reference(kg_task_find("sum_reduce"), n3, v, NULL, out, mag);
    assert_true(out[0] == 1.0);                       /* compensated */
    assert_true(mag[0] == 2e8 + 1.0);
    unsigned char bytes[5] = {0, 255, 255, 7, 0};
    kg_shape n5 = {{5, 0, 0}};
    double h[256];
    kg_cpu_reference(kg_task_find("histogram256"), n5, bytes, NULL, h, NULL);
    assert_true(h[0] == 2 && h[255] == 2 && h[7] == 1 && h[1] == 0);
}

static void test_compare(void **s)
{
    (void)s;
    const kg_task *t = kg_task_find("relu");
    kg_shape sh = {{4, 0, 0}};
    float got[4] = {0, 1, 2, 3};
    double ref[4] = {0, 1, 2, 3};
    char msg[128];
    assert_int_equal(kg_compare_f32(t, sh, got, ref, NULL, NULL, 0, msg, sizeof msg), 0);
    got[2] = NAN;
    assert_int_equal(kg_compare_f32(t, sh, got, ref, NULL, NULL, 0, msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "element 2"));
    unsigned a[3] = {1, 2, 3}, b[3] = {1, 2, 4};
    assert_int_equal(kg_compare_u32(a, b, 3, msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "bin 2"));
}

static void probe_none(int device, int fd)
{
    (void)device;
    kg_probe_msg p;
    memset(&p, 0, sizeof p);
    snprintf(p.reason, sizeof p.reason, "no CUDA device: test");
    ssize_t w = write(fd, &p, sizeof p);
    (void)w;
}

/* The fast path compiles as C++14; C++17-only code fails there (and pipeline.c
 * retries it as C++17), CCCL users go to C++17 at once. Runs nvcc (no GPU). */
static int compile_exit(const char *src, int cpp17)
{
    char dir[] = "/tmp/kgate_cc_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cu[256], so[256], log[256];
    snprintf(cu, sizeof cu, "%s/c.cu", dir);
    snprintf(so, sizeof so, "%s/c.so", dir);
    snprintf(log, sizeof log, "%s/c.log", dir);
    FILE *f = fopen(cu, "w");
    assert_non_null(f);
    fputs(src, f);
    fclose(f);
    const char *argv[32];
    char arch[32];
    kg_compile_argv("nvcc", "90", cu, so, 0, cpp17, argv, arch, sizeof arch);
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    waitpid(p, &st, 0);
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && access(so, R_OK) == 0;
    unlink(cu); unlink(so); unlink(log); rmdir(dir);
    return ok;
}

static void test_compile_std(void **s)
{
    (void)s;
    const char *plain = "__global__ void k(float *x) { x[threadIdx.x] = 1.f; }\n"
                        "extern \"C\" void launch(float *x, cudaStream_t st) { k<<<1, 32, 0, st>>>(x); }\n";
    /* (nvcc accepts `if constexpr` in C++14 mode with a warning; the C++17
     * library is what C++14 really lacks) */
    const char *cpp17 = "#include <optional>\n"
                        "__global__ void k(float *x, float v) { x[threadIdx.x] = v; }\n"
                        "extern \"C\" void launch(float *x, cudaStream_t st) {\n"
                        "  std::optional<float> v = 2.f; k<<<1, 32, 0, st>>>(x, *v); }\n";
    assert_true(compile_exit(plain, 0));
    assert_false(compile_exit(cpp17, 0));   /* C++14 has no std::optional ... */
    assert_true(compile_exit(cpp17, 1));    /* ... C++17, the retry, takes it */
    assert_false(kg_needs_cpp17(plain));
    assert_true(kg_needs_cpp17(cpp17));
    assert_true(kg_needs_cpp17("#include <cub/cub.cuh>"));
    assert_true(kg_needs_cpp17("#include <thrust/reduce.h>"));
}

static void test_probe(void **s)
{
    (void)s;
    kg_probe_msg p;
    assert_int_equal(kg_probe_device(probe_none, 0, 5, &p), 0);
    assert_int_equal(p.ok, 0);
    assert_string_equal(p.reason, "no CUDA device: test");
}

/* Compiler errors name the candidate's own file and line, once each. */
static void test_compile_errors(void **s)
{
    (void)s;
    const char *log =
        /* PyTorch's warning in the compile sandbox (no GPU there): not an error (the
         * H200 corpus run at b184e9e gave it as torch_tanh_misspelled.md's reason) */
        "/opt/torch/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py:180: UserWarning: "
        "CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions\n"
        "corpus/relu_std_max.md(13): error: identifier \"maxx\" is undefined\n"
        "corpus/relu_std_max.md(13): error: identifier \"maxx\" is undefined\n"   /* the C++17 retry */
        "/tmp/kgate.AbC123/006_07_relu_std_max_md/cand.cu(20): error: expected a \";\"\n"
        "/scratch/cand.cu:7:12: error: 'X' was not declared in this scope\n"
        "ptxas info    : Used 10 registers\n"
        "2 errors detected in the compilation of \"/scratch/cand.cu\".\n"
        "nvcc fatal   : Unsupported gpu architecture 'compute_10'\n"
        "error: the fifth one\n";
    char out[4][240];
    int n = kg_compile_errors(log, "corpus/relu_std_max.md", out, 4);
    assert_int_equal(n, 4);
    assert_string_equal(out[0], "corpus/relu_std_max.md:13: error: identifier \"maxx\" is undefined");
    assert_string_equal(out[1], "corpus/relu_std_max.md:20: error: expected a \";\"");
    assert_string_equal(out[2], "corpus/relu_std_max.md:7: error: 'X' was not declared in this scope");
    assert_string_equal(out[3], "nvcc fatal   : Unsupported gpu architecture 'compute_10'");
    assert_int_equal(kg_compile_errors("", "x.cu", out, 4), 0);
    assert_int_equal(kg_compile_errors(NULL, "x.cu", out, 4), 0);
}

/* The compiled source: repairs, then #line naming the candidate. */
/* Compiler output about another file is cut, its quoted lines with it:
 * nvcc's error on an #include of a file the sandbox can read quotes that
 * file's first line; a system header's note quotes the header. What stays:
 * the candidate's own diagnostics (with their quotes), the other file's
 * name, the compiler's own lines. (The log is nvcc 13's own output for such
 * a candidate, the secret file's text changed.) */
static void test_cut_foreign(void **s)
{
    (void)s;
    const char *log =
        "/tmp/kgbox_nv/secret.h(1): error: identifier \"SECRET_TOKEN_abc\" is undefined\n"
        "  SECRET_TOKEN_abc def ghi\n"
        "  ^\n"
        "\n"
        "/tmp/kgbox_nv/secret.h(1): error: expected a \";\"\n"
        "  SECRET_TOKEN_abc def ghi\n"
        "                       ^\n"
        "\n"
        "my.cu(5): error: no instance of overloaded function \"std::vector<int>::push_back\" matches the argument list\n"
        "            argument types are: (std::vector<int, std::allocator<int>>)\n"
        "  void h(){ std::vector<int> v; v.push_back(std::vector<int>()); }\n"
        "                                  ^\n"
        "/usr/include/c++/12/bits/stl_vector.h(1293): note #3326-D: function \"push_back\" does not match\n"
        "        push_back(value_type&& __x)\n"
        "        ^\n"
        "          detected during instantiation of \"f\" at line 12 of /etc/kgate_secret_b.h\n"
        "/etc/passwd:1:5: error: expected unqualified-id before ':' token\n"
        "    1 | root:x:0:0:SECRET_GCC\n"
        "      |     ^\n"
        "In file included from /etc/kgate_secret_c.h:3,\n"
        "                 from my.cu:2:\n"
        "  File \"/opt/secret/build.py\", line 7, in run\n"
        "    SECRET_PY = open('/root/key').read()\n"
        "my.cu:9:2: error: #error bad thing\n"
        "3 errors detected in the compilation of \"/scratch/cand.cu\".\n";
    char *cut = kg_cut_foreign(log, "my.cu");
    assert_non_null(cut);
    if (strstr(cut, "SECRET")) fail_msg("another file's text stayed:\n%s", cut);
    assert_null(strstr(cut, "push_back(value_type"));
    assert_non_null(strstr(cut, "/tmp/kgbox_nv/secret.h: error or note about this file, not the candidate [its text is cut]"));
    assert_non_null(strstr(cut, "/usr/include/c++/12/bits/stl_vector.h: error or note about this file"));
    assert_non_null(strstr(cut, "/etc/passwd: error or note about this file"));
    assert_non_null(strstr(cut, "my.cu(5): error: no instance"));
    assert_non_null(strstr(cut, "  void h(){ std::vector<int> v;"));   /* the candidate's own line, quoted */
    assert_non_null(strstr(cut, "my.cu:9:2: error: #error bad thing"));
    assert_non_null(strstr(cut, "3 errors detected"));
    /* the same diagnostic twice: the note once */
    const char *first = strstr(cut, "/tmp/kgbox_nv/secret.h:");
    assert_null(strstr(first + 1, "/tmp/kgbox_nv/secret.h:"));
    char errs[4][240];
    int n = kg_compile_errors(cut, "my.cu", errs, 4);
    assert_true(n >= 2);
    for (int i = 0; i < n; i++) assert_null(strstr(errs[i], "SECRET"));
    free(cut);
    /* the scratch copy's name is the candidate's too */
    cut = kg_cut_foreign("/scratch/cand.cu(3): error: x\n  int y = SECRET_OWN;\n", "my.cu");
    assert_non_null(strstr(cut, "SECRET_OWN"));
    free(cut);
    assert_null(kg_cut_foreign(NULL, "x"));
}

static void test_compile_source(void **s)
{
    (void)s;
    char *t = kg_compile_source("int x;\n", "corpus/a b\"c\\d.md", 1, 1);
    assert_non_null(t);
    assert_string_equal(t, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#line 1 \"corpus/a b_c_d.md\"\nint x;\n");
    free(t);
    t = kg_compile_source("int x;\n", "x.cu", 0, 0);
    assert_string_equal(t, "#line 1 \"x.cu\"\nint x;\n");
    free(t);
    assert_null(kg_compile_source(NULL, "x.cu", 0, 0));
    /* several architectures: one -gencode each, in one fat binary */
    const char *argv[40];
    char arch[512];
    kg_compile_argv("nvcc", "90,100", "c.cu", "c.so", 0, 1, argv, arch, sizeof arch);
    int gencode = 0, has90 = 0, has100 = 0;
    for (int i = 0; argv[i]; i++) {
        gencode += !strcmp(argv[i], "-gencode");
        has90 |= !strcmp(argv[i], "arch=compute_90,code=[sm_90,compute_90]");
        has100 |= !strcmp(argv[i], "arch=compute_100,code=[sm_100,compute_100]");
    }
    assert_int_equal(gencode, 2);
    assert_true(has90 && has100);
    kg_compile_argv("nvcc", "90", "c.cu", "c.so", 0, 1, argv, arch, sizeof arch);
    assert_string_equal(argv[1], "-arch=sm_90");
    /* the host and device chains overlap (two threads) */
    int threads = 0;
    for (int i = 0; argv[i] && argv[i + 1]; i++) threads |= !strcmp(argv[i], "--threads") && !strcmp(argv[i + 1], "2");
    assert_true(threads);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_errors), cmocka_unit_test(test_compile_source),
        cmocka_unit_test(test_ptxas_two_kernels), cmocka_unit_test(test_ptxas_old_format_and_empty),
        cmocka_unit_test(test_first_error),       cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_task_table),        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_profiles),          cmocka_unit_test(test_cpu_references),
        cmocka_unit_test(test_compare),           cmocka_unit_test(test_probe),
        cmocka_unit_test(test_compile_std),       cmocka_unit_test(test_cut_foreign),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
