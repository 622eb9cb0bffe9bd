/* test_soa_ref.c: the CPU reference of streamOrderedAllocation: the
 * coefficient form equals the loop the GPU runs (also past 2^32
 * wrap-around), and a skipped, wrong or reordered iteration changes the
 * answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "soa_ref.h"

static void closed_form_equals_the_loop(void **state)
{
    (void)state;
    enum { N = 37 };
    uint32_t in[N], a[N], b[N];
    soa_input(5, in, N);
    in[0] = 0;
    in[1] = 0xFFFFFFFFu;
    const int iters[] = {0, 1, 2, 3, 8, 20, 21, 1000, 10007};       /* 3^21 > 2^32: wraps */
    for (size_t k = 0; k < sizeof iters / sizeof iters[0]; k++) {
        soa_expected(in, a, N, iters[k]);
        soa_loop_ref(in, b, N, iters[k]);
        assert_memory_equal(a, b, sizeof a);
    }
    /* one iteration: acc = in * 1 + 0 */
    soa_expected(in, a, N, 1);
    assert_memory_equal(a, in, sizeof a);
}

static void known_answer(void **state)
{
    (void)state;
    /* T = 3: A = 9*1 + 3*2 + 3 = 18, B = 9*0 + 3*1 + 2 = 5 */
    uint32_t in[2] = {10, 0x80000000u}, acc[2];
    soa_expected(in, acc, 2, 3);
    assert_true(acc[0] == 185);
    assert_true(acc[1] == 5);   /* 18 * 2^31 wraps to 0 */
    uint32_t none[2] = {1, 1};
    soa_expected(in, none, 2, 0);
    assert_true(none[0] == 0 && none[1] == 0);
}

/* What the mutants do, seen from the answer: an iteration skipped, or one
 * run with the wrong t, changes every element. */
static void skipped_or_wrong_iterations_change_every_element(void **state)
{
    (void)state;
    enum { N = 64, T = 8 };
    uint32_t in[N], want[N], got[N];
    soa_input(2026, in, N);
    soa_expected(in, want, N, T);
    soa_expected(in, got, N, T - 1);                   /* one iteration fewer */
    for (int i = 0; i < N; i++) assert_true(got[i] != want[i]);
    memset(got, 0, sizeof got);                        /* t = 0 every time */
    for (int t = 0; t < T; t++)
        for (int i = 0; i < N; i++) got[i] = 3u * got[i] + in[i];
    int diff = 0;
    for (int i = 0; i < N; i++) diff += got[i] != want[i];
    assert_int_equal(diff, N);
    memset(got, 0, sizeof got);                        /* iterations in reverse order */
    for (int t = T - 1; t >= 0; t--)
        for (int i = 0; i < N; i++) got[i] = 3u * got[i] + in[i] * (uint32_t)(t + 1) + (uint32_t)t;
    diff = 0;
    for (int i = 0; i < N; i++) diff += got[i] != want[i];
    assert_int_equal(diff, N);
    /* a word past the end (0xFFFFFFFF) folded with any tmp but 2 changes */
    for (uint32_t tmp = 0; tmp < 1000; tmp++)
        if (tmp != 2) assert_true(3u * 0xFFFFFFFFu + tmp != 0xFFFFFFFFu);
}

static void mib(void **state)
{
    (void)state;
    assert_true(soa_mib(0) == 0.0);
    assert_true(soa_mib(64ULL << 20) == 64.0);
    assert_true(soa_mib(1536ULL << 10) == 1.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(closed_form_equals_the_loop),
        cmocka_unit_test(known_answer),
        cmocka_unit_test(skipped_or_wrong_iterations_change_every_element),
        cmocka_unit_test(mib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
