/* graph_chain.c: the chain's parameters, its CPU reference, the shape check
 * of a built graph and the sweep (see graph_chain.h). */
#include "graph_chain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* Streams of the seeded generator: one for the input, two per parameter set. */
enum { STREAM_INPUT = RNG_STREAM_A, STREAM_PARAMS = 16 };

void chain_step_params(uint64_t seed, int set, int k, uint32_t *a, uint32_t *b)
{
    uint64_t s = STREAM_PARAMS + 2 * (uint64_t)set;
    *a = rng_u32(seed, s, (uint64_t)k) | 1u;   /* odd: x -> a x + b is a bijection mod 2^32 */
    *b = rng_u32(seed, s + 1, (uint64_t)k);
}

void chain_params(uint64_t seed, int set, int steps, uint32_t *a, uint32_t *b)
{
    for (int k = 0; k < steps; k++) chain_step_params(seed, set, k, &a[k], &b[k]);
}

void chain_input(uint64_t seed, uint32_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = rng_u32(seed, STREAM_INPUT, i);
}

void chain_cpu(uint32_t *x, size_t n, const uint32_t *a, const uint32_t *b, int steps)
{
    /* Step by step over the whole array, the order the GPU runs it in. */
    for (int k = 0; k < steps; k++)
        for (size_t i = 0; i < n; i++) x[i] = x[i] * a[k] + b[k];
}

void chain_store_cpu(uint32_t *y, size_t n, const uint32_t *a, const uint32_t *b, int steps)
{
    for (int k = 0; k < steps; k++)
        for (size_t i = 0; i < n; i++) y[(size_t)k * n + i] = a[k] * (uint32_t)i + b[k];
}

const char *chain_kind_name(int kind)
{
    return kind == CHAIN_DATA ? "data" : kind == CHAIN_STORE ? "store" : NULL;
}

int chain_kinds(const char *arg, int kinds[2])
{
    if (!arg) return -1;
    if (strcmp(arg, "both") == 0) {
        kinds[0] = CHAIN_DATA;
        kinds[1] = CHAIN_STORE;
        return 2;
    }
    for (int k = CHAIN_DATA; k <= CHAIN_STORE; k++)
        if (strcmp(arg, chain_kind_name(k)) == 0) {
            kinds[0] = k;
            return 1;
        }
    return -1;
}

size_t chain_array_elems(int kind, int max_kernels, size_t n, size_t max_elems)
{
    if (kind != CHAIN_STORE) return n <= max_elems ? n : 0;
    if (max_kernels < 0 || n == 0) return 0;
    const size_t rows = (size_t)max_kernels + 1;
    if (n > max_elems / rows) return 0;
    return rows * n;
}

static long long index_of(const void *const *nodes, size_t n, const void *h)
{
    for (size_t i = 0; i < n; i++)
        if (nodes[i] == h) return (long long)i;
    return -1;
}

int chain_shape_check(const void *const *nodes, size_t n_nodes, const void *const *from,
                      const void *const *to, size_t n_edges, size_t want_nodes, char *why,
                      size_t why_len)
{
    if (n_nodes != want_nodes) {
        snprintf(why, why_len, "%zu nodes, want %zu", n_nodes, want_nodes);
        return -1;
    }
    if (n_nodes == 0) return 0;
    if (n_edges != n_nodes - 1) {
        snprintf(why, why_len, "%zu dependency edges, a chain of %zu nodes has %zu", n_edges,
                 n_nodes, n_nodes - 1);
        return -1;
    }
    int *in = calloc(n_nodes, sizeof *in);
    long long *next = malloc(n_nodes * sizeof *next);
    if (!in || !next) {
        free(in);
        free(next);
        snprintf(why, why_len, "out of host memory");
        return -1;
    }
    for (size_t i = 0; i < n_nodes; i++) next[i] = -1;
    int rc = 0;
    for (size_t e = 0; e < n_edges && rc == 0; e++) {
        long long f = index_of(nodes, n_nodes, from[e]), t = index_of(nodes, n_nodes, to[e]);
        if (f < 0 || t < 0) {
            snprintf(why, why_len, "edge %zu joins a node that is not in the graph", e);
            rc = -1;
        } else if (next[f] >= 0) {
            snprintf(why, why_len, "node %lld has two successors (a fork)", f);
            rc = -1;
        } else if (in[t]++ > 0) {
            snprintf(why, why_len, "node %lld has two dependencies (a join)", t);
            rc = -1;
        } else {
            next[f] = t;
        }
    }
    long long root = -1;
    for (size_t i = 0; i < n_nodes && rc == 0; i++) {
        if (in[i] > 0) continue;
        if (root >= 0) {
            snprintf(why, why_len, "nodes %lld and %zu both have no dependency (two chains)", root,
                     i);
            rc = -1;
        }
        root = (long long)i;
    }
    if (rc == 0 && root < 0) {
        snprintf(why, why_len, "every node has a dependency (a cycle)");
        rc = -1;
    }
    if (rc == 0) {
        size_t seen = 0;
        for (long long v = root; v >= 0 && seen <= n_nodes; v = next[v]) seen++;
        if (seen != n_nodes) {
            snprintf(why, why_len, "the chain from the root reaches %zu of %zu nodes", seen,
                     n_nodes);
            rc = -1;
        }
    }
    free(in);
    free(next);
    return rc;
}

int chain_sweep(long long kernels, int quick, int out[4])
{
    if (kernels > 0) {
        out[0] = (int)kernels;
        return 1;
    }
    static const int full[4] = {1, 10, 100, 1000};
    static const int small[3] = {1, 10, 50};
    const int *src = quick ? small : full;
    int n = quick ? 3 : 4;
    for (int i = 0; i < n; i++) out[i] = src[i];
    return n;
}

long long graph_breakeven_replays(double setup_ms, double stream_ms, double graph_ms)
{
    double gain = stream_ms - graph_ms;
    if (!(gain > 0) || !(setup_ms >= 0)) return -1;
    return (long long)ceil(setup_ms / gain);
}
