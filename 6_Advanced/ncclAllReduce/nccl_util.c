/* nccl_util.c: ncclAllReduce's host-only parts (see nccl_util.h). */
#include "nccl_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const names[N_COLLS] = {"all_reduce", "reduce_scatter", "all_gather"};

const char *coll_name(coll_kind c)
{
    return c >= 0 && c < N_COLLS ? names[c] : "?";
}

/* ---- nccl-tests' arithmetic ------------------------------------------------ */

double coll_busbw_factor(coll_kind c, int nranks)
{
    if (nranks < 1) return 0.0;
    double n = nranks;
    switch (c) {
    case COLL_ALL_REDUCE: return 2.0 * (n - 1) / n;   /* reduce-scatter then all-gather */
    case COLL_REDUCE_SCATTER:
    case COLL_ALL_GATHER: return (n - 1) / n;
    default: return 0.0;
    }
}

double coll_algbw(double S_bytes, double ms)
{
    if (ms <= 0) return 0.0;
    return S_bytes / (ms * 1e6);
}

double coll_busbw(coll_kind c, double S_bytes, double ms, int nranks)
{
    return coll_algbw(S_bytes, ms) * coll_busbw_factor(c, nranks);
}

int coll_counts_param(coll_kind c, size_t param_count, size_t elt, int nranks, coll_counts *out)
{
    memset(out, 0, sizeof *out);
    if (nranks < 1 || elt == 0 || param_count == 0) return -1;
    out->param_count = param_count;
    switch (c) {
    case COLL_ALL_REDUCE:
        out->send_count = out->recv_count = param_count;
        out->S_bytes = (double)param_count * elt;
        return 0;
    case COLL_REDUCE_SCATTER:
        out->recv_count = param_count;
        out->send_count = param_count * (size_t)nranks;
        out->S_bytes = (double)param_count * elt * nranks;
        return 0;
    case COLL_ALL_GATHER:
        out->send_count = param_count;
        out->recv_count = param_count * (size_t)nranks;
        out->S_bytes = (double)param_count * elt * nranks;
        return 0;
    default:
        return -1;
    }
}

int coll_counts_for(coll_kind c, size_t bytes, size_t elt, int nranks, coll_counts *out)
{
    if (nranks < 1 || elt == 0 || bytes < elt) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    size_t count = bytes / elt;
    if (c != COLL_ALL_REDUCE) {
        count /= (size_t)nranks;   /* per rank */
        if (count == 0) count = 1;
    }
    return coll_counts_param(c, count, elt, nranks, out);
}

