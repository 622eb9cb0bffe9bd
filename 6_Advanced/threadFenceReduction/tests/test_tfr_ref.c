/* test_tfr_ref.c: the reference code this sample shares with
 * 0_Simple/reduction (common/reduce_ref.c): the stress sequence it checks
 * and the prefix sums of many stress sizes in one pass (the path the
 * --stress mode takes), for every type. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "cpu_ref.h"
#include "reduce_input.h"
#include "reduce_ref.h"

static void test_stress_references(void **state)
{
    (void)state;
    const size_t max_n = 70001;
    enum { LAUNCHES = 500 };
    size_t sizes[LAUNCHES];
    red_ref refs[LAUNCHES];
    int *k = malloc(max_n * sizeof *k);
    assert_non_null(k);
    for (size_t i = 0; i < max_n; i++) k[i] = red_input_i32(77, i);
    for (int j = 0; j < LAUNCHES; j++) sizes[j] = red_stress_size(77, (uint64_t)j, max_n);
    red_ref_prefixes(RED_INT, 77, sizes, LAUNCHES, refs);
    for (int j = 0; j < LAUNCHES; j++) {
        assert_int_equal(refs[j].n, sizes[j]);
        assert_true(refs[j].isum == cpu_sum_i32(k, sizes[j]));
    }
    free(k);
}

/* The same for float and double: their sums are exact too (integer inputs),
 * so every stress launch is checked for equality. */
static void test_stress_references_float_double(void **state)
{
    (void)state;
    const size_t max_n = 50001;
    enum { LAUNCHES = 300 };
    size_t sizes[LAUNCHES];
    red_ref rf[LAUNCHES], rd[LAUNCHES];
    float *f = malloc(max_n * sizeof *f);
    double *d = malloc(max_n * sizeof *d);
    assert_non_null(f);
    assert_non_null(d);
    for (size_t i = 0; i < max_n; i++) {
        f[i] = red_input_f32(5, i);
        d[i] = red_input_f64(5, i);
    }
    for (int j = 0; j < LAUNCHES; j++) sizes[j] = red_stress_size(5, (uint64_t)j, max_n);
    red_ref_prefixes(RED_FLOAT, 5, sizes, LAUNCHES, rf);
    red_ref_prefixes(RED_DOUBLE, 5, sizes, LAUNCHES, rd);
    for (int j = 0; j < LAUNCHES; j++) {
        assert_true(rf[j].sum == cpu_sum_f32(f, sizes[j]));
        assert_true(rd[j].sum == cpu_sum_f64(d, sizes[j]));
        assert_int_equal(red_check(RED_FLOAT, &rf[j], cpu_sum_f32(f, sizes[j]), 0, NULL, 0), 1);
        /* a launch that lost its last element fails */
        double lost = cpu_sum_f32(f, sizes[j]) - (double)f[sizes[j] - 1];
        assert_int_equal(red_check(RED_FLOAT, &rf[j], lost, 0, NULL, 0), 0);
    }
    free(f);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stress_references),
        cmocka_unit_test(test_stress_references_float_double),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
