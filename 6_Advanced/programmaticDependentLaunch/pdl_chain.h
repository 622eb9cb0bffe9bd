/* pdl_chain.h: the host side of programmaticDependentLaunch, in C so it is
 * unit-tested on the CPU (tests/test_pdl_chain.c).
 *
 * The chain: kernel k of N first does its prologue, work that needs nothing
 * from the kernel before it (it loads its two constants a_k and b_k from a
 * table, then runs `iters` steps of a 32-bit LCG on b_k: a stand-in for
 * setup such as address arithmetic, loading weights, zeroing shared
 * memory), then its body: x = x * a_k + b'_k (unsigned 32-bit, wrapping),
 * `body` times over, on every element of an array that kernel k-1 wrote,
 * b'_k being b_k after the prologue. Every a_k is odd, so each step is a bijection of the 32-bit
 * integers: a step skipped, done twice, done on a stale x, or two steps
 * swapped changes the final values, and the CPU predicts them exactly.
 */
#ifndef PDL_PDL_CHAIN_H
#define PDL_PDL_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Step k's constants: a (always odd) and b, from the seed. */
void pdl_params(uint64_t seed, int steps, uint32_t *a, uint32_t *b);

/* The array the chain starts from: element i of the seeded stream. */
void pdl_input(uint64_t seed, uint32_t *x, size_t n);

/* The prologue's arithmetic: `iters` steps of b = b * 1664525 + 1013904223.
 * The kernels do the same (00_step.cuh), so the two must stay identical. */
uint32_t pdl_prologue(uint32_t b, int iters);

/* The body's map, x -> x * a + b applied `steps` times, as one map
 * x -> x * (*mul) + (*add): what `steps` rounds of the kernels' body do to
 * an element (00_step.cuh), computed once per kernel instead of once per
 * element. steps = 0 gives the identity (1, 0). */
void pdl_body_map(uint32_t a, uint32_t b, int steps, uint32_t *mul, uint32_t *add);

/* The CPU reference: steps 0..steps-1 applied to x[0..n) in place, step k
 * being x = x * a[k] + pdl_prologue(b[k], iters), `body` times over. */
void pdl_chain_cpu(uint32_t *x, size_t n, const uint32_t *a, const uint32_t *b, int steps,
                   int iters, int body);

/* Chain lengths to run: `kernels` alone when > 0, else 10, 100, 1000
 * (quick: 10, 50). Returns the count written to out (at most 3). */
int pdl_sweep(long long kernels, int quick, int out[3]);

/* Prologue lengths to run: `iters` alone when >= 0, else the short one (0:
 * the two constant loads only) and the long one (PDL_LONG_PROLOGUE LCG
 * steps). Returns the count written to out (at most 2). */
#define PDL_LONG_PROLOGUE 1024
int pdl_prologues(long long iters, int out[2]);

#ifdef __cplusplus
}
#endif
#endif /* PDL_PDL_CHAIN_H */
