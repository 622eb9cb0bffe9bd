/* nccl_util.h: ncclAllReduce's host-only parts, unit-tested on the CPU:
 * the byte counts and bandwidth arithmetic of nccl-tests, the size sweep,
 * the inputs and the expected outputs of each collective, and the record.
 * Nothing here needs NCCL: the sample's stub build uses it too.
 *
 * How nccl-tests counts (src/all_reduce.cu and its siblings, doc/PERFORMANCE.md), n ranks, t the
 * time of one operation:
 *   all_reduce      count elements in and out on every rank;
 *                   S = count * sizeof(elt)             (one rank's buffer)
 *                   algbw = S / t, busbw = algbw * 2(n-1)/n
 *   reduce_scatter  recvcount per rank, sendcount = n * recvcount;
 *                   S = recvcount * sizeof(elt) * n     (the whole array)
 *                   busbw = algbw * (n-1)/n
 *   all_gather      sendcount per rank, recvcount = n * sendcount;
 *                   S = sendcount * sizeof(elt) * n     (the whole array)
 *                   busbw = algbw * (n-1)/n
 * GB are 1e9 bytes. busbw is comparable with one GPU's link bandwidth in
 * one direction, whatever n: the figure to set against NVLink's peak.
 */
#ifndef NCCL_UTIL_H
#define NCCL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "rng.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { COLL_ALL_REDUCE = 0, COLL_REDUCE_SCATTER = 1, COLL_ALL_GATHER = 2, N_COLLS = 3 } coll_kind;

const char *coll_name(coll_kind c);   /* "all_reduce", "reduce_scatter", "all_gather" */

/* busbw / algbw for n ranks (0 for n < 1). */
double coll_busbw_factor(coll_kind c, int nranks);
/* GB/s of S bytes in ms milliseconds (0 when ms <= 0). */
double coll_algbw(double S_bytes, double ms);
double coll_busbw(coll_kind c, double S_bytes, double ms, int nranks);

/* Element counts of one operation whose nominal size is `bytes` (what the
 * sweep steps through), per nccl-tests: all_reduce moves bytes / elt
 * elements; reduce_scatter and all_gather split bytes / elt over the n
 * ranks (at least 1 each, the remainder dropped). */
typedef struct {
    size_t send_count, recv_count;   /* per rank */
    size_t param_count;              /* the count NCCL is called with */
    double S_bytes;                  /* the size nccl-tests divides by t */
} coll_counts;
/* 0, or -1 when bytes < elt or nranks < 1. */
int coll_counts_for(coll_kind c, size_t bytes, size_t elt, int nranks, coll_counts *out);
/* The same from the count NCCL is called with (the odd-size checks). */
int coll_counts_param(coll_kind c, size_t param_count, size_t elt, int nranks, coll_counts *out);

/* The sweep: min, min*factor, ... <= max. Returns how many (at most cap),
 * or -1 with a message naming the option. */
#define COLL_MAX_SIZES 64
int coll_plan_sizes(long long min_bytes, long long max_bytes, long long factor, long long *sizes,
                    int cap, char *err, size_t errlen);

/* Back-to-back operations per timed trial: enough to move about 64 MiB,
 * at least 1, at most max_batch. */
int coll_batch_for(double S_bytes, int max_batch);

/* The known answers of nccl-tests' formulas (n = 1, 2, 4, 8): 0 when
 * coll_busbw_factor gives them all, else the number that differ (a message
 * for each on stderr). The sample runs it at start-up, so a broken factor
 * fails the run, not only the unit test. */
int coll_selftest_busbw(void);

/* ---- inputs and expected outputs -----------------------------------------
 * Element i of rank r's input in check round k is a whole number in
 * [-1000, 1000] held in a float: any sum of up to 16384 of them is exact
 * in float arithmetic (|sum| < 2^24), in any order, so every reduction
 * NCCL may choose (ring, tree, any chunking) must match to the bit. */
static inline uint64_t coll_input_stream(uint64_t round, int rank)
{
    return (round << 16) + (uint64_t)rank + 1;
}

RNG_HD float coll_input_value(uint64_t seed, uint64_t stream, uint64_t i)
{
    return (float)((int)(rng_u32(seed, stream, i) % 2001u) - 1000);
}

/* Output element j of `rank` for this operation, computed from the inputs. */
float coll_expected(coll_kind c, const coll_counts *k, uint64_t seed, uint64_t round, int nranks,
                    int rank, size_t j);
/* The whole output of `rank` (k->recv_count elements). */
void coll_expected_fill(coll_kind c, const coll_counts *k, uint64_t seed, uint64_t round,
                        int nranks, int rank, float *out);
/* 1 if every rank's expected output is the same array (all_reduce,
 * all_gather), so one CPU reference serves them all. */
int coll_same_output_everywhere(coll_kind c);

/* ---- the record ------------------------------------------------------------ */

typedef struct {
    coll_kind coll;
    int nranks;
    double S_bytes;
    size_t param_count;
    int ok;
    double time_ms;        /* median per operation */
    double algbw, busbw;
    double peak_gbps;      /* link peak for busbw; 0 unknown */
    int batch, trials;
} coll_row;

/* RESULT sample=ncclAllReduce variant=all_reduce ranks=2 bytes=S count=N
 * status=PASS time_ms=T gbps=<busbw> algbw=A busbw=B [pct_peak] batch trials
 * (gbps is the bus bandwidth: the figure comparable with a link's peak). */
void coll_fill_record(result_rec *r, const coll_row *row);

#ifdef __cplusplus
}
#endif
#endif /* NCCL_UTIL_H */
