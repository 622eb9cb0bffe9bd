/* test_options.c: the shared command line, every kind of bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "options.h"

static void parses_plain_and_suffixed_integers(void **state)
{
    (void)state;
    long long v;
    assert_int_equal(opts_parse_int("1000", &v), 0);
    assert_int_equal(v, 1000);
    assert_int_equal(opts_parse_int("64K", &v), 0);
    assert_int_equal(v, 65536);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_plain_and_suffixed_integers),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
