/* kg_report.c: labels, confusion matrix, rates and reports (kg_report.h). */
#define _POSIX_C_SOURCE 200809L
#include "kg_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "../sanitize/sanitize.h"

static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        f[n++] = p;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = 0;
        p = t + 1;
    }
    return n;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = 0;
    size_t i = 0;
    while (s[i] == ' ') i++;
    if (i) memmove(s, s + i, n - i + 1);
}

int kg_labels_parse(const char *text, kg_label *out, int max, char *err, size_t errlen)
{
    int n = 0, lineno = 0;
    const char *p = text ? text : "";
    char line[1024];
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        lineno++;
        if (len >= sizeof line) {
            snprintf(err, errlen, "line %d: longer than %zu characters", lineno, sizeof line - 1);
            return -1;
        }
        memcpy(line, p, len);
        line[len] = 0;
        p = eol ? eol + 1 : p + len;
        trim(line);
        if (line[0] == 0 || line[0] == '#') continue;
        char *f[5];
        int nf = split_tabs(line, f, 5);
        if (nf < 3) {
            snprintf(err, errlen, "line %d: expected file<TAB>task<TAB>verdict<TAB>defect", lineno);
            return -1;
        }
        for (int i = 0; i < nf; i++) trim(f[i]);
        int v = kg_verdict_parse(f[2]);
        if (v < 0 || v == KG_V_STATIC_OK || v == KG_V_SKIPPED) {
            snprintf(err, errlen, "line %d: unknown verdict '%s' (P0 L1 L2 L3 L4 PASS EXTERNAL)",
                     lineno, f[2]);
            return -1;
        }
        if (!kg_task_find(f[1])) {
            snprintf(err, errlen, "line %d: unknown task '%s'", lineno, f[1]);
            return -1;
        }
        if (n >= max) {
            snprintf(err, errlen, "line %d: more than %d labels", lineno, max);
            return -1;
        }
        /* the fifth field: which sanitizer tool must stop a silent defect */
        int tool = -1;
        if (nf > 4 && f[4][0]) {
            if (strncmp(f[4], "sanitizer=", 10) != 0 || (tool = sz_tool_parse(f[4] + 10)) < 0) {
                snprintf(err, errlen, "line %d: fifth field '%.60s': expected sanitizer=memcheck, racecheck, "
                         "initcheck or synccheck", lineno, f[4]);
                return -1;
            }
            if (v != KG_V_L2) {
                snprintf(err, errlen, "line %d: %s is labeled %s: a sanitizer finding is L2", lineno, f[4],
                         f[2]);
                return -1;
            }
        }
        kg_label *l = &out[n++];
        snprintf(l->file, sizeof l->file, "%s", f[0]);
        snprintf(l->task, sizeof l->task, "%s", f[1]);
        l->expected = v;
        snprintf(l->defect, sizeof l->defect, "%s", nf > 3 ? f[3] : "");
        l->sanitizer = tool + 1;
    }
    return n;
}

const kg_label *kg_labels_find(const kg_label *l, int n, const char *file)
{
    for (int i = 0; i < n; i++)
        if (strcmp(l[i].file, file) == 0) return &l[i];
    return NULL;
}

int kg_report_partial_last = KG_V_P0;
unsigned kg_report_san_tools = 0;

int kg_cand_beyond_run(const kg_cand *c)
{
    return c->san_label > 0 && !((kg_report_san_tools >> (c->san_label - 1)) & 1u) &&
           c->verdict == KG_V_PASS;
}

int kg_cand_off_label(const kg_cand *c)
{
    if (c->expected < 0) return 0;
    if (c->verdict == KG_V_STATIC_OK)   /* a partial run: off only if its stages should have stopped it */
        return c->expected >= KG_V_P0 && c->expected <= kg_report_partial_last;
    if (c->san_label > 0) {
        if (kg_cand_beyond_run(c)) return 0;
        /* the label names the tool: its L2, nothing else */
        return !(c->verdict == KG_V_L2 && c->san_stopped_by == c->san_label);
    }
    return !(c->expected == c->verdict || (kg_verdict_is_stop(c->expected) && kg_verdict_is_stop(c->verdict)));
}

