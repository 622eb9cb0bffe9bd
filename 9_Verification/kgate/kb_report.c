/* kb_report.c: the KernelBench mode's report (kb_internal.h): each pair's
 * lines, the JSON file and the time summary. kbgate.c and kb_judge.c
 * decide; this file only writes down what they decided. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kb_internal.h"
#include "kg_report.h"

void kb_print(FILE *f, const kb_result *r)
{
    char n[600], why[1500];
    kg_text_escape(r->name, 256, n, sizeof n);
    kg_text_escape(r->reason, 700, why, sizeof why);
    fprintf(f, "%-7s %s (problem %s)", kg_verdict_name(r->verdict), n, r->problem);
    if (r->expected >= 0) fprintf(f, " [expected %s]", kg_verdict_name(r->expected));
    fprintf(f, "\n");
    if (r->reason[0]) fprintf(f, "    reason: %s\n", why);
    for (int i = 0; i < r->n_find; i++) {
        char m[500];
        kg_text_escape(r->find[i].reason, 200, m, sizeof m);
        fprintf(f, "    static: %s(%s)@%d %s\n", r->find[i].rule, r->find[i].sev, r->find[i].line, m);
    }
    if (r->correct)
        fprintf(f, "    correctness: KernelBench's %d trials passed\n", KB_TRIALS);
    if (r->correct && r->cand_ms > 0 && isfinite(r->cand_ms))
        fprintf(f, "    judge's clock: %.4f ms a call vs the reference's %.4f ms: speedup %.3f (batches of %d; "
                   "allowance %.3f / %.3f ms; input preparation %.3f ms, before its code was loaded %.3f ms, "
                   "the reference's %.3f ms, charged %.3f ms)\n"
                   "    KernelBench's events: %.4f ms vs %.4f ms: speedup %.3f (for information)\n",
                r->cand_ms, r->ref_ms, r->speedup, r->calls, r->allow_c_ms, r->allow_r_ms, r->prep_c_ms, r->prep_base_ms,
                r->prep_rb_ms, r->charge_ms,
                r->kb_cand_ms, r->kb_ref_ms, r->kb_speedup);
    if (r->notes[0]) {
        char m[700];
        kg_text_escape(r->notes, 300, m, sizeof m);
        fprintf(f, "    notes: %s\n", m);
    }
    fprintf(f, "    seconds: %.2f\n", r->t_total);
}

static void jesc(FILE *f, const char *key, const char *v, int comma)
{
    static char b[4096];
    kg_json_escape(v, b, sizeof b);
    fprintf(f, "\"%s\":\"%s\"%s", key, b, comma ? "," : "");
}

static void jnum(FILE *f, const char *key, double v)
{
    if (isfinite(v)) fprintf(f, "\"%s\":%.6g,", key, v);
    else fprintf(f, "\"%s\":null,", key);
}

static void jarr(FILE *f, const char *key, const double *v, int n, int last)
{
    fprintf(f, "\"%s\":[", key);
    for (int i = 0; i < n; i++) {
        if (isfinite(v[i])) fprintf(f, "%s%.6g", i ? "," : "", v[i]);
        else fprintf(f, "%snull", i ? "," : "");
    }
    fprintf(f, "]%s", last ? "" : ",");
}

/* "clock": the raw measures the judge's figures come from (ms; one_call_ms,
 * null_one_call_ms, probe_*: the batches that sized calls_per_batch; batches 0
 * to KB_WARMUP - 1 the warm-up; each figure is the least over the other
 * batches of (interval - allowance + charge) / calls_per_batch, the
 * allowance the least of its null batches, the charge the candidate's
 * preparation beyond 1.1 times the larger of prep_base_ms and the
 * reference's prep_ref_ms of the batch, plus 0.5 ms; allowance_cand_ms the
 * least of null_cand_ms and allowance_ref_ms; prep_base_ms the
 * median of prep_null_cand_ms after its first two) */
static void kb_json_clock(FILE *f, const kb_result *r)
{
    fprintf(f, "\"clock\":{");
    jnum(f, "one_call_ms", r->one_ms);
    jnum(f, "null_one_call_ms", r->null1_ms);
    fprintf(f, "\"probe_calls\":%d,", r->probe_calls);
    jnum(f, "probe_ms", r->probe_ms);
    jnum(f, "probe_null_ms", r->probe_null_ms);
    jnum(f, "allowance_ref_ms", r->allow_r_ms);
    jnum(f, "allowance_cand_ms", r->allow_c_ms);
    jarr(f, "null_ref_ms", r->null_r_ms, KB_CAL, 0);
    jarr(f, "null_cand_ms", r->null_c_ms, KB_CAL, 0);
    jarr(f, "prep_null_cand_ms", r->prep_null_c_ms, KB_CAL, 0);
    jnum(f, "prep_base_ms", r->prep_base_ms);
    jarr(f, "interval_ref_ms", r->int_r_ms, KB_BATCHES, 0);
    jarr(f, "interval_cand_ms", r->int_c_ms, KB_BATCHES, 0);
    jarr(f, "prep_ref_ms", r->bprep_r_ms, KB_BATCHES, 0);
    jarr(f, "prep_cand_ms", r->bprep_c_ms, KB_BATCHES, 1);
    fprintf(f, "},");
}

