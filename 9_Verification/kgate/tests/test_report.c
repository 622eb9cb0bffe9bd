/* test_report.c: the labels parser, the confusion matrix and rates, the text
 * report and the JSON report (checked with the strict validator). */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json_valid.h"
#include "kg_report.h"

static void test_labels_ok(void **s)
{
    (void)s;
    const char *text = "# header\n\n"
                       "a.cu\tvector_add\tPASS\tnone\n"
                       "b.md\tsgemm\tL4\tnaive \"slow\" kernel\r\n"
                       "c.cu\thistogram256\tEXTERNAL\n";
    kg_label l[8];
    char err[128];
    assert_int_equal(kg_labels_parse(text, l, 8, err, sizeof err), 3);
    assert_string_equal(l[0].file, "a.cu");
    assert_int_equal(l[0].expected, KG_V_PASS);
    assert_string_equal(l[1].task, "sgemm");
    assert_string_equal(l[1].defect, "naive \"slow\" kernel");
    assert_int_equal(l[2].expected, KG_V_EXTERNAL);
    assert_string_equal(l[2].defect, "");
    assert_ptr_equal(kg_labels_find(l, 3, "b.md"), &l[1]);
    assert_null(kg_labels_find(l, 3, "zz.cu"));
    assert_int_equal(kg_labels_parse("", l, 8, err, sizeof err), 0);
}

