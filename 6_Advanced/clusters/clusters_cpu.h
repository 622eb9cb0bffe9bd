/* clusters_cpu.h: the clusters sample's host-only code, compiled by gcc and
 * unit-tested on the CPU (tests/test_clusters_cpu.c): the CPU histogram
 * (reference and baseline) and the chains of the DSMEM latency probe. */
#ifndef CLUSTERS_CPU_H
#define CLUSTERS_CPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* hist[v] += 1 for each of the n samples (hist has 65,536 counts, not
 * zeroed here): the reference every variant is checked against, exactly,
 * and the `cpu` variant's timed baseline. */
void clusters_cpu_hist(const uint16_t *data, size_t n, uint32_t *hist);

/* next[0..words) becomes one random cycle through every index (Sattolo's
 * algorithm, seeded): following next[] from any index visits all `words`
 * before coming back, in an order no prefetcher can guess. */
void clusters_make_chain(uint32_t *next, uint32_t words, uint64_t seed);

/* The index reached from `start` after `steps` steps of next[]: what the
 * probe's chase must end on. */
uint32_t clusters_chase_end(const uint32_t *next, uint32_t start, uint64_t steps);

#ifdef __cplusplus
}
#endif
#endif /* CLUSTERS_CPU_H */
