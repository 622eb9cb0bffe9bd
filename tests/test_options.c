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
    assert_int_equal(opts_parse_int("64k", &v), 0);
    assert_int_equal(v, 65536);
}

/* K = KiB = 1024 (never 1000), and sums: 4G+1, 2^32+1, 1GiB-1. */
static void parses_binary_units_and_sums(void **state)
{
    (void)state;
    long long v;
    struct { const char *text; long long want; } cases[] = {
        {"1KiB", 1024},
        {"1MiB", 1LL << 20},
        {"1mib", 1LL << 20},
        {"1GiB", 1LL << 30},
        {"3TiB", 3LL << 40},
        {"4G+1", (4LL << 30) + 1},
        {"2^32+1", (1LL << 32) + 1},
        {"1GiB-1", (1LL << 30) - 1},
        {"2^20+64K", (1LL << 20) + 65536},
        {"1K+1K+1", 2049},
        {"1M-2^19", 1LL << 19},
        {"-2^4", -16},
        {"+7", 7},
        {"2^62+2^62-1", LLONG_MAX},
        {"-2^63", LLONG_MIN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (opts_parse_int(cases[i].text, &v) != 0) fail_msg("refused '%s'", cases[i].text);
        if (v != cases[i].want)
            fail_msg("'%s' gave %lld, want %lld", cases[i].text, v, cases[i].want);
    }
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
                         "9000000000T", "+", "-",
                         "1KB", "1MB", "1Ki", "1KiBB", "1iB", "K", "1.5K", "1 K", "4G+",
                         "4G++1", "+-1", "2^64", "02^4", "2^4K", "1K1", "4G+1x", "2^62+2^62",
                         "-2^63-1", "1T*2", "1,000"};
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
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--help", NULL), 1);
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "-h", NULL), 1);
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--quick", "-h", NULL), 1);
    /* help wins over a bad option before it, and is not taken as a value */
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--bogus", "--help", NULL), 1);
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "stray", "-h", NULL), 1);
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--n=abc", "--help", NULL), 1);
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--n", "--help", NULL), 1);
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--quick", "--quick", "--help", NULL), 1);
    /* nothing is parsed: --help shows the table's defaults, not the line's */
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--n=5", "--help", NULL), 1);
    assert_int_equal(t_n, 100);
}

static void space_form_takes_the_next_word(void **state)
{
    (void)state;
    common_opts o;
    char err[256];
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--n", "1000", "--mode", "range",
                           "--seed", "7", "--device", "2", NULL), 0);
    assert_int_equal(t_n, 1000);
    assert_string_equal(t_mode, "range");
    assert_true(o.seed == 7);
    assert_int_equal(o.device, 2);
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--n", "4G+1", NULL), 0);
    assert_int_equal(t_n, (4LL << 30) + 1);
    /* an option is never taken for the value of the one before it */
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--n", "--quick", NULL), -1);
    assert_non_null(strstr(err, "--n needs a value"));
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--mode", NULL), -1);
    assert_non_null(strstr(err, "--mode needs a value"));
}

static void duplicates_are_refused(void **state)
{
    (void)state;
    common_opts o;
    char err[256];
    const char *lines[][3] = {
        {"--n=5", "--n=6", "--n"},
        {"--n=5", "--n=5", "--n"},
        {"--quick", "--quick", "--quick"},
        {"--verbose", "--verbose", "--verbose"},
        {"--seed=1", "--seed=2", "--seed"},
        {"--device=0", "--device=1", "--device"},
        {"--mode=range", "--mode=shmoo", "--mode"},
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        if (parse(&t_cfg, &o, err, sizeof err, lines[i][0], lines[i][1], NULL) != -1)
            fail_msg("'%s %s' was accepted", lines[i][0], lines[i][1]);
        if (!strstr(err, lines[i][2]) || !strstr(err, "twice"))
            fail_msg("'%s %s': %s", lines[i][0], lines[i][1], err);
    }
    /* the space form counts too */
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--seed", "1", "--seed=1", NULL), -1);
    assert_non_null(strstr(err, "--seed given twice"));
}