static void test_labels_bad(void **s)
{
    (void)s;
    kg_label l[2];
    char err[128];
    assert_int_equal(kg_labels_parse("a.cu\tvector_add\tL9\tx\n", l, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 1"));
    assert_non_null(strstr(err, "L9"));
    assert_int_equal(kg_labels_parse("#\na.cu vector_add PASS\n", l, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 2"));
    assert_int_equal(kg_labels_parse("a.cu\tconv\tPASS\tx\n", l, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown task"));
    assert_int_equal(kg_labels_parse("a\trelu\tPASS\nb\trelu\tPASS\nc\trelu\tPASS\n", l, 2, err,
                                     sizeof err), -1);
    assert_int_equal(kg_labels_parse("a\trelu\tSTATIC-OK\n", l, 2, err, sizeof err), -1);
}

static kg_cand mk(int expected, int verdict, double t)
{
    kg_cand c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "x.cu");
    snprintf(c.task, sizeof c.task, "relu");
    c.expected = expected;
    c.verdict = verdict;
    c.t_total = t;
    return c;
}

static void test_summary_rates(void **s)
{
    (void)s;
    /* 4 bad: 3 stopped (one by a different class than labeled); 4 good: 1 stopped */
    kg_cand c[9] = {mk(KG_V_L3, KG_V_L3, 1.0),   mk(KG_V_L2, KG_V_L3, 2.0),
                    mk(KG_V_P0, KG_V_P0, 0.1),   mk(KG_V_L4, KG_V_PASS, 3.0),
                    mk(KG_V_PASS, KG_V_PASS, 0.5), mk(KG_V_PASS, KG_V_L4, 0.7),
                    mk(KG_V_EXTERNAL, KG_V_EXTERNAL, 0.9), mk(KG_V_PASS, KG_V_PASS, 0.8),
                    mk(-1, KG_V_L1, 0.2)};
    kg_summary sm;
    kg_summarize(c, 9, 4.0, &sm);
    assert_int_equal(sm.n, 9);
    assert_int_equal(sm.n_labeled, 8);
    assert_int_equal(sm.bad, 4);
    assert_int_equal(sm.bad_stopped, 3);
    assert_int_equal(sm.good, 4);
    assert_int_equal(sm.good_stopped, 1);
    assert_true(fabs(sm.interception - 0.75) < 1e-12);
    assert_true(fabs(sm.false_kill - 0.25) < 1e-12);
    assert_int_equal(sm.m[KG_V_L2][KG_V_L3], 1);
    assert_int_equal(sm.m[KG_V_PASS][KG_V_PASS], 2);
    assert_int_equal(sm.verdict_count[KG_V_L1], 1);
    assert_true(fabs(sm.median_s - 0.8) < 1e-12);   /* 9 values: the 5th */
    kg_summarize(c, 8, 4.0, &sm);                   /* even count: mean of the middle two */
    assert_true(fabs(sm.median_s - 0.85) < 1e-12);
    kg_summarize(c, 0, 0.0, &sm);
    assert_true(isnan(sm.interception) && isnan(sm.false_kill));
    assert_true(sm.median_s == 0.0);
}

static char *render(void (*fn)(FILE *, const void *), const void *arg, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    fn(f, arg);
    fclose(f);
    char *copy = strdup(buf);   /* (a plain heap string: gcc cannot follow memstream's buffer) */
    *len = strlen(copy);
    free(buf);
    return copy;
}

static void print_sum(FILE *f, const void *a) { kg_print_summary(f, (const kg_summary *)a); }
static void print_cand(FILE *f, const void *a) { kg_print_candidate(f, (const kg_cand *)a); }

static void test_text_report(void **s)
{
    (void)s;
    kg_cand c[2] = {mk(KG_V_L3, KG_V_L3, 1.0), mk(KG_V_PASS, KG_V_L4, 2.0)};
    c[1].compiled = 1;
    c[1].ptx.n_funcs = 1;
    c[1].ptx.max_regs = 40;
    c[1].ptx.spill_stores = 8;
    c[1].cand_ms_mid = 2.0;
    c[1].ref_ms_mid = 0.5;
    kg_summary sm;
    kg_summarize(c, 2, 3.0, &sm);
    size_t len;
    char *t = render(print_sum, &sm, &len);
    assert_non_null(strstr(t, "interception (bad stopped / bad): 1 / 1 = 100.0%"));
    assert_non_null(strstr(t, "false kills (good stopped / good): 1 / 1 = 100.0%"));
    assert_non_null(strstr(t, "median seconds per candidate"));
    free(t);
    t = render(print_cand, &c[1], &len);
    assert_non_null(strstr(t, "MISMATCH"));
    assert_non_null(strstr(t, "FLAG: spills"));
    assert_non_null(strstr(t, "25%"));
    free(t);
    t = render(print_cand, &c[0], &len);
    assert_null(strstr(t, "MISMATCH"));
    free(t);
}

/* A verdict or label out of range (a forged record, a bug) is counted
 * nowhere: the old gate wrote m[expected][43] (a wrong cell) and
 * m[expected][100000] (out of bounds). Strings of a record that are not
 * NUL-terminated are printed only up to their field. */
static void test_forged_records(void **s)
{
    (void)s;
    kg_cand c[5] = {mk(KG_V_L3, 43, 1.0), mk(KG_V_PASS, 100000, 1.0), mk(KG_V_PASS, -7, 1.0),
                    mk(99, KG_V_PASS, 1.0), mk(KG_V_L3, KG_V_L3, 1.0)};
    kg_summary sm;
    kg_summarize(c, 5, 1.0, &sm);
    assert_int_equal(sm.n_labeled, 1);   /* only the well-formed one */
    assert_int_equal(sm.bad, 1);
    assert_int_equal(sm.bad_stopped, 1);
    assert_int_equal(sm.good, 0);
    int total = 0;
    for (int e = 0; e < KG_V_COUNT; e++)
        for (int v = 0; v < KG_V_COUNT; v++) total += sm.m[e][v];
    assert_int_equal(total, 1);
    int vc = 0;
    for (int v = 0; v < KG_V_COUNT; v++) vc += sm.verdict_count[v];
    assert_int_equal(vc, 2);
    /* unterminated strings everywhere */
    kg_cand u = mk(KG_V_PASS, 100000, 1.0);
    memset(u.name, 'N', sizeof u.name);
    memset(u.task, 'T', sizeof u.task);
    memset(u.reason, 'R', sizeof u.reason);
    memset(u.rules, 'X', sizeof u.rules);
    memset(u.sandbox, 'S', sizeof u.sandbox);
    size_t len;
    char *t = render(print_cand, &u, &len);
    assert_non_null(strstr(t, "? "));       /* the verdict prints as ? */
    const char *why = strstr(t, "why: ");
    assert_non_null(why);
    size_t run = strspn(why + 5, "R");
    assert_int_equal(run, sizeof u.reason);   /* exactly the field, not beyond */
    free(t);
}

/* In a partial run STATIC-OK is a mismatch only for labels of the stages
 * that ran. */
static void test_partial_mismatch(void **s)
{
    (void)s;
    kg_cand p0 = mk(KG_V_P0, KG_V_STATIC_OK, 1.0), l1 = mk(KG_V_L1, KG_V_STATIC_OK, 1.0);
    size_t len;
    kg_report_partial_last = KG_V_P0;
    char *t = render(print_cand, &p0, &len);
    assert_non_null(strstr(t, "MISMATCH"));
    free(t);
    t = render(print_cand, &l1, &len);
    assert_null(strstr(t, "MISMATCH"));
    free(t);
    kg_report_partial_last = KG_V_L1;
    t = render(print_cand, &l1, &len);
    assert_non_null(strstr(t, "MISMATCH"));
    free(t);
    kg_report_partial_last = KG_V_P0;
}

static void test_json_escape(void **s)
{
    (void)s;
    char b[64];
    kg_json_escape("a\"b\\c\nd\te\x01", b, sizeof b);
    assert_string_equal(b, "a\\\"b\\\\c\\nd\\te\\u0001");
    kg_json_escape("\"\"\"\"", b, 5);   /* never splits an escape */
    assert_string_equal(b, "\\\"\\\"");
    kg_json_escape(NULL, b, sizeof b);
    assert_string_equal(b, "");
}

static void test_json_report_valid(void **s)
{
    (void)s;
    kg_cand c[3] = {mk(KG_V_L3, KG_V_L3, 1.0), mk(-1, KG_V_PASS, 2.0),
                    mk(KG_V_PASS, KG_V_PASS, NAN)};
    snprintf(c[0].reason, sizeof c[0].reason, "wrong \"result\" at n=37\n\tfirst: nan");
    snprintf(c[0].rules, sizeof c[0].rules, "KG-IDX(P1)@3");
    c[1].compiled = 1;
    c[1].cand_ms_mid = 1.0;
    c[1].ref_ms_mid = 0.9;
    kg_summary sm;
    kg_summarize(c, 3, 1.0, &sm);
    kg_run_info info = {"bubblewrap (test)", "NVIDIA H200 \"test\"", "90", "full", 2026};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(kg_write_json(f, &info, c, 3, &sm), 0);
    fclose(f);
    char err[200];
    if (!json_valid(buf, len, err, sizeof err)) fail_msg("invalid JSON: %s\n%s", err, buf);
    assert_non_null(strstr(buf, "\"interception\":1"));
    assert_non_null(strstr(buf, "\"label\":null"));
    assert_non_null(strstr(buf, "\"confusion\":{\"P0\":{"));
    free(buf);
    /* no candidates at all: still one valid document */
    kg_summarize(c, 0, 0.0, &sm);
    buf = NULL;
    f = open_memstream(&buf, &len);
    kg_write_json(f, &info, c, 0, &sm);
    fclose(f);
    assert_true(json_valid(buf, len, err, sizeof err));
    assert_non_null(strstr(buf, "\"interception\":null"));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_labels_ok),    cmocka_unit_test(test_labels_bad),
        cmocka_unit_test(test_summary_rates), cmocka_unit_test(test_text_report),
        cmocka_unit_test(test_json_escape),  cmocka_unit_test(test_json_report_valid),
        cmocka_unit_test(test_forged_records), cmocka_unit_test(test_partial_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
