/* kgate's sanitizer pass in the gate (sanpass.h judges): each candidate that
 * passed runs its harness on the small shapes under compute-sanitizer, in
 * the harness's sandbox, one run per tool of --sanitize, a candidate's tools
 * at once (each in a sandbox of its own); a finding turns its PASS into L2.
 * After every verdict, as the L4 explanations. */
#ifndef KGATE_SANITIZE_RUN_H
#define KGATE_SANITIZE_RUN_H
#include "pipeline.h"

/* compute-sanitizer: --compute-sanitizer, else CUDA's, into g->sanitizer;
 * 0, or -1 when there is none. */
int find_sanitizer(kg_gate *g, char *path, size_t len);
/* The pass over cands[0..n) (PASS verdicts only); removes the scratch
 * folders kept for it (unless --keep or --work). Prints each candidate's
 * seconds and the median. */
void sanitize_passed(kg_gate *g, kg_cand *cands, kg_job *jobs, int n, const char *sanitizer);
/* The tool's report file at path (made here, never followed through a link),
 * open for the harness's sandbox of job slot `slot` to write through
 * /proc/self/fd/3 (the scratch folder is read-only there): owned by that
 * sandbox's user when the gate switches users. The descriptor, or -1. */
int kg_san_report_file(const kg_sandbox *sb, int slot, const char *path);

#endif
