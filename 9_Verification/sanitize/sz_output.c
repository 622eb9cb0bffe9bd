/* sz_output.c: the terminal summary table, the JSON report and JUnit XML;
 * every string goes through the cleaning of sz_text.c first. */
#define _POSIX_C_SOURCE 200809L
#include "sanitize.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int sz_count(const sz_result *r, int n, int counts[SZ_N_VERDICTS])
{
    for (int v = 0; v < SZ_N_VERDICTS; v++) counts[v] = 0;
    for (int i = 0; i < n; i++) counts[r[i].verdict]++;
    return counts[SZ_MISSED] + counts[SZ_UNEXPECTED] + counts[SZ_ERROR];
}

static void detections_summary(const sz_result *r, char *buf, size_t len)
{
    buf[0] = '\0';
    if (r->verdict == SZ_ERROR || r->verdict == SZ_SKIPPED) return; /* nothing was read */
    if (r->found.n == 0) {
        snprintf(buf, len, "-");
        return;
    }
    size_t at = 0;
    for (int j = 0; j < r->found.n && at + 1 < len; j++) {
        char w[300];
        sz_detection_where(&r->found.d[j], w, sizeof w);
        int k = snprintf(buf + at, len - at, "%s%s %s x%d", j ? ", " : "", r->found.d[j].kind, w,
                         r->found.d[j].count);
        if (k < 0) break;
        at += (size_t)k;
    }
    if (at >= len && len > 4) strcpy(buf + len - 4, "...");
}

static void write_table(FILE *f, const sz_result *r, int n)
{
    fprintf(f, "%-28s %-10s %-10s %8s  %s\n", "run", "tool", "verdict", "time_s", "detections");
    for (int i = 0; i < n; i++) {
        char det[160];
        detections_summary(&r[i], det, sizeof det);
        fprintf(f, "%-28s %-10s %-10s %8.1f  %s\n", r[i].label, sz_tool_name(r[i].tool),
                sz_verdict_name(r[i].verdict), r[i].seconds, det);
    }
    /* details for everything that did not go as declared, and the notes of
     * the runs that did (a run retried because the tool could not attach,
     * a log cut short): a pass that needed help says so */
    for (int i = 0; i < n; i++) {
        const sz_result *x = &r[i];
        if ((x->verdict == SZ_CLEAN || x->verdict == SZ_DETECTED) && !x->message[0]) continue;
        fprintf(f, "\n%s under %s: %s%s%s\n", x->label, sz_tool_name(x->tool),
                sz_verdict_name(x->verdict), x->message[0] ? ": " : "", x->message);
        for (int k = 0; k < x->expect.n; k++) {
            if (!x->missed[k] || x->verdict == SZ_ERROR || x->verdict == SZ_SKIPPED) continue;
            const sz_expected *e = &x->expect.e[k];
            if (e->line)
                fprintf(f, "  MISSED     %s at %s:%d (declared, not reported)\n", e->kind, e->file,
                        e->line);
            else
                fprintf(f, "  MISSED     %s (declared, not reported)\n", e->kind);
        }
        for (int j = 0; x->unexpected && j < x->found.n; j++) {
            if (!x->unexpected[j]) continue;
            const sz_detection *d = &x->found.d[j];
            char w[300];
            sz_detection_where(d, w, sizeof w);
            fprintf(f, "  UNEXPECTED %s at %s in %s, %d record(s)", d->kind, w,
                    d->kernel[0] ? d->kernel : "?", d->count);
            if (d->has_block) fprintf(f, ", block (%d,%d,%d)", d->block[0], d->block[1], d->block[2]);
            if (d->has_thread)
                fprintf(f, ", thread (%d,%d,%d)", d->thread[0], d->thread[1], d->thread[2]);
            if (d->text[0]) fprintf(f, ": %s", d->text);
            fprintf(f, "\n");
        }
        if (x->log_path[0]) fprintf(f, "  log: %s\n", x->log_path);
    }
    int c[SZ_N_VERDICTS];
    int bad = sz_count(r, n, c);
    /* SKIPPED (a run that needs more GPUs than are visible) is named only
     * when there is one, so the usual line keeps its usual shape */
    char skipped[48] = "";
    if (c[SZ_SKIPPED]) snprintf(skipped, sizeof skipped, ", %d SKIPPED", c[SZ_SKIPPED]);
    fprintf(f, "\nsanitize: %d runs: %d CLEAN, %d DETECTED, %d MISSED, %d UNEXPECTED, %d ERROR%s -> %s\n",
            n, c[SZ_CLEAN], c[SZ_DETECTED], c[SZ_MISSED], c[SZ_UNEXPECTED], c[SZ_ERROR], skipped,
            bad ? "FAIL" : "PASS");
}

