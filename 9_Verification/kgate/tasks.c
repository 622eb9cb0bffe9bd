/* tasks.c: the task table, CPU references in double and tolerance profiles
 * (see tasks.h). */
#include "tasks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_ref.h"

/* The tolerance profiles: general float rel 1e-4 / abs 1e-5; exp, tanh and
 * saturating functions rel 1e-2; reductions rel 1e-3 (plus a term scaled by
 * the sum of the magnitudes of the terms, so an element that cancels to
 * nearly 0 is judged against the size of what was summed); integers exact. */
static const kg_profile profiles[] = {
    {KG_PROF_FLOAT, "float", 1e-5, 1e-4, 0.0},
    {KG_PROF_EXP, "exp", 1e-6, 1e-2, 0.0},
    {KG_PROF_REDUCE, "reduce", 1e-5, 1e-3, 1e-6},
    {KG_PROF_INT, "int", 0.0, 0.0, 0.0},
};

#define ONE_D_SMALL 4, {{{1, 0, 0}}, {{37, 0, 0}}, {{1000, 0, 0}}, {{4097, 0, 0}}}
#define TWO_D_SMALL                                                                \
    5, {{{1, 1, 0}}, {{37, 53, 0}}, {{1, 1000, 0}}, {{1000, 1, 0}}, {{129, 1025, 0}}}
#define ONE_D_MID {{(1 << 24) + 3, 0, 0}}
#define ONE_D_LARGE {{(1 << 26) + 3, 0, 0}}

static const kg_task tasks[] = {
    {"vector_add", KG_SIG_AB_C_N, KG_PROF_FLOAT, -1.0f, 1.0f, ONE_D_SMALL, ONE_D_MID,
     ONE_D_LARGE, "grid-stride float4 kernel",
     "void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)"},
    {"relu", KG_SIG_X_Y_N, KG_PROF_FLOAT, -1.0f, 1.0f, ONE_D_SMALL, ONE_D_MID, ONE_D_LARGE,
     "grid-stride float4 kernel",
     "void launch(const float* x, float* y, int n, cudaStream_t stream)"},
    {"tanh", KG_SIG_X_Y_N, KG_PROF_EXP, -10.0f, 10.0f, ONE_D_SMALL, ONE_D_MID, ONE_D_LARGE,
     "grid-stride float4 kernel (tanhf)",
     "void launch(const float* x, float* y, int n, cudaStream_t stream)"},
    {"sum_reduce", KG_SIG_X_Y_N, KG_PROF_REDUCE, -1.0f, 1.0f, ONE_D_SMALL, ONE_D_MID,
     ONE_D_LARGE, "cub::DeviceReduce::Sum",
     "void launch(const float* x, float* out, int n, cudaStream_t stream)"},
    {"softmax_rows", KG_SIG_2D, KG_PROF_EXP, -50.0f, 50.0f, TWO_D_SMALL,
     {{8192 + 3, 1000, 0}}, {{32768 + 3, 1000, 0}}, "one warp per row, three passes",
     "void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream)"},
    {"transpose", KG_SIG_2D, KG_PROF_FLOAT, -1.0f, 1.0f, TWO_D_SMALL, {{4099, 4097, 0}},
     {{8195, 8193, 0}}, "32x32 shared-memory tiles, padded",
     "void launch(const float* in, float* out, int rows, int cols, cudaStream_t stream)"},
    {"sgemm", KG_SIG_GEMM, KG_PROF_REDUCE, -1.0f, 1.0f, 4,
     {{{1, 1, 1}}, {{37, 53, 29}}, {{129, 65, 257}}, {{200, 96, 1000}}},
     {{2048, 2048, 2048}}, {{4096, 4096, 4096}}, "cuBLAS SGEMM, CUBLAS_PEDANTIC_MATH",
     "void launch(const float* A, const float* B, float* C, int M, int N, int K, "
     "cudaStream_t stream)"},
    {"histogram256", KG_SIG_HIST, KG_PROF_INT, 0.0f, 0.0f, 5,
     {{{1, 0, 0}}, {{37, 0, 0}}, {{1000, 0, 0}}, {{4097, 0, 0}}, {{100003, 0, 0}}},
     {{(1 << 26) + 3, 0, 0}}, {{(1 << 28) + 3, 0, 0}}, "cub::DeviceHistogram::HistogramEven",
     "void launch(const unsigned char* data, unsigned int* hist, int n, cudaStream_t stream)"},
    {"blur3x3", KG_SIG_BLUR, KG_PROF_FLOAT, -1.0f, 1.0f, 5,
     {{{1, 1, 1}}, {{37, 23, 40}}, {{53, 61, 53}}, {{1000, 3, 1003}}, {{2, 300, 17}}},
     {{4099, 4097, 4112}}, {{8195, 8193, 8208}}, "one thread per pixel, 32x8 blocks",
     "void launch(const float* in, float* out, int width, int height, int pitch, "
     "cudaStream_t stream)"},
};

