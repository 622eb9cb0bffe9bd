/* test_pdl_chain.c: the host side of programmaticDependentLaunch: the
 * constants, the prologue's arithmetic, the body's map, the CPU chain (every step matters,
 * the order matters, a stale read shows) and the sweeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pdl_chain.h"

static void params_are_odd_and_seeded(void **state)
{
    (void)state;
    uint32_t a[64], b[64], c[64], d[64], e[64], f[64];
    pdl_params(7, 64, a, b);
    pdl_params(7, 64, c, d);
    pdl_params(8, 64, e, f);
    int same_seed_differs = 0, other_seed_same = 0;
    for (int k = 0; k < 64; k++) {
        assert_true(a[k] & 1u);
        same_seed_differs += a[k] != c[k] || b[k] != d[k];
        other_seed_same += a[k] == e[k] && b[k] == f[k];
    }
    assert_int_equal(same_seed_differs, 0);
    assert_int_equal(other_seed_same, 0);
}

static void prologue_is_the_lcg(void **state)
{
    (void)state;
    assert_true(pdl_prologue(5u, 0) == 5u);
    assert_true(pdl_prologue(0u, 1) == 1013904223u);
    assert_true(pdl_prologue(1u, 2) == (1664525u + 1013904223u) * 1664525u + 1013904223u);
    /* Composition: 1024 steps are 1000 then 24. */
    assert_true(pdl_prologue(pdl_prologue(77u, 1000), 24) == pdl_prologue(77u, 1024));
}

static void chain_by_hand(void **state)
{
    (void)state;
    const uint32_t a[2] = {3u, 5u}, b[2] = {1u, 2u};
    uint32_t x[3] = {0u, 1u, 0xFFFFFFFFu};
    pdl_chain_cpu(x, 2, a, b, 2, 0, 1);   /* x -> (3x + 1) * 5 + 2 on the first 2 only */
    assert_true(x[0] == 7u);
    assert_true(x[1] == 22u);
    assert_true(x[2] == 0xFFFFFFFFu);
    uint32_t y[1] = {4u};
    pdl_chain_cpu(y, 1, a, b, 1, 1, 1);   /* b after one LCG step */
    assert_true(y[0] == 12u + 1u * 1664525u + 1013904223u);
}

/* The body's map is the loop the kernels run (00_step.cuh), as one map:
 * checked against the loop itself for every length up to 300, on values
 * that wrap, and by hand. */
static void body_map_is_the_loop(void **state)
{
    (void)state;
    const uint32_t as[3] = {3u, 0x9E3779B9u, 0xFFFFFFFFu}, bs[3] = {1u, 0x7F4A7C15u, 0u};
    const uint32_t xs[3] = {0u, 12345u, 0xFFFFFFF0u};
    for (int t = 0; t < 3; t++)
        for (int steps = 0; steps <= 300; steps++) {
            uint32_t mul, add;
            pdl_body_map(as[t], bs[t], steps, &mul, &add);
            assert_true(mul & 1u);   /* odd a: still a bijection */
            for (int u = 0; u < 3; u++) {
                uint32_t v = xs[u];
                for (int j = 0; j < steps; j++) v = v * as[t] + bs[t];
                assert_true(xs[u] * mul + add == v);
            }
        }
    const uint32_t a[1] = {3u}, b[1] = {1u};
    uint32_t x[1] = {2u};
    pdl_chain_cpu(x, 1, a, b, 1, 0, 3);   /* ((2 * 3 + 1) * 3 + 1) * 3 + 1 */
    assert_true(x[0] == 67u);
}

/* What the sample's exact check relies on: a step skipped, two steps
 * swapped, or a step computed from the value before the previous step (a
 * read before the wait) changes the final values. */
static void every_step_and_its_input_matter(void **state)
{
    (void)state;
    enum { N = 257, K = 10 };
    uint32_t a[K], b[K], x0[N], want[N], got[N];
    pdl_params(2026, K, a, b);
    pdl_input(2026, x0, N);
    memcpy(want, x0, sizeof want);
    pdl_chain_cpu(want, N, a, b, K, 16, 1);

    uint32_t a2[K], b2[K];
    for (int skip = 0; skip < K; skip++) {   /* one step missing */
        int j = 0;
        for (int k = 0; k < K; k++)
            if (k != skip) { a2[j] = a[k]; b2[j] = b[k]; j++; }
        memcpy(got, x0, sizeof got);
        pdl_chain_cpu(got, N, a2, b2, K - 1, 16, 1);
        assert_true(memcmp(got, want, sizeof got) != 0);
    }
    memcpy(a2, a, sizeof a2);   /* steps 3 and 4 swapped */
    memcpy(b2, b, sizeof b2);
    a2[3] = a[4]; a2[4] = a[3]; b2[3] = b[4]; b2[4] = b[3];
    memcpy(got, x0, sizeof got);
    pdl_chain_cpu(got, N, a2, b2, K, 16, 1);
    assert_true(memcmp(got, want, sizeof got) != 0);

    /* Step 5 reads x as it was before step 4 (stale), then the rest runs. */
    uint32_t before4[N];
    memcpy(got, x0, sizeof got);
    pdl_chain_cpu(got, N, a, b, 4, 16, 1);
    memcpy(before4, got, sizeof got);
    pdl_chain_cpu(got, N, a + 4, b + 4, 1, 16, 1);         /* step 4 */
    pdl_chain_cpu(before4, N, a + 5, b + 5, 1, 16, 1);     /* step 5 on the stale x */
    pdl_chain_cpu(before4, N, a + 6, b + 6, K - 6, 16, 1);
    size_t differ = 0;
    for (int i = 0; i < N; i++) differ += before4[i] != want[i];
    assert_int_equal(differ, N);   /* every element, since each step is a bijection */
}

static void sweeps(void **state)
{
    (void)state;
    int s[3], p[2];
    assert_int_equal(pdl_sweep(0, 0, s), 3);
    assert_int_equal(s[0], 10);
    assert_int_equal(s[1], 100);
    assert_int_equal(s[2], 1000);
    assert_int_equal(pdl_sweep(0, 1, s), 2);
    assert_int_equal(s[1], 50);
    assert_int_equal(pdl_sweep(7, 1, s), 1);
    assert_int_equal(s[0], 7);
    assert_int_equal(pdl_prologues(-1, p), 2);
    assert_int_equal(p[0], 0);
    assert_int_equal(p[1], PDL_LONG_PROLOGUE);
    assert_int_equal(pdl_prologues(0, p), 1);
    assert_int_equal(p[0], 0);
    assert_int_equal(pdl_prologues(4096, p), 1);
    assert_int_equal(p[0], 4096);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(params_are_odd_and_seeded),
        cmocka_unit_test(prologue_is_the_lcg),
        cmocka_unit_test(chain_by_hand),
        cmocka_unit_test(body_map_is_the_loop),
        cmocka_unit_test(every_step_and_its_input_matter),
        cmocka_unit_test(sweeps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
