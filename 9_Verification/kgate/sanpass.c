/* sanpass.c: the sanitizer pass's command line and its judging (sanpass.h).
 * Reading the report is the sanitize harness's (sz_report.c); here is only
 * what the gate makes of it: a verdict, a reason naming the tool, the kind
 * and the candidate's file:line, and a hint. */
#include "sanpass.h"

#include <stdio.h>
#include <string.h>

#include "dynamic.h"

int kg_san_mode_parse(const char *s)
{
    if (!s) return -1;
    if (!strcmp(s, "none")) return KG_SAN_NONE;
    if (!strcmp(s, "fast")) return KG_SAN_FAST;
    if (!strcmp(s, "all")) return KG_SAN_ALL;
    return -1;
}

const char *kg_san_mode_name(int mode)
{
    return mode == KG_SAN_FAST ? "fast" : mode == KG_SAN_ALL ? "all" : "none";
}

int kg_san_mode_tools(int mode, int *tools)
{
    int n = 0;
    if (mode == KG_SAN_FAST || mode == KG_SAN_ALL) {
        tools[n++] = SZ_MEMCHECK;
        tools[n++] = SZ_RACECHECK;
    }
    if (mode == KG_SAN_ALL) {
        tools[n++] = SZ_INITCHECK;
        tools[n++] = SZ_SYNCCHECK;
    }
    return n;
}

/* One hint per kind family; the kinds are sz_report.c's (sz_known_kinds). */
const char *kg_san_hint(const char *kind)
{
    if (!kind) kind = "";
    if (!strncmp(kind, "oob-", 4) && strstr(kind, "-read"))
        return "a thread reads past the end of a buffer: guard every load with the index test "
               "(i < n), the tail and halo loads of a tile too";
    if (!strncmp(kind, "oob-", 4) && strstr(kind, "-write"))
        return "a thread writes past the end of a buffer: guard every store with the index test "
               "(i < n), and size shared arrays for the whole block";
    if (!strncmp(kind, "oob-", 4))
        return "an access (or atomic) outside an allocation: check the index and the size "
               "each buffer was allocated with";
    if (!strncmp(kind, "misaligned-", 11))
        return "a misaligned access: a vector load (float4, ...) or a cast needs an address "
               "aligned to its size; fall back to scalar loads for the tail";
    if (!strcmp(kind, "hardware-exception"))
        return "the kernel faulted on the device: look for an out-of-range index or a bad "
               "pointer at the line named";
    if (!strcmp(kind, "leak"))
        return "device memory was not freed: every cudaMalloc in launch needs its cudaFree, "
               "every device malloc its free, on every return path";
    if (!strcmp(kind, "shared-race"))
        return "two threads touch the same shared memory without a barrier between: put "
               "__syncthreads() after writing a tile and before it is overwritten";
    if (!strcmp(kind, "uninit-global-read") || !strcmp(kind, "uninit-api"))
        return "memory is read before anything wrote it: write every element you read "
               "(the tail too), or guard the read";
    if (!strcmp(kind, "unused-memory"))
        return "an allocation was never used: allocate only what the kernel touches";
    if (!strcmp(kind, "barrier-error"))
        return "not every thread reaches the barrier: keep __syncthreads() outside branches "
               "that depend on the thread; guard the work, not the barrier";
    if (!strcmp(kind, "stack-overflow"))
        return "a thread's stack overflowed: shrink per-thread arrays or remove recursion";
    if (!strcmp(kind, "api-error"))
        return "a CUDA call failed under the sanitizer: check every call's status and its "
               "arguments";
    return "read compute-sanitizer's report of this run for the details";
}