int kg_task_count(void) { return (int)(sizeof tasks / sizeof tasks[0]); }
const kg_task *kg_task_at(int i) { return (i >= 0 && i < kg_task_count()) ? &tasks[i] : NULL; }

const kg_task *kg_task_find(const char *name)
{
    if (!name) return NULL;
    for (int i = 0; i < kg_task_count(); i++)
        if (strcmp(tasks[i].name, name) == 0) return &tasks[i];
    return NULL;
}

const kg_profile *kg_profile_of(kg_profile_kind k) { return &profiles[k]; }

kg_sizes kg_task_sizes(const kg_task *t, kg_shape s)
{
    kg_sizes z = {0, 0, 0, 4, 4};
    size_t a = (size_t)s.d[0], b = (size_t)s.d[1], c = (size_t)s.d[2];
    switch (t->sig) {
    case KG_SIG_AB_C_N: z.in0 = z.in1 = z.out = a; break;
    case KG_SIG_X_Y_N:
        z.in0 = a;
        z.out = strcmp(t->name, "sum_reduce") == 0 ? 1 : a;
        break;
    case KG_SIG_2D: z.in0 = z.out = a * b; break;
    case KG_SIG_GEMM: z.in0 = a * c; z.in1 = c * b; z.out = a * b; break;
    case KG_SIG_HIST: z.in0 = a; z.in_elem = 1; z.out = 256; break;
    case KG_SIG_BLUR: z.in0 = z.out = b * c; break;
    }
    return z;
}

int kg_out_checked(const kg_task *t, kg_shape s, size_t idx)
{
    if (t->sig != KG_SIG_BLUR) return 1;
    return (long long)(idx % (size_t)s.d[2]) < s.d[0];
}

static double sum_comp(const float *x, size_t n, double *abs_sum)
{
    double s = 0, c = 0, a = 0;
    for (size_t i = 0; i < n; i++) {   /* Neumaier */
        double v = x[i], t = s + v;
        c += fabs(s) >= fabs(v) ? (s - t) + v : (v - t) + s;
        s = t;
        a += fabs(v);
    }
    if (abs_sum) *abs_sum = a;
    return s + c;
}

void kg_cpu_reference(const kg_task *t, kg_shape s, const void *in0, const void *in1,
                      double *ref, double *mag)
{
    const float *x = (const float *)in0, *y = (const float *)in1;
    kg_sizes z = kg_task_sizes(t, s);
    if (mag) memset(mag, 0, z.out * sizeof(double));
    const char *nm = t->name;
    if (strcmp(nm, "vector_add") == 0) {
        for (size_t i = 0; i < z.out; i++) ref[i] = (double)x[i] + (double)y[i];
    } else if (strcmp(nm, "relu") == 0) {
        for (size_t i = 0; i < z.out; i++) ref[i] = x[i] > 0 ? x[i] : 0.0;
    } else if (strcmp(nm, "tanh") == 0) {
        for (size_t i = 0; i < z.out; i++) ref[i] = tanh((double)x[i]);
    } else if (strcmp(nm, "sum_reduce") == 0) {
        double a;
        ref[0] = sum_comp(x, z.in0, &a);
        if (mag) mag[0] = a;
    } else if (strcmp(nm, "softmax_rows") == 0) {
        size_t R = (size_t)s.d[0], C = (size_t)s.d[1];
        for (size_t r = 0; r < R; r++) {
            const float *row = x + r * C;
            double m = -INFINITY, sum = 0;
            for (size_t c = 0; c < C; c++) m = row[c] > m ? row[c] : m;
            for (size_t c = 0; c < C; c++) sum += exp((double)row[c] - m);
            for (size_t c = 0; c < C; c++) ref[r * C + c] = exp((double)row[c] - m) / sum;
        }
    } else if (strcmp(nm, "transpose") == 0) {
        size_t R = (size_t)s.d[0], C = (size_t)s.d[1];
        for (size_t r = 0; r < R; r++)
            for (size_t c = 0; c < C; c++) ref[c * R + r] = x[r * C + c];
    } else if (strcmp(nm, "sgemm") == 0) {
        size_t M = (size_t)s.d[0], N = (size_t)s.d[1], K = (size_t)s.d[2];
        for (size_t i = 0; i < M; i++)
            for (size_t j = 0; j < N; j++) {
                double acc = 0, a = 0;
                for (size_t k = 0; k < K; k++) {
                    double p = (double)x[i * K + k] * (double)y[k * N + j];
                    acc += p;
                    a += fabs(p);
                }
                ref[i * N + j] = acc;
                if (mag) mag[i * N + j] = a;
            }
    } else if (strcmp(nm, "histogram256") == 0) {
        unsigned int h[256];
        cpu_histogram256((const unsigned char *)in0, z.in0, h);
        for (int b = 0; b < 256; b++) ref[b] = h[b];
    } else if (strcmp(nm, "blur3x3") == 0) {
        /* common/cpu_ref.c's blur (a double sum, rounded once to float);
         * the padding of each row stays 0 */
        int W = (int)s.d[0], H = (int)s.d[1];
        size_t P = (size_t)s.d[2];
        float *o = (float *)calloc(z.out, sizeof *o);
        if (!o) return;
        cpu_blur3x3_mean(x, P, o, P, W, H);
        for (size_t i = 0; i < z.out; i++) ref[i] = o[i];
        free(o);
    }
}

