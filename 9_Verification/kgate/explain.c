/* kgate's L4 explanations (see explain.h): where ncu is, the reference's
 * profile (the gate's own `kgate --profile-reference`, once per task and
 * device), the candidate's (ncu inside the harness's sandbox), and the
 * pass over the L4 verdicts within the --explain-budget (each profile is
 * stopped when the budget runs out, so the pass ends on time). What ncu reports
 * explains a verdict; it never makes one. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dynamic.h"
#include "judge.h"
#include "kg_report.h"
#include "kgate_static.h"
#include "ncu.h"
#include "proto.h"
#include "rules.h"
#include "sandbox.h"
#include "torch_adapter.h"
#include "tasks.h"
#include "candidates.h"
#include "explain.h"
#include "setup.h"

static kg_ncu ref_profile[16][KG_MAX_DEV];
static int ref_profiled[16][KG_MAX_DEV];

void find_ncu(kg_gate *g)
{
    g->ncu[0] = 0;
    if (g->o->ncu) {
        if (access(g->o->ncu, X_OK) == 0) snprintf(g->ncu, sizeof g->ncu, "%.1000s", g->o->ncu);
        return;
    }
    char c[PATH_MAX + 16];
    snprintf(c, sizeof c, "%s/bin/ncu", g->cuda_home);
    if (access(c, X_OK) == 0) { snprintf(g->ncu, sizeof g->ncu, "%.1000s", c); return; }
    const char *path = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path ? path : "");
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(c, sizeof c, "%s/ncu", d);
        if (access(c, X_OK) == 0) { snprintf(g->ncu, sizeof g->ncu, "%.1000s", c); return; }
    }
}

/* Seconds a profile may take: 180, or what is left of the budget. */
static double profile_limit(double t_end)
{
    double left = t_end - kg_now();
    return left < 180 ? (left > 1 ? left : 1) : 180;
}

static void profile_reference(kg_gate *g, int task, int d, kg_ncu *out, double t_end)
{
    if (task >= 16) { snprintf(out->why, sizeof out->why, "gate: too many tasks"); return; }
    if (ref_profiled[task][d]) { *out = ref_profile[task][d]; return; }
    const char *argv[40];
    int a = kg_ncu_argv(g->ncu, "kgate_ref/", argv, 30);
    char self[PATH_MAX + 16], t[48], dv[32], sd[48];
    snprintf(self, sizeof self, "%s/kgate", g->bindir);
    snprintf(t, sizeof t, "--profile-reference=%d", task);
    snprintf(dv, sizeof dv, "--device=%d", g->dev[d].index);
    snprintf(sd, sizeof sd, "--seed=%llu", g->o->seed + 77);
    argv[a++] = self;
    argv[a++] = t;
    argv[a++] = dv;
    argv[a++] = sd;
    argv[a] = NULL;
    static char out_text[1 << 20];
    out_text[0] = 0;
    run_capture(argv, profile_limit(t_end), out_text, sizeof out_text);
    kg_ncu_parse(out_text, out);
    if (!out->ok && kg_now() >= t_end) {
        snprintf(out->why, sizeof out->why, "not profiled: the --explain-budget ran out during the profile");
        return;   /* not kept: a later candidate may have time */
    }
    ref_profile[task][d] = *out;
    ref_profiled[task][d] = 1;
}

