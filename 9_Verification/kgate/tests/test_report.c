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
#include "../sanitize/sanitize.h"

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
    assert_int_equal(kg_labels_parse("a\trelu\tSKIPPED\n", l, 2, err, sizeof err), -1);
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
    /* the timing line says when the judge's clock replaced the harness's figure */
    t = render(print_cand, &c[1], &len);
    assert_null(strstr(t, "judge's clock"));
    free(t);
    c[1].wall_batches = 2;
    c[1].timed_batches = 7;
    c[1].allow_ms = 0.21;
    c[1].rep_ms_mid = 1.5;
    t = render(print_cand, &c[1], &len);
    if (!strstr(t, "[judge's clock in 2 of 7 batches, allowance 0.21 ms; the harness reported mid 1.5 ms]"))
        fail_msg("timing line: %s", t);
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
    /* control bytes as the text report writes them: the decoded string says \x0a */
    assert_string_equal(b, "a\\\"b\\\\c\\\\x0ad\\\\x09e\\\\x01");
    kg_json_escape("\"\"\"\"", b, 5);   /* never splits an escape */
    assert_string_equal(b, "\\\"\\\"");
    kg_json_escape(NULL, b, sizeof b);
    assert_string_equal(b, "");
}

/* What a candidate controls (its file name, a compiler's or its own
 * message) reaches the text report and the feedback with every control
 * byte and non-ASCII byte as \xNN: no terminal escape (ESC [2J, an OSC
 * sequence), no CR that overwrites the line, no newline that forges a
 * line of the report, no NUL, no bidi override (U+202E). */
static void test_escapes(void **s)
{
    (void)s;
    char b[64];
    kg_text_escape("ok \x1b[2J\r\xe2\x80\xae!", 100, b, sizeof b);
    assert_string_equal(b, "ok \\x1b[2J\\x0d\\xe2\\x80\\xae!");
    kg_text_escape("abcdef", 3, b, sizeof b);   /* a field's size bounds what is read */
    assert_string_equal(b, "abc");
    kg_text_escape("\x01\x01\x01", 3, b, 9);   /* never a cut escape */
    assert_string_equal(b, "\\x01\\x01");
    kg_cand c = mk(KG_V_L1, KG_V_L1, 1.0);
    snprintf(c.name, sizeof c.name, "evil\x1b]52;c;SGVsbG8=\x07.cu");
    snprintf(c.reason, sizeof c.reason, "compile error: #error \x1b[2J\rPASS relu_basic.cu\nPASS forged.cu");
    c.n_compile_errors = 1;
    snprintf(c.compile_errors[0], sizeof c.compile_errors[0], "x.cu:3: error: \xe2\x80\xae gnp.exe");
    snprintf(c.notes, sizeof c.notes, "tab\there");
    size_t len;
    char *t = render(print_cand, &c, &len);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)t[i];
        if (ch != '\n' && (ch < 0x20 || ch >= 0x7f)) fail_msg("byte 0x%02x at %zu in the text report:\n%s", ch, i, t);
    }
    assert_non_null(strstr(t, "evil\\x1b]52;c;SGVsbG8=\\x07.cu"));
    assert_non_null(strstr(t, "#error \\x1b[2J\\x0dPASS relu_basic.cu\\x0aPASS forged.cu"));
    assert_null(strstr(t, "\nPASS"));   /* no forged line */
    assert_non_null(strstr(t, "\\xe2\\x80\\xae gnp.exe"));
    free(t);
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(kg_write_feedback(f, &c, 1), 0);
    fclose(f);
    char err[200];
    if (!json_valid(buf, len - 1, err, sizeof err)) fail_msg("invalid: %s\n%s", err, buf);
    for (size_t i = 0; i + 1 < len; i++)
        if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f) fail_msg("byte 0x%02x in the feedback", buf[i]);
    assert_null(strstr(buf, "\\u001b"));   /* a JSON escape a reader would decode back to ESC */
    assert_non_null(strstr(buf, "\"candidate\":\"evil\\\\x1b]52;c;SGVsbG8=\\\\x07.cu\""));
    free(buf);
}

/* A scan or compile out of wall-clock time twice is the gate's failure:
 * SKIPPED, in no verdict count and no rate, counted and said apart. */
