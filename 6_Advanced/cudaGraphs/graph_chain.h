/* graph_chain.h: the host side of cudaGraphs, in C so it is unit-tested on
 * the CPU (tests/test_graph_chain.c).
 *
 * Two chains of N kernels, launched the same way (same grid, same block):
 *
 * The data chain: kernel k of N applies x = x * a_k + b_k (unsigned 32-bit,
 * wrapping) to every element of a small array. Every a_k is odd, so each
 * step is a bijection of the 32-bit integers: a missing step, a step done
 * twice, two steps swapped (affine maps do not commute) or a step with the
 * wrong parameters changes the final values, and the CPU predicts them
 * exactly (integers: the compare has no tolerance). Each kernel reads what
 * the kernel before it wrote.
 *
 * The store chain: kernel k writes row k of an N x n array, element i of it
 * a_k * i + b_k, and reads nothing. A missing kernel leaves its row
 * unwritten (poisoned), a kernel with the wrong parameters or the wrong row
 * shows in the rows; the order of the kernels does not show in the values,
 * which is what the shape check below is for.
 *
 * The shape check: a graph that is meant to be a chain of N kernels must
 * have N nodes, N - 1 edges, one root, and every node at most one edge in
 * and one out, all reachable from the root. A dropped dependency edge
 * leaves two chains that may run at the same time on the same array (a
 * race the result check sees only when the timing goes wrong); this check
 * sees it every time.
 */
#ifndef CUDAGRAPHS_GRAPH_CHAIN_H
#define CUDAGRAPHS_GRAPH_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parameter sets: the chain as first built, and the one a re-capture or a
 * node update switches to. */
enum { CHAIN_SET_FIRST = 0, CHAIN_SET_SECOND = 1 };

/* Step k's multiplier (always odd) and addend for a seed and a set. */
void chain_step_params(uint64_t seed, int set, int k, uint32_t *a, uint32_t *b);

/* Fill a[0..steps) and b[0..steps) with chain_step_params. */
void chain_params(uint64_t seed, int set, int steps, uint32_t *a, uint32_t *b);

/* The array the chain starts from: element i of the seeded stream. */
void chain_input(uint64_t seed, uint32_t *x, size_t n);

/* The CPU reference: apply steps 0..steps-1 to x[0..n), in place. */
void chain_cpu(uint32_t *x, size_t n, const uint32_t *a, const uint32_t *b, int steps);

/* The store chain's rows: y[k * n + i] = a[k] * i + b[k] for k < steps, i < n. */
void chain_store_cpu(uint32_t *y, size_t n, const uint32_t *a, const uint32_t *b, int steps);

/* Which chains a run makes (--chain): both, or one of them. */
enum { CHAIN_DATA = 0, CHAIN_STORE = 1 };
const char *chain_kind_name(int kind);   /* "data", "store"; NULL for anything else */

/* --chain=both|data|store into kinds[] (data first); returns how many (1 or
 * 2), or -1 for anything else. */
int chain_kinds(const char *arg, int kinds[2]);

/* Elements of the array a chain needs: n for the data chain; for the store
 * chain one row of n per kernel, for max_kernels + 1 kernels (the longest
 * chain, and the re-capture with one kernel more that must be refused).
 * 0 when that overflows size_t or passes max_elems. */
size_t chain_array_elems(int kind, int max_kernels, size_t n, size_t max_elems);

/* 0 when the nodes and edges form one chain of want_nodes nodes (in any
 * listing order); otherwise -1 and a sentence in why. Nodes and edge ends
 * are opaque handles compared by value (cudaGraphNode_t is a pointer). */
int chain_shape_check(const void *const *nodes, size_t n_nodes, const void *const *from,
                      const void *const *to, size_t n_edges, size_t want_nodes, char *why,
                      size_t why_len);

/* The chain lengths to run: `kernels` alone when it is > 0, else the
 * sweep (1, 10, 100, 1000; with quick 1, 10, 50). Returns the count
 * (at most 4) written to out. */
int chain_sweep(long long kernels, int quick, int out[4]);

/* Replays after which building and instantiating a graph (once) has paid
 * for itself: setup_ms / (stream_ms - graph_ms), rounded up; -1 when the
 * graph is not faster per chain. */
long long graph_breakeven_replays(double setup_ms, double stream_ms, double graph_ms);

#ifdef __cplusplus
}
#endif
#endif /* CUDAGRAPHS_GRAPH_CHAIN_H */
