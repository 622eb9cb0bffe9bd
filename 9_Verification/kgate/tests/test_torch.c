/* test_torch.c: the PyTorch adapter the gate appends to a PyTorch candidate
 * (torch_adapter.h): the entry's name, the launcher of every task, refusals. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kgate_static.h"
#include "tasks.h"
#include "torch_adapter.h"

static void test_entry_name(void **s)
{
    (void)s;
    char e[64];
    kg_torch_entry_of("torch::Tensor forward(torch::Tensor x) {}", e, sizeof e);
    assert_string_equal(e, "forward");
    kg_torch_entry_of("// kgate-entry: my_relu\ntorch::Tensor my_relu(torch::Tensor x) {}", e, sizeof e);
    assert_string_equal(e, "my_relu");
    kg_torch_entry_of("// kgate-entry:   fused_op2 extra words", e, sizeof e);
    assert_string_equal(e, "fused_op2");
    /* not an identifier: the default stays (nothing of the text reaches the adapter) */
    kg_torch_entry_of("// kgate-entry: 9lives", e, sizeof e);
    assert_string_equal(e, "forward");
    kg_torch_entry_of("// kgate-entry: ); system(\"x\"); (", e, sizeof e);
    assert_string_equal(e, "forward");
    kg_torch_entry_of(NULL, e, sizeof e);
    assert_string_equal(e, "forward");
    assert_true(kg_torch_entry_valid("_a1"));
    assert_false(kg_torch_entry_valid(""));
    assert_false(kg_torch_entry_valid("a-b"));
    assert_false(kg_torch_entry_valid(NULL));
    char longname[80];
    memset(longname, 'a', 70);
    longname[70] = 0;
    assert_false(kg_torch_entry_valid(longname));
}

/* Every task gets a launcher with the task's C signature that calls the
 * entry, delivers through KGATE_DELIVER, and catches exceptions. */
static void test_adapter_per_task(void **s)
{
    (void)s;
    static char buf[16384];
    for (int i = 0; i < kg_task_count(); i++) {
        const kg_task *t = kg_task_at(i);
        assert_int_equal(kg_torch_adapter(t, "forward", buf, sizeof buf), 0);
        assert_non_null(strstr(buf, "extern \"C\" void launch("));
        assert_non_null(strstr(buf, "= forward("));
        assert_non_null(strstr(buf, "KGATE_DELIVER(s,"));
        assert_non_null(strstr(buf, "KGATE_TRY"));
        assert_non_null(strstr(buf, "KGATE_CATCH"));
        /* the result is copied inside the call (the judge's clock counts it and
         * subtracts its own measured copy): no deferred copy, no hook that
         * moves work out of the timed call */
        assert_null(strstr(buf, "kgate_adapter_flush"));
        assert_null(strstr(buf, "kgate_adapter_nocopy"));
        assert_non_null(strstr(buf, "kgate_adapter_error"));
        assert_non_null(strstr(buf, "kgate_adapter_poison"));
        /* every launcher loads libtorch_cuda (c10's CUDA hooks) before anything
         * else: without it a c10-only candidate aborted on the H200 */
        assert_non_null(strstr(buf, "KGATE_TRY try { kgate_torch_cuda_loaded();"));
        assert_non_null(strstr(buf, "at::cuda::getCurrentDeviceProperties()"));
        assert_non_null(strstr(buf, "#line 1 \"kgate-torch-adapter\""));
        /* the launcher takes the task's parameters, ending with the stream */
        assert_non_null(strstr(buf, "cudaStream_t s)"));
        assert_true(strlen(kg_torch_signature(t)) > 10);
    }
    const kg_task *blur = kg_task_find("blur3x3");
    assert_int_equal(kg_torch_adapter(blur, "forward", buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "{pitch, 1}"));   /* the strided view */
    const kg_task *tr = kg_task_find("transpose");
    assert_int_equal(kg_torch_adapter(tr, "forward", buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "{cols, rows}"));
    const kg_task *h = kg_task_find("histogram256");
    assert_int_equal(kg_torch_adapter(h, "forward", buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "kUInt8"));
}

static void test_adapter_refusals(void **s)
{
    (void)s;
    char small[100];
    const kg_task *t = kg_task_find("relu");
    assert_int_equal(kg_torch_adapter(t, "forward", small, sizeof small), -1);
    static char buf[16384];
    assert_int_equal(kg_torch_adapter(t, "x); abort(); (", buf, sizeof buf), -1);
    assert_int_equal(kg_torch_adapter(NULL, "forward", buf, sizeof buf), -1);
    assert_int_equal(kg_torch_adapter(t, "forward", NULL, 0), -1);
}

