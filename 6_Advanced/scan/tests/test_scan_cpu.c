/* test_scan_cpu.c: scan's host code on the CPU (make test builds and
 * runs every <folder>/tests/test_*.c with cmocka). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "scan_cpu.h"

/* Products that are exact in float, so equality is the right test; the
 * element past n must stay untouched. */
static void products(void **state)
{
    (void)state;
    const float a[4] = {1.5f, -0.25f, 3.0f, 7.0f};
    const float b[4] = {2.0f, 4.0f, -0.5f, 9.0f};
    float c[4] = {0, 0, 0, -42.0f};
    scan_cpu(a, b, c, 3);
    assert_true(c[0] == 3.0f);
    assert_true(c[1] == -1.0f);
    assert_true(c[2] == -1.5f);
    assert_true(c[3] == -42.0f);
}

static void empty_input_writes_nothing(void **state)
{
    (void)state;
    const float a[1] = {2.0f}, b[1] = {3.0f};
    float c[1] = {-42.0f};
    scan_cpu(a, b, c, 0);
    assert_true(c[0] == -42.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(products),
        cmocka_unit_test(empty_input_writes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
