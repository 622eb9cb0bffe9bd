#define _GNU_SOURCE
/* test_sanpass.c: the gate's sanitizer pass (sanpass.c) on the CPU. The
 * sanitize harness's fake compute-sanitizer (../sanitize/tests/
 * fake_sanitizer.sh) is run with the command line the gate builds; it saves
 * a recorded report (the H200 captures of the planted bugs,
 * ../sanitize/tests/fixtures) where --save says and exits 86 when the report
 * holds records, as the real tool does. Each kind of finding must stop the
 * candidate (L2) with the tool, the kind and the file:line in the reason;
 * a clean report must keep PASS. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dynamic.h"
#include "sanpass.h"

static char san_dir[1024];   /* .../9_Verification/sanitize/tests */
static char tmp[64];

static int setup(void **s)
{
    (void)s;
    snprintf(san_dir, sizeof san_dir, "%s", __FILE__);   /* .../kgate/tests/test_sanpass.c */
    char *p = strstr(san_dir, "kgate/tests/test_sanpass.c");
    if (!p) return -1;
    snprintf(p, sizeof san_dir - (size_t)(p - san_dir), "sanitize/tests");
    snprintf(tmp, sizeof tmp, "%s", "/tmp/test_sanpass.XXXXXX");
    const char *t = getenv("TMPDIR");
    if (t && strlen(t) < 40) snprintf(tmp, sizeof tmp, "%s/test_sanpass.XXXXXX", t);
    return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **s)
{
    (void)s;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd) == 0 ? 0 : -1;
}

/* Run the fake sanitizer for `tool` with the gate's command line, the report
 * `fixture` (relative to the fixtures folder; NULL: none), and judge. */
static void run_fake(int tool, const char *fixture, const char *display, kg_san_result *r)
{
    char fake[1200], xml[128], rep[1200], num[32];
    snprintf(fake, sizeof fake, "%s/fake_sanitizer.sh", san_dir);
    snprintf(xml, sizeof xml, "%s/run.%s.xml", tmp, sz_tool_name(tool));
    unlink(xml);
    const char *target[] = {"/harness/kgate-harness", "--small", NULL};
    const char *argv[48];
    int n = kg_san_argv(fake, tool, xml, 49162, target, argv, 48, num);
    assert_true(n > 0);
    if (fixture) snprintf(rep, sizeof rep, "%s/fixtures/%s", san_dir, fixture);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (fixture) setenv("FAKE_REPORT", rep, 1);
        else unsetenv("FAKE_REPORT");
        if (!freopen("/dev/null", "w", stdout)) _exit(127);
        execv(fake, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    kg_san_judge(tool, WEXITSTATUS(st), 0, xml, 0, display, r);
}

static void test_modes(void **s)
{
    (void)s;
    int t[SZ_N_TOOLS];
    assert_int_equal(kg_san_mode_parse("none"), KG_SAN_NONE);
    assert_int_equal(kg_san_mode_parse("fast"), KG_SAN_FAST);
    assert_int_equal(kg_san_mode_parse("all"), KG_SAN_ALL);
    assert_int_equal(kg_san_mode_parse("memcheck"), -1);
    assert_int_equal(kg_san_mode_parse(""), -1);
    assert_int_equal(kg_san_mode_tools(KG_SAN_NONE, t), 0);
    assert_int_equal(kg_san_mode_tools(KG_SAN_FAST, t), 2);
    assert_int_equal(t[0], SZ_MEMCHECK);
    assert_int_equal(t[1], SZ_RACECHECK);
    assert_int_equal(kg_san_mode_tools(KG_SAN_ALL, t), 4);
    assert_int_equal(t[2], SZ_INITCHECK);
    assert_int_equal(t[3], SZ_SYNCCHECK);
    assert_string_equal(kg_san_mode_name(KG_SAN_FAST), "fast");
}

static int has_pair(const char **argv, int n, const char *a, const char *b)
{
    for (int i = 0; i + 1 < n; i++)
        if (!strcmp(argv[i], a) && !strcmp(argv[i + 1], b)) return 1;
    return 0;
}

static void test_argv(void **s)
{
    (void)s;
    const char *target[] = {"/h", "--small", NULL};
    const char *argv[48];
    char num[32];
    int n = kg_san_argv("cs", SZ_MEMCHECK, "/tmp/r.xml", 49162, target, argv, 48, num);
    assert_true(n > 0);
    assert_null(argv[n]);
    assert_string_equal(argv[0], "cs");
    assert_true(has_pair(argv, n, "--tool", "memcheck"));
    assert_true(has_pair(argv, n, "--leak-check", "full"));
    assert_true(has_pair(argv, n, "--check-device-heap", "yes"));
    assert_true(has_pair(argv, n, "--save", "/tmp/r.xml"));
    assert_true(has_pair(argv, n, "--error-exitcode", "86"));
    assert_true(has_pair(argv, n, "--port", "49162"));
    assert_string_equal(argv[n - 2], "/h");
    assert_string_equal(argv[n - 1], "--small");
    n = kg_san_argv("cs", SZ_RACECHECK, "/tmp/r.xml", 49162, target, argv, 48, num);
    assert_true(has_pair(argv, n, "--racecheck-report", "analysis"));
    assert_true(has_pair(argv, n, "--print-limit", "100"));
    assert_false(has_pair(argv, n, "--leak-check", "full"));
    assert_int_equal(kg_san_argv("cs", SZ_MEMCHECK, "x", 1, target, argv, 8, num), -1);
}

/* One recorded report per finding kind: the verdict, the tool, the kind and
 * the candidate's file:line. */
static const struct {
    int tool;
    const char *fixture, *display, *kind, *where;
} cases[] = {
    {SZ_MEMCHECK, "planted_oob_read.memcheck.xml", "oob_read.cu", "oob-global-read", "oob_read.cu:9"},
    {SZ_MEMCHECK, "planted_oob_write.memcheck.xml", "oob_write.cu", "oob-global-write", "oob_write.cu:9"},
    {SZ_MEMCHECK, "planted_leak.memcheck.xml", "leak.cu", "leak", "leak.cu:17"},
    {SZ_RACECHECK, "planted_shared_race.racecheck.xml", "shared_race.cu", "shared-race", "shared_race.cu:11"},
    {SZ_INITCHECK, "planted_uninit_read.initcheck.xml", "uninit_read.cu", "uninit-global-read", "uninit_read.cu:9"},
    {SZ_SYNCCHECK, "planted_barrier.synccheck.xml", "barrier.cu", "barrier-error", "barrier.cu:13"},
};

static void test_each_kind(void **s)
{
    (void)s;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kg_san_result r;
        run_fake(cases[i].tool, cases[i].fixture, cases[i].display, &r);
        print_message("%s -> %s\n", cases[i].fixture, r.reason);
        assert_int_equal(r.verdict, KG_V_L2);
        assert_int_equal(r.tool, cases[i].tool);
        assert_int_equal(r.n_findings, 1);
        assert_string_equal(r.kind, cases[i].kind);
        assert_string_equal(r.where, cases[i].where);
        /* the reason: "<tool>: <what> at <file:line> [<kind>]" */
        char want[160];
        snprintf(want, sizeof want, "%s: ", sz_tool_name(cases[i].tool));
        assert_int_equal(strncmp(r.reason, want, strlen(want)), 0);
        snprintf(want, sizeof want, " at %s [%s]", cases[i].where, cases[i].kind);
        assert_non_null(strstr(r.reason, want));
        assert_string_equal(r.hint, kg_san_hint(cases[i].kind));
    }
}