int kg_label_is_good(int e) { return e == KG_V_PASS || e == KG_V_EXTERNAL; }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void kg_summarize(const kg_cand *c, int n, double wall_s, kg_summary *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->wall_s = wall_s;
    double *t = (double *)malloc((n > 0 ? n : 1) * sizeof(double));
    double *ov = (double *)malloc((n > 0 ? n : 1) * sizeof(double));
    double *san = (double *)malloc((n > 0 ? n : 1) * sizeof(double));
    if (!t || !ov || !san) {
        free(t);
        free(ov);
        free(san);
        return;
    }
    double *pt[KG_POLICY_COUNT];
    int pn[KG_POLICY_COUNT] = {0};
    for (int p = 0; p < KG_POLICY_COUNT; p++) pt[p] = (double *)malloc((n > 0 ? n : 1) * sizeof(double));
    for (int i = 0; i < n; i++) {
        /* the sanitizer pass decides the verdict of what it runs on: its own
         * seconds count in the candidate's time to its verdict (t_total is
         * the checks' alone; the pass runs after every candidate's checks) */
        double san_s = c[i].sanitized ? c[i].t_sanitize : 0;
        t[i] = c[i].t_total + san_s;
        ov[i] = c[i].t_sandbox + c[i].t_judge;
        if (c[i].sanitized) {   /* the sanitizer pass's own cost, apart from t_total */
            san[s->san_n++] = c[i].t_sanitize;
            s->san_total_s += c[i].t_sanitize;
        }
        /* a verdict or label out of range (a bug, or a forged record that
         * slipped through) is counted nowhere rather than written anywhere */
        int v = c[i].verdict, e = c[i].expected;
        if (v < 0 || v >= KG_V_COUNT) continue;
        if (c[i].gate_failure) { s->gate_failures++; continue; }   /* not a verdict on the candidate */
        s->verdict_count[v]++;
        if (v == KG_V_SKIPPED) { s->skipped++; continue; }
        if (kg_cand_beyond_run(&c[i])) { s->beyond_sanitizer++; continue; }   /* not this run's to see */
        s->disagreements += c[i].disagree != 0;
        /* what each profile would have decided, and when */
        for (int p = 0; p < KG_POLICY_COUNT; p++) {
            int pv = kg_policy_verdict(&c[i], p);
            if (pv < 0) { if (e >= 0 && e < KG_V_COUNT) s->pol_unknown[p]++; continue; }
            if (pt[p]) pt[p][pn[p]++] = ((c[i].policy_stops >> p) & 1) ? c[i].t_static : c[i].t_total + san_s;
            if (e < 0 || e >= KG_V_COUNT) continue;
            if (kg_label_is_good(e)) s->pol_good_stopped[p] += kg_verdict_is_stop(pv);
            else s->pol_bad_stopped[p] += kg_verdict_is_stop(pv);
        }
        if (e < 0 || e >= KG_V_COUNT) continue;
        s->n_labeled++;
        s->m[e][v]++;
        int stopped = kg_verdict_is_stop(c[i].verdict);
        if (c[i].san_label > 0 && stopped && kg_cand_off_label(&c[i])) s->stage_mismatches++;
        if (kg_label_is_good(c[i].expected)) {
            s->good++;
            s->good_stopped += stopped;
        } else {
            s->bad++;
            s->bad_stopped += stopped;
        }
    }
    s->interception = s->bad ? (double)s->bad_stopped / s->bad : NAN;
    s->false_kill = s->good ? (double)s->good_stopped / s->good : NAN;
    if (n > 0) {
        qsort(t, (size_t)n, sizeof(double), cmp_double);
        s->median_s = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
        qsort(ov, (size_t)n, sizeof(double), cmp_double);
        s->median_overhead_s = n % 2 ? ov[n / 2] : 0.5 * (ov[n / 2 - 1] + ov[n / 2]);
    }
    if (s->san_n > 0) {
        int m = s->san_n;
        qsort(san, (size_t)m, sizeof(double), cmp_double);
        s->san_median_s = m % 2 ? san[m / 2] : 0.5 * (san[m / 2 - 1] + san[m / 2]);
    }
    free(san);
    for (int p = 0; p < KG_POLICY_COUNT; p++) {
        int m = pn[p];
        s->pol_median_s[p] = NAN;
        if (pt[p] && m > 0) {
            qsort(pt[p], (size_t)m, sizeof(double), cmp_double);
            s->pol_median_s[p] = m % 2 ? pt[p][m / 2] : 0.5 * (pt[p][m / 2 - 1] + pt[p][m / 2]);
        }
        free(pt[p]);
    }
    free(t);
    free(ov);
}

int kg_policy_verdict(const kg_cand *c, int p)
{
    if (p < 0 || p >= KG_POLICY_COUNT || c->verdict < 0 || c->verdict >= KG_V_COUNT) return -1;
    if ((c->policy_stops >> p) & 1) return KG_V_P0;
    /* the run stopped it statically under its own policy: the dynamic
     * verdict p would need is unknown */
    if (c->verdict == KG_V_P0 && ((c->policy_stops >> c->policy) & 1)) return -1;
    return c->verdict;
}

int kg_combine_devices(const int *v, int n, int *disagree)
{
    if (disagree) *disagree = 0;
    if (n <= 0) return -1;
    int all_same = 1, best = -1;
    for (int i = 1; i < n; i++) all_same &= v[i] == v[0];
    if (all_same) return v[0];
    if (disagree) *disagree = 1;
    for (int i = 0; i < n; i++)
        if (kg_verdict_is_stop(v[i]) && (best < 0 || v[i] < best)) best = v[i];
    if (best >= 0) return best;
    /* no device stops it: PASS and EXTERNAL (or a skipped device) */
    for (int i = 0; i < n; i++)
        if (v[i] == KG_V_PASS || v[i] == KG_V_EXTERNAL) return v[i];
    return v[0];
}

