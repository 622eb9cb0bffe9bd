/* kgate's command line: --help, the option lists (flags[], valued[]) and
 * the parser. Options may come before or after the paths; a value is
 * `--name=VALUE` or `--name VALUE` (never a following option); numbers are
 * range-checked. See cli.h. */
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
#include "late_warps.h"
#include "sanpass.h"
#include "proto.h"
#include "rules.h"
#include "sandbox.h"
#include "torch_adapter.h"
#include "tasks.h"
#include "cli.h"

void usage(FILE *f)
{
    fprintf(f,
            "usage: kgate [options] PATH... [options]   (PATH: a candidate file or a directory of them;\n"
            "       options may come before or after the paths; after `--` everything is a path)\n"
            "  --task=NAME        task of candidates that do not name one (// kgate-task: NAME)\n"
            "  --labels=FILE      labels (file, task, verdict, defect); default: DIR/labels.tsv\n"
            "  --json=FILE        write the JSON report to FILE\n"
            "  --feedback=FILE    write one feedback record per candidate (JSON lines) for the generator\n"
            "  --policy=NAME      what rejects statically: default (certain defects), published (the\n"
            "                     published gate's P0 list), strict (every P1 too), lenient (only what the\n"
            "                     gate cannot read safely); see README-static.md\n"
            "  --static-only      only the static track (no GPU needed)\n"
            "  --compile-only     the static track and the compiler (no GPU needed)\n"
            "  --dry-run          ... and load and call each candidate once in the sandbox without\n"
            "                     a GPU (nothing checked: tests of the sandbox)\n"
            "  --no-timing        correctness only (no L4 verdicts)\n"
            "  --jobs=N           candidates compiling at once (static scans and compiles run in\n"
            "                     parallel, GPU runs one at a time); more is more candidates an hour\n"
            "                     and more seconds each (default 1: the least latency)\n"
            "  --timeout=SECONDS  limit per candidate's run on a device (default 20)\n"
            "  --scan-timeout=S   limit per static scan (default 30; four times that for PyTorch)\n"
            "  --compile-timeout=S limit per nvcc compile (default 120)\n"
            "  --torch-timeout=S  limit per PyTorch extension build (default 300)\n"
            "                     (these three are CPU seconds, four times as many of wall-clock time;\n"
            "                     out of wall-clock time having used less than half its CPU time, a\n"
            "                     scan or compile was starved by the machine: retried once, then\n"
            "                     SKIPPED as the gate's own failure, never the candidate's L1)\n"
            "  --memory=MIB       host memory of a candidate's sandboxed harness, every page its\n"
            "                     processes use, shared mappings too (default 8192, or a quarter of\n"
            "                     the RAM if less; over it: L2)\n"
            "  --devices=LIST     the GPUs to run on: all (the default) or indices, e.g. 0,1\n"
            "  --device=N         one GPU (the same as --devices=N)\n"
            "  --arch=LIST        architectures to compile for, e.g. 90 or 90,100 (default: the\n"
            "                     devices'; without a GPU 90); each device runs the build of its own\n"
            "                     architecture, or the newest listed one below it (PTX)\n"
            "  --seed=N           input seed (default 2026)\n"
            "  --work=DIR         keep compiled candidates and logs in DIR\n"
            "  --keep             keep the scratch folders of a run without --work\n"
            "  --nvcc=PATH        nvcc to use (default: nvcc on PATH)\n"
            "  --python=PATH      the Python with PyTorch, for PyTorch candidates (default: python3)\n"
            "  --explain          profile every L4 verdict with Nsight Compute (the default where ncu\n"
            "                     is found); --no-explain never; --ncu=PATH the ncu to use;\n"
            "                     --explain-budget=S seconds for all the profiles of a run, a profile\n"
            "                     under way stopped when they run out (default 90: the run ends at most\n"
            "                     90 s after its last verdict)\n"
            "  --sanitize=MODE    run each candidate that passed once more on the small shapes under\n"
            "                     compute-sanitizer, in its sandbox; a finding is L2: none, fast\n"
            "                     (the default: memcheck with leak checking, racecheck) or all\n"
            "                     (also initcheck, synccheck); --compute-sanitizer=PATH the tool\n"
            "  --late-warps=WHICH build a candidate that passed once more with half of each block's\n"
            "                     warps started about 20 us late, and check its outputs again (a\n"
            "                     race between warps gives wrong ones: L3): auto (the default: where\n"
            "                     the static scan found KG-SYNC-MISSING), all, or none\n"
            "  --kernelbench=PROBLEM.py CANDIDATE.py...  or  --kernelbench=DIR (DIR/problems/NAME.py,\n"
            "                     DIR/candidates/NAME__X.py, DIR/labels.tsv): judge KernelBench problems\n"
            "                     (Model, get_inputs) and candidates (ModelNew) with PyTorch; the\n"
            "                     candidate and the reference each run in a sandbox of their own;\n"
            "                     --kb-runner=PATH the runner script, --kb-rules=PATH the static pass\n"
            "                     (ast_rules.py; default: the installed one)\n"
            "  --no-sandbox       run the scan, compiler and candidates WITHOUT the sandbox (UNSAFE:\n"
            "                     only on a machine where bubblewrap cannot work, for code you trust)\n"
            "  -h, --help\n"
            "Environment: KGATE_BWRAP (bubblewrap, default bwrap on PATH), KGATE_SANDBOX_RO (more\n"
            "read-only folders for the sandbox, colon-separated), KGATE_CUDA_PATH, KGATE_CLANG_RESOURCE_DIR,\n"
            "KGATE_NVCC_BUDGET (seconds all of one static scan's nvcc -E runs may take, default 20).\n"
            "Tasks (a CUDA candidate defines the launcher; a PyTorch one the entry, `forward` unless\n"
            "// kgate-entry: NAME says otherwise):\n");
    for (int i = 0; i < kg_task_count(); i++) {
        fprintf(f, "  %-13s extern \"C\" %s\n", kg_task_at(i)->name, kg_task_at(i)->signature);
        fprintf(f, "  %-13s %s\n", "", kg_torch_signature(kg_task_at(i)));
    }
}

