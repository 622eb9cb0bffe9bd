/* reduce_ref.c: CPU reference, tolerance and checks of the reduction samples
 * (see reduce_ref.h). */
#include "reduce_ref.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
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

/* One Neumaier step: s + x with the lost low part kept in c. */
static inline void neumaier_add(double *s, double *c, double x)
{
    double t = *s + x;
    if (fabs(*s) >= fabs(x)) *c += (*s - t) + x;
    else *c += (x - t) + *s;
    *s = t;
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
    size_t max_n = 0;
    for (int k = 0; k < nstops; k++) {
        if (stops[k] > max_n) max_n = stops[k];
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

    double s = 0, c = 0, a = 0;
    long long is = 0;
    size_t i = 0;
    for (int q = 0; q < nstops; q++) {
        size_t stop = order[q].n;
        switch (t) {
        case RED_FLOAT:
            for (; i < stop; i++) {
                double x = (double)red_input_f32(seed, i);
                neumaier_add(&s, &c, x);
                a += fabs(x);
            }
            break;
        case RED_DOUBLE:
            for (; i < stop; i++) {
                double x = red_input_f64(seed, i);
                neumaier_add(&s, &c, x);
                a += fabs(x);
            }
            break;
        case RED_INT:
            for (; i < stop; i++) {
                int x = red_input_i32(seed, i);
                is += x;
                a += (double)(x < 0 ? -x : x);
            }
            break;
        }
        red_ref *r = &out[order[q].k];
        r->sum = t == RED_INT ? (double)is : s + c;
        r->abs_sum = a;
        r->isum = is;
    }
    free(order);
}

double red_tol(red_type t, size_t n, double abs_sum)
{
    double rn = sqrt((double)(n > 1 ? n : 1));
    switch (t) {
    case RED_FLOAT: return tol_sum_rel((double)n) * abs_sum;
    case RED_DOUBLE: return 8.0 * DBL_EPSILON * rn * abs_sum;
    case RED_INT: return 0.0;
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
    double tol = red_tol(t, ref->n, ref->abs_sum);
    if (close_enough(got_fp, ref->sum, tol, 0.0)) return 1;
    if (msg)
        snprintf(msg, msglen, "n=%zu: expected %.17g, got %.17g (error %.3g, tolerance %.3g)",
                 ref->n, ref->sum, got_fp, fabs(got_fp - ref->sum), tol);
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
    double t0 = host_seconds(), r;
    if (t == RED_FLOAT) r = cpu_sum_f32((const float *)h, n);
    else if (t == RED_DOUBLE) r = cpu_sum_f64((const double *)h, n);
    else r = (double)cpu_sum_i32((const int *)h, n);
    *ms = (host_seconds() - t0) * 1e3;
    free(h);
    return r;
}
