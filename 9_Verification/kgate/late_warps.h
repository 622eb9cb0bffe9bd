/* late_warps.h: the late-warps run (README.md, "Races the outputs can show").
 *
 * A candidate that passed its checks and in which the static scan found
 * shared memory written and then read by other threads with no barrier
 * between (KG-SYNC-MISSING, P1: "the dynamic track looks closely") is built
 * again with half of each block's warps started about 20 us late, and its
 * outputs are checked again (no timing). Wrong outputs then are a race
 * between warps: L3, or L2 for a crash, with the reason naming the run. */
#ifndef KGATE_LATE_WARPS_H
#define KGATE_LATE_WARPS_H

#define KG_LATE_WARPS_MAX_KERNELS 64

/* What --late-warps asks for: candidates with a KG-SYNC-MISSING finding
 * (the default), every candidate that passed, or none. */
enum { KG_LATE_NONE, KG_LATE_AUTO, KG_LATE_ALL };

/* The statement put at the start of each kernel. */
extern const char *const kg_late_warps_delay;

/* The candidate's source with kg_late_warps_delay after the opening brace
 * of every __global__ function's body (at most KG_LATE_WARPS_MAX_KERNELS),
 * on the same line, so every line keeps its number. Comments, string,
 * character and raw string literals and preprocessor directives are read
 * past, so a __global__ written in them counts for nothing, and a kernel
 * that a macro defines is not changed (the run can only stop candidates,
 * never pass one: a kernel it misses is checked as before). *n_kernels:
 * how many bodies were changed. Returns a malloc'd string, or NULL when out
 * of memory. */
char *kg_late_warps_source(const char *src, int *n_kernels);

#endif
