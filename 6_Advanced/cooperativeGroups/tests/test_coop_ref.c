/* test_coop_ref.c: the host side of cooperativeGroups: the input, the
 * derived tolerance (it holds for a float sum done the GPU's way, and it is
 * tight enough to see one dropped element), the CPU variant and the check. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "coop_ref.h"
#include "cpu_ref.h"

static void input_is_positive_and_seeded(void **state)
{
    (void)state;
    float a[1000], b[1000], c[1000];
    coop_input(1, a, 1000);
    coop_input(1, b, 1000);
    coop_input(2, c, 1000);
    int same = 0;
    for (int i = 0; i < 1000; i++) {
        assert_true(a[i] >= 0.5f && a[i] < 1.5f);
        assert_true(a[i] == b[i]);
        same += a[i] == c[i];
    }
    assert_true(same < 10);
}

static void depth_counts_the_longest_chain_of_additions(void **state)
{
    (void)state;
    /* 1056 blocks of 256 threads: 270336 threads; 2^26+1 elements need 249
     * per thread; 1056 partials over 256 threads: 5 each; trees 10 + 10. */
    assert_true(coop_sum_depth((1u << 26) + 1, 1056, 256) == 249 + 10 + 5 + 10);
    assert_true(coop_sum_depth(1, 1056, 256) == 1 + 10 + 5 + 10);
    assert_true(coop_rel_tol(1000, 1056, 256) > coop_sum_rel_tol(1000, 1056, 256));
    assert_true(coop_sum_rel_tol(1u << 26, 1056, 256) < 1e-4);
}

/* Simulate the GPU's order of float additions (a grid-stride loop per
 * thread, then pairwise trees) and check the result is inside the
 * tolerance; then drop one element and check a small size sees it. */
static float gpu_order_sum(const float *x, size_t n, unsigned grid, unsigned block)
{
    size_t threads = (size_t)grid * block;
    float *t = calloc(threads, sizeof *t);
    for (size_t i = 0; i < n; i++) t[i % threads] += x[i];
    for (size_t w = threads / 2; w >= 1; w /= 2)   /* a tree over all threads */
        for (size_t i = 0; i < w; i++) t[i] += t[i + w];
    float s = t[0];
    free(t);
    return s;
}

static void tolerance_holds_for_the_gpu_order_and_sees_a_dropped_element(void **state)
{
    (void)state;
    const unsigned grid = 64, block = 256;   /* threads a power of two, for the tree above */
    const size_t sizes[] = {1, 31, 1000, 4097, (1u << 17) + 3, 1u << 22};
    float *x = malloc(((size_t)1 << 22) * sizeof *x);
    coop_input(2026, x, (size_t)1 << 22);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        double S = cpu_sum_f32(x, n);
        float g = gpu_order_sum(x, n, grid, block);
        assert_true(fabs(g - S) <= coop_sum_rel_tol(n, grid, block) * S);
        if (n > 1 && n <= 4097) {   /* one element less: outside the tolerance */
            float d = gpu_order_sum(x, n - 1, grid, block);
            assert_true(fabs(d - S) > coop_sum_rel_tol(n, grid, block) * S);
        }
    }
    free(x);
}

static void cpu_variant_and_check(void **state)
{
    (void)state;
    enum { N = 4097 };
    float x[N], y[N];
    coop_input(3, x, N);
    double S = coop_cpu_normalise(x, y, N);
    assert_true(fabs(S - cpu_sum_f32(x, N)) == 0);
    assert_int_equal(coop_check("y", x, y, N, S, 2 * FLT_EPSILON), 0);
    double sum = 0;
    for (int i = 0; i < N; i++) sum += y[i];
    assert_true(fabs(sum - 1.0) < 1e-5);            /* it is a normalisation */
    y[17] = NAN;                                    /* NaN never passes */
    assert_int_equal(coop_check("y", x, y, N, S, 1.0), 1);
    y[17] = x[17] / (float)S;
    y[N - 1] *= 1.0f + 8 * FLT_EPSILON;             /* a few ulps off */
    assert_int_equal(coop_check("y", x, y, N, S, 2 * FLT_EPSILON), 1);
    assert_int_equal(coop_check("y", x, y, N, S * (1 + 1e-3), 1e-4), N);   /* wrong total */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(input_is_positive_and_seeded),
        cmocka_unit_test(depth_counts_the_longest_chain_of_additions),
        cmocka_unit_test(tolerance_holds_for_the_gpu_order_and_sees_a_dropped_element),
        cmocka_unit_test(cpu_variant_and_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