/* The recorded clean runs of every tool keep PASS. */
static void test_clean(void **s)
{
    (void)s;
    static const char *const fx[SZ_N_TOOLS] = {
        "planted_clean.memcheck.xml", "planted_clean.racecheck.xml",
        "planted_clean.initcheck.xml", "planted_clean.synccheck.xml"};
    for (int t = 0; t < SZ_N_TOOLS; t++) {
        kg_san_result r;
        run_fake(t, fx[t], "clean.cu", &r);
        assert_int_equal(r.verdict, KG_V_PASS);
        assert_int_equal(r.n_findings, 0);
        assert_string_equal(r.reason, "");
    }
    kg_san_result r;
    run_fake(SZ_MEMCHECK, NULL, "cand.cu", &r);   /* the fake's empty report */
    assert_int_equal(r.verdict, KG_V_PASS);
}

/* A run that says nothing useful is not clean: the tool counted errors its
 * report does not name (a candidate that emptied the report), the report is
 * missing or malformed, the run failed or ran out of time. */
static void test_not_clean(void **s)
{
    (void)s;
    char xml[128];
    snprintf(xml, sizeof xml, "%s/empty.xml", tmp);
    FILE *f = fopen(xml, "w");
    assert_non_null(f);
    fputs("<ComputeSanitizerOutput/>\n", f);
    fclose(f);
    kg_san_result r;
    kg_san_judge(SZ_MEMCHECK, SZ_ERROR_EXITCODE, 0, xml, 0, "cand.cu", &r);
    assert_int_equal(r.verdict, KG_V_L2);
    assert_non_null(strstr(r.reason, "memcheck: the tool reported errors"));
    kg_san_judge(SZ_RACECHECK, 1, 0, xml, 0, "cand.cu", &r);
    assert_int_equal(r.verdict, KG_V_L2);
    assert_non_null(strstr(r.reason, "racecheck: the run under the sanitizer failed (exit 1)"));
    kg_san_judge(SZ_MEMCHECK, 0, 1, xml, 0, "cand.cu", &r);
    assert_int_equal(r.verdict, KG_V_L2);
    assert_non_null(strstr(r.reason, "did not finish in time"));
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none.xml", tmp);
    kg_san_judge(SZ_MEMCHECK, 0, 0, missing, 0, "cand.cu", &r);
    assert_int_equal(r.verdict, KG_V_L2);
    assert_non_null(strstr(r.reason, "memcheck: its report could not be read"));
    static const char *const bad[] = {"malformed_empty.xml", "malformed_truncated.xml",
                                      "malformed_wrong_root.xml", "malformed_mismatched.xml"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_fake(SZ_MEMCHECK, bad[i], "cand.cu", &r);
        assert_int_equal(r.verdict, KG_V_L2);
        assert_non_null(strstr(r.reason, "memcheck: its report could not be read"));
    }
}

