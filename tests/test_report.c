/* test_report.c: RESULT lines and JSON records, from the one formatter. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "json_valid.h"
#include "report.h"

static void numbers_have_four_significant_digits(void **state)
{
    (void)state;
    struct { double v; const char *s; } cases[] = {
        {4271.3, "4271"}, {88.74, "88.74"}, {88.7, "88.7"}, {0.251, "0.251"},
        {0.0123, "0.0123"}, {100, "100"}, {1e9, "1000000000"}, {0, "0"},
        {-2.5, "-2.5"}, {1.23456, "1.235"}, {3.0, "3"}, {-0.0, "0"},
        {NAN, "nan"}, {INFINITY, "inf"}, {-INFINITY, "-inf"}, {1e-7, "0.0000001"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rec_format_number(cases[i].v, buf, sizeof buf);
        if (strcmp(buf, cases[i].s) != 0) fail_msg("%g -> '%s', want '%s'", cases[i].v, buf, cases[i].s);
    }
}

static void make_record(result_rec *r)
{
    report_init("reduction", 0);
    rec_begin(r, "warp_shuffle");
    rec_int(r, "n", 268435456);
    rec_str(r, "status", "PASS");
    rec_perf(r, 0.251, "gbps", 4271.3, 4814.0, "cub", 4373.0);
}

static void text_line_matches_the_convention(void **state)
{
    (void)state;
    result_rec r;
    make_record(&r);
    char line[512];
    assert_true(rec_format_text(&r, line, sizeof line) > 0);
    assert_string_equal(line, "RESULT sample=reduction variant=warp_shuffle n=268435456 "
                              "status=PASS time_ms=0.251 gbps=4271 pct_peak=88.73 ref=cub "
                              "pct_ref=97.67");
}

static void json_record_has_the_same_fields_in_order(void **state)
{
    (void)state;
    result_rec r;
    make_record(&r);
    char line[512], err[128];
    int n = rec_format_json(&r, line, sizeof line);
    assert_true(n > 0);
    assert_string_equal(line, "{\"sample\":\"reduction\",\"variant\":\"warp_shuffle\","
                              "\"n\":268435456,\"status\":\"PASS\",\"time_ms\":0.251,"
                              "\"gbps\":4271,\"pct_peak\":88.73,\"ref\":\"cub\",\"pct_ref\":97.67}");
    assert_true(json_valid(line, (size_t)n, err, sizeof err));
}

static void strings_are_escaped_and_nan_is_null(void **state)
{
    (void)state;
    result_rec r;
    report_init("s", 0);
    rec_begin(&r, "v");
    rec_str(&r, "note", "a \"quoted\" word\\ and\ttab");
    rec_num(&r, "x", NAN);
    rec_num(&r, "y", INFINITY);
    rec_str(&r, "empty", "");
    char line[512], err[128];
    int n = rec_format_json(&r, line, sizeof line);
    assert_true(n > 0);
    assert_true(json_valid(line, (size_t)n, err, sizeof err));
    assert_non_null(strstr(line, "\"x\":null"));
    assert_non_null(strstr(line, "\"y\":null"));
    assert_non_null(strstr(line, "\\\"quoted\\\""));
    assert_non_null(strstr(line, "\\t"));
    /* text: values with spaces or quotes are quoted, so key=value stays parseable */
    assert_true(rec_format_text(&r, line, sizeof line) > 0);
    assert_non_null(strstr(line, "note=\"a \\\"quoted\\\" word\\\\ and\\ttab\""));
    assert_non_null(strstr(line, "x=nan"));
    assert_non_null(strstr(line, "empty=\"\""));
}

static void no_pct_fields_without_peak_or_reference(void **state)
{
    (void)state;
    result_rec r;
    report_init("s", 0);
    rec_begin(&r, "cpu");
    rec_perf(&r, 12.5, "gflops", 3.2, 0, NULL, 0);
    char line[256];
    assert_true(rec_format_text(&r, line, sizeof line) > 0);
    assert_string_equal(line, "RESULT sample=s variant=cpu time_ms=12.5 gflops=3.2");
}

static void too_small_buffer_is_an_error(void **state)
{
    (void)state;
    result_rec r;
    make_record(&r);
    char line[20];
    assert_int_equal(rec_format_text(&r, line, sizeof line), -1);
    assert_int_equal(rec_format_json(&r, line, sizeof line), -1);
}

static void field_overflow_is_bounded(void **state)
{
    (void)state;
    result_rec r;
    report_init("s", 0);
    rec_begin(&r, "v");
    for (int i = 0; i < REC_MAX_FIELDS + 5; i++) rec_int(&r, "k", i);
    assert_int_equal(r.n, REC_MAX_FIELDS);
}

/* Capture stdout around a call, to test what rec_emit and report_finish print. */
static char *capture(void (*fn)(void))
{
    static char buf[4096];
    fflush(stdout);
    FILE *tmp = tmpfile();
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    fn();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, sizeof buf - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return buf;
}

static int finish_rc;
static void emit_pass_then_fail(void)
{
    result_rec r;
    report_init("demo", 0);
    rec_begin(&r, "a");
    rec_str(&r, "status", "PASS");
    rec_emit(&r);
    rec_begin(&r, "b");
    rec_str(&r, "status", "FAIL");
    rec_emit(&r);
    finish_rc = report_finish();
}

static void a_fail_record_fails_the_sample(void **state)
{
    (void)state;
    char *out = capture(emit_pass_then_fail);
    assert_int_equal(finish_rc, 1);
    assert_non_null(strstr(out, "RESULT sample=demo variant=a status=PASS\n"));
    const char *last = strstr(out, "demo: FAIL\n");
    assert_non_null(last);
    assert_string_equal(last, "demo: FAIL\n");   /* and it is the last line */
}

static void emit_json_pass(void)
{
    result_rec r;
    report_init("demo", 1);
    rec_begin(&r, "a");
    rec_str(&r, "status", "PASS");
    rec_num(&r, "gbps", 100.5);
    rec_emit(&r);
    finish_rc = report_finish();
}

static void json_mode_prints_only_json_lines(void **state)
{
    (void)state;
    char *out = capture(emit_json_pass);
    char err[128];
    assert_int_equal(finish_rc, 0);
    assert_true(json_lines_valid(out, strlen(out), err, sizeof err));
    assert_non_null(strstr(out, "{\"sample\":\"demo\",\"status\":\"PASS\"}\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_have_four_significant_digits),
        cmocka_unit_test(text_line_matches_the_convention),
        cmocka_unit_test(json_record_has_the_same_fields_in_order),
        cmocka_unit_test(strings_are_escaped_and_nan_is_null),
        cmocka_unit_test(no_pct_fields_without_peak_or_reference),
        cmocka_unit_test(too_small_buffer_is_an_error),
        cmocka_unit_test(field_overflow_is_bounded),
        cmocka_unit_test(a_fail_record_fails_the_sample),
        cmocka_unit_test(json_mode_prints_only_json_lines),
    };
    return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
