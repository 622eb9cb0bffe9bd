/* kgate's start-up checks (see setup.h): the sandboxed harness's self-test
 * on each GPU (what CUDA's and libtorch's own start-ups do there is not
 * held against candidates), relaxing the sandbox one step at a time when
 * it keeps the harness from the GPU, PyTorch's probe and nvcc's path. */
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
#include "setup.h"

/* At start: the harness's own sandbox must reach each GPU. A sandboxed
 * harness creates its context and answers one PING; what CUDA's start-up
 * does there (reported by the monitor) is not held against candidates.
 * With preload, the harness loads that library (PyTorch's) first, and what
 * its start-up does goes into allow[] too. */
int harness_selftest(kg_gate *g, int d, const char *preload, char allow[][160], int *n_allow, char *why,
                            size_t len)
{
    char dir[] = "/tmp/kgate_probe_XXXXXX";
    if (!mkdtemp(dir)) { snprintf(why, len, "mkdtemp: %s", strerror(errno)); return -1; }
    static kg_job j;
    memset(&j, 0, sizeof j);
    j.task = kg_task_at(0);
    j.slot = 0;
    for (int k = 0; k < KG_MAX_DEV; k++) j.cmd_w[k] = j.rep_r[k] = j.shm_fd[k] = -1;
    snprintf(j.dir, sizeof j.dir, "%s", dir);
    snprintf(j.hlog[d], sizeof j.hlog[d], "%s.log", dir);
    chmod(dir, 0755);
    int rc = -1;
    if (spawn_harness(g, &j, d, "cand.so", preload) == 0) {
        kg_cmd c;
        memset(&c, 0, sizeof c);
        c.magic = KG_CMD_MAGIC;
        c.op = KG_OP_PING;
        c.seq = 1;
        kg_rep r;
        double wait = preload ? 180 : 60;   /* loading libtorch takes a while */
        if (kg_write_all(j.cmd_w[d], &c, sizeof c) == 0 && kg_read_exact(j.rep_r[d], &r, sizeof r, kg_now() + wait) == 0 &&
            kg_rep_valid(&r, 1, NULL, 0))
            rc = 0;
        /* LOAD reports the context; it fails on the missing .so after the context is checked */
        c.op = KG_OP_LOAD;
        c.seq = 2;
        if (rc == 0 && g->o->mode != MODE_DRY && kg_write_all(j.cmd_w[d], &c, sizeof c) == 0 &&
            kg_read_exact(j.rep_r[d], &r, sizeof r, kg_now() + 60) == 0 && kg_rep_valid(&r, 2, NULL, 0) &&
            r.status == KG_ST_NO_DEVICE) {
            snprintf(why, len, "the sandboxed harness has no CUDA context: %s", r.text);
            rc = -1;
        }
        close_fd(&j.cmd_w[d]);
        close_fd(&j.rep_r[d]);
        close_fd(&j.shm_fd[d]);
        kg_sb_result rec;
        kg_sb_wait(&j.harness[d], kg_now() + 10, &rec);
        if (rc != 0 && !why[0]) {
            char end[200];
            kg_sb_ending(&rec, NULL, end, sizeof end);
            snprintf(why, len, "the sandboxed harness did not answer (%.100s%s%.100s); see %.100s", end,
                     rec.stub_msg[0] ? ", " : "", rec.stub_msg, j.hlog[d]);
        }
        /* what the start-up did (before the harness's mark: never a violation) and what came
         * after it (the preload): both allowed when a candidate's harness does them again */
        for (int i = 0; i < KG_SB_EVENTS && rec.events[i][0]; i++) {
            char *tag = strstr(rec.events[i], KG_SB_STARTUP_TAG);
            if ((rec.is_violation[i] || tag) && *n_allow < KG_SB_EVENTS) {
                if (tag) *tag = 0;
                snprintf(allow[(*n_allow)++], 160, "%s", rec.events[i]);
            }
        }
        /* the harness's own line about its context (no candidate ran: trusted) */
        char *log = kg_read_file(j.hlog[d], 1 << 16, NULL);
        char *ctx = log ? strstr(log, "kgate-harness: context") : NULL;
        if (ctx && !preload) {
            ctx[strcspn(ctx, "\n")] = 0;
            snprintf(g->dev[d].ctx_line, sizeof g->dev[d].ctx_line, "%.230s", ctx + 15);
            if (rec.mem_watched)   /* no cgroup: what the gate's watcher saw of a harness with a context */
                snprintf(g->dev[d].ctx_line + strlen(g->dev[d].ctx_line),
                         sizeof g->dev[d].ctx_line - strlen(g->dev[d].ctx_line),
                         "; resident memory watched: peak %.0f MiB, file-backed pages %.0f MiB",
                         (double)rec.mem_peak_kb / 1024.0, (double)rec.mem_file_kb / 1024.0);
        }
        if (preload) {   /* libtorch's harness, no candidate: what the watcher saw (main.c prints it) */
            g->torch_mem_kb = rec.mem_watched ? rec.mem_peak_kb : -1;
            g->torch_file_kb = rec.mem_watched ? rec.mem_file_kb : -1;
        }
        char *pl = log && preload ? strstr(log, "kgate-harness: preload") : NULL;
        if (pl && rc == 0) {
            pl[strcspn(pl, "\n")] = 0;
            snprintf(why, len, "%.290s", pl + 15);
            rc = -1;
        }
        free(log);
    } else {
        snprintf(why, len, "cannot start the harness in the sandbox");
    }
    remove_tree(dir, 0);
    if (rc == 0) unlink(j.hlog[d]);
    return rc;
}

