/* test_graph_chain.c: the host side of cudaGraphs: the chain's parameters
 * and CPU reference (every step matters, order matters), the shape check
 * (every way a chain can be built wrong), the sweep and the break-even. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "graph_chain.h"

static void params_are_odd_seeded_and_sets_differ(void **state)
{
    (void)state;
    uint32_t a[64], b[64], a2[64], b2[64], c[64], d[64];
    chain_params(7, CHAIN_SET_FIRST, 64, a, b);
    chain_params(7, CHAIN_SET_FIRST, 64, c, d);
    chain_params(7, CHAIN_SET_SECOND, 64, a2, b2);
    int same_set = 0;
    for (int k = 0; k < 64; k++) {
        assert_true(a[k] & 1u);
        assert_true(a2[k] & 1u);
        assert_true(a[k] == c[k] && b[k] == d[k]);   /* reproducible */
        same_set += a[k] == a2[k] && b[k] == b2[k];
    }
    assert_int_equal(same_set, 0);
    uint32_t e, f;
    chain_step_params(8, CHAIN_SET_FIRST, 5, &e, &f);
    assert_true(e != a[5] || f != b[5]);              /* the seed matters */
}

static void cpu_chain_known_answer(void **state)
{
    (void)state;
    uint32_t x[3] = {0, 1, 0xFFFFFFFFu};
    const uint32_t a[2] = {3, 5}, b[2] = {1, 7};
    chain_cpu(x, 3, a, b, 2);
    /* 0 -> 1 -> 12; 1 -> 4 -> 27; -1 -> -2 -> -3 (mod 2^32) */
    assert_true(x[0] == 12 && x[1] == 27 && x[2] == 0xFFFFFFFDu);
    uint32_t y[1] = {9};
    chain_cpu(y, 1, a, b, 0);                         /* no steps: unchanged */
    assert_true(y[0] == 9);
}

/* A missing, repeated or swapped step, or a step with the other set's
 * parameters, changes (nearly) every element: the result check sees it. */
static void every_step_and_its_order_matter(void **state)
{
    (void)state;
    enum { N = 100, STEPS = 50 };
    uint32_t a[STEPS + 1], b[STEPS + 1], a2[STEPS], b2[STEPS];
    uint32_t x0[N], want[N], got[N];
    chain_params(2026, CHAIN_SET_FIRST, STEPS + 1, a, b);
    chain_params(2026, CHAIN_SET_SECOND, STEPS, a2, b2);
    chain_input(2026, x0, N);
    memcpy(want, x0, sizeof want);
    chain_cpu(want, N, a, b, STEPS);

    for (int drop = 0; drop < STEPS; drop++) {        /* one step missing */
        uint32_t am[STEPS], bm[STEPS];
        int m = 0;
        for (int k = 0; k < STEPS; k++)
            if (k != drop) { am[m] = a[k]; bm[m] = b[k]; m++; }
        memcpy(got, x0, sizeof got);
        chain_cpu(got, N, am, bm, m);
        int diff = 0;
        for (int i = 0; i < N; i++) diff += got[i] != want[i];
        assert_true(diff > N / 2);
    }
    for (int k = 0; k + 1 < STEPS; k++) {             /* two neighbours swapped */
        uint32_t as[STEPS], bs[STEPS];
        memcpy(as, a, sizeof as);
        memcpy(bs, b, sizeof bs);
        as[k] = a[k + 1]; bs[k] = b[k + 1];
        as[k + 1] = a[k]; bs[k + 1] = b[k];
        memcpy(got, x0, sizeof got);
        chain_cpu(got, N, as, bs, STEPS);
        int diff = 0;
        for (int i = 0; i < N; i++) diff += got[i] != want[i];
        assert_true(diff > N / 2);
    }
    uint32_t au[STEPS], bu[STEPS];                    /* one step updated */
    memcpy(au, a, sizeof au);
    memcpy(bu, b, sizeof bu);
    bu[STEPS / 2] = b2[STEPS / 2];
    memcpy(got, x0, sizeof got);
    chain_cpu(got, N, au, bu, STEPS);
    int diff = 0;
    for (int i = 0; i < N; i++) diff += got[i] != want[i];
    assert_int_equal(diff, N);                        /* b alone shifts every element */
    memcpy(got, x0, sizeof got);                      /* one step more */
    chain_cpu(got, N, a, b, STEPS + 1);
    diff = 0;
    for (int i = 0; i < N; i++) diff += got[i] != want[i];
    assert_true(diff > N / 2);
}