static void test_gate_failures(void **s)
{
    (void)s;
    kg_cand c[3] = {mk(KG_V_L3, KG_V_L3, 1.0), mk(KG_V_PASS, KG_V_SKIPPED, 1.0), mk(KG_V_PASS, KG_V_PASS, 1.0)};
    c[1].gate_failure = 1;
    kg_summary sm;
    kg_summarize(c, 3, 3.0, &sm);
    assert_int_equal(sm.gate_failures, 1);
    assert_int_equal(sm.verdict_count[KG_V_SKIPPED], 0);
    assert_int_equal(sm.good, 1);
    size_t len;
    char *t = render(print_sum, &sm, &len);
    assert_non_null(strstr(t, "gate failures (SKIPPED: the gate could not judge them, no verdict on the candidates): 1"));
    free(t);
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    kg_run_info info = {"bwrap", "H200", "90", "full", 1, "default"};
    assert_int_equal(kg_write_json(f, &info, c, 3, &sm), 0);
    fclose(f);
    assert_non_null(strstr(buf, "\"gate_failures\":1"));
    assert_non_null(strstr(buf, "\"gate_failure\":true"));
    assert_non_null(strstr(buf, "not judged (the gate's own failure"));
    free(buf);
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
    c[1].t_ready = 0.625;      /* where the seconds went */
    c[1].t_gpu_wait = 0.25;
    c[1].t_quiesce = 0.125;
    c[1].t_own_start = 0.0625;
    kg_summary sm;
    kg_summarize(c, 3, 1.0, &sm);
    kg_run_info info = {"bubblewrap (test)", "NVIDIA H200 \"test\"", "90", "full", 2026, "default"};
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
    assert_non_null(strstr(buf, "\"timing_batches_judge_clock\":0"));
    assert_non_null(strstr(buf, "\"timing_allowance_ms\":"));
    assert_non_null(strstr(buf, "\"seconds_to_ready\":0.625,\"seconds_gpu_wait\":0.25,"
                                "\"seconds_other_startups\":0.125,\"seconds_own_startup_wait\":0.0625"));
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

/* The device matrix: one verdict, disagreements flagged. */
static void test_combine_devices(void **s)
{
    (void)s;
    int d = -1;
    int same[] = {KG_V_PASS, KG_V_PASS};
    assert_int_equal(kg_combine_devices(same, 2, &d), KG_V_PASS);
    assert_int_equal(d, 0);
    int one[] = {KG_V_L3};
    assert_int_equal(kg_combine_devices(one, 1, &d), KG_V_L3);
    assert_int_equal(d, 0);
    /* a stop on any device stops the candidate */
    int slow[] = {KG_V_PASS, KG_V_L4};
    assert_int_equal(kg_combine_devices(slow, 2, &d), KG_V_L4);
    assert_int_equal(d, 1);
    /* the first stop in P0, L1 .. L4 order */
    int two[] = {KG_V_L4, KG_V_PASS, KG_V_L2};
    assert_int_equal(kg_combine_devices(two, 3, &d), KG_V_L2);
    assert_int_equal(d, 1);
    /* no stop: PASS before a skipped device */
    int sk[] = {KG_V_SKIPPED, KG_V_PASS};
    assert_int_equal(kg_combine_devices(sk, 2, &d), KG_V_PASS);
    assert_int_equal(d, 1);
    assert_int_equal(kg_combine_devices(sk, 0, &d), -1);
}

/* What each policy profile decides, from one run under the default policy. */
static void test_policy_figures(void **s)
{
    (void)s;
    kg_cand c[5];
    /* a good one a printf makes P0 under published and strict */
    c[0] = mk(KG_V_PASS, KG_V_PASS, 1.0);
    c[0].policy_stops = (1u << KG_POLICY_PUBLISHED) | (1u << KG_POLICY_STRICT);
    c[0].t_static = 0.25;
    /* a bad one the default stops statically: lenient cannot know its dynamic verdict */
    c[1] = mk(KG_V_P0, KG_V_P0, 0.3);
    c[1].policy_stops = (1u << KG_POLICY_DEFAULT) | (1u << KG_POLICY_PUBLISHED) | (1u << KG_POLICY_STRICT);
    c[1].t_static = 0.3;
    /* a bad one only strict stops statically; the run found it L3 */
    c[2] = mk(KG_V_L3, KG_V_L3, 1.5);
    c[2].policy_stops = 1u << KG_POLICY_STRICT;
    c[2].t_static = 0.2;
    /* a bad one nothing stops */
    c[3] = mk(KG_V_L4, KG_V_PASS, 2.0);
    /* a skipped one counts nowhere */
    c[4] = mk(KG_V_PASS, KG_V_SKIPPED, 9.0);
    assert_int_equal(kg_policy_verdict(&c[0], KG_POLICY_DEFAULT), KG_V_PASS);
    assert_int_equal(kg_policy_verdict(&c[0], KG_POLICY_PUBLISHED), KG_V_P0);
    assert_int_equal(kg_policy_verdict(&c[1], KG_POLICY_LENIENT), -1);
    assert_int_equal(kg_policy_verdict(&c[2], KG_POLICY_STRICT), KG_V_P0);
    assert_int_equal(kg_policy_verdict(&c[2], KG_POLICY_LENIENT), KG_V_L3);
    assert_int_equal(kg_policy_verdict(&c[0], 7), -1);
    kg_summary sm;
    kg_summarize(c, 5, 10.0, &sm);
    assert_int_equal(sm.skipped, 1);
    assert_int_equal(sm.n_labeled, 4);
    assert_int_equal(sm.bad, 3);
    assert_int_equal(sm.good, 1);
    assert_int_equal(sm.pol_bad_stopped[KG_POLICY_DEFAULT], 2);
    assert_int_equal(sm.pol_good_stopped[KG_POLICY_DEFAULT], 0);
    assert_int_equal(sm.pol_good_stopped[KG_POLICY_PUBLISHED], 1);
    assert_int_equal(sm.pol_bad_stopped[KG_POLICY_STRICT], 2);
    assert_int_equal(sm.pol_unknown[KG_POLICY_LENIENT], 1);
    assert_int_equal(sm.pol_unknown[KG_POLICY_DEFAULT], 0);
    /* a statically stopped candidate's time is its static time: strict's median
     * of 0.25, 0.3, 0.2, 2.0 */
    assert_true(fabs(sm.pol_median_s[KG_POLICY_STRICT] - 0.275) < 1e-12);
}

/* The feedback record: valid JSON, and what the generator needs. */
static void test_feedback(void **s)
{
    (void)s;
    kg_cand c[3];
    c[0] = mk(KG_V_L3, KG_V_L3, 1.0);
    snprintf(c[0].reason, sizeof c[0].reason, "wrong result at n=37 (run 1): 1 of 37 elements");
    snprintf(c[0].mm_shape, sizeof c[0].mm_shape, "n=37");
    c[0].mm_count = 1;
    c[0].mm_checked = 37;
    c[0].mm_n = 1;
    c[0].mm_index[0] = 36;
    c[0].mm_expected[0] = 0.5;
    c[0].mm_got[0] = NAN;
    c[0].n_hits = c[0].hits_total = 1;
    c[0].hits[0].rule = kg_rule_index("KG-BOUNDS-OFF-BY-ONE");
    c[0].hits[0].sev = c[0].hits[0].eff = 1;
    c[0].hits[0].line = 8;
    snprintf(c[0].hits[0].msg, sizeof c[0].hits[0].msg, "the bound \"i < n - 1\" is off by one");
    c[1] = mk(KG_V_L1, KG_V_L1, 1.0);
    c[1].n_compile_errors = 1;
    snprintf(c[1].compile_errors[0], sizeof c[1].compile_errors[0], "relu.md:13: error: identifier \"X\" is undefined");
    c[2] = mk(KG_V_L4, KG_V_L4, 1.0);
    c[2].cand_ms_mid = 0.2;
    c[2].ref_ms_mid = 0.05;
    c[2].explained = 1;
    c[2].ncu_cand.ok = 1;
    snprintf(c[2].ncu_cand.stall, sizeof c[2].ncu_cand.stall, "long_scoreboard");
    c[2].ncu_cand.dram_pct = 12.0;
    snprintf(c[2].ncu_ref.why, sizeof c[2].ncu_ref.why, "ERR_NVGPUCTRPERM");
    c[2].n_dev = 2;
    c[2].disagree = 1;
    c[2].dev[0].verdict = KG_V_PASS;
    c[2].dev[1].verdict = KG_V_L4;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(kg_write_feedback(f, c, 3), 0);
    fclose(f);
    /* one JSON object per line */
    int lines = 0;
    for (char *p = buf, *e; (e = strchr(p, '\n')) != NULL; p = e + 1, lines++) {
        char err[200];
        if (!json_valid(p, (size_t)(e - p), err, sizeof err)) fail_msg("line %d invalid: %s\n%.*s", lines, err, (int)(e - p), p);
    }
    assert_int_equal(lines, 3);
    assert_non_null(strstr(buf, "\"rule\":\"KG-BOUNDS-OFF-BY-ONE\""));
    assert_non_null(strstr(buf, "\"fix\":\"compare with i < n"));
    assert_non_null(strstr(buf, "\"line\":8"));
    assert_non_null(strstr(buf, "\"index\":36"));
    assert_non_null(strstr(buf, "\"got\":null,\"got_text\":\"nan\""));
    assert_non_null(strstr(buf, "\"next_step\":\"wrong result at n=37: element 36 should be 0.5, got nan"));
    assert_non_null(strstr(buf, "\"compile_errors\":[\"relu.md:13: error"));
    assert_non_null(strstr(buf, "\"speed_vs_reference\":0.25"));
    assert_non_null(strstr(buf, "\"top_stall\":\"long_scoreboard\""));
    assert_non_null(strstr(buf, "\"why\":\"ERR_NVGPUCTRPERM\""));
    assert_non_null(strstr(buf, "\"disagree\":true"));
    free(buf);
    /* the same record inside the JSON report, with the policy verdicts */
    kg_summary sm;
    kg_summarize(c, 3, 1.0, &sm);
    kg_run_info info = {"bwrap", "H200", "90", "full", 1, "published"};
    buf = NULL;
    f = open_memstream(&buf, &len);
    assert_int_equal(kg_write_json(f, &info, c, 3, &sm), 0);
    fclose(f);
    char err[200];
    if (!json_valid(buf, len, err, sizeof err)) fail_msg("invalid JSON: %s", err);
    assert_non_null(strstr(buf, "\"policy\":\"published\""));
    assert_non_null(strstr(buf, "\"policy_stops\":{\"default\":false"));
    assert_non_null(strstr(buf, "\"policies\":{\"default\":{"));
    assert_non_null(strstr(buf, "\"feedback\":{\"candidate\""));
    free(buf);
}


/* The fifth field: the sanitizer tool that must stop a silent defect. */
static void test_labels_sanitizer(void **s)
{
    (void)s;
    kg_label l[4];
    char err[160];
    assert_int_equal(kg_labels_parse("a.cu\trelu\tL2\tread past n\tsanitizer=memcheck\n"
                                     "b.cu\trelu\tL2\tsync\tsanitizer=synccheck\n"
                                     "c.cu\trelu\tPASS\tnone\n"
                                     "d.cu\trelu\tL2\tx\t\n",
                                     l, 4, err, sizeof err), 4);
    assert_int_equal(l[0].sanitizer, 1 + SZ_MEMCHECK);
    assert_string_equal(l[0].defect, "read past n");
    assert_int_equal(l[1].sanitizer, 1 + SZ_SYNCCHECK);
    assert_int_equal(l[2].sanitizer, 0);
    assert_int_equal(l[3].sanitizer, 0);   /* an empty fifth field is no requirement */
    assert_int_equal(kg_labels_parse("a.cu\trelu\tL2\tx\tsanitizer=valgrind\n", l, 4, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 1: fifth field 'sanitizer=valgrind'"));
    assert_int_equal(kg_labels_parse("a.cu\trelu\tL2\tx\tmemcheck\n", l, 4, err, sizeof err), -1);
    assert_int_equal(kg_labels_parse("a.cu\trelu\tL3\tx\tsanitizer=racecheck\n", l, 4, err, sizeof err), -1);
    assert_non_null(strstr(err, "a sanitizer finding is L2"));
}

static kg_cand mk_san(int verdict, int label_tool, int stopped_by)
{
    kg_cand c = mk(KG_V_L2, verdict, 1.0);
    c.san_label = label_tool + 1;
    c.san_stopped_by = stopped_by + 1;   /* -1: nothing of the sanitizer's */
    return c;
}

/* A silent defect counts only when the tool its label names stops it: a
 * stop by another tool or another part of the gate is off the label; one
 * that passes a run without its tool is neither a hit nor a miss. */
static void test_sanitizer_labels(void **s)
{
    (void)s;
    unsigned saved = kg_report_san_tools;
    kg_report_san_tools = 1u << SZ_MEMCHECK | 1u << SZ_RACECHECK;   /* --sanitize=fast */
    kg_cand c[6] = {
        mk_san(KG_V_L2, SZ_MEMCHECK, SZ_MEMCHECK),      /* right tool */
        mk_san(KG_V_L2, SZ_RACECHECK, SZ_MEMCHECK),     /* another tool */
        mk_san(KG_V_L2, SZ_MEMCHECK, -1),               /* L2, but not the sanitizer's (a guard check) */
        mk_san(KG_V_L3, SZ_MEMCHECK, -1),               /* another part of the gate */
        mk_san(KG_V_PASS, SZ_MEMCHECK, -1),             /* missed by the tool that ran */
        mk_san(KG_V_PASS, SZ_INITCHECK, -1),            /* initcheck did not run: beyond this run */
    };
    int off[6] = {0, 1, 1, 1, 1, 0};
    for (int i = 0; i < 6; i++) {
        if (kg_cand_off_label(&c[i]) != off[i]) fail_msg("candidate %d: off_label %d", i, !off[i]);
        assert_int_equal(kg_cand_beyond_run(&c[i]), i == 5);
    }
    kg_summary sm;
    kg_summarize(c, 6, 1.0, &sm);
    assert_int_equal(sm.beyond_sanitizer, 1);
    assert_int_equal(sm.n_labeled, 5);   /* the one beyond the run is left out of the rates */
    assert_int_equal(sm.bad, 5);
    assert_int_equal(sm.bad_stopped, 4);
    assert_int_equal(sm.stage_mismatches, 3);
    size_t len;
    char *t = render(print_cand, &c[1], &len);
    assert_non_null(strstr(t, "label=L2       by racecheck  <-- MISMATCH"));
    free(t);
    t = render(print_cand, &c[0], &len);
    assert_null(strstr(t, "MISMATCH"));
    free(t);
    t = render(print_cand, &c[5], &len);
    assert_non_null(strstr(t, "by initcheck  (beyond this run's --sanitize: not counted)"));
    free(t);
    t = render(print_sum, &sm, &len);
    assert_non_null(strstr(t, "beyond this run's --sanitize (labeled with a tool it did not run, left out of the rates): 1"));
    assert_non_null(strstr(t, "stopped, but not by the sanitizer tool their label names: 3"));
    free(t);
    /* --sanitize=all: the initcheck candidate that passed is a miss */
    kg_report_san_tools = 0xfu;
    assert_int_equal(kg_cand_beyond_run(&c[5]), 0);
    assert_int_equal(kg_cand_off_label(&c[5]), 1);
    /* a partial run: STATIC-OK is what an L2 label expects of the static track */
    kg_report_san_tools = 0;
    kg_cand p = mk_san(KG_V_STATIC_OK, SZ_MEMCHECK, -1);
    assert_int_equal(kg_cand_off_label(&p), 0);
    kg_report_san_tools = saved;
}

/* The sanitizer pass's cost: per candidate (text and JSON) and in the summary. */
static void test_sanitizer_seconds(void **s)
{
    (void)s;
    kg_cand c[4] = {mk(KG_V_PASS, KG_V_PASS, 1.0), mk(KG_V_PASS, KG_V_PASS, 1.0),
                    mk(KG_V_L2, KG_V_L2, 1.0), mk(KG_V_L3, KG_V_L3, 1.0)};
    double secs[3] = {4.0, 2.5, 9.0};
    for (int i = 0; i < 3; i++) {
        c[i].sanitized = 1;
        c[i].t_sanitize = secs[i];
    }
    c[2].san_stopped_by = 1 + SZ_MEMCHECK;
    snprintf(c[2].san_kind, sizeof c[2].san_kind, "oob-global-read");
    snprintf(c[2].san_where, sizeof c[2].san_where, "cand.cu:17");
    kg_summary sm;
    kg_summarize(c, 4, 1.0, &sm);
    assert_int_equal(sm.san_n, 3);
    assert_true(fabs(sm.san_median_s - 4.0) < 1e-12);
    assert_true(fabs(sm.san_total_s - 15.5) < 1e-12);
    /* in the seconds per candidate: 1 + 4, 1 + 2.5, 1 + 9 and 1 */
    assert_true(fabs(sm.median_s - 4.25) < 1e-12);
    size_t len;
    char *t = render(print_sum, &sm, &len);
    assert_non_null(strstr(t, "sanitizer pass: 3 candidate(s), median 4.00 s, total 15.50 s"));
    free(t);
    t = render(print_cand, &c[2], &len);
    assert_non_null(strstr(t, "; sanitizer pass 9.000 (after the checks: not in the total, in the median)\n"));
    assert_non_null(strstr(t, "    sanitizer: memcheck oob-global-read at cand.cu:17\n"));
    free(t);
    t = render(print_cand, &c[3], &len);
    assert_null(strstr(t, "sanitizer"));
    free(t);
    kg_run_info info = {"bwrap", "H200", "90", "full", 1, "default"};
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(kg_write_json(f, &info, c, 4, &sm), 0);
    fclose(f);
    char err[200];
    if (!json_valid(buf, len, err, sizeof err)) fail_msg("invalid JSON: %s", err);
    assert_non_null(strstr(buf, "\"seconds_sanitizer\":2.5,"));
    assert_non_null(strstr(buf, "\"seconds_sanitizer\":null,"));
    assert_non_null(strstr(buf, "\"sanitizer_candidates\":3,\"sanitizer_median_seconds\":4,"
                                "\"sanitizer_total_seconds\":15.5,"));
    free(buf);
}

/* The feedback names the sanitizer's finding: tool, kind, file:line, fix. */
static void test_feedback_sanitizer(void **s)
{
    (void)s;
    kg_cand c[2] = {mk(KG_V_L2, KG_V_L2, 1.0), mk(KG_V_PASS, KG_V_PASS, 1.0)};
    c[0].san_stopped_by = 1 + SZ_RACECHECK;
    snprintf(c[0].san_kind, sizeof c[0].san_kind, "shared-race");
    snprintf(c[0].san_where, sizeof c[0].san_where, "sum_\"race\".cu:31");
    snprintf(c[0].san_hint, sizeof c[0].san_hint, "put __syncthreads() after writing a tile");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(kg_write_feedback(f, c, 2), 0);
    fclose(f);
    char *nl = strchr(buf, '\n');
    assert_non_null(nl);
    char err[200];
    if (!json_valid(buf, (size_t)(nl - buf), err, sizeof err)) fail_msg("invalid: %s\n%s", err, buf);
    assert_non_null(strstr(buf, "\"sanitizer\":{\"tool\":\"racecheck\",\"kind\":\"shared-race\","
                                "\"where\":\"sum_\\\"race\\\".cu:31\",\"fix\":\"put __syncthreads()"));
    assert_non_null(strstr(nl + 1, "\"sanitizer\":null,"));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_combine_devices), cmocka_unit_test(test_policy_figures),
        cmocka_unit_test(test_feedback),
        cmocka_unit_test(test_labels_ok),    cmocka_unit_test(test_labels_bad),
        cmocka_unit_test(test_summary_rates), cmocka_unit_test(test_text_report),
        cmocka_unit_test(test_json_escape),  cmocka_unit_test(test_json_report_valid),
        cmocka_unit_test(test_forged_records), cmocka_unit_test(test_partial_mismatch),
        cmocka_unit_test(test_escapes),      cmocka_unit_test(test_gate_failures),
        cmocka_unit_test(test_labels_sanitizer), cmocka_unit_test(test_sanitizer_labels),
        cmocka_unit_test(test_sanitizer_seconds), cmocka_unit_test(test_feedback_sanitizer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