int kg_san_argv(const char *sanitizer, int tool, const char *xml, int port,
                const char *const *target, const char **argv, int max, char *num)
{
    /* num holds "86\0<port>\0" */
    int a = snprintf(num, 16, "%d", SZ_ERROR_EXITCODE) + 1;
    snprintf(num + a, 16, "%d", port);
    /* At most 100 records: the verdict needs the first finding, and a
     * defect in every thread (an output read before it is written, under
     * initcheck) would otherwise write one record per element. The exit
     * status still counts every error. */
    const char *fixed[] = {sanitizer, "--tool", sz_tool_name(tool), "--error-exitcode", num,
                           "--print-limit", "100", "--xml", "--save", xml, "--port", num + a,
                           "--max-connections", "10", "--launch-timeout", "60"};
    int n = 0, nt = 0;
    while (target[nt]) nt++;
    int need = (int)(sizeof fixed / sizeof fixed[0]) + 6 + nt + 1;
    if (need > max) return -1;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) argv[n++] = fixed[i];
    if (tool == SZ_MEMCHECK) {
        argv[n++] = "--leak-check";
        argv[n++] = "full";
        /* said, not assumed: device malloc() is checked and its leaks reported too */
        argv[n++] = "--check-device-heap";
        argv[n++] = "yes";
        /* end only the faulting kernel: the harness goes on and frees its
         * memory, so one bad read does not also read as leaks */
        argv[n++] = "--destroy-on-device-error";
        argv[n++] = "kernel";
    } else if (tool == SZ_RACECHECK) {
        /* racecheck's analysis: one record per racing pair of source lines,
         * with the count of thread pairs. "all" adds a record per thread
         * pair: 8_Debugging/warpSyncVolatile's reduction (about 132,600
         * pairs) timed out after 120 s with about 90 MB of log on our H200
         * (results/H200/sanitize_2026-11-30_partial.txt, commit d4ff6ab). */
        argv[n++] = "--racecheck-report";
        argv[n++] = "analysis";
    }
    for (int i = 0; i < nt; i++) argv[n++] = target[i];
    argv[n] = NULL;
    return n;
}

/* What a finding is, in the gate's words. The report is written inside the
 * candidate's sandbox, so its text is not quoted: only a kind from the
 * sanitize harness's list is named (anything else, "other-..." included, is
 * "a finding it does not classify"), and a location only as a line of the
 * candidate's own file. */
const char *kg_san_phrase(const char *kind)
{
    static const struct { const char *kind, *phrase; } p[] = {
        {"oob-global-read", "read out of bounds of global memory"},
        {"oob-global-write", "write out of bounds of global memory"},
        {"oob-global-atomic", "atomic out of bounds of global memory"},
        {"oob-global-access", "access out of bounds of global memory"},
        {"oob-shared-read", "read out of bounds of shared memory"},
        {"oob-shared-write", "write out of bounds of shared memory"},
        {"oob-shared-atomic", "atomic out of bounds of shared memory"},
        {"oob-shared-access", "access out of bounds of shared memory"},
        {"oob-local-read", "read out of bounds of local memory"},
        {"oob-local-write", "write out of bounds of local memory"},
        {"oob-local-atomic", "atomic out of bounds of local memory"},
        {"oob-local-access", "access out of bounds of local memory"},
        {"misaligned-global-read", "misaligned read of global memory"},
        {"misaligned-global-write", "misaligned write of global memory"},
        {"misaligned-shared-read", "misaligned read of shared memory"},
        {"misaligned-shared-write", "misaligned write of shared memory"},
        {"hardware-exception", "a hardware exception"},
        {"leak", "device memory leaked"},
        {"shared-race", "a shared-memory race"},
        {"uninit-global-read", "a read of uninitialized global memory"},
        {"unused-memory", "an allocation never used"},
        {"uninit-api", "uninitialized memory passed to a CUDA call"},
        {"barrier-error", "a barrier that not every thread reaches"},
        {"api-error", "a CUDA call that failed"},
        {"stack-overflow", "a stack overflow"},
    };
    for (size_t i = 0; kind && i < sizeof p / sizeof p[0]; i++)
        if (!strcmp(kind, p[i].kind)) return p[i].phrase;
    return "a finding it does not classify";
}

/* The location to name: the first of d's frames in the candidate's file;
 * none when no frame is in it (a frame elsewhere names a file of the
 * sandbox, which is not for the report). */