/* Handles: fake pointers, listed in a shuffled order like cudaGraphGetNodes may. */
#define H(i) ((const void *)(uintptr_t)(0x1000 + 16 * (i)))

static int shape(const int *order, size_t nn, const int *f, const int *t, size_t ne, size_t want,
                 char *why)
{
    const void *nodes[16], *from[16], *to[16];
    for (size_t i = 0; i < nn; i++) nodes[i] = H(order[i]);
    for (size_t e = 0; e < ne; e++) {
        from[e] = H(f[e]);
        to[e] = H(t[e]);
    }
    why[0] = '\0';
    return chain_shape_check(nodes, nn, from, to, ne, want, why, 160);
}

static void shape_accepts_a_chain_in_any_order(void **state)
{
    (void)state;
    char why[160];
    const int order[5] = {3, 0, 4, 1, 2};
    const int f[4] = {2, 0, 3, 1}, t[4] = {3, 1, 4, 2};
    assert_int_equal(shape(order, 5, f, t, 4, 5, why), 0);
    const int one[1] = {0};
    assert_int_equal(shape(one, 1, NULL, NULL, 0, 1, why), 0);   /* N = 1: no edges */
}

static void shape_refuses_what_is_not_a_chain(void **state)
{
    (void)state;
    char why[160];
    const int order[5] = {0, 1, 2, 3, 4};
    /* a node missing */
    const int f4[3] = {0, 1, 2}, t4[3] = {1, 2, 3};
    assert_int_equal(shape(order, 4, f4, t4, 3, 5, why), -1);
    assert_non_null(strstr(why, "4 nodes, want 5"));
    /* an edge dropped: two chains (0-1, 2-3-4) */
    const int fd[3] = {0, 2, 3}, td[3] = {1, 3, 4};
    assert_int_equal(shape(order, 5, fd, td, 3, 5, why), -1);
    assert_non_null(strstr(why, "3 dependency edges"));
    /* right edge count, but a fork (0->1, 0->2) and 2 roots */
    const int ff[4] = {0, 0, 2, 3}, tf[4] = {1, 2, 3, 4};
    assert_int_equal(shape(order, 5, ff, tf, 4, 5, why), -1);
    assert_non_null(strstr(why, "fork"));
    /* a join (1->2 and 3->2) */
    const int fj[4] = {0, 1, 3, 2}, tj[4] = {1, 2, 2, 4};
    assert_int_equal(shape(order, 5, fj, tj, 4, 5, why), -1);
    assert_non_null(strstr(why, "join"));
    /* a chain 0-1 and a cycle 2->3->4->2: 4 edges, in/out <= 1 */
    const int fc[4] = {0, 2, 3, 4}, tc[4] = {1, 3, 4, 2};
    assert_int_equal(shape(order, 5, fc, tc, 4, 5, why), -1);
    assert_non_null(strstr(why, "reaches 2 of 5"));
    /* an edge to a node that is not in the list */
    const int fu[4] = {0, 1, 2, 3}, tu[4] = {1, 2, 3, 9};
    assert_int_equal(shape(order, 5, fu, tu, 4, 5, why), -1);
    assert_non_null(strstr(why, "not in the graph"));
}

static void sweep_and_breakeven(void **state)
{
    (void)state;
    int s[4];
    assert_int_equal(chain_sweep(0, 0, s), 4);
    assert_true(s[0] == 1 && s[1] == 10 && s[2] == 100 && s[3] == 1000);
    assert_int_equal(chain_sweep(0, 1, s), 3);
    assert_true(s[0] == 1 && s[1] == 10 && s[2] == 50);
    assert_int_equal(chain_sweep(77, 1, s), 1);
    assert_int_equal(s[0], 77);
    /* 1 ms of setup, 0.45 ms saved per chain: paid back after 3 replays */
    assert_int_equal(graph_breakeven_replays(1.0, 0.5, 0.05), 3);
    assert_int_equal(graph_breakeven_replays(0.9, 0.5, 0.05), 2);
    assert_int_equal(graph_breakeven_replays(1.0, 0.05, 0.05), -1);   /* never */
    assert_int_equal(graph_breakeven_replays(1.0, 0.04, 0.05), -1);
}

