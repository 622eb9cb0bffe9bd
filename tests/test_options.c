/* test_options.c: the shared command line, and every kind of bad input. */
#define _GNU_SOURCE /* open_memstream */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "options.h"

/* ---- integer values ---------------------------------------------------- */

static void parses_plain_and_suffixed_integers(void **state)
{
    (void)state;
    long long v;
    assert_int_equal(opts_parse_int("1000", &v), 0);
    assert_int_equal(v, 1000);
    assert_int_equal(opts_parse_int("0", &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(opts_parse_int("64K", &v), 0);
    assert_int_equal(v, 65536);
    assert_int_equal(opts_parse_int("256M", &v), 0);
    assert_int_equal(v, 256LL << 20);
    assert_int_equal(opts_parse_int("1G", &v), 0);
    assert_int_equal(v, 1LL << 30);
    assert_int_equal(opts_parse_int("2T", &v), 0);
    assert_int_equal(v, 2LL << 40);
    assert_int_equal(opts_parse_int("-5", &v), 0);
    assert_int_equal(v, -5);
}

static void parses_powers_of_two_with_offsets(void **state)
{
    (void)state;
    long long v;
    assert_int_equal(opts_parse_int("2^28", &v), 0);
    assert_int_equal(v, 1LL << 28);
    assert_int_equal(opts_parse_int("2^20+1", &v), 0);
    assert_int_equal(v, (1LL << 20) + 1);
    assert_int_equal(opts_parse_int("2^31-1", &v), 0);
    assert_int_equal(v, INT_MAX);
    assert_int_equal(opts_parse_int("2^0", &v), 0);
    assert_int_equal(v, 1);
    assert_int_equal(opts_parse_int("2^62", &v), 0);
    assert_int_equal(v, 1LL << 62);
}

static void rejects_malformed_integers(void **state)
{
    (void)state;
    long long v = 77;
    const char *bad[] = {"",     "abc",   "12abc", "1.5",   "1e9",  "0x10",  " 12",
                         "12 ",  "--3",   "2^",    "3^4",   "2^63", "2^-1",  "2^4+",
                         "2^4+-1", "KK",  "1KB",   "99999999999999999999", "9223372036854775808",
                         "9000000000T", "+", "-"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (opts_parse_int(bad[i], &v) == 0) fail_msg("accepted '%s' as %lld", bad[i], v);
    }
    assert_int_equal(opts_parse_int(NULL, &v), -1);
}

static void accepts_the_extreme_values(void **state)
{
    (void)state;
    long long v;
    assert_int_equal(opts_parse_int("9223372036854775807", &v), 0);
    assert_true(v == LLONG_MAX);
    assert_int_equal(opts_parse_int("-9223372036854775808", &v), 0);
    assert_true(v == LLONG_MIN);
}

/* ---- full command lines ------------------------------------------------ */

static long long t_n;
static long long t_block;
static int t_verbose;
static const char *t_mode;

static const opt_spec t_opts[] = {
    OPT_INT_SPEC("n", "N", "elements", &t_n, 1, 1LL << 34),
    OPT_INT_SPEC("block", "T", "threads", &t_block, 32, 1024),
    OPT_FLAG_SPEC("verbose", "more output", &t_verbose),
    OPT_STRING_SPEC("mode", "M", "mode", &t_mode, "quick|range|shmoo"),
};
static const opts_config t_cfg = {"tsample", "a test sample", t_opts, 4, NULL, 0};

static int reset(void **state)
{
    (void)state;
    t_n = 100;
    t_block = 256;
    t_verbose = 0;
    t_mode = "quick";
    return 0;
}

static int parse(const opts_config *cfg, common_opts *o, char *err, size_t errlen, ...)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"tsample";
    va_list ap;
    va_start(ap, errlen);
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL && argc < 31) argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    return opts_parse(cfg, argc, argv, o, err, errlen);
}

static void defaults_without_arguments(void **state)
{
    (void)state;
    common_opts o;
    char err[256];
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, NULL), 0);
    assert_int_equal(o.device, 0);
    assert_int_equal(o.device_given, 0);
    assert_int_equal(o.quick, 0);
    assert_int_equal(o.json, 0);
    assert_int_equal(o.reps, OPTS_DEFAULT_REPS);
    assert_true(o.seed == OPTS_DEFAULT_SEED);
    assert_int_equal(t_n, 100);
}

static void parses_common_and_sample_options(void **state)
{
    (void)state;
    common_opts o;
    char err[256];
    int rc = parse(&t_cfg, &o, err, sizeof err, "--device=1", "--quick", "--json", "--reps=7",
                   "--seed", "42", "--n=2^20+1", "--block", "128", "--verbose", "--mode=shmoo",
                   NULL);
    assert_int_equal(rc, 0);
    assert_int_equal(o.device, 1);
    assert_int_equal(o.device_given, 1);
    assert_int_equal(o.quick, 1);
    assert_int_equal(o.json, 1);
    assert_int_equal(o.reps, 7);
    assert_true(o.seed == 42);
    assert_int_equal(t_n, (1 << 20) + 1);
    assert_int_equal(t_block, 128);
    assert_int_equal(t_verbose, 1);
    assert_string_equal(t_mode, "shmoo");
}