/* The table goes through sz_write_clean: whatever a report, an
 * expectations file or a command line held, the terminal and summary.txt
 * get printable UTF-8 and newlines only. */
void sz_write_table(FILE *f, const sz_result *r, int n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        fputs("sanitize: error: out of memory writing the table\n", f);
        return;
    }
    write_table(m, r, n);
    if (fclose(m) == 0) sz_write_clean(f, buf, len);
    free(buf);
}

/* JSON string: quotes, backslashes and every control character escaped,
 * and each byte that is not part of valid UTF-8 replaced by U+FFFD, so the
 * document is valid UTF-8 whatever the string held. */
static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p);
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = sz_utf8_seq(p + i, n - i, &cp);
        if (k == 0) {
            fputs("\\ufffd", f);
            i++;
            continue;
        }
        if (cp == '"' || cp == '\\') fprintf(f, "\\%c", (char)cp);
        else if (cp == '\n') fputs("\\n", f);
        else if (cp == '\t') fputs("\\t", f);
        else if (sz_is_control(cp)) fprintf(f, "\\u%04x", cp);
        else fwrite(p + i, 1, k, f);
        i += k;
    }
    fputc('"', f);
}

static void json_detection(FILE *f, const sz_detection *d, int unexpected)
{
    fputs("{\"kind\":", f);
    jstr(f, d->kind);
    fputs(",\"raw_kind\":", f);
    jstr(f, d->raw_kind);
    fputs(",\"kernel\":", f);
    jstr(f, d->kernel);
    fputs(",\"file\":", f);
    jstr(f, d->n_locs ? d->locs[0].file : "");
    fprintf(f, ",\"line\":%d", d->n_locs ? d->locs[0].line : 0);
    fputs(",\"locations\":[", f);
    for (int i = 0; i < d->n_locs; i++) {
        fputs(i ? ",{\"file\":" : "{\"file\":", f);
        jstr(f, d->locs[i].file);
        fprintf(f, ",\"line\":%d,\"func\":", d->locs[i].line);
        jstr(f, d->locs[i].func);
        fprintf(f, ",\"host\":%s}", d->locs[i].host ? "true" : "false");
    }
    fputs("]", f);
    if (d->has_thread)
        fprintf(f, ",\"thread\":[%d,%d,%d]", d->thread[0], d->thread[1], d->thread[2]);
    else
        fputs(",\"thread\":null", f);
    if (d->has_block)
        fprintf(f, ",\"block\":[%d,%d,%d]", d->block[0], d->block[1], d->block[2]);
    else
        fputs(",\"block\":null", f);
    fprintf(f, ",\"count\":%d,\"declared\":%s,\"text\":", d->count, unexpected ? "false" : "true");
    jstr(f, d->text);
    fputs("}", f);
}