/* The candidate's own file:line is named, even when the first frame is
 * elsewhere (here the device frame moved into the harness). */
static void test_candidate_line(void **s)
{
    (void)s;
    char cmd[2600], fx[1200];
    snprintf(fx, sizeof fx, "%s/fixtures/planted_oob_read.memcheck.xml", san_dir);
    snprintf(cmd, sizeof cmd, "sed '0,/planted\\/oob_read.cu/s//kgate\\/harness.cu/' '%s' > '%s/moved.xml'",
             fx, tmp);
    assert_int_equal(system(cmd), 0);
    char xml[160];
    snprintf(xml, sizeof xml, "%s/moved.xml", tmp);
    kg_san_result r;
    kg_san_judge(SZ_MEMCHECK, SZ_ERROR_EXITCODE, 0, xml, 0, "oob_read.cu", &r);
    assert_int_equal(r.verdict, KG_V_L2);
    assert_string_equal(r.where, "oob_read.cu:7");   /* its launch line, a host frame */
    kg_san_judge(SZ_MEMCHECK, SZ_ERROR_EXITCODE, 0, xml, 0, "other.cu", &r);
    /* no frame of its own: no file named (another file's name is the sandbox's) */
    assert_string_equal(r.where, "no line of the candidate's file");
    assert_null(strstr(r.reason, "harness.cu"));
}

/* The report is written inside the candidate's sandbox, so a candidate can
 * write one of its own: its text, its file names and an unknown kind must
 * not reach the reason (what it read in the sandbox would leave with it). */
static void test_forged_report_text(void **s)
{
    (void)s;
    char cmd[2600], fx[1200];
    snprintf(fx, sizeof fx, "%s/fixtures/planted_oob_read.memcheck.xml", san_dir);
    snprintf(cmd, sizeof cmd,
             "sed -e '0,/planted\\/oob_read.cu/s//opt\\/SECRET-FILE.cu/' "
             "-e 's/<text>[^<]*</<text>SECRET-TEXT</' "
             "'%s' > '%s/forged.xml'", fx, tmp);
    assert_int_equal(system(cmd), 0);
    char xml[160];
    snprintf(xml, sizeof xml, "%s/forged.xml", tmp);
    kg_san_result r;
    kg_san_judge(SZ_MEMCHECK, SZ_ERROR_EXITCODE, 0, xml, 0, "other.cu", &r);
    assert_int_equal(r.verdict, KG_V_L2);
    print_message("forged -> %s\n", r.reason);
    assert_null(strstr(r.reason, "SECRET"));
    assert_null(strstr(r.where, "SECRET"));
    /* an unknown kind is named as such, never by its text */
    assert_string_equal(kg_san_phrase("other-SECRET"), "a finding it does not classify");
    assert_string_equal(kg_san_phrase("oob-global-read"), "read out of bounds of global memory");
}

/* Every kind the reader knows has a hint of its own. */
static void test_hints(void **s)
{
    (void)s;
    const char *generic = kg_san_hint("other-unknown");
    for (int i = 0; sz_known_kinds[i]; i++) {
        const char *h = kg_san_hint(sz_known_kinds[i]);
        assert_non_null(h);
        if (h == generic) print_message("no hint for %s\n", sz_known_kinds[i]);
        assert_ptr_not_equal(h, generic);
    }
}


/* racecheck's analysis report alone (what the gate asks for: one record per
 * racing pair of lines, not one per thread pair) is a finding with the
 * candidate's line: the planted race's capture with its Hazard records cut. */
