/* test_tfr_ref.c: the reference code this sample links through
 * reduce_ref_shared.c: the stress sequence it checks and the prefix sums of
 * many stress sizes in one pass (the path the --stress mode takes). */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stress_references),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