int sz_write_json(FILE *f, const sz_result *r, int n, const sz_meta *m)
{
    int c[SZ_N_VERDICTS];
    int bad = sz_count(r, n, c);
    fputs("{\"harness\":\"sanitize\",\"date\":", f);
    jstr(f, m ? m->date : "");
    fputs(",\"git\":", f);
    jstr(f, m ? m->git : "");
    fputs(",\"sanitizer\":", f);
    jstr(f, m ? m->sanitizer : "");
    fputs(",\"sanitizer_version\":", f);
    jstr(f, m ? m->version : "");
    fputs(",\"command\":", f);
    jstr(f, m ? m->command : "");
    fputs(",\"containment\":", f);
    jstr(f, m && m->containment ? m->containment : "");
    fprintf(f, ",\"workers\":%d", m ? m->workers : 1);
    fprintf(f, ",\"summary\":{\"runs\":%d,\"CLEAN\":%d,\"DETECTED\":%d,\"MISSED\":%d,"
               "\"UNEXPECTED\":%d,\"ERROR\":%d,\"SKIPPED\":%d,\"status\":\"%s\"}",
            n, c[SZ_CLEAN], c[SZ_DETECTED], c[SZ_MISSED], c[SZ_UNEXPECTED], c[SZ_ERROR],
            c[SZ_SKIPPED], bad ? "FAIL" : "PASS");
    fputs(",\"runs\":[", f);
    for (int i = 0; i < n; i++) {
        const sz_result *x = &r[i];
        fputs(i ? ",\n{" : "\n{", f);
        fputs("\"name\":", f);
        jstr(f, x->name);
        fputs(",\"label\":", f);
        jstr(f, x->label);
        fputs(",\"tool\":", f);
        jstr(f, sz_tool_name(x->tool));
        fputs(",\"binary\":", f);
        jstr(f, x->binary);
        fputs(",\"args\":", f);
        jstr(f, x->args);
        fputs(",\"verdict\":", f);
        jstr(f, sz_verdict_name(x->verdict));
        fprintf(f, ",\"gpus\":%d,\"seconds\":%.3f,\"exit_code\":%d,\"timed_out\":%s,"
                "\"attempts\":%d,\"message\":",
                x->gpus > 1 ? x->gpus : 1, x->seconds, x->exit_code, x->timed_out ? "true" : "false",
                x->attempts > 1 ? x->attempts : 1);
        jstr(f, x->message);
        fputs(",\"xml\":", f);
        jstr(f, x->xml_path);
        fputs(",\"log\":", f);
        jstr(f, x->log_path);
        fprintf(f, ",\"expected\":%s", x->expect.detect ? "[" : "\"clean\"");
        if (x->expect.detect) {
            for (int k = 0; k < x->expect.n; k++) {
                const sz_expected *e = &x->expect.e[k];
                fputs(k ? ",{\"kind\":" : "{\"kind\":", f);
                jstr(f, e->kind);
                fputs(",\"file\":", f);
                jstr(f, e->file);
                fprintf(f, ",\"line\":%d,\"found\":%s}", e->line,
                        x->verdict != SZ_ERROR && x->verdict != SZ_SKIPPED && !x->missed[k]
                            ? "true" : "false");
            }
            fputs("]", f);
        }
        fprintf(f, ",\"records\":%d,\"detections\":[", x->found.n_records);
        for (int j = 0; j < x->found.n; j++) {
            if (j) fputc(',', f);
            json_detection(f, &x->found.d[j], x->unexpected ? x->unexpected[j] : 1);
        }
        fputs("]}", f);
    }
    fputs("\n]}\n", f);
    return ferror(f) ? -1 : 0;
}

/* XML text or attribute value: markup escaped, newlines kept, and every
 * control character or byte that is not valid UTF-8 written as '?' (XML 1.0
 * allows no C0 control but tab and newline, and the file says UTF-8). */
static void xstr(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p);
    for (size_t i = 0; i < n;) {
        unsigned cp;
        size_t k = sz_utf8_seq(p + i, n - i, &cp);
        if (k == 0) {
            fputc('?', f);
            i++;
            continue;
        }
        switch (cp) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if (sz_is_control(cp) && cp != '\n') fputc('?', f);
            else fwrite(p + i, 1, k, f);
        }
        i += k;
    }
}

