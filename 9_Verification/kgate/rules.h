/* rules.h: the static track's rule table and the gate's policy profiles.
 *
 * One row per rule: its id, its severity under the default policy, the
 * family it belongs to and a one-line fix hint (the generator's feedback
 * quotes it). README-static.md documents every rule (what, why, an example
 * that fires, a near-miss that must not); tests/test_rule_docs.c scans the
 * documentation's examples, so the table, the documentation and the
 * scanner cannot drift apart.
 *
 * A policy profile maps a finding's severity to the severity that decides:
 *   default    the rule's own severity: only certain defects (P0) reject;
 *   published  as the published dual-track gate: device printf, recursion,
 *              static __global__, a global index from threadIdx without
 *              blockIdx and blockDim, host library calls in device code are
 *              P0 too;
 *   strict     published, and every P1 ("check closely") rejects;
 *   lenient    only what the gate cannot read safely (KG-INCLUDE,
 *              KG-HIDDEN-CODE) rejects statically; every other P0 becomes
 *              P1 and the dynamic track decides.
 * lenient rejects a subset of what default rejects, default a subset of
 * published, published a subset of strict: a run under default gives the
 * verdicts of published and strict too (kg_policy_stops).
 * Host-only C11, linked into the scan, the gate and the tests.
 */
#ifndef KGATE_RULES_H
#define KGATE_RULES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *id;        /* "KG-POW-SMALL" */
    int sev;               /* 0 P0, 1 P1, 2 P2 under the default policy */
    const char *family;    /* gate, contract, sync, warp, atomics, smem, index, launch, loops,
                              local, host-in-device, memory, math, style, pytorch */
    const char *fix;       /* one line, imperative: what to change */
} kg_rule_info;

int kg_rule_count(void);
const kg_rule_info *kg_rule_at(int i);
int kg_rule_index(const char *id);          /* -1 if unknown */

typedef enum {
    KG_POLICY_DEFAULT, KG_POLICY_PUBLISHED, KG_POLICY_STRICT, KG_POLICY_LENIENT, KG_POLICY_COUNT
} kg_policy;

const char *kg_policy_name(int p);
int kg_policy_parse(const char *s);         /* -1 if unknown */
/* One line: what the profile rejects and what it costs. */
const char *kg_policy_summary(int p);

/* The severity a finding of rule `rule` (found with severity `sev` under the
 * default policy) has under policy p. */
int kg_policy_sev(int p, int rule, int sev);

#ifdef __cplusplus
}
#endif
#endif