/* An unknown option names the closest one, or lists them all. */
static void unknown_options_suggest_the_closest(void **state)
{
    (void)state;
    common_opts o;
    char err[512];
    const char *typos[][2] = {
        {"--sed=3", "did you mean --seed?"},
        {"--seeed=3", "did you mean --seed?"},
        {"--blok=64", "did you mean --block?"},
        {"--bolck=64", "did you mean --block?"},     /* a transposition */
        {"--vrebose", "did you mean --verbose?"},
        {"--nn=4", "did you mean --n?"},
        {"--mod=range", "did you mean --mode?"},
        {"--verb", "did you mean --verbose?"},        /* a prefix */
        {"--qquick", "did you mean --quick?"},
        {"--jsno", "did you mean --json?"},
        {"--dev=1", "did you mean --device?"},
        {"--Reps=3", "did you mean --reps?"},
    };
    for (size_t i = 0; i < sizeof typos / sizeof typos[0]; i++) {
        if (parse(&t_cfg, &o, err, sizeof err, typos[i][0], NULL) != -1)
            fail_msg("'%s' was accepted", typos[i][0]);
        if (!strstr(err, typos[i][1])) fail_msg("'%s': %s", typos[i][0], err);
    }
    /* nothing close: the whole list, and no guess */
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "--bogus-option", NULL), -1);
    assert_null(strstr(err, "did you mean"));
    assert_non_null(strstr(err, "--bogus-option"));
    assert_non_null(strstr(err, "--help --device --quick --json --reps --seed --n --block "
                                "--verbose --mode"));
    /* one dash short */
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "-n=5", NULL), -1);
    assert_non_null(strstr(err, "two dashes: --n=5"));
    assert_int_equal(parse(&t_cfg, &o, err, sizeof err, "-x", NULL), -1);
    assert_non_null(strstr(err, "'-x'"));
}

static void closest_picks_the_nearest(void **state)
{
    (void)state;
    const char *names[] = {"n", "m", "block", "blocks", "variant", "x0", "y0"};
    const int k = 7;
    assert_string_equal(opts_closest("blocks", 6, names, k), "blocks");
    assert_string_equal(opts_closest("blockz", 6, names, k), "block");
    assert_string_equal(opts_closest("xx0", 3, names, k), "x0");
    assert_string_equal(opts_closest("yy0", 3, names, k), "y0");
    assert_string_equal(opts_closest("var", 3, names, k), "variant");
    assert_string_equal(opts_closest("nn", 2, names, k), "n");
    assert_null(opts_closest("zzzzzzzz", 8, names, k));
    assert_null(opts_closest("quick", 5, names, k));
    assert_null(opts_closest("x", 1, names, 0));
    /* a swap of two letters is one edit: "bolck" is block, not bolt */
    const char *swap[] = {"bolt", "block"};
    assert_string_equal(opts_closest("bolck", 5, swap, 2), "block");
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
    expect_error("--mode=fast", NULL, "quick|range|shmoo"); /* ... and the choices listed */
    expect_error("--mode=rnage", NULL, "did you mean range?");
    expect_error("--mode=", NULL, "--mode");
    expect_error("--help=1", NULL, "--help");
    expect_error("--n=1KB", NULL, "K = 1024");           /* no decimal units */
    expect_error("--n=2^35", NULL, "= 2^34");            /* the bound, as a power of two */
}

/* ---- --variant: the same rules in every sample ------------------------------ */

typedef struct {
    int flops;
    const char *name;   /* not the first field: the stride and offset matter */
    int is_reference;
} t_variant;

static const t_variant t_variants[] = {
    {1, "cublas", 1}, {2, "naive", 0}, {3, "smem_tile32", 0}, {4, "warptile_128x128x8", 0},
};
static const char *t_chosen;
static char t_choices[64];
static const opt_spec t_vopts[] = {
    OPT_STRING_SPEC("variant", "NAME", "run one variant", &t_chosen, t_choices),
};

static void variant_choices_come_from_the_table(void **state)
{
    (void)state;
    int len = opts_join_choices(t_choices, sizeof t_choices, "all|cpu", &t_variants[0].name,
                                sizeof t_variants[0], 4);
    assert_string_equal(t_choices, "all|cpu|cublas|naive|smem_tile32|warptile_128x128x8");
    assert_int_equal(len, (int)strlen(t_choices));
    /* too small: refused, emptied, and opts_parse then refuses to run */
    char small[20] = "junk";
    assert_int_equal(opts_join_choices(small, sizeof small, "all", &t_variants[0].name,
                                       sizeof t_variants[0], 4), -1);
    assert_string_equal(small, "");
    const char *chosen = "all";
    const opt_spec bad_opts[] = {OPT_STRING_SPEC("variant", "NAME", "one", &chosen, small)};
    opts_config cfg = {"tsample", "a test sample", bad_opts, 1, NULL, 0};
    common_opts o;
    char err[256];
    assert_int_equal(parse(&cfg, &o, err, sizeof err, NULL), -1);
    assert_non_null(strstr(err, "--variant"));
    assert_non_null(strstr(err, "internal error"));
    /* exactly fitting: no off-by-one */
    char exact[sizeof "all|cublas|naive"];
    assert_int_equal(opts_join_choices(exact, sizeof exact, "all", &t_variants[0].name,
                                       sizeof t_variants[0], 2), 16);
    assert_string_equal(exact, "all|cublas|naive");
    char tight[sizeof "all|cublas|naive" - 1];
    assert_int_equal(opts_join_choices(tight, sizeof tight, "all", &t_variants[0].name,
                                       sizeof t_variants[0], 2), -1);
}

