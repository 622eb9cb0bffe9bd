/* clusters_cpu.c: see clusters_cpu.h. */
#include "clusters_cpu.h"

#include "rng.h"

void clusters_cpu_hist(const uint16_t *data, size_t n, uint32_t *hist)
{
    for (size_t i = 0; i < n; i++) hist[data[i]]++;
}

void clusters_make_chain(uint32_t *next, uint32_t words, uint64_t seed)
{
    /* Sattolo's shuffle: like Fisher-Yates but j < i, never j = i. The
     * permutation it makes, read as the map i -> next[i], is one cycle
     * through all `words` indices. */
    for (uint32_t i = 0; i < words; i++) next[i] = i;
    for (uint32_t i = words - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(rng_hash(seed, RNG_STREAM_D, i) % i);   /* j < i: never itself */
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
}

uint32_t clusters_chase_end(const uint32_t *next, uint32_t start, uint64_t steps)
{
    uint32_t j = start;
    for (uint64_t k = 0; k < steps; k++) j = next[j];
    return j;
}
