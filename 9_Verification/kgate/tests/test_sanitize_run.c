#define _GNU_SOURCE
/* test_sanitize_run.c: the gate's sanitizer pass (sanitize_run.c) on the
 * CPU, with the sandbox off and a stand-in for compute-sanitizer. The
 * stand-in (a script written here) makes each tool's first attempt wait for
 * the other tool's start, so the pass passes only if a candidate's tools
 * run at once; then the sanitize harness's fake_sanitizer.sh saves the
 * report this test chose for that tool (none: a clean one). Checked: both
 * tools ran together, once each; a finding of either stops the candidate
 * (L2, the tool's name first in the reason), memcheck's first when both
 * find something; a run that fails without a report runs again alone and
 * then counts for what it finds; a tool the gate cannot start ends the
 * judging where the tools' order reaches it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynamic.h"
#include "sandbox.h"
#include "sanitize_run.h"
#include "sanpass.h"
#include "tasks.h"

static char here[1024];          /* .../9_Verification/kgate */
static char tmp[128], wrapper[256], fixtures[256], marks[256];
static kg_sandbox sb;
static kg_opts opts;
static kg_gate gate;
static const char *unrunnable;   /* a tool whose report file the gate cannot make (NULL: none) */

static int setup(void **s)
{
    (void)s;
    snprintf(here, sizeof here, "%s", __FILE__);
    char *p = strstr(here, "/tests/test_sanitize_run.c");
    if (!p) return -1;
    *p = 0;
    snprintf(tmp, sizeof tmp, "%s/test_sanitize_run.XXXXXX", getenv("TMPDIR") && strlen(getenv("TMPDIR")) < 60
                                                                  ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmp)) return -1;
    chmod(tmp, 0755);   /* the runs may be another user's (the gate as root switches users) */
    snprintf(wrapper, sizeof wrapper, "%s/sanitizer.sh", tmp);
    snprintf(fixtures, sizeof fixtures, "%s/fixtures", tmp);
    snprintf(marks, sizeof marks, "%s/marks", tmp);
    FILE *f = fopen(wrapper, "w");
    if (!f) return -1;
    fprintf(f,
            "#!/bin/sh\n"
            "# each tool's first attempt marks its start and waits (at most 30 s) for the\n"
            "# other tool's mark: the tools must run at once (a tool the test made\n"
            "# unstartable is marked .never: nobody waits for it)\n"
            "d=%s\n"
            "tool=; for a in \"$@\"; do [ \"$prev\" = --tool ] && tool=$a; prev=$a; done\n"
            "n=$(cat $d/$tool.n 2>/dev/null || echo 0); n=$((n + 1)); echo $n > $d/$tool.n\n"
            "if [ $n -eq 1 ]; then\n"
            "  touch $d/$tool.started\n"
            "  other=racecheck; [ $tool = racecheck ] && other=memcheck\n"
            "  i=0; while [ ! -e $d/$other.started ] && [ ! -e $d/$other.never ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done\n"
            "  [ -e $d/$other.started ] || exit 255\n"
            "  touch $d/$tool.met\n"
            "  [ -e $d/$tool.fail_first ] && exit 255\n"
            "fi\n"
            "exec %s/../sanitize/tests/fake_sanitizer.sh \"$@\"\n",
            marks, here);
    fclose(f);
    chmod(wrapper, 0755);
    char err[600];
    char bindir[1200];
    snprintf(bindir, sizeof bindir, "%s/../../build/libexec/kgate", here);
    if (kg_sandbox_setup(&sb, bindir, 1, err, sizeof err) != 0) {   /* no sandbox: the stand-in runs as is */
        fprintf(stderr, "sandbox setup: %s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **s)
{
    (void)s;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    kg_sandbox_cleanup(&sb);
    return system(cmd) == 0 ? 0 : -1;
}

/* One candidate that passed its checks, through the pass. fail_first: the
 * tool whose first attempt fails without a report (NULL: none). The reports:
 * the fixture file names (relative to the sanitize harness's fixtures) for
 * memcheck and racecheck, NULL for a clean one. */
static void pass_one(const char *mem_fixture, const char *race_fixture, const char *fail_first, kg_cand *c)
{
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' && mkdir -p '%s' '%s' '%s/cand' && chmod 1777 '%s' && chmod 755 '%s' '%s/cand'",
             marks, fixtures, marks, fixtures, tmp, marks, fixtures, tmp);
    assert_int_equal(system(cmd), 0);
    const char *fx[2] = {mem_fixture, race_fixture};
    const char *tn[2] = {"memcheck", "racecheck"};
    for (int k = 0; k < 2; k++)
        if (fx[k]) {
            snprintf(cmd, sizeof cmd, "cp '%s/../sanitize/tests/fixtures/%s' '%s/kgate-harness.%s.xml'", here, fx[k],
                     fixtures, tn[k]);
            assert_int_equal(system(cmd), 0);
        }
    if (unrunnable) {   /* a folder where the tool's report file goes: the gate cannot start that tool */
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/cand/kgate-san.%s.xml/x' && touch '%s/%s.never'", tmp, unrunnable,
                 marks, unrunnable);
        assert_int_equal(system(cmd), 0);
    }
    if (fail_first) {
        snprintf(cmd, sizeof cmd, "touch '%s/%s.fail_first'", marks, fail_first);
        assert_int_equal(system(cmd), 0);
    }
    setenv("FAKE_FIXTURES", fixtures, 1);

    memset(&opts, 0, sizeof opts);
    opts.sanitize = KG_SAN_FAST;
    memset(&gate, 0, sizeof gate);
    gate.o = &opts;
    gate.sb = &sb;
    snprintf(gate.libexec, sizeof gate.libexec, "%s/libexec", tmp);
    gate.n_arch = 1;
    snprintf(gate.arch[0], sizeof gate.arch[0], "90");
    gate.n_dev = 1;
    snprintf(gate.dev[0].build_arch, sizeof gate.dev[0].build_arch, "90");
    static kg_job j;
    memset(j.so_name, 0, sizeof j.so_name);
    memset(&j, 0, sizeof j);
    j.task = kg_task_at(0);
    j.slot = 0;
    snprintf(j.dir, sizeof j.dir, "%s/cand", tmp);
    snprintf(j.so_name[0], sizeof j.so_name[0], "cand_sm90.so");
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "cand.cu");
    c->verdict = KG_V_PASS;
    c->n_dev = 1;
    c->dev[0].verdict = KG_V_PASS;
    /* the pass prints its lines; keep them out of the test's output */
    fflush(stdout);
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    sanitize_passed(&gate, c, &j, 1, wrapper);
    fclose(stdout);
    stdout = saved;
}

