/* soa_ref.h: the host side of streamOrderedAllocation, in C so it is
 * unit-tested on the CPU (tests/test_soa_ref.c).
 *
 * The loop: iteration t (0-based) of T allocates a temporary of n words,
 * writes tmp[i] = in[i] * (t + 1) + t into it, folds it into the result
 * with acc[i] = 3 * acc[i] + tmp[i] and frees it (unsigned 32-bit,
 * wrapping). After T iterations from acc = 0:
 *     acc[i] = in[i] * A + B,  A = sum_t 3^(T-1-t) (t + 1),  B = sum_t 3^(T-1-t) t
 * (mod 2^32), so the CPU checks the whole loop in one pass over the input.
 * A skipped iteration, an iteration with the wrong t, iterations in another
 * order, or an element of tmp left unwritten (stale data from an earlier
 * iteration) changes the result; and the factor 3 changes any word written
 * past the end of acc (a guard word 0xFFFFFFFF stays so only if tmp is 2).
 */
#ifndef SOA_REF_H
#define SOA_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The seeded input. */
void soa_input(uint64_t seed, uint32_t *in, size_t n);

/* acc after `iters` iterations from zero: A and B first, then one pass. */
void soa_expected(const uint32_t *in, uint32_t *acc, size_t n, int iters);

/* The same, iteration by iteration, as the GPU does it (for the tests). */
void soa_loop_ref(const uint32_t *in, uint32_t *acc, size_t n, int iters);

/* Bytes to MiB, for the pool attributes. */
double soa_mib(unsigned long long bytes);

#ifdef __cplusplus
}
#endif
#endif /* SOA_REF_H */