static void set_err(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

int coll_plan_sizes(long long min_bytes, long long max_bytes, long long factor, long long *sizes,
                    int cap, char *err, size_t errlen)
{
    if (min_bytes < 4) {
        set_err(err, errlen, "--min-bytes=%lld: must be at least 4 (one float)", min_bytes);
        return -1;
    }
    if (max_bytes < min_bytes) {
        set_err(err, errlen, "--max-bytes=%lld is smaller than --min-bytes=%lld", max_bytes,
                min_bytes);
        return -1;
    }
    if (factor < 2) {
        set_err(err, errlen, "--factor=%lld: must be at least 2", factor);
        return -1;
    }
    int n = 0;
    for (long long s = min_bytes; s <= max_bytes; s *= factor) {
        if (n == cap) {
            set_err(err, errlen, "--min-bytes=%lld to --max-bytes=%lld by --factor=%lld gives "
                    "more than %d sizes", min_bytes, max_bytes, factor, cap);
            return -1;
        }
        sizes[n++] = s;
        if (s > max_bytes / factor) break;   /* the next step would pass max (or overflow) */
    }
    return n;
}

int coll_batch_for(double S_bytes, int max_batch)
{
    if (max_batch < 1) max_batch = 1;
    if (S_bytes <= 0) return max_batch;
    double b = (64.0 * 1048576.0) / S_bytes;
    if (b < 1) return 1;
    if (b > max_batch) return max_batch;
    return (int)b;
}

int coll_selftest_busbw(void)
{
    static const struct {
        coll_kind c;
        int n;
        double factor;
    } known[] = {
        /* nccl-tests: AllReduce 2(n-1)/n, ReduceScatter and AllGather (n-1)/n */
        {COLL_ALL_REDUCE, 1, 0.0},     {COLL_ALL_REDUCE, 2, 1.0},
        {COLL_ALL_REDUCE, 4, 1.5},     {COLL_ALL_REDUCE, 8, 1.75},
        {COLL_REDUCE_SCATTER, 2, 0.5}, {COLL_REDUCE_SCATTER, 8, 0.875},
        {COLL_ALL_GATHER, 2, 0.5},     {COLL_ALL_GATHER, 4, 0.75},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        double f = coll_busbw_factor(known[i].c, known[i].n);
        if (f != known[i].factor) {
            fprintf(stderr, "  busbw self-check: %s with %d ranks: factor %.6f, nccl-tests' is %.6f\n",
                    coll_name(known[i].c), known[i].n, f, known[i].factor);
            bad++;
        }
    }
    /* and the bytes: 1 GiB all-reduced in 1 ms on 8 ranks is 1073.7 GB/s of
     * algbw and 1879 GB/s of busbw */
    double bus = coll_busbw(COLL_ALL_REDUCE, 1073741824.0, 1.0, 8);
    if (bus < 1879.048 || bus > 1879.049) {
        fprintf(stderr, "  busbw self-check: 1 GiB all_reduce in 1 ms on 8 ranks gives %.3f GB/s "
                        "of busbw, nccl-tests' formula 1879.048\n", bus);
        bad++;
    }
    return bad;
}

/* ---- inputs and expected outputs ------------------------------------------- */

float coll_expected(coll_kind c, const coll_counts *k, uint64_t seed, uint64_t round, int nranks,
                    int rank, size_t j)
{
    float sum = 0.0f;
    switch (c) {
    case COLL_ALL_REDUCE:   /* out[j] = sum over ranks of in_q[j] */
        for (int q = 0; q < nranks; q++)
            sum += coll_input_value(seed, coll_input_stream(round, q), j);
        return sum;
    case COLL_REDUCE_SCATTER:   /* rank r gets block r of the sum: in_q[r * recv + j] */
        for (int q = 0; q < nranks; q++)
            sum += coll_input_value(seed, coll_input_stream(round, q),
                                    (uint64_t)rank * k->recv_count + j);
        return sum;
    case COLL_ALL_GATHER: {   /* out[q * send + i] = in_q[i], the same on every rank */
        size_t q = j / k->send_count, i = j % k->send_count;
        return coll_input_value(seed, coll_input_stream(round, (int)q), i);
    }
    default:
        return 0.0f;
    }
}

void coll_expected_fill(coll_kind c, const coll_counts *k, uint64_t seed, uint64_t round,
                        int nranks, int rank, float *out)
{
    if (c == COLL_ALL_GATHER) {   /* no division per element */
        for (int q = 0; q < nranks; q++) {
            uint64_t st = coll_input_stream(round, q);
            float *o = out + (size_t)q * k->send_count;
            for (size_t i = 0; i < k->send_count; i++) o[i] = coll_input_value(seed, st, i);
        }
        return;
    }
    size_t base = c == COLL_REDUCE_SCATTER ? (size_t)rank * k->recv_count : 0;
    for (size_t j = 0; j < k->recv_count; j++) out[j] = 0.0f;
    for (int q = 0; q < nranks; q++) {   /* rank by rank: each stream's hash once */
        uint64_t st = coll_input_stream(round, q);
        for (size_t j = 0; j < k->recv_count; j++) out[j] += coll_input_value(seed, st, base + j);
    }
}

int coll_same_output_everywhere(coll_kind c)
{
    return c == COLL_ALL_REDUCE || c == COLL_ALL_GATHER;
}

/* ---- the record --------------------------------------------------------------- */

void coll_fill_record(result_rec *r, const coll_row *row)
{
    rec_begin(r, coll_name(row->coll));
    rec_int(r, "ranks", row->nranks);
    rec_int(r, "bytes", (long long)row->S_bytes);
    rec_int(r, "count", (long long)row->param_count);
    rec_str(r, "status", row->ok ? "PASS" : "FAIL");
    if (!row->ok) return;   /* a wrong result is not a figure */
    rec_num(r, "time_ms", row->time_ms);
    rec_num(r, "gbps", row->busbw);
    if (row->peak_gbps > 0) rec_num(r, "pct_peak", 100.0 * row->busbw / row->peak_gbps);
    rec_num(r, "algbw", row->algbw);
    rec_num(r, "busbw", row->busbw);
    rec_str(r, "counted", "busbw");
    rec_int(r, "batch", row->batch);
    rec_int(r, "trials", row->trials);
}
