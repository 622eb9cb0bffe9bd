/* ck_host.h: the host side of concurrentKernels, in C so it is unit-tested
 * on the CPU (tests/test_ck_host.c): how the copy pipeline splits its
 * array, what each overlap can be at best, and the text timeline.
 */
#ifndef CK_HOST_H
#define CK_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Chunk c of `chunks` over n elements: [*off, *off + *len). The chunks
 * cover [0, n) in order, without overlap, their lengths differ by at most
 * one; some are empty when n < chunks. */
void ck_chunk(size_t n, int chunks, int c, size_t *off, size_t *len);

/* How many of `kernels` kernels of `blocks` blocks each can be resident at
 * once: the SMs' block slots (per_sm x sms) divided by the blocks of one
 * kernel, at most max_grids (the device's limit on kernels running at
 * once), at most `kernels`, at least 1. */
int ck_kernels_at_once(int kernels, int blocks, int per_sm, int sms, int max_grids);

/* The best overlap factor (serial time / concurrent time) for `kernels`
 * equal kernels of which `at_once` fit at the same time: they run in
 * ceil(kernels / at_once) waves. */
double ck_kernel_overlap_bound(int kernels, int at_once);

/* The best speedup of a pipeline of `chunks` chunks through three stages
 * (copy in, kernel, copy out) whose serial times are h, k and d, against
 * running them one after the other: the slowest stage sets the pace, the
 * others add one chunk's worth to fill and drain the pipe. With one copy
 * engine both copies share it (one stage of h + d). */
double ck_pipeline_bound(double h, double k, double d, int chunks, int copy_engines);

/* The timeline as text: one line per row, label, a bar of `width` columns
 * from the earliest start to the latest end ('#' where the row ran), and
 * the row's start and end in microseconds from the earliest start. Rows
 * whose start is after their end (never stamped) are drawn as '?'.
 * Returns 0, or -1 if out is too small. */
int ck_timeline(const uint64_t *start_ns, const uint64_t *end_ns, int rows,
                const char *const *labels, int width, char *out, size_t out_len);

#ifdef __cplusplus
}
#endif
#endif /* CK_HOST_H */
