/* kgate's L4 explanations: Nsight Compute on the candidate (in the
 * harness's sandbox) and on the judge's reference, after every verdict. */
#ifndef KGATE_EXPLAIN_H
#define KGATE_EXPLAIN_H
#include "pipeline.h"

void find_ncu(kg_gate *g);
/* Profile every L4 verdict of cands[0..n) within o->explain_budget seconds;
 * removes the scratch folders kept for it (unless --keep or --work). */
void explain_l4(kg_gate *g, kg_cand *cands, kg_job *jobs, int n);

#endif
