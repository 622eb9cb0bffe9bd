/* test_coop_ref.c: the host side of cooperativeGroups: the integer input,
 * where the partials are exact (then one dropped element fails at every
 * size), the derived tolerance of the total (it holds for a float sum done
 * the GPU's way), the CPU variant and the checks. */
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

static void input_is_small_integers_and_seeded(void **state)
{
    (void)state;
    float a[1000], b[1000], c[1000];
    coop_input(1, a, 1000);
    coop_input(1, b, 1000);
    coop_input(2, c, 1000);
    int same = 0, seen[COOP_INPUT_MAX + 1] = {0};
    for (int i = 0; i < 1000; i++) {
        assert_true(a[i] >= 1.0f && a[i] <= (float)COOP_INPUT_MAX && a[i] == floorf(a[i]));
        assert_true(a[i] == b[i]);
        same += a[i] == c[i];
        seen[(int)a[i]] = 1;
    }
    assert_true(same < 1000 / COOP_INPUT_MAX * 2);   /* another seed: about 1 in 8 equal */
    for (int v = 1; v <= COOP_INPUT_MAX; v++) assert_true(seen[v]);
}

static void depths_and_where_partials_are_exact(void **state)
{
    (void)state;
    /* 1056 blocks of 256 threads (the H200): 270336 threads; 2^26+1 elements
     * need 249 per thread; 1056 partials over 256 threads: 5 each; trees 10. */
    const size_t big = (1u << 26) + 1;
    assert_true(coop_partial_depth(big, 1056, 256) == 249 + 10);
    assert_true(coop_total_depth(1056, 256) == 5 + 10);
    /* a block's partial: at most 249 * 256 elements of at most 8: below 2^24 */
    assert_true(coop_partials_exact(big, 1056, 256));
    assert_true(coop_partial_rel_tol(big, 1056, 256) == 0.0);
    assert_true(coop_sum_rel_tol(big, 1056, 256) == (15 + 2) * FLT_EPSILON);
    assert_true(coop_rel_tol(1000, 1056, 256) > coop_sum_rel_tol(1000, 1056, 256));
    /* 16 blocks: 16385 per thread x 256 x 8 > 2^24: a tolerance instead */
    assert_false(coop_partials_exact(big, 16, 256));
    assert_true(coop_partial_rel_tol(big, 16, 256) == (16385 + 10 + 2) * FLT_EPSILON);
    assert_true(coop_sum_rel_tol(big, 16, 256) > coop_partial_rel_tol(big, 16, 256));
}

/* The GPU's partials, made the GPU's way in float: each thread's grid-stride
 * share, then a pairwise tree over the block's threads. */
static void gpu_partials(const float *x, size_t n, unsigned grid, unsigned block, float *out)
{
    size_t threads = (size_t)grid * block;
    float *t = calloc(threads, sizeof *t);
    for (size_t i = 0; i < n; i++) t[i % threads] += x[i];
    for (unsigned b = 0; b < grid; b++) {
        float *tb = t + (size_t)b * block;
        for (unsigned w = block / 2; w >= 1; w /= 2)
            for (unsigned i = 0; i < w; i++) tb[i] += tb[i + w];
        out[b] = tb[0];
    }
    free(t);
}

/* The partials are exact: equal to the CPU's per-block sums at every size,
 * 2^26+1 included; one element dropped there is one wrong partial, though
 * the total moves by at most 8 in 3e8, inside any tolerance of a float sum. */
static void partials_are_exact_and_one_dropped_element_fails_at_every_size(void **state)
{
    (void)state;
    const unsigned grid = 1056, block = 256;
    const size_t sizes[] = {1, 31, 1000, 4097, (1u << 17) + 3, (1u << 16) + 1, (1u << 26) + 1};
    const size_t max_n = (1u << 26) + 1;
    float *x = malloc(max_n * sizeof *x), *got = malloc(grid * sizeof *got);
    double *want = malloc(grid * sizeof *want);
    assert_non_null(x);
    coop_input(2026, x, max_n);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k], drop = n / 2;
        assert_true(coop_partials_exact(n, grid, block));
        coop_block_sums(x, n, grid, block, want);
        gpu_partials(x, n, grid, block, got);
        assert_int_equal(coop_check_partials("p", got, want, grid, 0.0), 0);
        float kept = x[drop];
        x[drop] = 0.0f;                             /* the element phase one dropped */
        gpu_partials(x, n, grid, block, got);
        x[drop] = kept;
        assert_int_equal(coop_check_partials("p", got, want, grid, 0.0), 1);
        if (n == max_n) {   /* what a tolerance on the sum alone (the partials' depth too) let pass */
            double S = cpu_sum_f32(x, n);
            double loose = (coop_partial_depth(n, grid, block) + coop_total_depth(grid, block) + 2) * FLT_EPSILON;
            assert_true(kept <= loose * S / 1000);      /* a thousand of them would pass */
        }
    }
    free(x);
    free(got);
    free(want);
}

/* The total from the partials, the GPU's way (a thread's share of the
 * partials, then a tree), stays inside coop_sum_rel_tol; NaN never passes a
 * partial. */
static void total_tolerance_holds_and_partial_checks_refuse_nan(void **state)
{
    (void)state;
    const unsigned grid = 1056, block = 256;
    const size_t n = (1u << 22) + 5;
    float *x = malloc(n * sizeof *x), p[1056];
    double want[1056];
    coop_input(7, x, n);
    coop_block_sums(x, n, grid, block, want);
    for (unsigned b = 0; b < grid; b++) p[b] = (float)want[b];
    float t[256] = {0};
    for (unsigned j = 0; j < grid; j++) t[j % block] += p[j];
    for (unsigned w = block / 2; w >= 1; w /= 2)
        for (unsigned i = 0; i < w; i++) t[i] += t[i + w];
    double S = cpu_sum_f32(x, n);
    assert_true(fabs(t[0] - S) <= coop_sum_rel_tol(n, grid, block) * S);
    p[3] = NAN;
    assert_int_equal(coop_check_partials("p", p, want, grid, 0.0), 1);
    assert_int_equal(coop_check_partials("p", p, want, grid, 1.0), 1);
    p[3] = (float)want[3] + 1.0f;                   /* one more: within a loose tolerance only */
    assert_int_equal(coop_check_partials("p", p, want, grid, 0.0), 1);
    assert_int_equal(coop_check_partials("p", p, want, grid, 1e-3), 0);
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
        cmocka_unit_test(input_is_small_integers_and_seeded),
        cmocka_unit_test(depths_and_where_partials_are_exact),
        cmocka_unit_test(partials_are_exact_and_one_dropped_element_fails_at_every_size),
        cmocka_unit_test(total_tolerance_holds_and_partial_checks_refuse_nan),
        cmocka_unit_test(cpu_variant_and_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
