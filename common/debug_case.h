/* debug_case.h: the little that every 8_Debugging case shares (the cases
 * are built by common/debug_case.mk; see 8_Debugging/README.md).
 *
 * One source builds twice (common/debug_case.mk): bin/<case>_buggy, and
 * bin/<case>_fixed with -DFIXED=1. Inside the source the difference is
 * always an #ifdef FIXED ... #else ... #endif, the buggy branch marked
 * `// BUG:`. Lines that a sanitizer reports are marked `// REPORTED: <kind>`,
 * and the case's sanitize.expect names exactly those lines (a test checks
 * that the two agree, both ways).
 *
 *   static const opt_spec case_opts[] = { ..., CASE_OPTS };
 *   report_init(CASE_NAME("blurPitch"), o.json);
 *   ...
 *   if (!case_no_check) { ...compare with the CPU, rec_emit a status... }
 *   return case_finish(CASE_NAME("blurPitch"));
 *
 * --no-check runs the kernels but skips the comparisons. It exists for
 * sanitizer runs of a buggy form under a tool that is declared NOT to see
 * the bug: there the harness must get exit status 0 from the program, so
 * that a clean report reads CLEAN and not "the program failed". The closing
 * line then says the result was not compared.
 *
 * A case times nothing, so --reps (the timed repetitions of every sample)
 * means nothing to it: it is left out of --help and refused by name, exit 1
 * ("--reps means nothing to blurPitch_buggy"), as deviceQuery refuses it.
 * CASE_OPTS holds both entries; every case's table ends with it.
 */
#ifndef DEBUG_CASE_H
#define DEBUG_CASE_H

#include <stdio.h>

#include "options.h"
#include "report.h"

#ifdef FIXED
#define CASE_FORM "fixed"
#else
#define CASE_FORM "buggy"
#endif

/* "blurPitch" -> "blurPitch_buggy" or "blurPitch_fixed" (string literals). */
#define CASE_NAME(base) base "_" CASE_FORM

static int case_no_check = 0;

#define CASE_NO_CHECK_OPT                                                          \
    OPT_FLAG_SPEC("no-check",                                                      \
                  "run the kernels, skip the comparisons and exit 0 (sanitizer "  \
                  "runs: the tool's report is the judge)",                         \
                  &case_no_check)

/* The table entries every case shares: --no-check, and no --reps. */
#define CASE_OPTS CASE_NO_CHECK_OPT, OPT_COMMON_OMIT_SPEC("reps")

/* The closing line and the exit status. */
static inline int case_finish(const char *name)
{
    if (!case_no_check) return report_finish();
    fflush(stderr);
    if (report_json())
        printf("{\"sample\":\"%s\",\"status\":\"PASS\",\"checked\":false}\n", name);
    else
        printf("%s: PASS (--no-check: results not compared)\n", name);
    fflush(stdout);
    return 0;
}

#endif /* DEBUG_CASE_H */
