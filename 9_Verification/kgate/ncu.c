#define _GNU_SOURCE
/* ncu.c: Nsight Compute's raw CSV page, read by column name (ncu.h). */
#include "ncu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ncu 2025.3 prints 951 columns for the four sections the gate asks for */
#define MAX_COLS 4096

/* Split one CSV line into fields (quotes removed, "" inside quotes kept as
 * one quote). Returns the number of fields; fields point into buf. */
static int split_csv(const char *line, size_t len, char *buf, char **f, int max)
{
    int n = 0;
    size_t o = 0, i = 0;
    while (i <= len && n < max) {
        f[n++] = buf + o;
        int q = i < len && line[i] == '"';
        if (q) i++;
        while (i < len) {
            if (q && line[i] == '"') {
                if (i + 1 < len && line[i + 1] == '"') { buf[o++] = '"'; i += 2; continue; }
                q = 0;
                i++;
                continue;
            }
            if (!q && line[i] == ',') break;
            buf[o++] = line[i++];
        }
        buf[o++] = 0;
        i++;   /* the comma */
    }
    return n;
}

/* A number as ncu prints it ("1,234.5", "85.12", "n/a"). */
static double num(const char *s)
{
    char t[64];
    size_t k = 0;
    for (; *s && k + 1 < sizeof t; s++)
        if (*s != ',' && *s != ' ') t[k++] = *s;
    t[k] = 0;
    char *end = NULL;
    double v = strtod(t, &end);
    return end && end != t && *end == 0 ? v : NAN;
}

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

int kg_ncu_parse(const char *text, kg_ncu *out)
{
    memset(out, 0, sizeof *out);
    out->duration_us = out->dram_pct = out->occupancy_pct = out->bank_conflicts = out->stall_ratio = NAN;
    if (!text) { snprintf(out->why, sizeof out->why, "no output"); return -1; }
    char *hbuf = NULL, *ubuf = NULL, *rbuf = NULL;
    char **cols = calloc(3 * MAX_COLS, sizeof *cols);   /* 96 KiB: not on the stack */
    if (!cols) { snprintf(out->why, sizeof out->why, "out of memory"); return -1; }
    char **head = cols, **unit = cols + MAX_COLS, **row = cols + 2 * MAX_COLS;
    int nh = 0, nu = 0, state = 0, rc = -1;
    double best_dur = -1;
    char err[160] = "";
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len && p[len - 1] == '\r') len--;
        if (!err[0] && (strstr(p, "==ERROR==") == p || (strstr(p, "ERR_NVGPUCTRPERM") && strstr(p, "ERR_NVGPUCTRPERM") < p + len)))
            snprintf(err, sizeof err, "%.*s", (int)(len < 150 ? len : 150), p);
        if (state == 0 && len > 4 && p[0] == '"' && memmem(p, len, "\"Kernel Name\"", 13)) {
            hbuf = malloc(len + 2);
            nh = split_csv(p, len, hbuf, head, MAX_COLS);
            state = 1;
        } else if (state == 1) {
            ubuf = malloc(len + 2);
            nu = split_csv(p, len, ubuf, unit, MAX_COLS);
            state = 2;
        } else if (state == 2 && len > 0 && p[0] == '"') {
            free(rbuf);
            rbuf = malloc(len + 2);
            int nr = split_csv(p, len, rbuf, row, MAX_COLS);
            kg_ncu k;
            memset(&k, 0, sizeof k);
            k.duration_us = k.dram_pct = k.occupancy_pct = k.stall_ratio = NAN;
            k.bank_conflicts = NAN;
            for (int c = 0; c < nh && c < nr; c++) {
                const char *h = head[c];
                double v = num(row[c]);
                if (!strcmp(h, "Kernel Name")) snprintf(k.kernel, sizeof k.kernel, "%.95s", row[c]);
                else if (!strcmp(h, "gpu__time_duration.sum")) {
                    const char *u = c < nu ? unit[c] : "";
                    double scale = !strcmp(u, "nsecond") || !strcmp(u, "ns") ? 1e-3
                                 : !strcmp(u, "msecond") || !strcmp(u, "ms") ? 1e3
                                 : !strcmp(u, "second") || !strcmp(u, "s") ? 1e6 : 1.0;
                    k.duration_us = v * scale;
                } else if (!strcmp(h, "dram__throughput.avg.pct_of_peak_sustained_elapsed") ||
                           (!strcmp(h, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed") && isnan(k.dram_pct)))
                    k.dram_pct = v;   /* the second: its name in ncu 2025 */
                else if (!strcmp(h, "sm__warps_active.avg.pct_of_peak_sustained_active")) k.occupancy_pct = v;
                else if (starts(h, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_") && strstr(h, ".sum") && !isnan(v))
                    k.bank_conflicts = (isnan(k.bank_conflicts) ? 0 : k.bank_conflicts) + v;
                else if ((starts(h, "smsp__average_warp_latency_issue_stalled_") ||
                          starts(h, "smsp__average_warps_issue_stalled_")) && !isnan(v)) {
                    const char *r = strstr(h, "issue_stalled_") + 14;
                    char reason[48];
                    size_t m = 0;
                    while (r[m] && r[m] != '.' && strncmp(r + m, "_per_", 5) && m + 1 < sizeof reason) m++;
                    snprintf(reason, sizeof reason, "%.*s", (int)m, r);
                    if (!strcmp(reason, "selected") || !strcmp(reason, "not_selected")) continue;
                    if (isnan(k.stall_ratio) || v > k.stall_ratio) {
                        k.stall_ratio = v;
                        snprintf(k.stall, sizeof k.stall, "%s", reason);
                    }
                }
            }
            double d = isnan(k.duration_us) ? 0 : k.duration_us;
            if (d > best_dur) {
                best_dur = d;
                *out = k;
                out->ok = 1;
                rc = 0;
            }
        }
        if (!eol) break;
        p = eol + 1;
    }
    free(hbuf);
    free(ubuf);
    free(rbuf);
    free(cols);
    if (rc != 0) {
        out->ok = 0;
        snprintf(out->why, sizeof out->why, "%s", err[0] ? err : state == 0 ? "ncu printed no CSV table (no kernel profiled?)"
                                                                         : "ncu's table has no kernel row");
    }
    return rc;
}

int kg_ncu_argv(const char *ncu, const char *nvtx_range, const char **argv, int max)
{
    const char *a[] = {ncu, "--clock-control", "none", "--target-processes", "all", "--nvtx",
                       "--nvtx-include", nvtx_range, "--csv", "--page", "raw", "--section", "SpeedOfLight",
                       "--section", "Occupancy", "--section", "WarpStateStats", "--section",
                       "MemoryWorkloadAnalysis_Tables", NULL};
    int n = 0;
    for (; a[n] && n < max - 1; n++) argv[n] = a[n];
    argv[n] = NULL;
    return n;
}