/* A tool's attempts (its .n file), or 0. */
static int count(const char *file)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", marks, file);
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    int n = 0;
    if (fscanf(f, "%d", &n) != 1) n = 0;
    fclose(f);
    return n;
}

/* Did the tool's first attempt meet the other's (its .met mark)? */
static int met(const char *tool)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s.met", marks, tool);
    return access(p, F_OK) == 0;
}

/* The user a tool's first attempt ran as (the owner of its .started mark). */
static long owner(const char *tool)
{
    char p[400];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s.started", marks, tool);
    return stat(p, &st) == 0 ? (long)st.st_uid : -1;
}

/* Clean reports: PASS stays; both tools met (they ran at once), once each,
 * and where the gate switches users (as root), as two users: a process
 * limit counts a user's threads, and two tools must not share one. */
static void the_tools_run_at_once(void **s)
{
    (void)s;
    kg_cand c;
    pass_one(NULL, NULL, NULL, &c);
    assert_int_equal(c.verdict, KG_V_PASS);
    assert_true(met("memcheck"));
    assert_true(met("racecheck"));
    assert_int_equal(count("memcheck.n"), 1);
    assert_int_equal(count("racecheck.n"), 1);
    assert_true(owner("memcheck") >= 0 && owner("racecheck") >= 0);
    if (sb.as_root && sb.drop_uid) assert_true(owner("memcheck") != owner("racecheck"));
}

/* c was stopped by that tool's finding: L2, the tool named first. */
static void assert_stopped_by(const kg_cand *c, int tool)
{
    char want[32];
    snprintf(want, sizeof want, "%s: ", sz_tool_name(tool));
    assert_int_equal(c->verdict, KG_V_L2);
    assert_true(!strncmp(c->reason, want, strlen(want)));
    assert_int_equal(c->san_stopped_by, tool + 1);
}

/* racecheck's finding alone stops the candidate, named racecheck. */
static void a_racecheck_finding_stops_it(void **s)
{
    (void)s;
    kg_cand c;
    pass_one(NULL, "planted_shared_race.racecheck.xml", NULL, &c);
    assert_stopped_by(&c, SZ_RACECHECK);
}

/* Both find something: memcheck's finding is the reason, as when the tools
 * ran one after the other. */
static void memcheck_first_when_both_find(void **s)
{
    (void)s;
    kg_cand c;
    pass_one("planted_oob_read.memcheck.xml", "planted_shared_race.racecheck.xml", NULL, &c);
    assert_stopped_by(&c, SZ_MEMCHECK);
}

/* A run that fails without a report runs again, alone, and its second
 * attempt decides: clean, so PASS. */
static void a_failed_run_runs_again_alone(void **s)
{
    (void)s;
    kg_cand c;
    pass_one(NULL, NULL, "memcheck", &c);
    assert_int_equal(c.verdict, KG_V_PASS);
    assert_int_equal(count("memcheck.n"), 2);
    assert_int_equal(count("racecheck.n"), 1);
    /* ... and a finding on that second attempt stops it */
    pass_one("planted_oob_read.memcheck.xml", NULL, "memcheck", &c);
    assert_stopped_by(&c, SZ_MEMCHECK);
    assert_int_equal(count("memcheck.n"), 2);
}

/* A tool the gate cannot run ends the judging there, in the tools' order:
 * memcheck's finding still stops the candidate when racecheck could not
 * run; with memcheck clean, the candidate is not judged (SKIPPED, the
 * gate's own failure, naming racecheck), never passed. */
static void a_tool_the_gate_cannot_run(void **s)
{
    (void)s;
    kg_cand c;
    unrunnable = "racecheck";
    pass_one("planted_oob_read.memcheck.xml", NULL, NULL, &c);
    assert_stopped_by(&c, SZ_MEMCHECK);
    pass_one(NULL, NULL, NULL, &c);
    unrunnable = NULL;
    assert_int_equal(c.verdict, KG_V_SKIPPED);
    assert_int_equal(c.gate_failure, 1);
    assert_non_null(strstr(c.reason, "racecheck"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_tools_run_at_once),
        cmocka_unit_test(a_racecheck_finding_stops_it),
        cmocka_unit_test(memcheck_first_when_both_find),
        cmocka_unit_test(a_failed_run_runs_again_alone),
        cmocka_unit_test(a_tool_the_gate_cannot_run),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
