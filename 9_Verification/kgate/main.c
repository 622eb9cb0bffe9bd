/* kgate: screen CUDA kernels (e.g. LLM-generated ones) with two tracks,
 * safely: the code being judged is assumed hostile.
 *
 * What it teaches: how to judge code you did not write without letting it
 * judge itself. A static track reads the candidate's AST (libclang, 80
 * rules: README-static.md) and rejects what is certainly wrong (P0, under a
 * policy profile: --policy); the dynamic track compiles it (nvcc -Xptxas -v,
 * or PyTorch's load_inline for a PyTorch candidate), runs it in a sandboxed
 * harness process on every GPU of the run and has a separate judge, which
 * never runs candidate code, compare its outputs with a CPU reference and
 * the judge's own reference implementation, and time it. The static scan,
 * the compiler and the harness each run in a bubblewrap sandbox with
 * resource limits and a seccomp monitor (sandbox.h); verdicts come only from
 * the judge's checks, exit statuses, the monitor's record and the gate's own
 * clocks. Verdicts: P0, L1 compile error, L2 runtime failure (a crash, a
 * hang, a limit, an attempt to leave the sandbox), L3 numeric error, L4
 * slower than 50% of the reference (explained with Nsight Compute where ncu
 * is available), PASS, EXTERNAL for library-only candidates that pass, and
 * SKIPPED for what this machine cannot judge. Every candidate also gets a
 * machine-readable feedback record for the generator (--feedback).
 *
 * Build:  make -C 9_Verification/kgate        (bin/kgate; its helpers kgate-sandbox, kgate-scan,
 *                                              kgate-harness and kgate-torch-build.py go to
 *                                              build/libexec/kgate, not to bin/: no user runs them)
 * Run:    bin/kgate 9_Verification/kgate/corpus                 full gate, labels.tsv found
 *         bin/kgate --static-only 9_Verification/kgate/corpus   no GPU needed
 *         bin/kgate --compile-only ...    static track and the compiler (no GPU)
 *         bin/kgate --dry-run ...         ... and the candidate loaded and called once in the
 *                                         sandbox, without a GPU (sandbox tests)
 *         bin/kgate my_sgemm.cu --task=sgemm --json=report.json --feedback=fb.jsonl
 * The source, in the order a run goes: cli.c (the options), candidates.c
 * (collecting candidates and labels), setup.c (the sandbox's self-tests on
 * the GPUs, PyTorch's probe), pipeline.c (a candidate's scan, compiles and
 * harnesses; its verdict), explain.c (the L4 explanations under ncu), and
 * this file: the devices, the set-up and the loop. The sandbox is
 * sandbox.c, the judge judge.cu and judge_host.c, the static track
 * static_scan.c (in the helper kgate-scan), the reports kg_report.c.
 * Exit: 0 when every candidate is accepted (or, with labels, the gate met
 * its targets), 1 otherwise, on a bad argument, a labels problem or without
 * a working sandbox (unless --no-sandbox), 2 when the full gate has no CUDA
 * device (WAIVED).
 */
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
#include "cli.h"
#include "explain.h"
#include "sanitize_run.h"
#include "late_warps.h"
#include "sanpass.h"
#include "pipeline.h"
#include "setup.h"
#include "kbgate.h"

#ifndef KGATE_LIBEXEC_REL
#define KGATE_LIBEXEC_REL "../build/libexec/kgate"
#endif

/* the device probe lives in judge.cu */
void kg_probe_main(int device, int fd);
/* and the reference's profile for --profile-reference (explained L4) */
int kg_profile_reference(int task, int device, unsigned long long seed);

/* ---- main -------------------------------------------------------------- */

static int setup_devices(kg_gate *g, kg_opts *o)
{
    if (o->mode == MODE_DRY) {
        /* no GPU: one pseudo device, the judge without a context */
        g->n_dev = 1;
        g->dev[0].index = o->n_dev_req ? o->dev_req[0] : 0;
        snprintf(g->dev[0].arch, sizeof g->dev[0].arch, "%s", g->arch[0]);
        snprintf(g->dev[0].build_arch, sizeof g->dev[0].build_arch, "%s", g->arch[0]);
        return 0;
    }
    if (o->mode != MODE_FULL) return 0;
    kg_probe_msg p0;
    memset(&p0, 0, sizeof p0);
    if (kg_probe_device(kg_probe_main, o->n_dev_req ? o->dev_req[0] : 0, 60, &p0) != 0 || !p0.ok) {
        printf("kgate: WAIVED (%s; --static-only or --compile-only run without a GPU)\n",
               p0.reason[0] ? p0.reason : "no CUDA device");
        return 2;
    }
    int want[KG_MAX_DEV], nw = 0;
    if (o->all_devices) for (int i = 0; i < p0.count && nw < KG_MAX_DEV; i++) want[nw++] = i;
    else for (int i = 0; i < o->n_dev_req; i++) want[nw++] = o->dev_req[i];
    for (int k = 0; k < nw; k++) {
        kg_device *dv = &g->dev[g->n_dev];
        memset(dv, 0, sizeof *dv);
        dv->index = want[k];
        dv->judge.pid = -1;
        dv->judge.sock = -1;
        if (want[k] >= p0.count) {
            fprintf(stderr, "kgate: error: --devices: device %d does not exist (%d visible)\n", want[k], p0.count);
            printf("kgate: FAIL (bad argument)\n");
            return 1;
        }
        if (kg_probe_device(kg_probe_main, want[k], 60, &dv->probe) != 0 || !dv->probe.ok) {
            printf("kgate: WAIVED (device %d: %s)\n", want[k], dv->probe.reason[0] ? dv->probe.reason : "no answer");
            return 2;
        }
        snprintf(dv->arch, sizeof dv->arch, "%d%d", dv->probe.cc_major, dv->probe.cc_minor);
        g->n_dev++;
    }
    /* the architectures: --arch, else the devices' own */
    if (!o->arch) {
        g->n_arch = 0;
        for (int d = 0; d < g->n_dev; d++) {
            int seen = 0;
            for (int a = 0; a < g->n_arch; a++) seen |= !strcmp(g->arch[a], g->dev[d].arch);
            if (!seen && g->n_arch < MAX_ARCH) snprintf(g->arch[g->n_arch++], sizeof g->arch[0], "%s", g->dev[d].arch);
        }
    }
    /* each device runs its own architecture's build, or the newest listed below it (PTX) */
    for (int d = 0; d < g->n_dev; d++) {
        int best = -1, own = atoi(g->dev[d].arch);
        for (int a = 0; a < g->n_arch; a++) {
            int v = atoi(g->arch[a]);
            if (v <= own && (best < 0 || v > atoi(g->arch[best]))) best = a;
        }
        if (best >= 0) snprintf(g->dev[d].build_arch, sizeof g->dev[d].build_arch, "%s", g->arch[best]);
        printf("# device %d: %s, CC %d.%d, %d SMs; runs the build for sm_%s\n", g->dev[d].index,
               g->dev[d].probe.name, g->dev[d].probe.cc_major, g->dev[d].probe.cc_minor, g->dev[d].probe.sm_count,
               best >= 0 ? g->arch[best] : "? (none: its candidates are SKIPPED)");
    }
    return 0;
}