void kg_text_escape(const char *in, size_t max, char *out, size_t len)
{
    size_t o = 0;
    if (!len) return;
    for (size_t i = 0; in && i < max && in[i]; i++) {
        unsigned char ch = (unsigned char)in[i];
        if (ch >= 0x20 && ch < 0x7f) {
            if (o + 2 > len) break;
            out[o++] = (char)ch;
        } else {   /* control bytes (ESC, CR, a newline), DEL, and every byte of a non-ASCII character */
            if (o + 5 > len) break;
            snprintf(out + o, 5, "\\x%02x", ch);
            o += 4;
        }
    }
    out[o] = 0;
}

/* Strings of a record, printed escaped and only up to their field's size
 * (a few rotating buffers: one printf takes several). */
static const char *esc_field(const char *s, size_t size)
{
    static char buf[8][4 * 2400 + 1];
    static int k;
    char *b = buf[k++ & 7];
    kg_text_escape(s, size, b, sizeof buf[0]);
    return b;
}
#define EF(x) esc_field((x), sizeof(x))

void kg_print_candidate(FILE *f, const kg_cand *c)
{
    fprintf(f, "%-9s %-34s task=%-12s", kg_verdict_name(c->verdict), EF(c->name), EF(c->task));
    if (c->expected >= 0)
        fprintf(f, " label=%-8s%s%s%s", kg_verdict_name(c->expected),
                c->san_label > 0 ? " by " : "", c->san_label > 0 ? sz_tool_name(c->san_label - 1) : "",
                kg_cand_beyond_run(c) ? "  (beyond this run's --sanitize: not counted)"
                : kg_cand_off_label(c) ? "  <-- MISMATCH" : "");
    if (c->reason[0]) fprintf(f, "\n    why: %s\n", EF(c->reason));
    else fprintf(f, "\n    why: -\n");
    fprintf(f, "    rules: P0=%d P1=%d P2=%d %s\n", c->n_p0, c->n_p1, c->n_p2, EF(c->rules));
    if (c->sandbox[0]) fprintf(f, "    sandbox: %s\n", EF(c->sandbox));
    if (c->compiled)
        fprintf(f, "    ptxas: %d kernel(s), max %d registers, %lld B smem, %lld B stack, "
                   "spills %lld/%lld B st/ld%s\n",
                c->ptx.n_funcs, c->ptx.max_regs, c->ptx.smem_bytes, c->ptx.stack_bytes,
                c->ptx.spill_stores, c->ptx.spill_loads,
                (c->ptx.spill_stores || c->ptx.spill_loads || c->ptx.stack_bytes ||
                 c->ptx.lmem_bytes)
                    ? "  [FLAG: spills / local memory]"
                    : "");
    if (c->ref_ms_mid > 0)
        fprintf(f, "    timing: mid %.4g ms (reference %.4g ms, %.0f%%)", c->cand_ms_mid,
                c->ref_ms_mid, 100.0 * c->ref_ms_mid / c->cand_ms_mid);
    if (c->ref_ms_large > 0)
        fprintf(f, ", large %.4g ms (reference %.4g ms, %.0f%%)", c->cand_ms_large,
                c->ref_ms_large, 100.0 * c->ref_ms_large / c->cand_ms_large);
    if (c->ref_ms_mid > 0 && c->wall_batches > 0) {
        fprintf(f, " [judge's clock in %d of %d batches, allowance %.3g ms; the harness reported mid %.4g ms",
                c->wall_batches, c->timed_batches, c->allow_ms, c->rep_ms_mid);
        if (c->rep_ms_large > 0) fprintf(f, ", large %.4g ms", c->rep_ms_large);
        fprintf(f, "]");
    }
    if (c->ref_ms_mid > 0) fprintf(f, "\n");
    for (int i = 0; i < c->n_hits && i < KG_CAND_HITS; i++) {
        const kg_rule_info *r = kg_rule_at(c->hits[i].rule);
        if (r && c->hits[i].eff <= 1)
            fprintf(f, "    fix %s (P%d) at line %d: %s\n", r->id, c->hits[i].eff, c->hits[i].line, r->fix);
    }
    for (int i = 0; i < c->n_compile_errors && i < KG_MAX_COMPILE_ERRORS; i++)
        fprintf(f, "    compile: %s\n", EF(c->compile_errors[i]));
    if (c->mm_n > 0 || c->mm_count > 0) {
        fprintf(f, "    first failure: %s: %llu of %llu wrong", EF(c->mm_shape), c->mm_count, c->mm_checked);
        for (int i = 0; i < c->mm_n && i < 4; i++)
            fprintf(f, "%s [%lld] expected %.7g got %.7g", i ? ";" : ":", c->mm_index[i], c->mm_expected[i], c->mm_got[i]);
        fprintf(f, "\n");
    }
    if (c->n_dev > 1 || c->disagree)
        for (int d = 0; d < c->n_dev && d < KG_MAX_DEV; d++)
            fprintf(f, "    device %d (%s, sm_%s): %s%s%s\n", c->dev[d].device, EF(c->dev[d].name),
                    EF(c->dev[d].arch), kg_verdict_name(c->dev[d].verdict), c->dev[d].reason[0] ? ": " : "",
                    EF(c->dev[d].reason));
    if (c->disagree) fprintf(f, "    DISAGREE: the devices gave different verdicts\n");
    if (c->explained) {
        const kg_ncu *k[2] = {&c->ncu_cand, &c->ncu_ref};
        const char *who[2] = {"candidate", "reference"};
        for (int i = 0; i < 2; i++) {
            if (k[i]->ok)
                fprintf(f, "    ncu %s: %s %.4g us, DRAM %.1f%% of peak, achieved occupancy %.1f%%, "
                           "shared bank conflicts %.0f, top stall %s (%.2f)\n",
                        who[i], EF(k[i]->kernel), k[i]->duration_us, k[i]->dram_pct, k[i]->occupancy_pct,
                        k[i]->bank_conflicts, EF(k[i]->stall), k[i]->stall_ratio);
            else
                fprintf(f, "    ncu %s: not available (%s)\n", who[i], EF(k[i]->why));
        }
    }
    if (c->policy_stops) {
        fprintf(f, "    stopped statically under:");
        for (int p = 0; p < KG_POLICY_COUNT; p++)
            if ((c->policy_stops >> p) & 1) fprintf(f, " %s", kg_policy_name(p));
        fprintf(f, "\n");
    }
    if (c->san_stopped_by > 0)
        fprintf(f, "    sanitizer: %s%s%s%s%s\n", sz_tool_name(c->san_stopped_by - 1), c->san_kind[0] ? " " : "",
                EF(c->san_kind), c->san_where[0] ? " at " : "", EF(c->san_where));
    if (c->late_state) {
        static const char *const late_what[] = {"", "ran", "stopped it", "not run"};
        fprintf(f, "    late warps: %s in %.2f s: %s\n", late_what[c->late_state & 3], c->t_late, EF(c->late_note));
    }
    if (c->notes[0]) fprintf(f, "    note: %s\n", EF(c->notes));
    fprintf(f, "    seconds: static %.3f, compile %.3f, run %.3f, total (start to verdict) %.3f; "
               "overhead: sandbox %.3f, judge %.3f",
            c->t_static, c->t_compile, c->t_run, c->t_total, c->t_sandbox, c->t_judge);
    if (c->sanitized) fprintf(f, "; sanitizer pass %.3f (after the checks: not in the total, in the median)", c->t_sanitize);
    fprintf(f, "\n");
    if (c->t_gpu_wait > 0 || c->t_own_start > 0)
        fprintf(f, "    waits: ready at %.3f, then %.3f for the GPU (%.3f of it for other harnesses' start-up or "
                   "teardown), "
                   "%.3f for its own harness's start-up\n",
                c->t_ready, c->t_gpu_wait, c->t_quiesce, c->t_own_start);
}