/* Run a trusted helper program (no sandbox: no candidate involved) and
 * collect its output, with a deadline. Returns its exit status, or -1. */
int run_capture(const char *const *argv, double timeout_s, char *out, size_t len)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) { close(p[0]); close(p[1]); return -1; }
    if (pid == 0) {
        setpgid(0, 0);
        dup2(p[1], 1);
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) dup2(nul, 2);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    setpgid(pid, pid);
    close(p[1]);
    size_t got = 0;
    double deadline = kg_now() + timeout_s;
    for (;;) {
        double left = deadline - kg_now();
        if (left <= 0) break;
        struct pollfd pf = {p[0], POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) break;
        ssize_t r = read(p[0], out + got, len - 1 - got);
        if (r <= 0) break;
        got += (size_t)r;
        if (got + 1 >= len) break;
    }
    out[got] = 0;
    close(p[0]);
    kill(-pid, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Is PyTorch here, and can it build extensions? (kgate-torch-build.py --probe) */
void torch_probe(kg_gate *g)
{
    char script[PATH_MAX + 32];
    snprintf(script, sizeof script, "%s/kgate-torch-build.py", g->libexec);
    const char *argv[] = {g->o->python, script, "--probe", NULL};
    static char out[16384];
    int rc = run_capture(argv, 120, out, sizeof out);
    g->torch_ok = 0;
    snprintf(g->torch_why, sizeof g->torch_why, "PyTorch is not available to %s", g->o->python);
    if (rc == 127 || rc < 0) {
        snprintf(g->torch_why, sizeof g->torch_why, "no Python at %s (--python=PATH)", g->o->python);
        return;
    }
    char ninja[8] = "0";
    size_t inc = 0;
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "KGATE_ENV_ERROR: ", 17)) snprintf(g->torch_why, sizeof g->torch_why, "%.280s", l + 17);
        else if (!strncmp(l, "ok=1", 4)) g->torch_ok = 1;
        else if (!strncmp(l, "why=", 4)) snprintf(g->torch_why, sizeof g->torch_why, "%.280s", l + 4);
        else if (!strncmp(l, "version=", 8)) snprintf(g->torch_version, sizeof g->torch_version, "%.60s", l + 8);
        else if (!strncmp(l, "ninja=", 6)) snprintf(ninja, sizeof ninja, "%.4s", l + 6);
        else if (!strncmp(l, "python=", 7)) snprintf(g->torch_python, sizeof g->torch_python, "%.1000s", l + 7);
        else if (!strncmp(l, "lib=", 4)) snprintf(g->torch_lib, sizeof g->torch_lib, "%.1000s", l + 4);
        else if (!strncmp(l, "include=", 8) && inc + strlen(l) + 2 < sizeof g->torch_includes)
            inc += (size_t)snprintf(g->torch_includes + inc, sizeof g->torch_includes - inc, "%s%s", inc ? ":" : "", l + 8);
        else if (!strncmp(l, "ro=", 3)) kg_sandbox_add_ro(g->sb, l + 3);
    }
    if (g->torch_ok && !g->torch_python[0]) g->torch_ok = 0;
    if (g->torch_ok) {
        char pbin[PATH_MAX];
        snprintf(pbin, sizeof pbin, "%s", g->torch_python);
        char *sl = strrchr(pbin, '/');
        if (sl) *sl = 0;
        snprintf(g->torch_path_env, sizeof g->torch_path_env, "PATH=%.1000s:%.2000s", pbin, g->sb->path_env);
        snprintf(g->torch_preload, sizeof g->torch_preload, "%.1000s/libtorch_cuda.so", g->torch_lib);
        printf("# pytorch: %s with %s; extensions built with load_inline%s\n", g->torch_version, g->torch_python,
               ninja[0] == '1' ? "" : " (no ninja here: its compile and link commands are run directly)");
    }
}
void resolve_nvcc(const char *nvcc, char *out, size_t len)
{
    if (strchr(nvcc, '/')) {
        if (real_path_into(nvcc, out, len) != 0) snprintf(out, len, "%s", nvcc);
        return;
    }
    const char *path = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char c[PATH_MAX + 64];
        snprintf(c, sizeof c, "%s/%s", d, nvcc);
        if (access(c, X_OK) == 0) {
            if (real_path_into(c, out, len) != 0) snprintf(out, len, "%.1000s", c);
            return;
        }
    }
    snprintf(out, len, "%.1000s", nvcc);
}

