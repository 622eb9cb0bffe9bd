/* report.h: RESULT lines, JSON records, notes and the closing PASS/FAIL line,
 * all from one place (CONVENTIONS.md, "Result lines").
 *
 *   report_init("vectorAdd", opts.json);
 *   result_rec r;
 *   rec_begin(&r, "naive");                // sample=vectorAdd variant=naive
 *   rec_int(&r, "n", n);
 *   rec_str(&r, "status", "PASS");
 *   rec_perf(&r, t.median_ms, "gbps", gbps, dev.peak_gbps, "memcpy_d2d", ref_gbps);
 *   rec_emit(&r);
 *       RESULT sample=vectorAdd variant=naive n=268435456 status=PASS time_ms=0.9 ...
 *       (or, with --json: {"sample":"vectorAdd","variant":"naive","n":268435456,...})
 *   ...
 *   return report_finish();                // "vectorAdd: PASS" and 0, or FAIL and 1
 *
 * Keys keep the order they were added in, so the fixed keys come first.
 * A record whose status is FAIL, and every report_fail() call, make the
 * sample FAIL. In --json mode stdout carries only JSON lines; notes (the
 * "# ..." lines) go to stderr, and the closing line is a JSON record too
 * ({"sample":...,"status":"PASS"}).
 * Host-only C.
 */
#ifndef COMMON_REPORT_H
#define COMMON_REPORT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REC_MAX_FIELDS 32
#define REC_KEY_LEN 32
#define REC_VAL_LEN 128

typedef enum { REC_NUM, REC_STR, REC_NULL } rec_type;

typedef struct {
    int n;
    struct {
        char key[REC_KEY_LEN];
        char val[REC_VAL_LEN];  /* numbers pre-formatted; strings raw */
        rec_type type;
    } f[REC_MAX_FIELDS];
} result_rec;

void report_init(const char *sample, int json);
int report_json(void);

void rec_begin(result_rec *r, const char *variant);
void rec_int(result_rec *r, const char *key, long long v);
void rec_num(result_rec *r, const char *key, double v);   /* NaN/inf -> null in JSON */
void rec_str(result_rec *r, const char *key, const char *v);
/* time_ms, <unit>=value, pct_peak (if peak > 0), ref and pct_ref (if ref != NULL
 * and ref_value > 0). unit is "gbps" or "gflops". */
void rec_perf(result_rec *r, double time_ms, const char *unit, double value, double peak,
              const char *ref, double ref_value);

/* Formatting, exposed for the tests. Return the length written, or -1 if the
 * buffer is too small. No trailing newline. */
int rec_format_text(const result_rec *r, char *buf, size_t len);
int rec_format_json(const result_rec *r, char *buf, size_t len);
/* Number formatting: 4 significant digits, no exponent, no trailing zeros. */
void rec_format_number(double v, char *buf, size_t len);

/* Print the record (RESULT line or JSON line) and count a FAIL status. */
void rec_emit(const result_rec *r);

/* A "# ..." line for people (stderr in --json mode). */
void report_note(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Count a failure that is not a record (e.g. a setup check); message to stderr. */
void report_fail(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The closing line; returns the exit code (0 PASS, 1 FAIL). */
int report_finish(void);

#ifdef __cplusplus
}
#endif
#endif /* COMMON_REPORT_H */