static void pct(FILE *f, const char *what, int a, int b, double r)
{
    if (b) fprintf(f, "%s: %d / %d = %.1f%%\n", what, a, b, 100.0 * r);
    else fprintf(f, "%s: n/a (none labeled)\n", what);
}

void kg_print_summary(FILE *f, const kg_summary *s)
{
    fprintf(f, "\nconfusion matrix (rows: label, columns: verdict)\n%-9s", "");
    for (int v = 0; v < KG_V_COUNT; v++) fprintf(f, " %9s", kg_verdict_name(v));
    fprintf(f, "\n");
    for (int e = 0; e < KG_V_COUNT; e++) {
        if (e == KG_V_STATIC_OK || e == KG_V_SKIPPED) continue;
        fprintf(f, "%-9s", kg_verdict_name(e));
        for (int v = 0; v < KG_V_COUNT; v++) fprintf(f, " %9d", s->m[e][v]);
        fprintf(f, "\n");
    }
    fprintf(f, "\ncandidates: %d (%d labeled: %d bad, %d good)\nverdicts:", s->n, s->n_labeled,
            s->bad, s->good);
    for (int v = 0; v < KG_V_COUNT; v++)
        if (s->verdict_count[v]) fprintf(f, " %s=%d", kg_verdict_name(v), s->verdict_count[v]);
    fprintf(f, "\n");
    pct(f, "interception (bad stopped / bad)", s->bad_stopped, s->bad, s->interception);
    pct(f, "false kills (good stopped / good)", s->good_stopped, s->good, s->false_kill);
    fprintf(f, "median seconds per candidate (wall from the start of its processing to its verdict, the sanitizer pass's seconds included where it ran; static scan, compile and CUDA context creation overlap): %.3f\n", s->median_s);
    fprintf(f, "median overhead per candidate (sandbox starts + the separate judge's copies and round trips): %.3f s\n",
            s->median_overhead_s);
    if (s->san_n)
        fprintf(f, "sanitizer pass: %d candidate(s), median %.2f s, total %.2f s (after the verdicts, not in the "
                   "seconds per candidate)\n",
                s->san_n, s->san_median_s, s->san_total_s);
    if (s->n)
        fprintf(f, "wall seconds: %.2f in all, %.3f per candidate\n", s->wall_s,
                s->wall_s / s->n);
    if (s->skipped) fprintf(f, "skipped (not judged on this machine, left out of the rates): %d\n", s->skipped);
    if (s->beyond_sanitizer)
        fprintf(f, "beyond this run's --sanitize (labeled with a tool it did not run, left out of the rates): %d\n",
                s->beyond_sanitizer);
    if (s->stage_mismatches)
        fprintf(f, "stopped, but not by the sanitizer tool their label names: %d\n", s->stage_mismatches);
    if (s->gate_failures)
        fprintf(f, "gate failures (SKIPPED: the gate could not judge them, no verdict on the candidates): %d\n",
                s->gate_failures);
    if (s->disagreements) fprintf(f, "devices disagreed on %d candidate(s)\n", s->disagreements);
    if (s->n_labeled > 0) {
        fprintf(f, "policy profiles on this run (a laxer profile than the run's cannot know the dynamic "
                   "verdict of what the run stopped statically):\n");
        for (int p = 0; p < KG_POLICY_COUNT; p++) {
            fprintf(f, "  %-9s interception %d / %d, false kills %d / %d, median %.3f s", kg_policy_name(p),
                    s->pol_bad_stopped[p], s->bad, s->pol_good_stopped[p], s->good, s->pol_median_s[p]);
            if (s->pol_unknown[p]) fprintf(f, " (%d candidate(s) undetermined)", s->pol_unknown[p]);
            fprintf(f, "\n");
        }
    }
}