static void variant_selection_means_the_same_everywhere(void **state)
{
    (void)state;
    /* all: everything; NAME: NAME and the reference; cpu: the CPU and the reference */
    assert_true(opts_variant_runs("all", "naive", 0));
    assert_true(opts_variant_runs_cpu("all"));
    assert_true(opts_variant_runs("naive", "naive", 0));
    assert_true(opts_variant_runs("naive", "cublas", 1));
    assert_false(opts_variant_runs("naive", "smem_tile32", 0));
    assert_false(opts_variant_runs_cpu("naive"));
    assert_true(opts_variant_runs("cpu", "cublas", 1));
    assert_false(opts_variant_runs("cpu", "naive", 0));
    assert_true(opts_variant_runs_cpu("cpu"));
    assert_false(opts_variant_runs("naiv", "naive", 0));
}

static void unknown_variants_list_the_names(void **state)
{
    (void)state;
    opts_join_choices(t_choices, sizeof t_choices, "all|cpu", &t_variants[0].name,
                      sizeof t_variants[0], 4);
    opts_config cfg = {"tsample", "a test sample", t_vopts, 1, NULL, 0};
    common_opts o;
    char err[512];
    t_chosen = "all";
    assert_int_equal(parse(&cfg, &o, err, sizeof err, "--variant=bogus", NULL), -1);
    assert_non_null(strstr(err, "all|cpu|cublas|naive|smem_tile32|warptile_128x128x8"));
    assert_int_equal(parse(&cfg, &o, err, sizeof err, "--variant=smem_tile3", NULL), -1);
    assert_non_null(strstr(err, "did you mean smem_tile32?"));
    assert_int_equal(parse(&cfg, &o, err, sizeof err, "--variant", "cpu", NULL), 0);
    assert_string_equal(t_chosen, "cpu");

    /* without a CPU baseline: --variant=cpu is refused, saying why */
    opts_join_choices(t_choices, sizeof t_choices, "all", &t_variants[0].name,
                      sizeof t_variants[0], 4);
    t_chosen = "all";
    assert_int_equal(parse(&cfg, &o, err, sizeof err, "--variant=cpu", NULL), -1);
    assert_non_null(strstr(err, "tsample has no CPU baseline"));
    assert_non_null(strstr(err, "all|cublas|naive|smem_tile32|warptile_128x128x8"));
    assert_string_equal(t_chosen, "all");
}

/* ---- the table itself ---------------------------------------------------------- */

static void a_broken_table_is_refused(void **state)
{
    (void)state;
    long long a = 0, b = 0;
    common_opts o;
    char err[256];
    const opt_spec twice[] = {OPT_INT_SPEC("n", "N", "one", &a, 0, 9),
                              OPT_INT_SPEC("n", "N", "two", &b, 0, 9)};
    opts_config cfg = {"tsample", "a test sample", twice, 2, NULL, 0};
    assert_int_equal(parse(&cfg, &o, err, sizeof err, NULL), -1);
    assert_non_null(strstr(err, "--n is in the table twice"));
    const opt_spec common[] = {OPT_INT_SPEC("seed", "N", "one", &a, 0, 9)};
    cfg.extra = common;
    cfg.n_extra = 1;
    assert_int_equal(parse(&cfg, &o, err, sizeof err, NULL), -1);
    assert_non_null(strstr(err, "--seed is a common option"));
    const opt_spec backwards[] = {OPT_INT_SPEC("n", "N", "one", &a, 9, 0)};
    cfg.extra = backwards;
    assert_int_equal(parse(&cfg, &o, err, sizeof err, NULL), -1);
    assert_non_null(strstr(err, "min > max"));
}

/* deviceQuery's case: options that mean nothing are not listed, and the
 * lines that are listed say what they do there. */
static const opt_spec t_query_opts[] = {
    OPT_COMMON_OMIT_SPEC("reps"),
    OPT_COMMON_OMIT_SPEC("seed"),
    OPT_COMMON_OMIT_SPEC("quick"),
    OPT_COMMON_TEXT_SPEC("device", "show device N only (default: every device)"),
    OPT_COMMON_TEXT_SPEC("json", "print one JSON document"),
};