static void profile_candidate(kg_gate *g, kg_job *j, int task, int d, kg_ncu *out, double t_end)
{
    const char *argv[40];
    int a = kg_ncu_argv(g->ncu, "kgate_cand/", argv, 30);
    char prog[PATH_MAX + 32], dv[32], so[PATH_MAX + 64], ex[48], sd[48];
    snprintf(prog, sizeof prog, "%s/kgate-harness", g->libexec);
    snprintf(dv, sizeof dv, "--device=%d", g->dev[d].index);
    int ai = arch_of_device(g, d);
    snprintf(so, sizeof so, "--so=%s/%s", g->sb->enabled ? "/scratch" : j->dir,
             j->is_torch ? "build/kgate_cand.so" : ai >= 0 ? j->so_name[ai] : "cand.so");
    snprintf(ex, sizeof ex, "--explain=%d", task);
    snprintf(sd, sizeof sd, "--seed=%llu", g->o->seed + 77);
    argv[a++] = prog;
    argv[a++] = dv;
    argv[a++] = so;
    argv[a++] = ex;
    argv[a++] = sd;
    argv[a] = NULL;
    char logp[1300];
    snprintf(logp, sizeof logp, "%s.ncu.txt", j->dir);
    int lf = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    kg_sb_spec s;
    memset(&s, 0, sizeof s);
    s.kind = KG_SB_HARNESS;   /* the candidate's code runs: the harness's sandbox, ncu inside it */
    s.scratch = j->dir;
    s.argv = argv;
    s.out_fd = lf;
    s.slot = j->slot >= 0 ? j->slot : 0;
    s.lim = kg_default_limits(KG_SB_HARNESS, 60);
    s.lim.tmp_bytes = 512ull << 20;     /* ncu's own files */
    s.lim.fsize_bytes = 256ull << 20;
    s.lim.data_bytes = 0;
    if (j->is_torch) { s.env[s.n_env++] = "OMP_NUM_THREADS=1"; s.env[s.n_env++] = "MKL_NUM_THREADS=1"; }
    kg_sb_proc p;
    int rc = kg_sb_spawn(g->sb, &s, &p);
    if (lf >= 0) close(lf);
    if (rc != 0) { snprintf(out->why, sizeof out->why, "cannot start ncu in the sandbox"); return; }
    kg_sb_result rec;
    kg_sb_wait(&p, kg_now() + profile_limit(t_end), &rec);
    char *text = kg_read_file(logp, 4u << 20, NULL);
    if (kg_ncu_parse(text, out) != 0 && kg_now() >= t_end)
        snprintf(out->why, sizeof out->why, "not profiled: the --explain-budget ran out during the profile");
    else if (!out->ok && !out->why[0])
        snprintf(out->why, sizeof out->why, "ncu gave no figures");
    if (!out->ok && text && strstr(text, "ERR_NVGPUCTRPERM"))
        snprintf(out->why, sizeof out->why, "ncu may not read the GPU's counters as the sandbox's user "
                 "(ERR_NVGPUCTRPERM: profiling is restricted to admin users on this machine)");
    /* what ncu reports comes from the candidate's sandbox: it explains a verdict, it makes none */
    free(text);
    unlink(logp);
}

/* The L4 verdicts explained (after every verdict: they do not wait for it). */
void explain_l4(kg_gate *g, kg_cand *cands, kg_job *jobs, int n)
{
    double t_end = kg_now() + g->o->explain_budget;
    int n_explained = 0;
    for (int i = 0; i < n; i++) {
        kg_cand *c = &cands[i];
        kg_job *j = &jobs[i];
        if (c->verdict != KG_V_L4) continue;
        int d = 0;
        for (int k = 0; k < c->n_dev; k++)
            if (c->dev[k].verdict == KG_V_L4) { d = k; break; }
        int ti = 0;
        for (int k = 0; k < kg_task_count(); k++)
            if (kg_task_at(k) == j->task) ti = k;
        c->explained = 1;
        if (kg_now() > t_end) {
            snprintf(c->ncu_cand.why, sizeof c->ncu_cand.why, "not profiled: the --explain-budget ran out");
            snprintf(c->ncu_ref.why, sizeof c->ncu_ref.why, "not profiled: the --explain-budget ran out");
        } else {
            char en[1100];
            kg_text_escape(c->name, sizeof c->name, en, sizeof en);
            printf("# explain: %s on device %d\n", en, g->dev[d].index);
            fflush(stdout);
            profile_reference(g, ti, d, &c->ncu_ref, t_end);
            profile_candidate(g, j, ti, d, &c->ncu_cand, t_end);
            n_explained++;
            kg_print_candidate(stdout, c);
        }
        if (!g->o->keep && !g->o->work && j->dir[0]) {
            remove_tree(j->dir, 0);
            unlink(j->log);
            for (int dd = 0; dd < g->n_dev; dd++) unlink(j->hlog[dd]);
        }
    }
    printf("# explain: %d L4 verdict(s) profiled\n", n_explained);
}