void kg_json_escape(const char *in, char *buf, size_t len)
{
    size_t o = 0;
    if (!len) return;
    for (const unsigned char *p = (const unsigned char *)(in ? in : ""); *p; p++) {
        char tmp[8];
        const char *add;
        switch (*p) {
        case '"': add = "\\\""; break;
        case '\\': add = "\\\\"; break;
        default:
            if (*p < 0x20 || *p >= 0x7f) {
                /* as the text report writes them: the decoded string says
                 * \xNN, so no reader of the feedback meets a control byte
                 * (ESC, CR, NUL...) or a non-ASCII character (a bidi override) */
                snprintf(tmp, sizeof tmp, "\\\\x%02x", *p);
                add = tmp;
            } else {
                tmp[0] = (char)*p;
                tmp[1] = 0;
                add = tmp;
            }
        }
        size_t l = strlen(add);
        if (o + l + 1 > len) break;
        memcpy(buf + o, add, l);
        o += l;
    }
    buf[o] = 0;
}

static void jstr(FILE *f, const char *key, const char *v, int comma)
{
    char b[2048];
    kg_json_escape(v, b, sizeof b);
    fprintf(f, "\"%s\":\"%s\"%s", key, b, comma ? "," : "");
}

static void jnum(FILE *f, const char *key, double v, int comma)
{
    if (isnan(v) || isinf(v)) fprintf(f, "\"%s\":null%s", key, comma ? "," : "");
    else fprintf(f, "\"%s\":%.6g%s", key, v, comma ? "," : "");
}

static void jnum_text(FILE *f, const char *key, double v, int comma)
{
    char t[48];
    snprintf(t, sizeof t, "%.7g", v);
    jnum(f, key, v, 1);
    jstr(f, key[0] == 'e' ? "expected_text" : "got_text", t, comma);
}

static void json_ncu(FILE *f, const char *key, const kg_ncu *k, int comma)
{
    fprintf(f, "\"%s\":{\"ok\":%s,", key, k->ok ? "true" : "false");
    if (k->ok) {
        jstr(f, "kernel", k->kernel, 1);
        jnum(f, "duration_us", k->duration_us, 1);
        jnum(f, "dram_throughput_pct", k->dram_pct, 1);
        jnum(f, "achieved_occupancy_pct", k->occupancy_pct, 1);
        jnum(f, "shared_bank_conflicts", k->bank_conflicts, 1);
        jstr(f, "top_stall", k->stall, 1);
        jnum(f, "top_stall_cycles_per_issue", k->stall_ratio, 0);
    } else {
        jstr(f, "why", k->why, 0);
    }
    fprintf(f, "}%s", comma ? "," : "");
}