static void omitted_common_options(void **state)
{
    (void)state;
    opts_config cfg = {"tquery", "a query", t_query_opts, 5, NULL, 1};
    common_opts o;
    char err[512];
    assert_int_equal(parse(&cfg, &o, err, sizeof err, "--reps=3", NULL), -1);
    assert_non_null(strstr(err, "--reps means nothing to tquery"));
    assert_int_equal(parse(&cfg, &o, err, sizeof err, "--seed", "3", NULL), -1);
    assert_non_null(strstr(err, "--seed means nothing to tquery"));
    /* --quick: still accepted (every harness passes it) */
    assert_int_equal(parse(&cfg, &o, err, sizeof err, "--quick", "--json", NULL), 0);
    assert_int_equal(o.json, 1);
    assert_int_equal(o.quick, 1);
    /* the suggestions do not offer what is omitted, nor the table's other entries */
    assert_int_equal(parse(&cfg, &o, err, sizeof err, "--rep=3", NULL), -1);
    assert_null(strstr(err, "--reps"));
    assert_int_equal(parse(&cfg, &o, err, sizeof err, "--bogus-option", NULL), -1);
    assert_non_null(strstr(err, "the options are: --help --device --json)"));

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    opts_usage(&cfg, f);
    fclose(f);
    assert_null(strstr(buf, "--reps"));
    assert_null(strstr(buf, "--seed"));
    assert_null(strstr(buf, "--quick"));
    assert_null(strstr(buf, "JSON lines"));
    assert_null(strstr(buf, "in turn"));
    assert_null(strstr(buf, "tquery options:"));   /* no options of its own */
    assert_non_null(strstr(buf, "--device=N|all         show device N only (default: every device)"));
    assert_non_null(strstr(buf, "--json                 print one JSON document"));
    free(buf);

    /* an entry that changes nothing it may change is a broken table */
    const opt_spec bad_omit[] = {OPT_COMMON_OMIT_SPEC("device")};
    const opt_spec bad_text[] = {OPT_COMMON_TEXT_SPEC("help", "x")};
    const opt_spec not_common[] = {OPT_COMMON_TEXT_SPEC("n", "x")};
    const opt_spec *bad[] = {bad_omit, bad_text, not_common};
    for (int i = 0; i < 3; i++) {
        opts_config c = {"tquery", "a query", bad[i], 1, NULL, 1};
        assert_int_equal(parse(&c, &o, err, sizeof err, NULL), -1);
        assert_non_null(strstr(err, "internal error"));
    }
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
    const char *must[] = {"-h, --help", "--device=N", "--quick", "--json", "--reps=N", "--seed=N",
                          "--n=N", "--block=T", "--verbose", "--mode=M", "quick|range|shmoo",
                          "default 100", "--name=VALUE or --name VALUE", "at most once",
                          "K = KiB = 1024", "1MiB", "4G+1", "2^20+1", "Exit codes"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        if (!strstr(buf, must[i])) fail_msg("usage lacks '%s':\n%s", must[i], buf);
    assert_null(strstr(buf, "--variant:"));   /* no --variant here */
    free(buf);
}

static char *usage_text(const opts_config *cfg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    opts_usage(cfg, f);
    fclose(f);
    return buf;
}

static void usage_defines_the_variant_choice(void **state)
{
    (void)state;
    opts_config cfg = {"tsample", "a test sample", t_vopts, 1, NULL, 0};
    t_chosen = "all";
    opts_join_choices(t_choices, sizeof t_choices, "all|cpu", &t_variants[0].name,
                      sizeof t_variants[0], 4);
    char *buf = usage_text(&cfg);
    assert_non_null(strstr(buf, "(all|cpu|cublas|naive|smem_tile32|warptile_128x128x8; default all)"));
    assert_non_null(strstr(buf, "cpu only the CPU\nbaseline (and the reference)"));
    free(buf);
    opts_join_choices(t_choices, sizeof t_choices, "all", &t_variants[0].name,
                      sizeof t_variants[0], 4);
    buf = usage_text(&cfg);
    assert_non_null(strstr(buf, "tsample does not have"));
    assert_null(strstr(buf, "cpu only the CPU"));
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
        cmocka_unit_test(parses_binary_units_and_sums),
        cmocka_unit_test_setup(defaults_without_arguments, reset),
        cmocka_unit_test_setup(parses_common_and_sample_options, reset),
        cmocka_unit_test_setup(help_is_reported, reset),
        cmocka_unit_test_setup(space_form_takes_the_next_word, reset),
        cmocka_unit_test_setup(duplicates_are_refused, reset),
        cmocka_unit_test_setup(unknown_options_suggest_the_closest, reset),
        cmocka_unit_test(closest_picks_the_nearest),
        cmocka_unit_test(variant_choices_come_from_the_table),
        cmocka_unit_test(variant_selection_means_the_same_everywhere),
        cmocka_unit_test(unknown_variants_list_the_names),
        cmocka_unit_test(a_broken_table_is_refused),
        cmocka_unit_test(omitted_common_options),
        cmocka_unit_test(usage_defines_the_variant_choice),
        cmocka_unit_test_setup(rejects_every_kind_of_bad_argument, reset),
        cmocka_unit_test_setup(device_all_only_where_allowed, reset),
        cmocka_unit_test_setup(usage_lists_every_option, reset),
        cmocka_unit_test(checked_bytes_refuses_overflow),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