/* The sandbox must let each device's harness reach its GPU; if it does not,
 * relax one thing at a time and say so. */
int sandbox_gpu_checks(kg_gate *g, kg_sandbox *sb)
{
    for (int d = 0; d < g->n_dev; d++) {
        kg_device *dv = &g->dev[d];
        char why[400] = "", why2[400] = "";
        if (harness_selftest(g, d, NULL, dv->allow, &dv->n_allow, why, sizeof why) != 0) {
            int fixed = 0;
            /* each step stays taken for the next (and for the devices after this one) */
            if (sb->enabled && !sb->sys_full) {
                sb->sys_full = 1;          /* CUDA may read more of /sys than the driver's own folders */
                dv->n_allow = 0;
                fixed = harness_selftest(g, d, NULL, dv->allow, &dv->n_allow, why2, sizeof why2) == 0;
                printf("# sandbox: WARNING: CUDA did not start with the sandbox's part of /sys (%s): the "
                       "harness sees all of /sys read-only, the host's network interfaces, DMI and firmware "
                       "folders hidden%s\n", why, fixed ? "" : "; not enough either");
            }
            if (!fixed && sb->enabled) {
                why2[0] = 0;
                dv->harness_no_data = 1;   /* CUDA may need more than the data limit */
                dv->n_allow = 0;
                fixed = harness_selftest(g, d, NULL, dv->allow, &dv->n_allow, why2, sizeof why2) == 0;
                if (fixed)
                    printf("# sandbox: WARNING: CUDA needed more than the harness's data limit (%s): the "
                           "harness runs without RLIMIT_DATA (the CPU, file and process limits stay)\n", why);
            }
            if (!fixed && sb->enabled && sb->as_root && sb->drop_uid) {
                sb->drop_uid = 0;          /* the GPU nodes may not be open to an unprivileged uid */
                dv->n_allow = 0;
                why2[0] = 0;
                fixed = harness_selftest(g, d, NULL, dv->allow, &dv->n_allow, why2, sizeof why2) == 0;
                if (fixed)
                    printf("# sandbox: WARNING: the GPU device nodes refuse an unprivileged uid (%s): "
                           "candidates run as uid 0 without capabilities and without RLIMIT_DATA (weaker)\n", why);
            }
            if (!fixed) {
                printf("kgate: FAIL (the sandbox keeps the harness from the GPU: %s; fix the sandbox "
                       "(KGATE_SANDBOX_RO, device nodes) or run --no-sandbox, UNSAFE)\n", why);
                return 1;
            }
        }
        if (dv->ctx_line[0]) printf("# sandbox: device %d: the harness's %s\n", dv->index, dv->ctx_line);
        if (dv->n_allow) {
            printf("# sandbox: CUDA's own start-up in the sandbox did:");
            for (int k = 0; k < dv->n_allow; k++) printf("%s %s", k ? ";" : "", dv->allow[k]);
            printf(" (not held against candidates)\n");
        }
    }
    return 0;
}