/* The store chain: row k is a_k * i + b_k, wrapping; no step touches
 * another's row. */
static void store_chain_known_answer(void **state)
{
    (void)state;
    uint32_t y[2 * 3 + 1];
    const uint32_t a[2] = {3, 0x80000001u}, b[2] = {1, 7};
    y[6] = 0xDEADBEEFu;
    chain_store_cpu(y, 3, a, b, 2);
    assert_true(y[0] == 1 && y[1] == 4 && y[2] == 7);                         /* 3 i + 1 */
    assert_true(y[3] == 7 && y[4] == 0x80000008u && y[5] == 9);                /* wraps mod 2^32 */
    assert_true(y[6] == 0xDEADBEEFu);                                          /* nothing past the rows */
    /* With the seeded parameters, every row differs from every other row in
     * nearly every element: a kernel that writes the wrong row, or with
     * another step's parameters, shows. */
    enum { N = 64, STEPS = 20 };
    uint32_t pa[STEPS], pb[STEPS], rows[STEPS * N];
    chain_params(2026, CHAIN_SET_FIRST, STEPS, pa, pb);
    chain_store_cpu(rows, N, pa, pb, STEPS);
    for (int k = 0; k < STEPS; k++)
        for (int j = 0; j < k; j++) {
            int same = 0;
            for (int i = 0; i < N; i++) same += rows[k * N + i] == rows[j * N + i];
            assert_true(same <= 1);
        }
}

static void chain_kinds_and_sizes(void **state)
{
    (void)state;
    int k[2] = {-1, -1};
    assert_int_equal(chain_kinds("both", k), 2);
    assert_true(k[0] == CHAIN_DATA && k[1] == CHAIN_STORE);
    assert_int_equal(chain_kinds("data", k), 1);
    assert_int_equal(k[0], CHAIN_DATA);
    assert_int_equal(chain_kinds("store", k), 1);
    assert_int_equal(k[0], CHAIN_STORE);
    assert_int_equal(chain_kinds("Data", k), -1);
    assert_int_equal(chain_kinds("", k), -1);
    assert_int_equal(chain_kinds("all", k), -1);
    assert_int_equal(chain_kinds(NULL, k), -1);
    assert_string_equal(chain_kind_name(CHAIN_DATA), "data");
    assert_string_equal(chain_kind_name(CHAIN_STORE), "store");
    assert_null(chain_kind_name(2));

    /* data: the array; store: a row per kernel, one more for the refused update */
    assert_int_equal(chain_array_elems(CHAIN_DATA, 1000, 1000, 1u << 28), 1000);
    assert_int_equal(chain_array_elems(CHAIN_STORE, 1000, 1000, 1u << 28), 1001000);
    assert_int_equal(chain_array_elems(CHAIN_STORE, 1, 7, 14), 14);
    assert_int_equal(chain_array_elems(CHAIN_STORE, 1, 7, 13), 0);          /* over the limit */
    assert_int_equal(chain_array_elems(CHAIN_DATA, 1, 15, 14), 0);
    assert_int_equal(chain_array_elems(CHAIN_STORE, 10000, (size_t)1 << 24, 1u << 28), 0);
    assert_int_equal(chain_array_elems(CHAIN_STORE, 10, SIZE_MAX / 4, SIZE_MAX), 0);   /* overflow */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(params_are_odd_seeded_and_sets_differ),
        cmocka_unit_test(cpu_chain_known_answer),
        cmocka_unit_test(every_step_and_its_order_matter),
        cmocka_unit_test(shape_accepts_a_chain_in_any_order),
        cmocka_unit_test(shape_refuses_what_is_not_a_chain),
        cmocka_unit_test(sweep_and_breakeven),
        cmocka_unit_test(store_chain_known_answer),
        cmocka_unit_test(chain_kinds_and_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
