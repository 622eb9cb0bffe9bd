/* test_ck_host.c: the host side of concurrentKernels: the shared hash step
 * (pinned to values computed independently), the chunking of the copy
 * pipeline, the two overlap bounds, and the text timeline. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ck_host.h"
#include "ck_work.h"

static void hash_step_known_values(void **state)
{
    (void)state;
    /* computed with Python: x = (x * 1664525 + 1013904223) mod 2^32; x ^= x >> 15 */
    assert_true(ck_step(0) == 0x3c6e8b82u);
    assert_true(ck_step(0xffffffffu) == 1012266489u);
    assert_true(ck_steps(0, 1000) == 904417452u);
    assert_true(ck_steps(12345, 0) == 12345u);
    /* seeds differ between kernels and threads */
    assert_true(ck_seed(1, 0, 5) != ck_seed(1, 1, 5));
    assert_true(ck_seed(1, 0, 5) != ck_seed(1, 0, 6));
    assert_true(ck_seed(1, 0, 5) == ck_seed(1, 0, 5));
}

static void chunks_cover_the_array_once(void **state)
{
    (void)state;
    const size_t ns[] = {1, 7, 16, 1000, 4097, (1u << 17) + 3, 1u << 24};
    const int cs[] = {1, 3, 8, 16, 1024};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof cs / sizeof cs[0]; b++) {
            size_t n = ns[a], next = 0, lo = (size_t)-1, hi = 0;
            for (int c = 0; c < cs[b]; c++) {
                size_t off, len;
                ck_chunk(n, cs[b], c, &off, &len);
                assert_true(off == next);          /* in order, no gap, no overlap */
                next = off + len;
                if (len < lo) lo = len;
                if (len > hi) hi = len;
            }
            assert_true(next == n);                /* the whole array */
            assert_true(hi - lo <= 1);             /* balanced */
        }
    size_t off, len;
    ck_chunk(1, 16, 0, &off, &len);                /* n < chunks: empty chunks */
    assert_true(len == 0);
    ck_chunk(1, 16, 15, &off, &len);
    assert_true(off == 0 && len == 1);
}

static void kernel_bound(void **state)
{
    (void)state;
    /* 8 kernels of 4 blocks, 16 blocks per SM x 132 SMs: all fit */
    assert_int_equal(ck_kernels_at_once(8, 4, 16, 132, 128), 8);
    assert_true(ck_kernel_overlap_bound(8, 8) == 8.0);
    /* kernels that fill the GPU: one at a time */
    assert_int_equal(ck_kernels_at_once(8, 132 * 16, 16, 132, 128), 1);
    assert_true(ck_kernel_overlap_bound(8, 1) == 1.0);
    /* half the GPU each: two at once, 8 kernels in 4 waves */
    assert_int_equal(ck_kernels_at_once(8, 66 * 16, 16, 132, 128), 2);
    assert_true(ck_kernel_overlap_bound(8, 2) == 2.0);
    /* 3 at once: 8 kernels in 3 waves */
    assert_true(fabs(ck_kernel_overlap_bound(8, 3) - 8.0 / 3) < 1e-12);
    /* the limit on running kernels */
    assert_int_equal(ck_kernels_at_once(64, 1, 32, 132, 16), 16);
    /* bigger than the GPU: still 1 */
    assert_int_equal(ck_kernels_at_once(4, 100000, 16, 132, 128), 1);
}

static void pipeline_bound(void **state)
{
    (void)state;
    /* equal copies, a short kernel, many chunks: close to 2 with two engines */
    double b = ck_pipeline_bound(1.0, 0.05, 1.0, 1000, 2);
    assert_true(b > 1.99 && b < 2.05);
    /* one engine: both copies share it, the kernel hides under them */
    b = ck_pipeline_bound(1.0, 0.05, 1.0, 1000, 1);
    assert_true(b > 1.0 && b < 1.03);
    /* three equal stages: 3 in the limit, 3 / (1 + 2/C) with C chunks */
    assert_true(fabs(ck_pipeline_bound(1, 1, 1, 16, 2) - 3.0 / (1 + 2.0 / 16)) < 1e-12);
    /* one chunk: no pipeline at all */
    assert_true(fabs(ck_pipeline_bound(1, 1, 1, 1, 2) - 1.0) < 1e-12);
    assert_true(ck_pipeline_bound(0, 0, 0, 16, 2) == 1.0);
}

static void timeline_text(void **state)
{
    (void)state;
    /* two rows, 0..100 us and 50..100 us, 10 columns of 10 us */
    const uint64_t s[3] = {1000000, 1050000, 5};
    const uint64_t e[3] = {1100000, 1100000, 0};   /* the third was never stamped */
    const char *labels[3] = {"kernel 0", "kernel 1", "kernel 2"};
    char out[1024];
    assert_int_equal(ck_timeline(s, e, 3, labels, 10, out, sizeof out), 0);
    const char *want =
        "kernel 0   |##########|       0.0 ..     100.0 us\n"
        "kernel 1   |     #####|      50.0 ..     100.0 us\n"
        "kernel 2   |??????????|       0.0 ..       0.0 us\n";
    assert_string_equal(out, want);
    /* serial: back to back, no column shared */
    const uint64_t s2[2] = {0, 50000}, e2[2] = {49000, 100000};
    assert_int_equal(ck_timeline(s2, e2, 2, labels, 10, out, sizeof out), 0);
    assert_non_null(strstr(out, "|#####     |"));
    assert_non_null(strstr(out, "|     #####|"));
    /* too small a buffer is an error, not a truncated line */
    assert_int_equal(ck_timeline(s, e, 3, labels, 10, out, 60), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hash_step_known_values),
        cmocka_unit_test(chunks_cover_the_array_once),
        cmocka_unit_test(kernel_bound),
        cmocka_unit_test(pipeline_bound),
        cmocka_unit_test(timeline_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