int main(int argc, char **argv)
{
    /* the reference under Nsight Compute (an L4 explained): the gate's own code */
    if (argc >= 2 && !strncmp(argv[1], "--profile-reference=", 20)) {
        int dev = 0;
        unsigned long long seed = 2026;
        for (int i = 2; i < argc; i++) {
            if (!strncmp(argv[i], "--device=", 9)) dev = atoi(argv[i] + 9);
            else if (!strncmp(argv[i], "--seed=", 7)) seed = strtoull(argv[i] + 7, NULL, 10);
        }
        return kg_profile_reference(atoi(argv[1] + 20), dev, seed);
    }
    kg_opts o;
    int pa = parse_args(argc, argv, &o);
    if (pa == -2) { usage(stdout); return 0; }
    if (pa < 0) return 1;
    double wall0 = kg_now();
    signal(SIGPIPE, SIG_IGN);

    char **paths = (char **)calloc(MAX_CANDS, sizeof(char *));
    int n = 0;
    char labels_path[1024] = "", lab_dir[1024] = "";
    if (o.labels) snprintf(labels_path, sizeof labels_path, "%s", o.labels);
    for (int i = 0; i < o.n_paths && !o.kernelbench; i++) {
        int cr = collect(o.paths[i], paths, &n, labels_path, sizeof labels_path, lab_dir, sizeof lab_dir);
        if (cr == -2)
            return bad_arg("%s is a symbolic link to a folder: give the folder itself (the gate follows no links)",
                           o.paths[i]);
        if (cr != 0) return bad_arg("cannot read %s", o.paths[i]);
    }
    if (n > MAX_CANDS) {
        fprintf(stderr, "kgate: error: %d candidate files: more than the limit of %d per run (split the run)\n",
                n, MAX_CANDS);
        printf("kgate: FAIL (%d candidates, the limit is %d)\n", n, MAX_CANDS);
        return 1;
    }
    if (n == 0 && !o.kernelbench) return bad_arg("no candidates (.cu, .cuh, .cpp, .md) under the given PATH%s", "");

    kg_label *labels = (kg_label *)calloc(MAX_CANDS, sizeof(kg_label));
    int n_labels = 0, label_problems = 0;
    if (labels_path[0] && !o.kernelbench) {
        char *text = kg_read_file(labels_path, 4u << 20, NULL);
        char err[256];
        if (!text) return bad_arg("--labels: cannot read %s", labels_path);
        int bom = (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF;
        n_labels = kg_labels_parse(text + (bom ? 3 : 0), labels, MAX_CANDS, err, sizeof err);
        free(text);
        if (n_labels < 0) {
            fprintf(stderr, "kgate: error: %s: %s\n", labels_path, err);
            printf("kgate: FAIL (bad labels file)\n");
            return 1;
        }
        label_problems = labels_problems(labels_path, bom, labels, n_labels);
    }

    /* The sandbox first: without one (and without --no-sandbox) nothing runs. */
    static kg_gate g;
    memset(&g, 0, sizeof g);
    g.o = &o;
    g.judge_main = kg_judge_main;
    static kg_sandbox sb;
    g.sb = &sb;
    char self[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) { fprintf(stderr, "kgate: error: cannot find my own binary\n"); return 1; }
    self[sl] = 0;
    snprintf(g.bindir, sizeof g.bindir, "%.*s", (int)(strrchr(self, '/') - self), self);
    /* the helpers are not commands of their own: build/libexec/kgate (the
     * Makefile passes where it lies from bin/) */
    {
        char lx[PATH_MAX + 64];
        snprintf(lx, sizeof lx, "%.3000s/%s", g.bindir, KGATE_LIBEXEC_REL);
        if (real_path_into(lx, g.libexec, sizeof g.libexec) != 0) {
            fprintf(stderr, "kgate: error: its helper programs are missing (%s): build with "
                            "make -C 9_Verification/kgate\n", lx);
            printf("kgate: FAIL (helper programs missing)\n");
            return 1;
        }
    }
    resolve_nvcc(o.nvcc, g.nvcc, sizeof g.nvcc);
    if (o.memory_mb) kg_set_harness_memory((unsigned long long)o.memory_mb << 20);
    char err[600];
    if (kg_sandbox_setup(&sb, g.libexec, o.no_sandbox, err, sizeof err) != 0) {
        fprintf(stderr, "kgate: error: no sandbox: %s\n", err);
        printf("kgate: FAIL (no sandbox: %s; --no-sandbox runs without one, UNSAFE)\n", err);
        return 1;
    }
    {
        char nv_root[PATH_MAX];
        snprintf(nv_root, sizeof nv_root, "%s", g.nvcc);
        for (int k = 0; k < 2; k++) {
            char *s = strrchr(nv_root, '/');
            if (s && s != nv_root) *s = 0;
        }
        kg_sandbox_add_ro(&sb, nv_root);
        snprintf(g.cuda_home, sizeof g.cuda_home, "%s", nv_root);
    }
    if (!sb.enabled) {
        fprintf(stderr, "kgate: WARNING: --no-sandbox: candidates, nvcc and the static scan run "
                        "WITHOUT a sandbox, as this user, with this user's files, environment and "
                        "network. Only for code you trust.\n");
        printf("# WARNING: NO SANDBOX (--no-sandbox): UNSAFE for candidates you did not write\n");
    }
    printf("# sandbox: %s\n", sb.desc);
    if (o.kernelbench) {   /* KernelBench problems: kbgate.c */
        kg_sb_reap_lingering(1);
        int rc = kb_main(&g);
        kg_sb_reap_lingering(1);
        kg_sandbox_cleanup(&sb);
        return rc;
    }
    printf("# policy: %s (%s)\n", kg_policy_name(o.policy), kg_policy_summary(o.policy));
    kg_report_partial_last = o.mode == MODE_STATIC ? KG_V_P0 : KG_V_L1;

    /* the architectures named with --arch (else the devices', found below; without a GPU 90) */
    kg_arch_set(&g, o.arch ? o.arch : "90");
    /* The devices, in children: the gate itself never touches CUDA. */
    int drc = setup_devices(&g, &o);
    if (drc) return drc;
    kg_arch_join(&g);   /* with the devices' own, when --arch named none */
    if (o.mode != MODE_STATIC) printf("# compiled for: sm_%s\n", g.arch_list);
    if (o.mode == MODE_FULL && sandbox_gpu_checks(&g, &sb)) return 1;
    if (sb.enabled) {
        char md[400];
        kg_sandbox_memory_desc(&sb, md, sizeof md);
        printf("# sandbox: %s\n", md);
    }

    /* the candidates' sources: PyTorch ones, and a task that contradicts the label */
    int any_torch = 0;
    char *torch_cand = calloc((size_t)n, 1);
    for (int i = 0; i < n; i++) {
        char lerr[256];
        char *src = kg_load_candidate(paths[i], MAX_SOURCE_BYTES, lerr, sizeof lerr);
        if (!src) continue;
        torch_cand[i] = (char)kg_is_torch_source(src);
        any_torch |= torch_cand[i];
        const char *base = strrchr(paths[i], '/');
        base = base ? base + 1 : paths[i];
        const kg_label *lab = kg_labels_find(labels, n_labels, base);
        char said[32];
        const kg_task *st = task_from_source(src, said, sizeof said);
        if (lab && said[0] && (!st || strcmp(st->name, lab->task))) {
            char eb[1100];
            kg_text_escape(base, 256, eb, sizeof eb);   /* a file name is the candidate's text too */
            printf("# labels: PROBLEM: %s: its source says kgate-task: %s, its label says %s (the source's is used)\n",
                   eb, said, lab->task);
            label_problems++;
        }
        free(src);
    }
    if (any_torch) {
        /* also for --static-only: the scan reads PyTorch's headers */
        torch_probe(&g);
        if (!g.torch_ok && o.mode != MODE_STATIC)
            printf("# pytorch: not available (%s): PyTorch candidates are SKIPPED\n", g.torch_why);
        else if (!g.torch_ok)
            printf("# pytorch: not available (%s): the scan reads PyTorch candidates without its headers\n", g.torch_why);
        else if (o.mode == MODE_FULL) {
            /* what loading libtorch does in the harness's sandbox (no candidate yet) */
            char why[400] = "";
            if (harness_selftest(&g, 0, g.torch_preload, g.torch_allow, &g.torch_allow_n, why, sizeof why) != 0) {
                g.torch_ok = 0;
                snprintf(g.torch_why, sizeof g.torch_why, "libtorch does not load in the harness's sandbox: %.250s", why);
                printf("# pytorch: %s: PyTorch candidates are SKIPPED\n", g.torch_why);
            } else if (g.torch_allow_n) {
                printf("# sandbox: loading libtorch in the sandbox did:");
                for (int k = 0; k < g.torch_allow_n; k++) printf("%s %s", k ? ";" : "", g.torch_allow[k]);
                printf(" (not held against candidates)\n");
            }
            if (g.torch_ok && g.torch_file_kb >= 0) {
                kg_limits hl = kg_default_limits(KG_SB_HARNESS, 1);
                printf("# sandbox: libtorch's harness with a context: resident memory watched: peak %.0f MiB, "
                       "file-backed pages %.0f MiB (counted past %.1f GiB)\n", (double)g.torch_mem_kb / 1024.0,
                       (double)g.torch_file_kb / 1024.0, (double)hl.file_slack_bytes / (1024.0 * 1024.0 * 1024.0));
            }
        }
    }
    int explain = 0;
    if (o.mode == MODE_FULL && !o.no_timing && o.explain != 0) {
        find_ncu(&g);
        if (g.ncu[0]) {
            explain = 1;
            char real[PATH_MAX];
            if (real_path_into(g.ncu, real, sizeof real) == 0) {
                char *s = strrchr(real, '/');
                if (s) *s = 0;
                kg_sandbox_add_ro(&sb, real);
            }
            printf("# explain: L4 verdicts are profiled with %s (--clock-control none)\n", g.ncu);
        } else {
            printf("# explain: no ncu found: L4 verdicts are not profiled%s\n", o.explain == 1 ? " (--explain)" : "");
        }
    }
    char sanitizer[PATH_MAX] = "";
    if (o.mode == MODE_FULL && o.sanitize != KG_SAN_NONE) {
        if (find_sanitizer(&g, sanitizer, sizeof sanitizer) != 0) {
            if (o.sanitize_given || o.sanitizer)
                return bad_arg("--sanitize: no compute-sanitizer at %s (give it with --compute-sanitizer=PATH)",
                               sanitizer);
            /* the default on a toolkit without the tool: said, not an error */
            printf("# sanitize: off: no compute-sanitizer at %s (the default is --sanitize=fast; "
                   "--compute-sanitizer=PATH names the tool, --sanitize=none turns the pass off)\n", sanitizer);
            o.sanitize = KG_SAN_NONE;
            sanitizer[0] = 0;
        }
    }
    if (o.mode == MODE_FULL && o.sanitize != KG_SAN_NONE) {
        char real[PATH_MAX];
        if (real_path_into(sanitizer, real, sizeof real) == 0) {
            char *sl = strrchr(real, '/');
            if (sl) *sl = 0;
            kg_sandbox_add_ro(&sb, real);
        }
        int tools[SZ_N_TOOLS], nt = kg_san_mode_tools(o.sanitize, tools);
        for (int k = 0; k < nt; k++) kg_report_san_tools |= 1u << tools[k];   /* what labels can expect */
        printf("# sanitize: each PASS runs its small shapes under %s (%s)\n", sanitizer,
               o.sanitize == KG_SAN_ALL ? "memcheck with leak checking, racecheck, initcheck, synccheck"
                                        : "memcheck with leak checking, racecheck");
    }
    if ((o.mode == MODE_FULL || o.mode == MODE_DRY) && !o.kernelbench)
        printf("# late warps: %s\n", o.late_warps == KG_LATE_NONE ? "off (--late-warps=none)"
                                     : o.late_warps == KG_LATE_ALL
                                         ? "every PASS is built again with half of each block's warps started "
                                           "about 20 us late and checked again (--late-warps=all)"
                                         : "a PASS with a KG-SYNC-MISSING finding is built again with half of each "
                                           "block's warps started about 20 us late and checked again");
    fflush(stdout);

    char workdir[1024];
    int own_work = 0;
    if (o.work) {
        snprintf(workdir, sizeof workdir, "%.1000s", o.work);
        mkdir(workdir, 0755);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(workdir, sizeof workdir, "%s/kgate.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(workdir)) {
            fprintf(stderr, "kgate: error: cannot create a work folder: %s\n", strerror(errno));
            return 1;
        }
        own_work = 1;
    }
    chmod(workdir, 0711);

    if (o.mode == MODE_FULL || o.mode == MODE_DRY)
        for (int d = 0; d < g.n_dev; d++)
            if (kg_judge_start(&g.dev[d].judge, kg_judge_main, g.dev[d].index, o.mode == MODE_DRY) != 0) {
                fprintf(stderr, "kgate: error: cannot start the judge\n");
                return 1;
            }

    kg_cand *cands = (kg_cand *)calloc((size_t)n, sizeof(kg_cand));
    kg_job *jobs = (kg_job *)calloc((size_t)n, sizeof(kg_job));
    for (int i = 0; i < n; i++) {
        kg_cand *c = &cands[i];
        snprintf(c->path, sizeof c->path, "%s", paths[i]);
        const char *base = strrchr(paths[i], '/');
        snprintf(c->name, sizeof c->name, "%s", base ? base + 1 : paths[i]);
        c->expected = -1;
        c->verdict = -1;
        c->policy = o.policy;
        const kg_label *lab = kg_labels_find(labels, n_labels, c->name);
        if (lab) {
            c->expected = lab->expected;
            snprintf(c->defect, sizeof c->defect, "%s", lab->defect);
            c->san_label = lab->sanitizer;
        }
        kg_job *j = &jobs[i];
        j->scan_fd = -1;
        for (int d = 0; d < KG_MAX_DEV; d++) j->cmd_w[d] = j->rep_r[d] = j->shm_fd[d] = -1;
        for (int a = 0; a < MAX_ARCH; a++) j->arch_ok[a] = -1;
        j->slot = -1;
    }

    /* One pipeline per candidate, --jobs candidates compiling at once: the
     * compiler and the harnesses (creating their CUDA contexts, then waiting)
     * start first, the static scan at the same time, each in its sandbox;
     * when the scan passes and the compile succeeds the candidate is ready,
     * and ready candidates run on the GPUs one at a time (each judge serves
     * one session at a time: timings stay clean). A candidate becoming ready
     * makes room for the next, whose compile overlaps the session; its
     * harness waits until no candidate waits for the GPU, so no CUDA start-up
     * delays a session (README.md, "Latency"). Per-candidate total = wall time from the start of its
     * processing to its verdict. */
    int next = 0, in_flight = 0, n_done = 0, printed = 0, n_admitted = 0;
    /* PyTorch builds at once: 2, half of --jobs when that is more, and a
     * quarter of the CPUs when that is more still (at most 4): each build
     * runs 2 compiler processes (MAX_JOBS=2). On the H200 machine's 16 CPUs
     * the corpus's 6 PyTorch builds took 69 to 87 s each, their static
     * scans beside them 23 to 28 s (results/H200/kgate_corpus_c5b372b_cut.txt,
     * commit c5b372b): 2 at a time, 4 rounds, by our reckoning longer than
     * the line of plain candidates beside them (not measured apart) */
    int torch_max = (o.jobs + 1) / 2 > 2 ? (o.jobs + 1) / 2 : 2;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu / 4 > torch_max) torch_max = ncpu / 4 < 4 ? (int)(ncpu / 4) : 4;
    while (n_done < n) {
        kg_sb_reap_lingering(0);
        /* ---- harnesses held back while a candidate waited for the GPU ---- */
        int n_ready = 0;   /* waiting for the GPU, or about to (scan and compile done) */
        for (int i = 0; i < next; i++)
            n_ready += jobs[i].state == J_READY ||
                       (jobs[i].state == J_FLIGHT && jobs[i].static_done && jobs[i].compile_done);
        for (int i = 0; i < next && !n_ready; i++)
            if (jobs[i].state == J_FLIGHT && jobs[i].h_pending) spawn_harnesses(&g, &jobs[i]);

        /* ---- admit ---- */
        int fresh = 0, torch_busy = 0;
        double now0 = kg_now();
        for (int i = 0; i < next; i++) {
            fresh += jobs[i].state == J_FLIGHT && now0 - jobs[i].t0 < KG_STEP_ASIDE_S;
            torch_busy += torch_cand[i] && (jobs[i].state == J_FLIGHT || jobs[i].state == J_READY);
        }
        while (fresh < o.jobs && in_flight < o.jobs + KG_STEP_ASIDE_MAX && in_flight < 64 && n_admitted < n) {
            /* PyTorch candidates first, at most torch_max at a time: their
             * builds (about a minute each) then run beside the plain
             * candidates, which go ahead in order, instead of after them
             * (the corpus's 11 would add about 3 minutes at its end) */
            int i = -1;
            for (int k = 0; k < n && i < 0 && torch_busy < torch_max; k++)
                if (jobs[k].state == J_QUEUED && torch_cand[k]) i = k;
            for (int k = 0; k < n && i < 0; k++)
                if (jobs[k].state == J_QUEUED && !torch_cand[k]) i = k;
            if (i < 0) break;   /* only PyTorch candidates wait: their builds are running */
            if (i + 1 > next) next = i + 1;
            n_admitted++;
            fresh++;
            torch_busy += torch_cand[i];
            kg_cand *c = &cands[i];
            kg_job *j = &jobs[i];
            const kg_label *lab = kg_labels_find(labels, n_labels, c->name);
            j->t0 = kg_now();
            j->state = J_FLIGHT;
            in_flight++;
            for (int s = 0; s < KG_SB_SLOTS; s++)
                if (!slot_used[s]) { slot_used[s] = 1; j->slot = s; break; }
            char lerr[256] = "";
            j->source = kg_load_candidate(paths[i], MAX_SOURCE_BYTES, lerr, sizeof lerr);
            if (kg_file_has_bom(paths[i])) add_note(c, "%s", "the file starts with a UTF-8 byte-order mark (ignored)");
            j->task = o.task ? kg_task_find(o.task) : NULL;
            if (!j->task && j->source) j->task = task_from_source(j->source, NULL, 0);
            if (!j->task && lab) j->task = kg_task_find(lab->task);
            snprintf(c->task, sizeof c->task, "%s", j->task ? j->task->name : "?");
            if (!j->source) {
                c->verdict = KG_V_L1;
                snprintf(c->reason, sizeof c->reason, "not a candidate: %s", lerr[0] ? lerr : "unreadable");
                c->t_static = kg_now() - j->t0;
                j->static_done = j->compile_done = 1;
                continue;
            }
            j->is_torch = c->is_torch = kg_is_torch_source(j->source);
            kg_torch_entry_of(j->source, j->entry, sizeof j->entry);
            /* the include policy, before anything opens the file's includes */
            char why[300];
            int iline = 0;
            if (kg_include_check(j->source, why, sizeof why, &iline)) {
                c->verdict = KG_V_P0;
                snprintf(c->reason, sizeof c->reason, "KG-INCLUDE at line %d: %s", iline, why);
                snprintf(c->rules, sizeof c->rules, "KG-INCLUDE(P0)@%d", iline);
                c->n_p0 = 1;
                c->n_hits = c->hits_total = 1;
                c->hits[0].rule = kg_rule_index("KG-INCLUDE");
                c->hits[0].line = iline;
                snprintf(c->hits[0].msg, sizeof c->hits[0].msg, "%.199s", why);
                for (int p = 0; p < KG_POLICY_COUNT; p++) c->policy_stops |= 1u << p;   /* every profile */
                c->t_static = kg_now() - j->t0;
                j->static_done = j->compile_done = 1;
                continue;
            }
            char nm[160];
            sanitize(c->name, nm, sizeof nm);
            snprintf(j->dir, sizeof j->dir, "%s/%03d_%s", workdir, i % 1000, nm);
            snprintf(j->log, sizeof j->log, "%s/%03d_%s.compile.log", workdir, i % 1000, nm);
            for (int d = 0; d < g.n_dev; d++)
                snprintf(j->hlog[d], sizeof j->hlog[d], "%.900s/%03d_%.120s.run%d.log", workdir, i % 1000, nm, d % 10);
            char src[PATH_MAX + 16], cu[PATH_MAX + 16];
            snprintf(src, sizeof src, "%s/cand.src", j->dir);
            snprintf(cu, sizeof cu, "%s/cand.cu", j->dir);
            /* the compile, on the source the static track would repair (the
             * half and bfloat16 headers, whenever the text names those types;
             * a second include is harmless), behind #line 1 "<the candidate>"
             * so the compiler's messages name the candidate's own file and line */
            j->compile_needs_half = strstr(j->source, "half") != NULL;
            j->compile_needs_bf16 = strstr(j->source, "bfloat16") != NULL;
            char *csrc = kg_compile_source(j->source, c->path, j->compile_needs_half, j->compile_needs_bf16);
            if (csrc && j->is_torch && j->task) {
                /* PyTorch: the gate's launcher after the candidate */
                static char adapter[16384];
                if (kg_torch_adapter(j->task, j->entry, adapter, sizeof adapter) == 0) {
                    size_t a = strlen(csrc), b = strlen(adapter);
                    char *both = malloc(a + b + 1);
                    if (both) { memcpy(both, csrc, a); memcpy(both + a, adapter, b + 1); }
                    free(csrc);
                    csrc = both;
                }
            }
            if (mkdir(j->dir, 0755) != 0 || !csrc || write_text(src, j->source) != 0 ||
                write_text(cu, csrc) != 0) {
                c->verdict = KG_V_L1;
                snprintf(c->reason, sizeof c->reason, "gate: cannot write %.300s", j->dir);
                free(csrc);
                j->static_done = j->compile_done = 1;
                continue;
            }
            free(csrc);
            unsigned cuid = kg_sandbox_uid(&sb, j->slot, KG_SB_COMPILE);
            if (cuid && chown(j->dir, cuid, cuid) != 0) {
                fprintf(stderr, "kgate: warning: chown %s: %s\n", j->dir, strerror(errno));
            }
            for (int a = 0; a < g.n_arch; a++) snprintf(j->so_name[a], sizeof j->so_name[a], "cand_sm%s.so", g.arch[a]);
            if (o.mode != MODE_STATIC && j->task && !(j->is_torch && !g.torch_ok)) {
                j->cpp17 = kg_needs_cpp17(j->source) || j->is_torch;
                if (spawn_compile(&g, j, c) != 0) j->compile_done = 1;
                else if (o.mode == MODE_FULL || o.mode == MODE_DRY) {
                    /* a harness's start-up (its CUDA context) must not overlap
                     * a session: while a candidate waits for the GPU it is held
                     * back, and starts when that session is over */
                    j->h_pending = 1;
                    if (!n_ready) spawn_harnesses(&g, j);
                }
            } else {
                j->compile_done = 1;
            }
            if (spawn_scan(&g, j, c) != 0) {
                c->verdict = KG_V_L1;
                snprintf(c->reason, sizeof c->reason, "gate: cannot start the static scan in the sandbox");
                j->static_done = 1;
            }
        }

        /* ---- settle candidates whose static scan and compile are both done ---- */
        for (int i = 0; i < next; i++) {
            kg_job *j = &jobs[i];
            kg_cand *c = &cands[i];
            if (j->state != J_FLIGHT) continue;
            if (!j->static_done) continue;
            if (c->verdict < 0 && j->static_ok && !j->compile_done) continue;
            if (c->verdict < 0 && j->static_ok) {
                if (j->is_torch && !g.torch_ok) {
                    c->verdict = KG_V_SKIPPED;
                    snprintf(c->reason, sizeof c->reason, "PyTorch candidate, not judged here: %.300s", g.torch_why);
                } else if (j->env_skip) {
                    c->verdict = KG_V_SKIPPED;   /* the reason says why */
                } else if (!j->compile_ok) {
                    c->verdict = KG_V_L1;
                    if (!c->reason[0]) snprintf(c->reason, sizeof c->reason, "compile error");
                } else if (parse_stop(j, c)) {
                    /* nvcc compiles what clang could not parse: P0, decided here */
                } else if (o.mode == MODE_COMPILE) {
                    c->verdict = KG_V_STATIC_OK;
                    snprintf(c->reason, sizeof c->reason, "static track and compile passed (not run)");
                } else {
                    /* the fat binary serves every architecture under each one's name */
                    if (j->arch_ok[0] == 1 && !j->is_torch && g.n_arch > 0) {
                        char from[PATH_MAX + 16], to[PATH_MAX + 48];
                        snprintf(from, sizeof from, "%s/cand.so", j->dir);
                        for (int a = 0; a < g.n_arch; a++) {
                            snprintf(to, sizeof to, "%s/cand_sm%s.so", j->dir, g.arch[a]);
                            if (access(to, F_OK) != 0 && access(from, F_OK) == 0 && link(from, to) != 0)
                                fprintf(stderr, "kgate: warning: link %s: %s\n", to, strerror(errno));
                        }
                    }
                    j->state = J_READY;
                    c->t_ready = kg_now() - j->t0;
                    continue;
                }
            }
            /* decided without the GPU: stop what still runs for it */
            stop_job(&g, j);
            if (c->verdict < 0) c->verdict = KG_V_L1;
            c->t_total = kg_now() - j->t0;
            j->state = J_DONE;
            in_flight--;
            n_done++;
        }

        /* ---- the GPUs: the first ready candidate, one at a time ---- */
        int gpu = -1;
        for (int i = 0; i < next && gpu < 0; i++)
            if (jobs[i].state == J_READY) gpu = i;
        if (gpu >= 0) {
            kg_cand *c = &cands[gpu];
            kg_job *j = &jobs[gpu];
            int ti = 0;
            for (int k = 0; k < kg_task_count(); k++)
                if (kg_task_at(k) == j->task) ti = k;
            if (j->h_pending) spawn_harnesses(&g, j);   /* held back until now: its start-up is waited for */
            c->t_quiesce = quiesce_others(&g, jobs, next, gpu);
            c->t_gpu_wait = kg_now() - j->t0 - c->t_ready;
            run_candidate(&g, j, c, ti);
            late_warps_check(&g, j, c, jobs, next, gpu, ti);
            stop_job(&g, j);
            c->t_total = kg_now() - j->t0;
            j->state = J_DONE;
            in_flight--;
            n_done++;
        } else if (n_done < n && in_flight > 0) {
            /* ---- wait for a scan, a compile, a harness that ended early, or a deadline ---- */
            struct pollfd pf[(2 + KG_MAX_DEV) * 64];
            int who[(2 + KG_MAX_DEV) * 64], what[(2 + KG_MAX_DEV) * 64], np = 0;
            double now = kg_now(), soonest = now + 1.0;
            for (int i = 0; i < next && np < (2 + KG_MAX_DEV) * 64 - (2 + KG_MAX_DEV); i++) {
                kg_job *j = &jobs[i];
                if (j->state != J_FLIGHT) continue;
                if (j->scan_on) {
                    pf[np] = (struct pollfd){j->scan.res_fd, POLLIN, 0}; who[np] = i; what[np++] = -2;
                    if (!j->scan_killed && j->scan_deadline < soonest) soonest = j->scan_deadline;
                }
                if (j->cc_on) {
                    pf[np] = (struct pollfd){j->cc.res_fd, POLLIN, 0}; who[np] = i; what[np++] = -1;
                    if (!j->cc_killed && j->cc_deadline < soonest) soonest = j->cc_deadline;
                }
                for (int d = 0; d < g.n_dev; d++)
                    if (j->h_on[d] && !j->h_dead[d]) {
                        pf[np] = (struct pollfd){j->harness[d].res_fd, POLLIN, 0}; who[np] = i; what[np++] = d;
                    }
            }
            int ms = (int)((soonest - now) * 1000) + 1;
            if (ms < 1) ms = 1;
            int pr = poll(pf, (nfds_t)np, ms);
            if (pr < 0 && errno != EINTR) {
                fprintf(stderr, "kgate: internal error: poll: %s\n", strerror(errno));
                return 1;
            }
            for (int k = 0; pr > 0 && k < np; k++) {
                if (!pf[k].revents) continue;
                kg_job *j = &jobs[who[k]];
                kg_cand *c = &cands[who[k]];
                if (what[k] == -2 && j->scan_on) static_result(&g, j, c);
                else if (what[k] == -1 && j->cc_on) compile_result(&g, j, c);
                else if (what[k] >= 0 && j->h_on[what[k]]) {
                    /* the harness ended before its run: nothing of the candidate ran yet */
                    int d = what[k];
                    kg_sb_wait(&j->harness[d], kg_now() + 3, &j->hrec[d]);
                    j->h_on[d] = 0;
                    j->h_dead[d] = 1;
                }
            }
            now = kg_now();
            for (int i = 0; i < next; i++) {
                kg_job *j = &jobs[i];
                if (j->state != J_FLIGHT) continue;
                if (j->scan_on && !j->scan_killed && now > j->scan_deadline) {
                    j->scan_killed = 1;
                    kg_sb_kill(&j->scan);
                }
                if (j->cc_on && !j->cc_killed && now > j->cc_deadline) {
                    j->cc_killed = 1;
                    kg_sb_kill(&j->cc);
                }
            }
        }

        /* ---- print finished candidates in order ---- */
        while (printed < n && jobs[printed].state == J_DONE) {
            kg_cand *c = &cands[printed];
            kg_job *j = &jobs[printed];
            kg_print_candidate(stdout, c);
            fflush(stdout);
            free(j->source);
            j->source = NULL;
            if (j->slot >= 0) slot_used[j->slot] = 0;
            j->slot = -1;
            int keep_for_explain = (explain && c->verdict == KG_V_L4) ||
                                   (sanitizer[0] && c->verdict == KG_V_PASS);
            if (!o.keep && !o.work && j->dir[0] && !keep_for_explain) {
                remove_tree(j->dir, 0);
                unlink(j->log);
                for (int d = 0; d < g.n_dev; d++) unlink(j->hlog[d]);
            }
            printed++;
        }
    }
    kg_sb_reap_lingering(1);
    for (int d = 0; d < g.n_dev; d++) kg_judge_stop(&g.dev[d].judge);
    if (o.mode == MODE_FULL && quiesce_waits)
        printf("# exclusive GPU: %d session(s) first waited for other harnesses to finish their start-up "
               "or teardown, %.2f s in all\n", quiesce_waits, quiesce_wait_s);

    /* ---- L4 verdicts explained (after every verdict: they do not wait for it) ---- */
    int late_run = 0, late_stopped = 0, late_not = 0;
    for (int i = 0; i < n; i++) {
        late_run += cands[i].late_state == KG_LATE_HELD || cands[i].late_state == KG_LATE_STOPPED;
        late_stopped += cands[i].late_state == KG_LATE_STOPPED;
        late_not += cands[i].late_state == KG_LATE_NOT_RUN;
    }
    if (late_run || late_not)
        printf("# late warps: %d candidate(s) run again, %d stopped, %d not run (the gate's reasons, in their reports)\n",
               late_run, late_stopped, late_not);
    /* ---- PASS verdicts under compute-sanitizer (a finding: L2) ---- */
    if (sanitizer[0]) sanitize_passed(&g, cands, jobs, n, sanitizer);
    if (explain) explain_l4(&g, cands, jobs, n);
    if (own_work && !o.keep) rmdir(workdir);

    kg_summary s;
    kg_summarize(cands, n, kg_now() - wall0, &s);
    kg_print_summary(stdout, &s);
    static const char *const mode_name[] = {"full", "static-only", "compile-only", "dry-run"};
    char devnames[600] = "";
    size_t dl = 0;
    for (int d = 0; d < g.n_dev && o.mode == MODE_FULL; d++)
        dl += (size_t)snprintf(devnames + dl, sizeof devnames - dl, "%s%s", d ? "; " : "", g.dev[d].probe.name);
    if (o.json) {
        FILE *f = fopen(o.json, "w");
        kg_run_info info = {sb.desc, o.mode == MODE_FULL ? devnames : "none (no GPU run)", g.arch_list,
                            o.mode == MODE_FULL && o.no_timing ? "no-timing" : mode_name[o.mode], o.seed,
                            kg_policy_name(o.policy)};
        if (!f || kg_write_json(f, &info, cands, n, &s) != 0 || fclose(f) != 0) {
            fprintf(stderr, "kgate: error: cannot write --json=%s\n", o.json);
            printf("kgate: FAIL (cannot write the JSON report)\n");
            return 1;
        }
        printf("JSON report: %s\n", o.json);
    }
    if (o.feedback) {
        FILE *f = fopen(o.feedback, "w");
        if (!f || kg_write_feedback(f, cands, n) != 0 || fclose(f) != 0) {
            fprintf(stderr, "kgate: error: cannot write --feedback=%s\n", o.feedback);
            printf("kgate: FAIL (cannot write the feedback)\n");
            return 1;
        }
        printf("feedback: %s (one record per candidate)\n", o.feedback);
    }

    /* The closing line. With labels: the gate's targets; a partial run
     * (static, compile, dry): no good candidate rejected and every bad one
     * whose defect those stages can see stopped; without labels: every
     * candidate accepted. A labels problem fails the run: the figures rest
     * on the labels. */
    int ok;
    char why[300];
    if (s.n_labeled > 0 && o.mode != MODE_FULL) {
        int missed = 0;
        int last = o.mode == MODE_STATIC ? KG_V_P0 : KG_V_L1;
        for (int i = 0; i < n; i++)
            if (cands[i].expected >= KG_V_P0 && cands[i].expected <= last &&
                !kg_verdict_is_stop(cands[i].verdict) && cands[i].verdict != KG_V_SKIPPED &&
                /* lenient leaves the static defects to the dynamic track on purpose */
                !(o.policy == KG_POLICY_LENIENT && cands[i].expected == KG_V_P0))
                missed++;
        ok = s.good_stopped == 0 && missed == 0;
        snprintf(why, sizeof why, "%d good candidate(s) rejected, %d bad one(s) this stage should stop "
                 "passed", s.good_stopped, missed);
    } else if (s.n_labeled > 0) {
        /* the second stage's targets (README.md); the median is reported
         * against its own, but a slow machine does not fail the verdicts */
        ok = (s.bad == 0 || s.interception >= 0.98) && s.good_stopped == 0;
        snprintf(why, sizeof why, "interception %.1f%% (target >= 98%%), false kills %.1f%% (target 0), "
                 "median %.3f s per candidate (target <= 1.0 s)",
                 100.0 * s.interception, 100.0 * s.false_kill, s.median_s);
    } else {
        int stopped = 0;
        for (int i = 0; i < n; i++) stopped += kg_verdict_is_stop(cands[i].verdict);
        ok = stopped == 0;
        snprintf(why, sizeof why, "%d of %d candidate(s) stopped", stopped, n);
    }
    if (label_problems) {
        size_t l = strlen(why);
        snprintf(why + l, sizeof why - l, "; %d labels problem(s), see the # labels lines", label_problems);
        ok = 0;
    }
    if (s.stage_mismatches) {   /* a silent defect that something else saw: the label or the gate is wrong */
        size_t l = strlen(why);
        snprintf(why + l, sizeof why - l, "; %d candidate(s) stopped by another part of the gate than the "
                 "sanitizer tool their label names", s.stage_mismatches);
        ok = 0;
    }
    if (s.gate_failures) {   /* the gate did not do its job for them: never a silent pass */
        size_t l = strlen(why);
        snprintf(why + l, sizeof why - l, "; %d candidate(s) not judged: the gate's own failure (SKIPPED)",
                 s.gate_failures);
        ok = 0;
    }
    printf("kgate: %s (%s)\n", ok ? "PASS" : "FAIL", why);
    for (int i = 0; i < n; i++) free(paths[i]);
    free(paths);
    free(labels);
    free(cands);
    free(jobs);
    free(torch_cand);
    free(o.paths);
    return ok ? 0 : 1;
}