/* The one-line advice that leads the feedback: what to do first. */
static void next_step(const kg_cand *c, char *buf, size_t len)
{
    buf[0] = 0;
    const kg_hit *best = NULL;
    for (int i = 0; i < c->n_hits && i < KG_CAND_HITS; i++)
        if (!best || c->hits[i].eff < best->eff) best = &c->hits[i];
    const kg_rule_info *r = best ? kg_rule_at(best->rule) : NULL;
    if (c->gate_failure) {
        snprintf(buf, len, "not judged (the gate's own failure, nothing of the candidate's): submit it again");
        return;
    }
    switch (c->verdict) {
    case KG_V_P0:
        if (r) snprintf(buf, len, "%s at line %d: %s", r->id, best->line, r->fix);
        break;
    case KG_V_L1:
        if (c->n_compile_errors) snprintf(buf, len, "make it compile: %s", c->compile_errors[0]);
        else snprintf(buf, len, "make it compile and load: %s", c->reason);
        break;
    case KG_V_L2:
        snprintf(buf, len, "it failed at run time: %s", c->reason);
        break;
    case KG_V_L3:
        if (c->mm_n > 0)
            snprintf(buf, len, "wrong result at %s: element %lld should be %.7g, got %.7g%s%s", c->mm_shape,
                     c->mm_index[0], c->mm_expected[0], c->mm_got[0], r && best->eff <= 1 ? "; check " : "",
                     r && best->eff <= 1 ? r->id : "");
        else snprintf(buf, len, "%s", c->reason);
        break;
    case KG_V_L4:
        snprintf(buf, len, "make it faster: %s%s%s", c->reason, r ? "; hint: " : "", r ? r->fix : "");
        break;
    default:
        if (r && best->eff <= 2) snprintf(buf, len, "accepted; to improve: %s at line %d: %s", r->id, best->line, r->fix);
        break;
    }
}

void kg_feedback_record(FILE *f, const kg_cand *c)
{
    char step[600];
    next_step(c, step, sizeof step);
    fprintf(f, "{");
    jstr(f, "candidate", c->name, 1);
    jstr(f, "task", c->task, 1);
    jstr(f, "verdict", kg_verdict_name(c->verdict), 1);
    fprintf(f, "\"stopped\":%s,", kg_verdict_is_stop(c->verdict) ? "true" : "false");
    fprintf(f, "\"gate_failure\":%s,", c->gate_failure ? "true" : "false");
    jstr(f, "next_step", step, 1);
    jstr(f, "reason", c->reason, 1);
    fprintf(f, "\"static\":[");
    for (int i = 0; i < c->n_hits && i < KG_CAND_HITS; i++) {
        const kg_rule_info *r = kg_rule_at(c->hits[i].rule);
        if (!r) continue;
        char sev[4];
        snprintf(sev, sizeof sev, "P%d", c->hits[i].eff);
        fprintf(f, "%s{", i ? "," : "");
        jstr(f, "rule", r->id, 1);
        jstr(f, "severity", sev, 1);
        fprintf(f, "\"line\":%d,", c->hits[i].line);
        jstr(f, "message", c->hits[i].msg, 1);
        jstr(f, "fix", r->fix, 0);
        fprintf(f, "}");
    }
    fprintf(f, "],");
    if (c->hits_total > c->n_hits) fprintf(f, "\"static_not_listed\":%d,", c->hits_total - c->n_hits);
    fprintf(f, "\"compile_errors\":[");
    for (int i = 0; i < c->n_compile_errors && i < KG_MAX_COMPILE_ERRORS; i++) {
        char b[600];
        kg_json_escape(c->compile_errors[i], b, sizeof b);
        fprintf(f, "%s\"%s\"", i ? "," : "", b);
    }
    fprintf(f, "],");
    if (c->mm_n > 0 || c->mm_count > 0) {
        fprintf(f, "\"first_failure\":{");
        jstr(f, "shape", c->mm_shape, 1);
        fprintf(f, "\"wrong\":%llu,\"checked\":%llu,\"mismatches\":[", c->mm_count, c->mm_checked);
        for (int i = 0; i < c->mm_n && i < 4; i++) {
            fprintf(f, "%s{\"index\":%lld,", i ? "," : "", c->mm_index[i]);
            jnum_text(f, "expected", c->mm_expected[i], 1);
            jnum_text(f, "got", c->mm_got[i], 0);
            fprintf(f, "}");
        }
        fprintf(f, "]},");
    } else {
        fprintf(f, "\"first_failure\":null,");
    }
    if (c->ref_ms_mid > 0 && c->cand_ms_mid > 0) {
        int large = c->ref_ms_large > 0 && c->cand_ms_large > 0;
        double cm = large ? c->cand_ms_large : c->cand_ms_mid, rm = large ? c->ref_ms_large : c->ref_ms_mid;
        fprintf(f, "\"performance\":{");
        jstr(f, "size", large ? "large" : "mid", 1);
        jnum(f, "candidate_ms", cm, 1);
        jnum(f, "reference_ms", rm, 1);
        jnum(f, "speed_vs_reference", rm / cm, 1);
        jnum(f, "floor", 0.5, 0);
        fprintf(f, "},");
    } else {
        fprintf(f, "\"performance\":null,");
    }
    if (c->explained) {
        fprintf(f, "\"profile\":{");
        json_ncu(f, "candidate", &c->ncu_cand, 1);
        json_ncu(f, "reference", &c->ncu_ref, 0);
        fprintf(f, "},");
    }
    if (c->san_stopped_by > 0) {   /* the sanitizer pass's finding: tool, kind, the candidate's file:line */
        fprintf(f, "\"sanitizer\":{");
        jstr(f, "tool", sz_tool_name(c->san_stopped_by - 1), 1);
        if (c->san_kind[0]) jstr(f, "kind", c->san_kind, 1);
        else fprintf(f, "\"kind\":null,");
        if (c->san_where[0]) jstr(f, "where", c->san_where, 1);
        else fprintf(f, "\"where\":null,");
        jstr(f, "fix", c->san_hint, 0);
        fprintf(f, "},");
    } else {
        fprintf(f, "\"sanitizer\":null,");
    }
    if (c->late_state) {   /* the late-warps run: what it found (with the fix), or why it did not run */
        static const char *const late_name[] = {"", "ran", "stopped", "not run"};
        fprintf(f, "\"late_warps\":{");
        jstr(f, "result", late_name[c->late_state & 3], 1);
        jnum(f, "seconds", c->t_late, 1);
        jstr(f, "note", c->late_note, 0);
        fprintf(f, "},");
    } else {
        fprintf(f, "\"late_warps\":null,");
    }
    if (c->n_dev > 1 || c->disagree) {
        fprintf(f, "\"devices\":[");
        for (int d = 0; d < c->n_dev && d < KG_MAX_DEV; d++) {
            fprintf(f, "%s{\"device\":%d,", d ? "," : "", c->dev[d].device);
            jstr(f, "name", c->dev[d].name, 1);
            jstr(f, "arch", c->dev[d].arch, 1);
            jstr(f, "verdict", kg_verdict_name(c->dev[d].verdict), 1);
            jstr(f, "reason", c->dev[d].reason, 0);
            fprintf(f, "}");
        }
        fprintf(f, "],\"disagree\":%s,", c->disagree ? "true" : "false");
    }
    jstr(f, "notes", c->notes, 0);
    fprintf(f, "}");
}