static void where_of(const sz_detection *d, const char *display, char *buf, size_t len)
{
    for (int i = 0; display && *display && i < d->n_locs; i++) {
        const char *f = d->locs[i].file;
        int line = d->locs[i].line;
        if ((sz_same_file(f, display) || sz_same_file(f, "cand.cu")) && line > 0 && line < 1000000) {
            snprintf(buf, len, "%s:%d", display, line);
            return;
        }
    }
    snprintf(buf, len, "no line of the candidate's file");
}

void kg_san_judge(int tool, int exit_code, int timed_out, const char *xml_path,
                  size_t max_report, const char *display, kg_san_result *r)
{
    memset(r, 0, sizeof *r);
    r->tool = tool;
    r->verdict = KG_V_L2;
    const char *tn = sz_tool_name(tool);
    if (timed_out) {
        snprintf(r->reason, sizeof r->reason, "%s: the run under the sanitizer did not finish in "
                 "time", tn);
        snprintf(r->hint, sizeof r->hint, "%s", "the small shapes must finish under "
                 "compute-sanitizer too: look for a loop that depends on timing or on a race");
        return;
    }
    sz_found found = {0};
    char err[256] = "";
    if (sz_report_read_file_limited(xml_path, max_report ? max_report : SZ_DEFAULT_MAX_REPORT, 0,
                                    &found, err, sizeof err) != 0) {
        /* err may quote the file, which the sandbox wrote: not for the report
         * (with --keep the file stays in the work folder) */
        snprintf(r->reason, sizeof r->reason, "%s: its report could not be read (exit %d)", tn,
                 exit_code);
        snprintf(r->hint, sizeof r->hint, "%s", kg_san_hint(""));
        sz_found_free(&found);
        return;
    }
    r->n_findings = found.n;
    if (found.n > 0) {
        const sz_detection *d = &found.d[0];
        int known = kg_san_phrase(d->kind) != kg_san_phrase(NULL);   /* the same literal when unknown */
        snprintf(r->kind, sizeof r->kind, "%s", known ? d->kind : "other");
        where_of(d, display, r->where, sizeof r->where);
        char more[48] = "";
        if (found.n > 1) snprintf(more, sizeof more, " (and %d more)", found.n - 1);
        snprintf(r->reason, sizeof r->reason, "%s: %s at %s [%s]%s", tn, kg_san_phrase(d->kind),
                 r->where, r->kind, more);
        snprintf(r->hint, sizeof r->hint, "%s", kg_san_hint(r->kind));
    } else if (exit_code != 0) {
        /* the tool's own status: errors counted, or the run failed */
        if (exit_code == SZ_ERROR_EXITCODE)
            snprintf(r->reason, sizeof r->reason, "%s: the tool reported errors that its report "
                     "does not name (exit %d)", tn, exit_code);
        else
            snprintf(r->reason, sizeof r->reason, "%s: the run under the sanitizer failed "
                     "(exit %d)", tn, exit_code);
        snprintf(r->hint, sizeof r->hint, "%s", kg_san_hint(""));
    } else {
        r->verdict = KG_V_PASS;
    }
    sz_found_free(&found);
}

void kg_san_apply(kg_cand *c, int tool, const kg_san_result *r)
{
    if (r->verdict == KG_V_PASS) return;
    c->verdict = KG_V_L2;
    for (int k = 0; k < c->n_dev && k < KG_MAX_DEV; k++) c->dev[k].verdict = KG_V_L2;
    snprintf(c->reason, sizeof c->reason, "%.240s; fix: %.150s", r->reason, r->hint);
    c->san_stopped_by = tool + 1;
    snprintf(c->san_kind, sizeof c->san_kind, "%s", r->kind);
    snprintf(c->san_where, sizeof c->san_where, "%s", r->where);
    snprintf(c->san_hint, sizeof c->san_hint, "%s", r->hint);
}

void kg_san_note_seconds(kg_cand *c, double seconds)
{
    c->sanitized = 1;
    c->t_sanitize = seconds;
}