int kg_close(const kg_profile *p, double got, double ref, double mag)
{
    if (p->kind == KG_PROF_INT) return !isnan(got) && got == ref;
    /* check.h's rule (NaN never, infinities only themselves), with the
     * magnitude term of reductions added to the absolute part */
    return close_enough(got, ref, p->abs + p->mag_rel * mag, p->rel);
}

double kg_mag_estimate(const kg_task *t, kg_shape s)
{
    if (strcmp(t->name, "sum_reduce") == 0) return 0.5 * (double)s.d[0];  /* E|x| = 1/2 */
    if (strcmp(t->name, "sgemm") == 0) return 0.25 * (double)s.d[2];      /* E|ab| = 1/4 */
    return 0.0;
}

static void note_mismatch(kg_mismatches *mm, size_t i, double expected, double got)
{
    if (!mm || mm->n >= KG_MAX_MISMATCH) return;
    mm->m[mm->n].index = (long long)i;
    mm->m[mm->n].expected = expected;
    mm->m[mm->n].got = got;
    mm->n++;
}

size_t kg_compare_f32_mm(const kg_task *t, kg_shape s, const float *got, const double *ref_f64,
                         const float *ref_f32, const double *mag, double mag_est, char *msg,
                         size_t msglen, kg_mismatches *mm)
{
    const kg_profile *p = kg_profile_of(t->prof);
    kg_sizes z = kg_task_sizes(t, s);
    size_t bad = 0;
    if (msg && msglen) msg[0] = 0;
    if (mm) mm->n = 0;
    for (size_t i = 0; i < z.out; i++) {
        if (!kg_out_checked(t, s, i)) continue;
        double r = ref_f64 ? ref_f64[i] : (double)ref_f32[i];
        double m = mag ? mag[i] : mag_est;
        if (!kg_close(p, (double)got[i], r, m)) {
            if (bad == 0 && msg)
                snprintf(msg, msglen, "element %zu: expected %.7g got %.7g (%s tolerance)", i,
                         r, (double)got[i], p->name);
            note_mismatch(mm, i, r, (double)got[i]);
            bad++;
        }
    }
    return bad;
}

size_t kg_compare_f32(const kg_task *t, kg_shape s, const float *got, const double *ref_f64,
                      const float *ref_f32, const double *mag, double mag_est, char *msg,
                      size_t msglen)
{
    return kg_compare_f32_mm(t, s, got, ref_f64, ref_f32, mag, mag_est, msg, msglen, NULL);
}

size_t kg_compare_u32_mm(const unsigned *got, const unsigned *ref, size_t n, char *msg,
                         size_t msglen, kg_mismatches *mm)
{
    size_t bad = 0;
    if (msg && msglen) msg[0] = 0;
    if (mm) mm->n = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != ref[i]) {
            if (bad == 0 && msg)
                snprintf(msg, msglen, "bin %zu: expected %u got %u (exact)", i, ref[i], got[i]);
            note_mismatch(mm, i, (double)ref[i], (double)got[i]);
            bad++;
        }
    return bad;
}

size_t kg_compare_u32(const unsigned *got, const unsigned *ref, size_t n, char *msg,
                      size_t msglen)
{
    return kg_compare_u32_mm(got, ref, n, msg, msglen, NULL);
}

void kg_shape_text(const kg_task *t, kg_shape s, char *buf, size_t len)
{
    switch (t->sig) {
    case KG_SIG_2D: snprintf(buf, len, "rows=%lld cols=%lld", s.d[0], s.d[1]); break;
    case KG_SIG_GEMM: snprintf(buf, len, "M=%lld N=%lld K=%lld", s.d[0], s.d[1], s.d[2]); break;
    case KG_SIG_BLUR:
        snprintf(buf, len, "width=%lld height=%lld pitch=%lld", s.d[0], s.d[1], s.d[2]);
        break;
    default: snprintf(buf, len, "n=%lld", s.d[0]); break;
    }
}