int bad_arg(const char *fmt, const char *a)
{
    fprintf(stderr, "kgate: error: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n(see kgate --help)\n");
    printf("kgate: FAIL (bad argument)\n");
    return 1;
}

static int parse_long(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* "90", "90,100": architectures nvcc 13 knows, at most MAX_ARCH (cli.h). */
int kg_arch_list_check(const char *s)
{
    char buf[64];
    if (!s[0] || strlen(s) >= sizeof buf) return -1;
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long long v;
        if (parse_long(t, 50, 200, &v) || ++n > MAX_ARCH) return -1;
    }
    return n > 0 && s[strlen(s) - 1] != ',' ? 0 : -1;
}

/* Returns 0, -1 (error printed), or -2 (--help). */
int parse_args(int argc, char **argv, kg_opts *o)
{
    memset(o, 0, sizeof *o);
    o->timeout = 20;
    o->scan_timeout = 30;
    o->compile_timeout = 120;
    o->torch_timeout = 300;
    o->explain_budget = 90;   /* the README's corpus command within 8 minutes on the H200 */
    o->explain = -1;
    o->seed = 2026;
    o->sanitize = KG_SAN_FAST;   /* a PASS must also run clean under memcheck and racecheck */
    o->late_warps = KG_LATE_AUTO;   /* P1 KG-SYNC-MISSING: the dynamic track looks closely */
    o->nvcc = "nvcc";
    o->python = "python3";
    o->policy = KG_POLICY_DEFAULT;
    o->all_devices = 1;
    o->paths = calloc((size_t)argc + 1, sizeof(char *));
    /* one candidate compiling while the one before it runs on the GPU: the
     * least latency (README.md, "Latency": on the H200 machine more in
     * flight bought throughput at the price of each candidate's seconds,
     * queueing for the GPU and for the others' CUDA start-up) */
    o->jobs = 1;
    int only_paths = 0;
    static const char *flags[] = {"help", "static-only", "compile-only", "dry-run", "no-timing",
                                  "keep", "no-sandbox", "explain", "no-explain"};
    static const char *valued[] = {"task", "labels", "json", "feedback", "policy", "work", "nvcc", "python",
                                   "ncu", "arch", "jobs", "device", "devices", "seed", "timeout",
                                   "scan-timeout", "compile-timeout", "torch-timeout", "explain-budget",
                                   "memory", "sanitize", "compute-sanitizer", "kernelbench", "kb-runner",
                                   "kb-rules", "late-warps"};
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (only_paths || a[0] != '-' || a[1] == 0) { o->paths[o->n_paths++] = a; continue; }
        if (!strcmp(a, "--")) { only_paths = 1; continue; }
        if (!strcmp(a, "-h")) return -2;
        if (a[1] != '-') { bad_arg("unknown option %s", a); return -1; }
        char name[32];
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (nl >= sizeof name) { bad_arg("unknown option %s", a); return -1; }
        memcpy(name, a + 2, nl);
        name[nl] = 0;
        int is_flag = 0, is_valued = 0;
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) is_flag |= strcmp(name, flags[f]) == 0;
        for (size_t f = 0; f < sizeof valued / sizeof valued[0]; f++) is_valued |= strcmp(name, valued[f]) == 0;
        if (is_flag) {
            if (eq) { bad_arg("option --%s takes no value", name); return -1; }
            if (!strcmp(name, "help")) return -2;
            int m = !strcmp(name, "static-only") ? MODE_STATIC : !strcmp(name, "compile-only") ? MODE_COMPILE
                    : !strcmp(name, "dry-run") ? MODE_DRY : -1;
            if (m >= 0) {
                if (o->mode != MODE_FULL && o->mode != m) {
                    bad_arg("--%s: choose one of --static-only, --compile-only, --dry-run", name);
                    return -1;
                }
                o->mode = m;
            }
            if (!strcmp(name, "no-timing")) o->no_timing = 1;
            if (!strcmp(name, "keep")) o->keep = 1;
            if (!strcmp(name, "no-sandbox")) o->no_sandbox = 1;
            if (!strcmp(name, "explain")) o->explain = 1;
            if (!strcmp(name, "no-explain")) o->explain = 0;
            continue;
        }
        if (!is_valued) { bad_arg("unknown option %s", a); return -1; }
        const char *val;
        if (eq) val = eq + 1;
        else if (i + 1 < argc && argv[i + 1][0] != '-') val = argv[++i];
        else {
            /* `--json --static-only x.cu` must not write a file named --static-only */
            fprintf(stderr, "kgate: error: option --%s needs a value%s%s (write --%s=VALUE)\n(see kgate --help)\n",
                    name, i + 1 < argc ? ", not " : "", i + 1 < argc ? argv[i + 1] : "", name);
            printf("kgate: FAIL (bad argument)\n");
            return -1;
        }
        if (!*val) {
            fprintf(stderr, "kgate: error: --%s is empty\n(see kgate --help)\n", name);
            printf("kgate: FAIL (bad argument)\n");
            return -1;
        }
        long long v;
        if (!strcmp(name, "task")) {
            if (!kg_task_find(val)) { bad_arg("--task=%s: unknown task (see --help)", val); return -1; }
            o->task = val;
        } else if (!strcmp(name, "labels")) o->labels = val;
        else if (!strcmp(name, "json")) o->json = val;
        else if (!strcmp(name, "feedback")) o->feedback = val;
        else if (!strcmp(name, "work")) o->work = val;
        else if (!strcmp(name, "nvcc")) o->nvcc = val;
        else if (!strcmp(name, "python")) o->python = val;
        else if (!strcmp(name, "kernelbench")) o->kernelbench = val;
        else if (!strcmp(name, "kb-runner")) o->kb_runner = val;
        else if (!strcmp(name, "kb-rules")) o->kb_rules = val;
        else if (!strcmp(name, "ncu")) o->ncu = val;
        else if (!strcmp(name, "compute-sanitizer")) o->sanitizer = val;
        else if (!strcmp(name, "late-warps")) {
            o->late_warps = !strcmp(val, "auto") ? KG_LATE_AUTO : !strcmp(val, "all") ? KG_LATE_ALL
                          : !strcmp(val, "none") ? KG_LATE_NONE : -1;
            if (o->late_warps < 0) { bad_arg("--late-warps=%s: expected auto, all or none", val); return -1; }
        }
        else if (!strcmp(name, "sanitize")) {
            o->sanitize = kg_san_mode_parse(val);
            if (o->sanitize < 0) { bad_arg("--sanitize=%s: expected none, fast or all", val); return -1; }
            o->sanitize_given = 1;
        }
        else if (!strcmp(name, "policy")) {
            o->policy = kg_policy_parse(val);
            if (o->policy < 0) { bad_arg("--policy=%s: expected default, published, strict or lenient", val); return -1; }
        } else if (!strcmp(name, "arch")) {
            if (kg_arch_list_check(val)) { bad_arg("--arch=%s: expected architectures like 90 or 90,100 (at most 4)", val); return -1; }
            o->arch = val;
        } else if (!strcmp(name, "jobs")) {
            if (parse_long(val, 1, 64, &v)) { bad_arg("--jobs=%s: expected 1..64", val); return -1; }
            o->jobs = (int)v;
        } else if (!strcmp(name, "device") || !strcmp(name, "devices")) {
            if (!strcmp(name, "devices") && !strcmp(val, "all")) { o->all_devices = 1; o->n_dev_req = 0; continue; }
            char buf[128];
            snprintf(buf, sizeof buf, "%s", val);
            o->all_devices = 0;
            o->n_dev_req = 0;
            int bad = strlen(val) >= sizeof buf || val[strlen(val) - 1] == ',';
            for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
                if (parse_long(t, 0, 63, &v) || o->n_dev_req >= KG_MAX_DEV || (!strcmp(name, "device") && o->n_dev_req)) bad = 1;
                else {
                    for (int k = 0; k < o->n_dev_req; k++) bad |= o->dev_req[k] == (int)v;
                    o->dev_req[o->n_dev_req++] = (int)v;
                }
            }
            if (bad || !o->n_dev_req) {
                bad_arg(!strcmp(name, "device") ? "--device=%s: expected 0..63"
                                                : "--devices=%s: expected all or distinct indices 0..63, e.g. 0,1 (at most 8)", val);
                return -1;
            }
        } else if (!strcmp(name, "memory")) {
            if (parse_long(val, 64, 1 << 20, &v)) { bad_arg("--memory=%s: expected 64..1048576 (MiB)", val); return -1; }
            o->memory_mb = v;
        } else if (!strcmp(name, "seed")) {
            if (parse_long(val, 0, (1LL << 62), &v)) { bad_arg("--seed=%s: expected a non-negative integer", val); return -1; }
            o->seed = (unsigned long long)v;
        } else {   /* the time limits */
            if (parse_long(val, 1, 3600, &v)) {
                fprintf(stderr, "kgate: error: --%s=%s: expected 1..3600 seconds\n(see kgate --help)\n", name, val);
                printf("kgate: FAIL (bad argument)\n");
                return -1;
            }
            if (!strcmp(name, "timeout")) o->timeout = (double)v;
            else if (!strcmp(name, "scan-timeout")) o->scan_timeout = (double)v;
            else if (!strcmp(name, "compile-timeout")) o->compile_timeout = (double)v;
            else if (!strcmp(name, "torch-timeout")) o->torch_timeout = (double)v;
            else o->explain_budget = (double)v;
        }
    }
    if (o->n_paths == 0 && !o->kernelbench) { bad_arg("no candidate PATH given%s", ""); return -1; }
    if (o->kernelbench && o->mode != MODE_FULL) {
        bad_arg("--kernelbench runs the full gate (a GPU); --static-only, --compile-only and --dry-run%s do not apply", "");
        return -1;
    }
    return 0;
}
