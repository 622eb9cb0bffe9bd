/* kgate's sanitizer pass in the gate (see sanitize_run.h). compute-sanitizer
 * runs inside the harness's sandbox with the harness as its target: the
 * candidate's code never runs outside it, and the tool's rendezvous (an
 * abstract Unix socket between the tool and its target) stays inside the
 * sandbox's own network namespace. The report is saved in the scratch
 * folder and judged by sanpass.c with the sanitize harness's reader. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "candidates.h"
#include "dynamic.h"
#include "kg_report.h"
#include "sandbox.h"
#include "sanitize_run.h"
#include "sanpass.h"
#include "tasks.h"

/* Seconds one tool's run may take: instrumented kernels run many times
 * slower and the tool starts slowly itself (not yet measured on the H200). */
#define SAN_TIMEOUT_S 120

int find_sanitizer(kg_gate *g, char *path, size_t len)
{
    if (g->o->sanitizer) {
        snprintf(path, len, "%s", g->o->sanitizer);
        return access(path, X_OK) == 0 ? 0 : -1;
    }
    snprintf(path, len, "%s/bin/compute-sanitizer", g->cuda_home);
    return access(path, X_OK) == 0 ? 0 : -1;
}

int kg_san_report_file(const kg_sandbox *sb, int slot, const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    /* opened again by name inside (/proc/self/fd/3), so it must be the
     * sandbox's user's file: a gate running as root runs each sandbox under
     * a uid of its own */
    unsigned uid = kg_sandbox_uid(sb, slot, KG_SB_HARNESS);
    if (fd >= 0 && uid && fchown(fd, (uid_t)uid, (gid_t)-1) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* One tool's run on one candidate, started by start_tool and ended by
 * end_tool: a candidate's tools run at once, each in a sandbox of its own
 * (its own network namespace: the tool's rendezvous with its target, an
 * abstract Unix socket, cannot meet the other run's). */
typedef struct {
    int tool;
    int started;                       /* 0: the gate could not start it */
    kg_sb_proc p;
    double deadline;
    char xml_out[PATH_MAX + 64];
    char logp[1300];
} san_run;

static void start_tool(kg_gate *g, kg_job *j, int task, int tool, int slot, const char *sanitizer, san_run *r)
{
    memset(r, 0, sizeof *r);
    r->tool = tool;
    char prog[PATH_MAX + 32], dv[32], so[PATH_MAX + 64], sz[48], sd[48];
    snprintf(prog, sizeof prog, "%s/kgate-harness", g->libexec);
    snprintf(dv, sizeof dv, "--device=%d", g->dev[0].index);
    int ai = arch_of_device(g, 0);
    snprintf(so, sizeof so, "--so=%s/%s", g->sb->enabled ? "/scratch" : j->dir,
             ai >= 0 ? j->so_name[ai] : "cand.so");
    snprintf(sz, sizeof sz, "--sanitize=%d", task);
    snprintf(sd, sizeof sd, "--seed=%llu", g->o->seed + 91);
    const char *target[] = {prog, dv, so, sz, sd, NULL};
    /* The report: a file the gate makes, handed in open as descriptor 3,
     * which the tool opens again through /proc/self/fd/3. The harness's
     * scratch folder stays read-only (the candidate's code runs in this
     * sandbox: a writable folder on the host's disk would let it fill the
     * disk), and the file is bounded by RLIMIT_FSIZE. Without a sandbox the
     * tool writes the file by its name. */
    char xml_in[PATH_MAX + 64], num[32];
    snprintf(r->xml_out, sizeof r->xml_out, "%s/kgate-san.%s.xml", j->dir, sz_tool_name(tool));
    unlink(r->xml_out);
    int xfd = kg_san_report_file(g->sb, slot, r->xml_out);
    if (g->sb->enabled) snprintf(xml_in, sizeof xml_in, "/proc/self/fd/3");
    else snprintf(xml_in, sizeof xml_in, "%s", r->xml_out);
    const char *argv[48];
    /* each tool its own port range as well (a second wall; bin/sanitize's
     * README tells why) */
    if (kg_san_argv(sanitizer, tool, xml_in, 49162 + 10 * tool, target, argv, 48, num) < 0) {
        if (xfd >= 0) close(xfd);
        return;
    }
    snprintf(r->logp, sizeof r->logp, "%s.san.%s.txt", j->dir, sz_tool_name(tool));
    int lf = open(r->logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    kg_sb_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.kind = KG_SB_HARNESS;   /* the candidate's code runs: the harness's sandbox, the tool inside it */
    sp.scratch = j->dir;
    sp.argv = argv;
    sp.out_fd = lf;
    if (g->sb->enabled) {
        sp.fds[0] = xfd;
        sp.n_fds = 1;
    }
    sp.slot = slot;
    sp.lim = kg_default_limits(KG_SB_HARNESS, SAN_TIMEOUT_S);
    sp.lim.tmp_bytes = 512ull << 20;     /* the tool's own files */
    sp.lim.fsize_bytes = 256ull << 20;
    sp.lim.data_bytes = 0;               /* the tool maps far more than the harness */
    r->started = xfd >= 0 && kg_sb_spawn(g->sb, &sp, &r->p) == 0;
    r->deadline = kg_now() + SAN_TIMEOUT_S;
    if (lf >= 0) close(lf);
    if (xfd >= 0) close(xfd);
}

/* Wait for a started run and judge it into *res. 0 judged; -1 the gate's
 * own failure (the run never started). *retry: a failure of the run itself
 * (no finding in its report, no time limit reached), which a run alone may
 * not repeat. */
static int end_tool(kg_gate *g, kg_cand *c, kg_job *j, san_run *r, kg_san_result *res, int *retry)
{
    *retry = 0;
    if (!r->started) {
        if (!g->o->keep && r->logp[0]) unlink(r->logp);
        return -1;
    }
    kg_sb_result rec;
    kg_sb_wait(&r->p, r->deadline, &rec);
    int timed_out = kg_now() >= r->deadline;
    kg_san_judge(r->tool, rec.exit_code, timed_out, r->xml_out, 0, c->name, res);
    *retry = res->verdict != KG_V_PASS && !timed_out && res->n_findings == 0;
    if (g->o->keep) {
        /* for the operator (stderr, never the report): how the tool's
         * sandbox ended; its own output stays in the kept log */
        fprintf(stderr, "# sanitize: %s: %s: ran %d started %d exit %d signal %d stub_failed %d "
                        "ended_early %d wall %.0f ms events %d violations %d%s%s; log %s\n",
                j->dir, sz_tool_name(r->tool), rec.ran, rec.started, rec.exit_code, rec.term_signal,
                rec.stub_failed, rec.ended_early, rec.wall_ms, rec.n_events, rec.n_violations,
                rec.stub_msg[0] ? "; stub: " : "", rec.stub_msg, r->logp);
        for (int e = 0; e < rec.n_events && e < KG_SB_EVENTS; e++)
            fprintf(stderr, "#   event x%u%s: %s\n", rec.counts[e],
                    rec.is_violation[e] ? " (violation)" : "", rec.events[e]);
    } else {
        unlink(r->logp);
    }
    return 0;
}

/* The gate could not run a tool (its report file, its sandbox): the gate's
 * own failure, never the candidate's; not judged, as a scan the gate could
 * not run. Returns 1 (the candidate is stopped). */
static int not_judged(kg_cand *c, int tool)
{
    c->verdict = KG_V_SKIPPED;
    c->gate_failure = 1;
    for (int k = 0; k < c->n_dev && k < KG_MAX_DEV; k++) c->dev[k].verdict = KG_V_SKIPPED;
    snprintf(c->reason, sizeof c->reason, "gate: could not run compute-sanitizer's %s in the "
             "sandbox: not judged", sz_tool_name(tool));
    return 1;
}

/* A candidate's tools, all at once, then judged in the tools' order, as when
 * they ran one after another: the first finding stops the candidate (memcheck's
 * before racecheck's), and a tool the gate could not run ends the judging
 * there. A tool whose run failed without a finding runs again alone before it
 * counts: two runs at once are new here, and a run the tool could not attach
 * to is not the candidate's fault. 0 clean, 1 stopped (c's verdict and reason
 * set). */
static int run_tools(kg_gate *g, kg_cand *c, kg_job *j, int task, const int *tools, int nt, const char *sanitizer)
{
    san_run runs[SZ_N_TOOLS];
    kg_san_result res[SZ_N_TOOLS];
    int ended[SZ_N_TOOLS], retry[SZ_N_TOOLS];
    /* Tool k in sandbox slot j->slot + k: a uid of its own when the gate
     * switches users, so RLIMIT_NPROC, which counts a uid's threads, is not
     * shared by two tools at once (each tool and its target run dozens).
     * Nothing else runs in those slots now: the pass comes after every
     * candidate's checks, and its scratch folder is readable by them all. */
    int base = j->slot >= 0 ? j->slot : 0, slot[SZ_N_TOOLS];
    for (int k = 0; k < nt; k++) slot[k] = (base + k) % KG_SB_SLOTS;
    for (int k = 0; k < nt; k++) start_tool(g, j, task, tools[k], slot[k], sanitizer, &runs[k]);
    for (int k = 0; k < nt; k++) ended[k] = end_tool(g, c, j, &runs[k], &res[k], &retry[k]) == 0;
    for (int k = 0; k < nt; k++) {
        if (!ended[k]) return not_judged(c, tools[k]);
        if (res[k].verdict == KG_V_PASS) continue;
        if (retry[k] && nt > 1) {
            san_run again;
            int r2;
            start_tool(g, j, task, tools[k], slot[k], sanitizer, &again);
            if (end_tool(g, c, j, &again, &res[k], &r2) != 0) return not_judged(c, tools[k]);
            if (res[k].verdict == KG_V_PASS) continue;
        }
        kg_san_apply(c, tools[k], &res[k]);   /* L2, the reason, and the finding for the report and the feedback */
        return 1;
    }
    return 0;
}

void sanitize_passed(kg_gate *g, kg_cand *cands, kg_job *jobs, int n, const char *sanitizer)
{
    int tools[SZ_N_TOOLS];
    int nt = kg_san_mode_tools(g->o->sanitize, tools);
    int n_run = 0, n_stopped = 0;
    for (int i = 0; i < n; i++) {
        kg_cand *c = &cands[i];
        kg_job *j = &jobs[i];
        if (c->verdict == KG_V_PASS && !j->is_torch && j->task && j->dir[0]) {
            int ti = 0;
            for (int k = 0; k < kg_task_count(); k++)
                if (kg_task_at(k) == j->task) ti = k;
            double t0 = kg_now();
            int stopped = run_tools(g, c, j, ti, tools, nt, sanitizer);
            double took = kg_now() - t0;
            kg_san_note_seconds(c, took);
            n_run++;
            n_stopped += stopped;
            char en[1100];
            kg_text_escape(c->name, sizeof c->name, en, sizeof en);
            printf("# sanitize: %s: %s in %.2f s\n", en,
                   c->gate_failure ? "not judged (the gate's failure)" : stopped ? "stopped" : "clean", took);
            if (stopped) kg_print_candidate(stdout, c);
            fflush(stdout);
        }
        if (!g->o->keep && !g->o->work && j->dir[0] && c->verdict != KG_V_L4) {
            remove_tree(j->dir, 0);
            unlink(j->log);
            for (int dd = 0; dd < g->n_dev; dd++) unlink(j->hlog[dd]);
            j->dir[0] = 0;
        }
    }
    /* the median and the total are the summary's (sanitizer pass: ...) */
    printf("# sanitize (%s): %d passed candidate(s) run, %d stopped\n", kg_san_mode_name(g->o->sanitize),
           n_run, n_stopped);
}
