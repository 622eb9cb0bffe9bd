/* ncu.h: reading Nsight Compute's figures for an L4 verdict (README.md,
 * "Explained L4").
 *
 * The gate profiles one call of the candidate (in its sandbox, under ncu)
 * and one of the reference (the gate's own code, no sandbox), both inside an
 * NVTX range ncu selects, with
 *     ncu --clock-control none --csv --page raw --section SpeedOfLight
 *         --section Occupancy --section WarpStateStats
 *         --section MemoryWorkloadAnalysis_Tables ...
 * and reads from the raw page: the duration (gpu__time_duration.sum), the
 * DRAM throughput in % of peak (dram__throughput.avg.pct_of_peak_sustained_
 * elapsed), the achieved occupancy (sm__warps_active.avg.pct_of_peak_
 * sustained_active), the shared-memory bank conflicts (the sum of the
 * l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum columns) and
 * the top stall reason (the largest smsp__average_warp(s)_..._issue_stalled_
 * <reason>... ratio, "selected" and "not_selected" aside). Columns are found
 * by name, so sections that add or drop metrics do not matter; a figure
 * that is missing stays NaN. When the call launched several kernels, the
 * longest one is reported. Host-only C11, unit-tested on a recorded CSV.
 */
#ifndef KGATE_NCU_H
#define KGATE_NCU_H

#include "kg_report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse ncu's CSV (stdout, with its ==PROF== lines) into out. 0 on success,
 * -1 with out->why set (no header, no kernel row, ncu's error message). */
int kg_ncu_parse(const char *text, kg_ncu *out);

/* The ncu arguments common to both runs (NULL-terminated, into argv from
 * index 0; returns the count). nvtx_range: "kgate_cand/" or "kgate_ref/". */
int kg_ncu_argv(const char *ncu, const char *nvtx_range, const char **argv, int max);

#ifdef __cplusplus
}
#endif
#endif