int kg_write_feedback(FILE *f, const kg_cand *c, int n)
{
    for (int i = 0; i < n; i++) {
        kg_feedback_record(f, &c[i]);
        fprintf(f, "\n");
    }
    return ferror(f) ? -1 : 0;
}

int kg_write_json(FILE *f, const kg_run_info *info, const kg_cand *c, int n,
                  const kg_summary *s)
{
    fprintf(f, "{\"tool\":\"kgate\",");
    jstr(f, "sandbox", info->sandbox ? info->sandbox : "", 1);
    jstr(f, "device", info->device, 1);
    jstr(f, "arch", info->arch, 1);
    jstr(f, "mode", info->mode, 1);
    jstr(f, "policy", info->policy ? info->policy : "default", 1);
    fprintf(f, "\"seed\":%llu,\"candidates\":[\n", info->seed);
    for (int i = 0; i < n; i++) {
        const kg_cand *k = &c[i];
        fprintf(f, "{");
        jstr(f, "file", k->name, 1);
        jstr(f, "task", k->task, 1);
        if (k->expected >= 0) jstr(f, "label", kg_verdict_name(k->expected), 1);
        else fprintf(f, "\"label\":null,");
        jstr(f, "defect", k->defect, 1);
        jstr(f, "verdict", kg_verdict_name(k->verdict), 1);
        fprintf(f, "\"stopped\":%s,", kg_verdict_is_stop(k->verdict) ? "true" : "false");
        jstr(f, "reason", k->reason, 1);
        fprintf(f, "\"gate_failure\":%s,", k->gate_failure ? "true" : "false");
        jstr(f, "rules", k->rules, 1);
        fprintf(f, "\"rule_counts\":{\"P0\":%d,\"P1\":%d,\"P2\":%d},", k->n_p0, k->n_p1, k->n_p2);
        if (k->compiled)
            fprintf(f, "\"ptxas\":{\"kernels\":%d,\"max_registers\":%d,\"smem_bytes\":%lld,"
                       "\"stack_bytes\":%lld,\"spill_store_bytes\":%lld,\"spill_load_bytes\":%lld,"
                       "\"lmem_bytes\":%lld},",
                    k->ptx.n_funcs, k->ptx.max_regs, k->ptx.smem_bytes, k->ptx.stack_bytes,
                    k->ptx.spill_stores, k->ptx.spill_loads, k->ptx.lmem_bytes);
        else fprintf(f, "\"ptxas\":null,");
        jnum(f, "cand_ms_mid", k->ref_ms_mid > 0 ? k->cand_ms_mid : NAN, 1);
        jnum(f, "ref_ms_mid", k->ref_ms_mid > 0 ? k->ref_ms_mid : NAN, 1);
        jnum(f, "cand_ms_large", k->ref_ms_large > 0 ? k->cand_ms_large : NAN, 1);
        jnum(f, "ref_ms_large", k->ref_ms_large > 0 ? k->ref_ms_large : NAN, 1);
        jnum(f, "timing_allowance_ms", k->ref_ms_mid > 0 ? k->allow_ms : NAN, 1);
        jnum(f, "harness_ms_mid", k->rep_ms_mid > 0 ? k->rep_ms_mid : NAN, 1);
        jnum(f, "harness_ms_large", k->rep_ms_large > 0 ? k->rep_ms_large : NAN, 1);
        fprintf(f, "\"timing_batches\":%d,\"timing_batches_judge_clock\":%d,", k->timed_batches, k->wall_batches);
        jnum(f, "seconds_static", k->t_static, 1);
        jnum(f, "seconds_compile", k->t_compile, 1);
        jnum(f, "seconds_run", k->t_run, 1);
        jnum(f, "seconds_total", k->t_total, 1);
        jnum(f, "seconds_sandbox", k->t_sandbox, 1);
        jnum(f, "seconds_judge", k->t_judge, 1);
        jnum(f, "seconds_to_ready", k->t_ready, 1);
        jnum(f, "seconds_gpu_wait", k->t_gpu_wait, 1);
        jnum(f, "seconds_other_startups", k->t_quiesce, 1);
        jnum(f, "seconds_own_startup_wait", k->t_own_start, 1);
        jstr(f, "sandbox_events", k->sandbox, 1);
        /* the sanitizer pass: its seconds (not in seconds_total), the label's tool, the reach */
        jnum(f, "seconds_sanitizer", k->sanitized ? k->t_sanitize : NAN, 1);
        if (k->san_label > 0) jstr(f, "label_sanitizer", sz_tool_name(k->san_label - 1), 1);
        else fprintf(f, "\"label_sanitizer\":null,");
        fprintf(f, "\"beyond_run\":%s,", kg_cand_beyond_run(k) ? "true" : "false");
        fprintf(f, "\"is_torch\":%s,\"policy_stops\":{", k->is_torch ? "true" : "false");
        for (int p = 0; p < KG_POLICY_COUNT; p++)
            fprintf(f, "%s\"%s\":%s", p ? "," : "", kg_policy_name(p), ((k->policy_stops >> p) & 1) ? "true" : "false");
        fprintf(f, "},\"feedback\":");
        kg_feedback_record(f, k);
        fprintf(f, "}%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "],\"summary\":{\"candidates\":%d,\"labeled\":%d,\"bad\":%d,\"bad_stopped\":%d,"
               "\"good\":%d,\"good_stopped\":%d,",
            s->n, s->n_labeled, s->bad, s->bad_stopped, s->good, s->good_stopped);
    jnum(f, "interception", s->interception, 1);
    jnum(f, "false_kill", s->false_kill, 1);
    jnum(f, "median_seconds_per_candidate", s->median_s, 1);
    jnum(f, "median_overhead_seconds", s->median_overhead_s, 1);
    jnum(f, "wall_seconds", s->wall_s, 1);
    fprintf(f, "\"sanitizer_candidates\":%d,", s->san_n);
    jnum(f, "sanitizer_median_seconds", s->san_n ? s->san_median_s : NAN, 1);
    jnum(f, "sanitizer_total_seconds", s->san_total_s, 1);
    fprintf(f, "\"beyond_run\":%d,\"stage_mismatches\":%d,", s->beyond_sanitizer, s->stage_mismatches);
    fprintf(f, "\"skipped\":%d,\"gate_failures\":%d,\"disagreements\":%d,\"policies\":{", s->skipped,
            s->gate_failures, s->disagreements);
    for (int p = 0; p < KG_POLICY_COUNT; p++) {
        fprintf(f, "%s\"%s\":{\"bad_stopped\":%d,\"good_stopped\":%d,\"undetermined\":%d,", p ? "," : "",
                kg_policy_name(p), s->pol_bad_stopped[p], s->pol_good_stopped[p], s->pol_unknown[p]);
        jnum(f, "median_seconds", s->pol_median_s[p], 0);
        fprintf(f, "}");
    }
    fprintf(f, "},");
    fprintf(f, "\"verdicts\":{");
    for (int v = 0; v < KG_V_COUNT; v++)
        fprintf(f, "\"%s\":%d%s", kg_verdict_name(v), s->verdict_count[v],
                v + 1 < KG_V_COUNT ? "," : "");
    fprintf(f, "},\"confusion\":{");
    int first = 1;
    for (int e = 0; e < KG_V_COUNT; e++) {
        if (e == KG_V_STATIC_OK || e == KG_V_SKIPPED) continue;
        fprintf(f, "%s\"%s\":{", first ? "" : ",", kg_verdict_name(e));
        first = 0;
        for (int v = 0; v < KG_V_COUNT; v++)
            fprintf(f, "\"%s\":%d%s", kg_verdict_name(v), s->m[e][v], v + 1 < KG_V_COUNT ? "," : "");
        fprintf(f, "}");
    }
    fprintf(f, "}}}\n");
    return ferror(f) ? -1 : 0;
}