/* build_start, build_end (-1: no build), verdict_at: seconds from t_origin (the run's start) */
int kb_write_json(const char *path, const kb_result *r, int n, const double *score, double t_origin)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "{\"mode\":\"kernelbench\",\"candidates\":[\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "{");
        jesc(f, "candidate", r[i].name, 1);
        jesc(f, "problem", r[i].problem, 1);
        jesc(f, "verdict", kg_verdict_name(r[i].verdict), 1);
        jesc(f, "expected", r[i].expected >= 0 ? kg_verdict_name(r[i].expected) : "", 1);
        jesc(f, "reason", r[i].reason, 1);
        fprintf(f, "\"gate_failure\":%s,\"correct\":%s,", r[i].skipped_gate ? "true" : "false",
                r[i].correct ? "true" : "false");
        int timed = r[i].correct && r[i].cand_ms > 0 && isfinite(r[i].cand_ms);   /* the gate timed it */
        jnum(f, "cand_ms", timed ? r[i].cand_ms : NAN);
        jnum(f, "ref_ms", timed ? r[i].ref_ms : NAN);
        jnum(f, "speedup", timed ? r[i].speedup : NAN);
        jnum(f, "kb_cand_ms", timed && r[i].kb_cand_ms > 0 ? r[i].kb_cand_ms : NAN);
        jnum(f, "kb_ref_ms", timed && r[i].kb_ref_ms > 0 ? r[i].kb_ref_ms : NAN);
        jnum(f, "kb_speedup", timed && r[i].kb_speedup > 0 ? r[i].kb_speedup : NAN);
        if (timed) kb_json_clock(f, &r[i]);
        fprintf(f, "\"calls_per_batch\":%d,\"static\":[", r[i].calls);
        for (int k = 0; k < r[i].n_find; k++) {
            fprintf(f, "%s{", k ? "," : "");
            jesc(f, "rule", r[i].find[k].rule, 1);
            jesc(f, "severity", r[i].find[k].sev, 1);
            fprintf(f, "\"line\":%d,", r[i].find[k].line);
            jesc(f, "reason", r[i].find[k].reason, 1);
            jesc(f, "fix", r[i].find[k].fix, 0);
            fprintf(f, "}");
        }
        int built = r[i].build_t0 > 0 && r[i].build_t1 >= r[i].build_t0;   /* a build that ended */
        fprintf(f, "],\"build_seconds\":%.3f,\"build_start\":%.3f,\"build_end\":%.3f,\"verdict_at\":%.3f,"
                   "\"seconds\":%.3f}%s\n",
                built ? r[i].build_t1 - r[i].build_t0 : 0.0, built ? r[i].build_t0 - t_origin : -1.0,
                built ? r[i].build_t1 - t_origin : -1.0, r[i].t_start + r[i].t_total - t_origin, r[i].t_total,
                i + 1 < n ? "," : "");
    }
    fprintf(f, "],\"summary\":{\"n\":%d,\"correctness\":%.6g,\"fast_1.0\":%.6g,\"fast_1.5\":%.6g,"
               "\"kb_fast_1.0\":%.6g,\"kb_fast_1.5\":%.6g}}\n", n, score[0], score[1], score[2], score[3], score[4]);
    return fclose(f);
}

/* Where the time went: the median candidate, the builds (their seconds, the
 * share of the wall time with one running, the GPU part's wait for them)
 * and the reference's runners. */
void kb_print_time(const kb_result *res, int n, double wall, double build_wait, double held, int jobs, int ref_started)
{
    static double t[KB_MAX_PAIRS], b[KB_MAX_PAIRS], b0[KB_MAX_PAIRS], b1[KB_MAX_PAIRS];
    int nb = 0;
    double build_sum = 0;
    for (int i = 0; i < n; i++) {
        t[i] = res[i].t_total;
        if (res[i].build_t1 > res[i].build_t0 && res[i].build_t0 > 0) {
            b0[nb] = res[i].build_t0;
            b1[nb] = res[i].build_t1;
            b[nb] = b1[nb] - b0[nb];
            build_sum += b[nb++];
        }
    }
    double covered = kb_union_seconds(b0, b1, nb);
    printf("kernelbench time: median %.2f s a candidate (its start to its verdict); builds: %d, %.1f s in all "
           "(median %.1f s), %d at a time, running during %.0f%% of the wall time; the GPU part waited %.1f s "
           "for them (%.0f%% of the wall time) and held them %.1f s while its clock ran; reference runners started: %d\n",
           kb_median(t, n), nb, build_sum, kb_median(b, nb), jobs, wall > 0 ? 100.0 * covered / wall : 0.0,
           build_wait, wall > 0 ? 100.0 * build_wait / wall : 0.0, held, ref_started);
}