int sz_write_junit(FILE *f, const sz_result *r, int n)
{
    int c[SZ_N_VERDICTS];
    sz_count(r, n, c);
    double total = 0;
    for (int i = 0; i < n; i++) total += r[i].seconds;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"sanitize\" tests=\"%d\" failures=\"%d\" errors=\"%d\" "
               "time=\"%.3f\">\n", n, c[SZ_MISSED] + c[SZ_UNEXPECTED], c[SZ_ERROR], total);
    fprintf(f, "  <testsuite name=\"compute-sanitizer\" tests=\"%d\" failures=\"%d\" errors=\"%d\" "
               "skipped=\"%d\" time=\"%.3f\">\n", n, c[SZ_MISSED] + c[SZ_UNEXPECTED], c[SZ_ERROR],
            c[SZ_SKIPPED], total);
    for (int i = 0; i < n; i++) {
        const sz_result *x = &r[i];
        fputs("    <testcase classname=\"sanitize.", f);
        xstr(f, x->label);
        fprintf(f, "\" name=\"%s\" time=\"%.3f\"", sz_tool_name(x->tool), x->seconds);
        if (x->verdict == SZ_CLEAN || x->verdict == SZ_DETECTED) {
            fprintf(f, ">\n      <system-out>%s", sz_verdict_name(x->verdict));
            for (int j = 0; j < x->found.n; j++) {
                char w[300];
                sz_detection_where(&x->found.d[j], w, sizeof w);
                fputs(j ? ", " : ": ", f);
                xstr(f, x->found.d[j].kind);
                fputc(' ', f);
                xstr(f, w);
            }
            if (x->message[0]) { /* a note: retried, log cut, ... */
                fputs("\nnote: ", f);
                xstr(f, x->message);
            }
            fputs("</system-out>\n    </testcase>\n", f);
            continue;
        }
        if (x->verdict == SZ_SKIPPED) { /* not run: neither a failure nor an error */
            fputs(">\n      <skipped message=\"", f);
            xstr(f, x->message);
            fputs("\"/>\n    </testcase>\n", f);
            continue;
        }
        const char *tag = x->verdict == SZ_ERROR ? "error" : "failure";
        fprintf(f, ">\n      <%s type=\"%s\" message=\"", tag, sz_verdict_name(x->verdict));
        xstr(f, sz_verdict_name(x->verdict));
        if (x->message[0]) {
            fputs(": ", f);
            xstr(f, x->message);
        }
        fputs("\">", f);
        for (int k = 0; k < x->expect.n && x->verdict != SZ_ERROR; k++) {
            if (!x->missed[k]) continue;
            fprintf(f, "MISSED %s at ", x->expect.e[k].kind);
            xstr(f, x->expect.e[k].file);
            fprintf(f, ":%d\n", x->expect.e[k].line);
        }
        for (int j = 0; x->unexpected && j < x->found.n; j++) {
            if (!x->unexpected[j]) continue;
            char w[300];
            sz_detection_where(&x->found.d[j], w, sizeof w);
            fputs("UNEXPECTED ", f);
            xstr(f, x->found.d[j].kind);
            fputs(" at ", f);
            xstr(f, w);
            fprintf(f, " x%d\n", x->found.d[j].count);
        }
        fprintf(f, "</%s>\n", tag);
        /* where to look: the command, the tool's own output, the report */
        fputs("      <system-out>", f);
        xstr(f, x->binary);
        if (x->args[0]) {
            fputc(' ', f);
            xstr(f, x->args);
        }
        fputs("\nlog: ", f);
        xstr(f, x->log_path[0] ? x->log_path : "-");
        fputs("\nreport: ", f);
        xstr(f, x->xml_path[0] ? x->xml_path : "-");
        fputs("</system-out>\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    return ferror(f) ? -1 : 0;
}