static void help_is_reported(void **state)
{
    (void)state;
    common_opts o;
    char err[256];
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--n=5", "--help", NULL), 1);
}

/* Each bad command line must fail, and the message must name the option. */
static void expect_error(const char *arg, const char *arg2, const char *must_mention)
{
    common_opts o;
    char err[256];
    int rc = parse(&t_cfg, &o, err, sizeof err, arg, arg2, NULL);
    if (rc != -1) fail_msg("'%s %s' was accepted", arg, arg2 ? arg2 : "");
    if (strstr(err, must_mention) == NULL)
        fail_msg("message for '%s' does not mention '%s': %s", arg, must_mention, err);
}

static void rejects_every_kind_of_bad_argument(void **state)
{
    (void)state;
    expect_error("--bogus", NULL, "--bogus");            /* unknown option */
    expect_error("--bogus=3", NULL, "--bogus");
    expect_error("-n", NULL, "-n");                      /* single dash */
    expect_error("positional", NULL, "positional");      /* stray argument */
    expect_error("--", NULL, "--");
    expect_error("--n=abc", NULL, "--n");                /* not a number */
    expect_error("--n=", NULL, "--n");                   /* empty */
    expect_error("--n", NULL, "--n");                    /* missing value */
    expect_error("--n=-5", NULL, "--n");                 /* negative */
    expect_error("--n=0", NULL, "--n");                  /* below the minimum */
    expect_error("--n=2^40", NULL, "--n");               /* absurd size */
    expect_error("--n=99999999999999999999999", NULL, "--n"); /* overflow */
    expect_error("--block=16", NULL, "--block");
    expect_error("--block=2048", NULL, "--block");
    expect_error("--reps=0", NULL, "--reps");
    expect_error("--reps=-1", NULL, "--reps");
    expect_error("--reps=x", NULL, "--reps");
    expect_error("--reps=1000000", NULL, "--reps");
    expect_error("--seed=-1", NULL, "--seed");
    expect_error("--seed=abc", NULL, "--seed");
    expect_error("--device=-1", NULL, "--device");
    expect_error("--device=all", NULL, "--device");      /* not allowed here */
    expect_error("--device=1x", NULL, "--device");
    expect_error("--quick=1", NULL, "--quick");          /* flags take no value */
    expect_error("--verbose=yes", NULL, "--verbose");
    expect_error("--mode=fast", NULL, "--mode");         /* not a choice */
    expect_error("--mode=", NULL, "--mode");
}

static void device_all_only_where_allowed(void **state)
{
    (void)state;
    opts_config cfg = t_cfg;
    cfg.device_all_ok = 1;
    common_opts o;
    char err[256];
    assert_int_equal(parse(&cfg, &o, err, sizeof err, "--device=all", NULL), 0);
    assert_int_equal(o.all_devices, 1);
    assert_int_equal(parse(&cfg, &o, err, sizeof err, "--device=3", NULL), 0);
    assert_int_equal(o.all_devices, 0);
    assert_int_equal(o.device, 3);
}

static void usage_lists_every_option(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    opts_usage(&t_cfg, f);
    fclose(f);
    const char *must[] = {"--help", "--device=N", "--quick", "--json", "--reps=N", "--seed=N",
                          "--n=N", "--block=T", "--verbose", "--mode=M", "quick|range|shmoo",
                          "default 100"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        if (!strstr(buf, must[i])) fail_msg("usage lacks '%s':\n%s", must[i], buf);
    free(buf);
}

/* ---- buffer sizes ------------------------------------------------------- */

static void checked_bytes_refuses_overflow(void **state)
{
    (void)state;
    size_t b;
    char err[256];
    assert_int_equal(opts_checked_bytes("--n", 1000, 4, 3, 0, &b, err, sizeof err), 0);
    assert_int_equal(b, 4000);
    assert_int_equal(opts_checked_bytes("--n", LLONG_MAX, 4, 1, 0, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "--n"));
    assert_int_equal(opts_checked_bytes("--n", 1LL << 61, 4, 4, 0, &b, err, sizeof err), -1);
    assert_int_equal(opts_checked_bytes("--n", -1, 4, 1, 0, &b, err, sizeof err), -1);
    /* a limit: 3 buffers of 2^30 floats = 12 GiB > 8 GiB */
    assert_int_equal(opts_checked_bytes("--n", 1LL << 30, 4, 3, 8ULL << 30, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "limit"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_plain_and_suffixed_integers),
        cmocka_unit_test(parses_powers_of_two_with_offsets),
        cmocka_unit_test(rejects_malformed_integers),
        cmocka_unit_test(accepts_the_extreme_values),
        cmocka_unit_test_setup(defaults_without_arguments, reset),
        cmocka_unit_test_setup(parses_common_and_sample_options, reset),
        cmocka_unit_test_setup(help_is_reported, reset),
        cmocka_unit_test_setup(rejects_every_kind_of_bad_argument, reset),
        cmocka_unit_test_setup(device_all_only_where_allowed, reset),
        cmocka_unit_test_setup(usage_lists_every_option, reset),
        cmocka_unit_test(checked_bytes_refuses_overflow),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
