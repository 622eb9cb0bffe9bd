/* reduce_ref.c: CPU reference and exact checks of the reduction samples
 * (see reduce_ref.h). */
#include "reduce_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_ref.h"
#include "reduce_input.h"
#include "timing.h"

int red_type_parse(const char *text, red_type *out)
{
    if (!text) return -1;
    if (!strcmp(text, "float")) *out = RED_FLOAT;
    else if (!strcmp(text, "double")) *out = RED_DOUBLE;
    else if (!strcmp(text, "int")) *out = RED_INT;
    else return -1;
    return 0;
}

const char *red_type_name(red_type t)
{
    switch (t) {
    case RED_FLOAT: return "float";
    case RED_DOUBLE: return "double";
    case RED_INT: return "int";
    }
    return "?";
}

size_t red_type_size(red_type t) { return t == RED_DOUBLE ? 8 : 4; }
size_t red_acc_size(red_type t) { return t == RED_FLOAT ? 4 : 8; }

/* The running state of the streamed reference: elements [0, i) summed. */
typedef struct {
    size_t i;
    long long sum, abs_sum, peak;
} red_stream;

static inline void red_stream_to(red_stream *st, uint64_t seed, size_t stop, int k)
{
    long long s = st->sum, a = st->abs_sum, peak = st->peak;
    for (size_t i = st->i; i < stop; i++) {
        long long x = red_input_exact(k, seed, i);
        s += x;
        a += x < 0 ? -x : x;
        long long m = s < 0 ? -s : s;
        peak = m > peak ? m : peak;
    }
    if (stop > st->i) st->i = stop;
    st->sum = s;
    st->abs_sum = a;
    st->peak = peak;
}

typedef struct {
    size_t n;
    int k;
} stop_ix;

static int cmp_stop(const void *a, const void *b)
{
    size_t x = ((const stop_ix *)a)->n, y = ((const stop_ix *)b)->n;
    return (x > y) - (x < y);
}

void red_ref_prefixes(red_type t, uint64_t seed, const size_t *stops, int nstops, red_ref *out)
{
    for (int k = 0; k < nstops; k++) {
        memset(&out[k], 0, sizeof out[k]);
        out[k].n = stops[k];
    }
    /* Visit the stops in increasing order while streaming once. */
    stop_ix *order = (stop_ix *)malloc((size_t)(nstops > 0 ? nstops : 1) * sizeof *order);
    if (!order) {
        fprintf(stderr, "red_ref_prefixes: out of host memory\n");
        exit(1);
    }
    for (int k = 0; k < nstops; k++) {
        order[k].n = stops[k];
        order[k].k = k;
    }
    qsort(order, (size_t)nstops, sizeof *order, cmp_stop);

    red_stream st = {0, 0, 0, 0};
    for (int q = 0; q < nstops; q++) {
        /* K is a constant in each call, so the modulo is cheap: 2^31
         * elements stream in a few seconds. */
        switch (t) {
        case RED_FLOAT: red_stream_to(&st, seed, order[q].n, RED_K_F32); break;
        case RED_DOUBLE: red_stream_to(&st, seed, order[q].n, RED_K_F64); break;
        case RED_INT: red_stream_to(&st, seed, order[q].n, RED_K_I32); break;
        }
        red_ref *r = &out[order[q].k];
        r->isum = st.sum;
        r->sum = (double)st.sum;
        r->abs_sum = (double)st.abs_sum;
        r->max_abs_prefix = st.peak;
    }
    free(order);
}

double red_exact_limit(red_type t)
{
    switch (t) {
    case RED_FLOAT: return 16777216.0;              /* 2^24 */
    case RED_DOUBLE: return 9007199254740992.0;     /* 2^53 */
    case RED_INT: return 9223372036854775808.0;     /* 2^63 */
    }
    return 0.0;
}

int red_check(red_type t, const red_ref *ref, double got_fp, long long got_int, char *msg,
              size_t msglen)
{
    if (msg && msglen) msg[0] = '\0';
    if (t == RED_INT) {
        if (got_int == ref->isum) return 1;
        if (msg)
            snprintf(msg, msglen, "n=%zu: expected %lld, got %lld (off by %lld)", ref->n,
                     ref->isum, got_int, got_int - ref->isum);
        return 0;
    }
    /* The inputs are integers and |sum| < 2^53: ref->sum is exact, and so
     * is every correct float or double result. NaN compares unequal. */
    if (got_fp == ref->sum) return 1;
    if (msg)
        snprintf(msg, msglen, "n=%zu: expected %lld, got %.17g (off by %.17g; the inputs are "
                 "integers, so every correct summation order gives the exact sum)",
                 ref->n, ref->isum, got_fp, got_fp - ref->sum);
    return 0;
}

size_t red_stress_size(uint64_t seed, uint64_t k, size_t max_n)
{
    if (max_n <= 1) return 1;
    /* 53 random bits -> u in [0, 1); size = max_n^u, rounded, in [1, max_n]. */
    double u = (double)(rng_hash(seed, RNG_STREAM_D, k) >> 11) / 9007199254740992.0;
    double v = floor(exp2(u * log2((double)max_n + 1.0)));
    size_t s = (size_t)v;
    if (s < 1) s = 1;
    if (s > max_n) s = max_n;
    return s;
}

double red_cpu_baseline(red_type t, size_t n, uint64_t seed, double *ms)
{
    void *h = malloc(n * red_type_size(t));
    if (!h) return NAN;
    for (size_t i = 0; i < n; i++) {
        if (t == RED_FLOAT) ((float *)h)[i] = red_input_f32(seed, i);
        else if (t == RED_DOUBLE) ((double *)h)[i] = red_input_f64(seed, i);
        else ((int *)h)[i] = red_input_i32(seed, i);
    }
    /* The array was just written, so its pages are mapped: the timer sees
     * the sum, not page faults (what host_prefault does for an output). */
    double t0 = host_seconds(), r;
    if (t == RED_FLOAT) r = cpu_sum_f32((const float *)h, n);
    else if (t == RED_DOUBLE) r = cpu_sum_f64((const double *)h, n);
    else r = (double)cpu_sum_i32((const int *)h, n);
    *ms = (host_seconds() - t0) * 1e3;
    free(h);
    return r;
}