static void test_is_torch(void **s)
{
    (void)s;
    assert_true(kg_is_torch_source("#include <torch/extension.h>\n"));
    assert_true(kg_is_torch_source("at::Tensor f(at::Tensor x);"));
    assert_true(kg_is_torch_source("#include <ATen/ATen.h>"));
    assert_false(kg_is_torch_source("__global__ void k(float* torch) {}"));
    assert_false(kg_is_torch_source(NULL));
}

/* Build a shared library from C source with the host compiler (the test
 * needs no nvcc: the ELF symbol table is the same). 0 when built. */
static int build_so(const char *dir, const char *name, const char *src, char *path, size_t len)
{
    char c[600], cmd[1400];
    snprintf(c, sizeof c, "%s/%s.c", dir, name);
    snprintf(path, len, "%s/%s.so", dir, name);
    FILE *f = fopen(c, "w");
    if (!f) return -1;
    fputs(src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o '%s' '%s' 2>/dev/null", path, c);
    return system(cmd) == 0 ? 0 : -1;
}

/* A plain candidate that defines the PyTorch adapter's hooks is refused by
 * the gate before anything loads it; a reference to one it does not define,
 * a library without them, and files that are not ELF (or are cut short, or
 * lie in their headers) are read without harm. */
static void test_plain_hooks(void **s)
{
    (void)s;
    char dir[] = "/tmp/kgate_hooks_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char so[700], which[64] = "";
    if (build_so(dir, "flush", "void kgate_adapter_flush(void) {}\nint launch(void) { return 0; }\n", so, sizeof so) != 0)
        skip();   /* no host compiler */
    assert_int_equal(kg_so_defines_hooks(so, which, sizeof which), 1);
    assert_string_equal(which, "kgate_adapter_flush");
    assert_int_equal(build_so(dir, "data", "int kgate_adapter_nocopy = 1;\nint launch(void) { return 0; }\n", so, sizeof so), 0);
    assert_int_equal(kg_so_defines_hooks(so, which, sizeof which), 1);
    assert_string_equal(which, "kgate_adapter_nocopy");
    assert_int_equal(build_so(dir, "clean", "int launch(void) { return 0; }\n", so, sizeof so), 0);
    assert_int_equal(kg_so_defines_hooks(so, which, sizeof which), 0);
    /* only a reference (undefined here): not a definition */
    assert_int_equal(build_so(dir, "uses", "extern int kgate_adapter_poison;\nint launch(void) { return kgate_adapter_poison; }\n",
                              so, sizeof so), 0);
    assert_int_equal(kg_so_defines_hooks(so, which, sizeof which), 0);
    /* not ELF, missing, cut short, headers that point outside the file */
    char p[800];
    snprintf(p, sizeof p, "%s/text.so", dir);
    FILE *f = fopen(p, "w");
    fputs("not an ELF file at all, but long enough to have a header's worth of bytes in it......", f);
    fclose(f);
    assert_int_equal(kg_so_defines_hooks(p, which, sizeof which), -1);
    snprintf(p, sizeof p, "%s/none.so", dir);
    assert_int_equal(kg_so_defines_hooks(p, which, sizeof which), -1);
    assert_int_equal(build_so(dir, "cut", "void kgate_adapter_flush(void) {}\n", so, sizeof so), 0);
    FILE *in = fopen(so, "rb");
    static unsigned char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    for (size_t cut = 64; cut < n; cut = cut * 3 / 2) {
        snprintf(p, sizeof p, "%s/cut.so", dir);
        f = fopen(p, "wb");
        fwrite(buf, 1, cut, f);
        fclose(f);
        int r = kg_so_defines_hooks(p, which, sizeof which);
        assert_true(r >= -1 && r <= 1);
    }
    for (int k = 0; k < 200; k++) {   /* corrupted headers: never a crash */
        unsigned char *b = malloc(n);
        memcpy(b, buf, n);
        srand(k);
        for (int m = 0; m < 16; m++) b[16 + rand() % 48] = (unsigned char)rand();   /* the ELF header's fields */
        for (int m = 0; m < 16; m++) b[rand() % n] = (unsigned char)rand();
        f = fopen(p, "wb");
        fwrite(b, 1, n, f);
        fclose(f);
        free(b);
        int r = kg_so_defines_hooks(p, which, sizeof which);
        assert_true(r >= -1 && r <= 1);
    }
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entry_name),
        cmocka_unit_test(test_adapter_per_task),
        cmocka_unit_test(test_adapter_refusals),
        cmocka_unit_test(test_is_torch),
        cmocka_unit_test(test_plain_hooks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
