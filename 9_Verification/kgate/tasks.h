/* tasks.h: the gate's task table (the candidate contract, one row per task).
 *
 * A task names the C signature of the candidate's launcher, the shapes the
 * dynamic track checks (small odd shapes first, then a mid size for timing
 * and a large one), the input ranges, the tolerance profile, and a CPU
 * reference in double. Host-only C11: unit-tested without a GPU.
 *
 * Shapes are three integers whose meaning depends on the task:
 *   KG_SIG_*_N      d0 = n
 *   KG_SIG_2D       d0 = rows, d1 = cols
 *   KG_SIG_GEMM     d0 = M, d1 = N, d2 = K
 *   KG_SIG_BLUR     d0 = width, d1 = height, d2 = pitch (elements)
 */
#ifndef KGATE_TASKS_H
#define KGATE_TASKS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KG_SIG_AB_C_N,     /* (const float* a, const float* b, float* c, int n) */
    KG_SIG_X_Y_N,      /* (const float* x, float* y, int n) */
    KG_SIG_2D,         /* (const float* x, float* y, int rows, int cols) */
    KG_SIG_GEMM,       /* (const float* A, const float* B, float* C, int M, int N, int K) */
    KG_SIG_HIST,       /* (const unsigned char* data, unsigned int* hist, int n) */
    KG_SIG_BLUR        /* (const float* in, float* out, int width, int height, int pitch) */
} kg_signature;

typedef enum { KG_PROF_FLOAT, KG_PROF_EXP, KG_PROF_REDUCE, KG_PROF_INT } kg_profile_kind;

/* An element passes when |got - ref| <= abs + rel*|ref| + mag_rel*mag, where
 * mag is the sum of the magnitudes of the terms behind the element (0 for
 * element-wise tasks). NaN never passes; infinities only match themselves.
 * KG_PROF_INT: exact. */
typedef struct {
    kg_profile_kind kind;
    const char *name;
    double abs, rel, mag_rel;
} kg_profile;

typedef struct { long long d[3]; } kg_shape;

#define KG_MAX_SMALL 6

typedef struct {
    const char *name;
    kg_signature sig;
    kg_profile_kind prof;
    float lo, hi;                     /* float input range */
    int n_small;
    kg_shape small[KG_MAX_SMALL];     /* checked against the CPU, each twice */
    kg_shape mid;                     /* checked against the gate's reference, timed */
    kg_shape large;                   /* timed (and checked) only when mid passes */
    const char *ref_name;             /* the gate's reference implementation */
    const char *signature;            /* the launcher, as the contract writes it */
} kg_task;

int kg_task_count(void);
const kg_task *kg_task_at(int i);
const kg_task *kg_task_find(const char *name);   /* NULL if unknown */
const kg_profile *kg_profile_of(kg_profile_kind k);

/* Element counts of the buffers for a shape: two inputs (0 if unused) and the
 * output. Element sizes: 1 byte for histogram data, 4 otherwise. */
typedef struct { size_t in0, in1, out; size_t in_elem, out_elem; } kg_sizes;
kg_sizes kg_task_sizes(const kg_task *t, kg_shape s);

/* Number of elements of the output that are checked and where they sit:
 * for blur only x < width of each pitched row counts. 1 if out[idx] counts. */
int kg_out_checked(const kg_task *t, kg_shape s, size_t idx);

/* CPU reference in double: ref[] gets one value per output element, mag[]
 * (may be NULL) the magnitude behind it. Inputs are float (or bytes for the
 * histogram, passed as in0). */
void kg_cpu_reference(const kg_task *t, kg_shape s, const void *in0, const void *in1,
                      double *ref, double *mag);

/* Tolerance for one element. */
int kg_close(const kg_profile *p, double got, double ref, double mag);

/* Magnitude estimate for comparisons against the gate's GPU reference at the
 * mid and large sizes (inputs uniform in the task's range). */
double kg_mag_estimate(const kg_task *t, kg_shape s);

/* The first mismatches of a comparison, for the generator's feedback. */
#define KG_MAX_MISMATCH 4
typedef struct { long long index; double expected, got; } kg_mismatch;
typedef struct { int n; kg_mismatch m[KG_MAX_MISMATCH]; } kg_mismatches;

/* Compare a float output with a reference; returns mismatches and writes the
 * first one ("idx 12: expected 1.5 got nan") into msg. ref_f32 or ref_f64.
 * mm (may be NULL) gets the first KG_MAX_MISMATCH of them. */
size_t kg_compare_f32(const kg_task *t, kg_shape s, const float *got, const double *ref_f64,
                      const float *ref_f32, const double *mag, double mag_est, char *msg,
                      size_t msglen);
size_t kg_compare_f32_mm(const kg_task *t, kg_shape s, const float *got, const double *ref_f64,
                         const float *ref_f32, const double *mag, double mag_est, char *msg,
                         size_t msglen, kg_mismatches *mm);
size_t kg_compare_u32(const unsigned *got, const unsigned *ref, size_t n, char *msg,
                      size_t msglen);
size_t kg_compare_u32_mm(const unsigned *got, const unsigned *ref, size_t n, char *msg,
                         size_t msglen, kg_mismatches *mm);

/* "n=37" / "rows=37 cols=53" / "M=37 N=53 K=29" / "width=.. height=.. pitch=.." */
void kg_shape_text(const kg_task *t, kg_shape s, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