static void test_racecheck_analysis(void **s)
{
    (void)s;
    char cmd[2600], fx[1200], xml[160];
    snprintf(fx, sizeof fx, "%s/fixtures/planted_shared_race.racecheck.xml", san_dir);
    snprintf(xml, sizeof xml, "%s/analysis.xml", tmp);
    snprintf(cmd, sizeof cmd,
             "awk '/<record>/{b=$0; r=1; next} r{b=b\"\\n\"$0; if (/<\\/record>/){if (b !~ /<kind>Hazard</) print b; r=0}; next} "
             "{print}' '%s' > '%s'", fx, xml);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "grep -c '<kind>Hazard' '%s' >/dev/null", xml);
    assert_int_not_equal(system(cmd), 0);   /* no Hazard record is left */
    kg_san_result r;
    kg_san_judge(SZ_RACECHECK, SZ_ERROR_EXITCODE, 0, xml, 0, "shared_race.cu", &r);
    assert_int_equal(r.verdict, KG_V_L2);
    assert_int_equal(r.n_findings, 1);
    assert_string_equal(r.kind, "shared-race");
    assert_string_equal(r.where, "shared_race.cu:11");
    assert_non_null(strstr(r.reason, "racecheck: a shared-memory race at shared_race.cu:11 [shared-race]"));
}

/* What the pass records on a candidate: the L2, the reason, and the finding
 * (tool, kind, file:line, hint) that the report and the feedback print; a
 * clean run changes nothing. The real H200 capture of racecheck (warnings
 * of a warp-synchronous race) is a finding too. */
static void test_apply(void **s)
{
    (void)s;
    kg_cand c;
    memset(&c, 0, sizeof c);
    c.verdict = KG_V_PASS;
    c.n_dev = 2;
    c.dev[0].verdict = c.dev[1].verdict = KG_V_PASS;
    kg_san_result r;
    run_fake(SZ_MEMCHECK, "planted_clean.memcheck.xml", "cand.cu", &r);
    kg_san_apply(&c, SZ_MEMCHECK, &r);
    assert_int_equal(c.verdict, KG_V_PASS);
    assert_int_equal(c.san_stopped_by, 0);
    assert_string_equal(c.reason, "");
    run_fake(SZ_RACECHECK, "h200/race.xml", "probe.cu", &r);
    assert_int_equal(r.verdict, KG_V_L2);
    assert_string_equal(r.kind, "shared-race");
    kg_san_apply(&c, SZ_RACECHECK, &r);
    assert_int_equal(c.verdict, KG_V_L2);
    assert_int_equal(c.dev[0].verdict, KG_V_L2);
    assert_int_equal(c.dev[1].verdict, KG_V_L2);
    assert_int_equal(c.san_stopped_by, 1 + SZ_RACECHECK);
    assert_string_equal(c.san_kind, "shared-race");
    assert_string_equal(c.san_where, r.where);
    assert_true(!strncmp(c.san_where, "probe.cu:", 9));
    assert_string_equal(c.san_hint, kg_san_hint("shared-race"));
    assert_true(!strncmp(c.reason, "racecheck: ", 11));
    assert_non_null(strstr(c.reason, "; fix: two threads touch the same shared memory"));
    /* a run that failed without a finding still names its tool */
    memset(&c, 0, sizeof c);
    kg_san_judge(SZ_SYNCCHECK, 1, 0, "/nonexistent/report.xml", 0, "cand.cu", &r);
    kg_san_apply(&c, SZ_SYNCCHECK, &r);
    assert_int_equal(c.verdict, KG_V_L2);
    assert_int_equal(c.san_stopped_by, 1 + SZ_SYNCCHECK);
    assert_string_equal(c.san_kind, "");
    kg_san_note_seconds(&c, 7.25);
    assert_int_equal(c.sanitized, 1);
    assert_true(c.t_sanitize == 7.25);
    /* the feedback carries the finding */
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "oob_read.cu");
    run_fake(SZ_MEMCHECK, "planted_oob_read.memcheck.xml", "oob_read.cu", &r);
    kg_san_apply(&c, SZ_MEMCHECK, &r);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    kg_feedback_record(f, &c);
    fclose(f);
    assert_non_null(strstr(buf, "\"sanitizer\":{\"tool\":\"memcheck\",\"kind\":\"oob-global-read\","
                                "\"where\":\"oob_read.cu:9\",\"fix\":\"a thread reads past the end"));
    assert_non_null(strstr(buf, "\"verdict\":\"L2\""));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_argv),
        cmocka_unit_test(test_each_kind),
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_not_clean),
        cmocka_unit_test(test_candidate_line),
        cmocka_unit_test(test_forged_report_text),
        cmocka_unit_test(test_hints),
        cmocka_unit_test(test_apply),
        cmocka_unit_test(test_racecheck_analysis),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
