/* tc_host.h: the host-only side of tensorCoreGemm (C11, unit-tested on the CPU
 * in tests/test_tc_host.c): sizes and their validation, BF16 conversion, the
 * seeded inputs, the CPU reference in double, the error bound and the
 * comparisons that print (row, col, expected, got), and the parameters of the
 * TMA tensor maps.
 *
 * The error bound. A and B hold BF16 values (8 significant bits), so every
 * product a*b is exact in FP32 (16 significant bits); only the accumulation
 * rounds, in an order the hardware does not specify (PTX ISA: "accumulation
 * at least single precision, order unspecified"). Summing K terms in any order
 * with a 24-bit significand, rounding to nearest or toward zero, each addition
 * has a relative error of at most u = 2^-23, so (Higham, gamma_K)
 *     |C_computed(i,j) - C_exact(i,j)| <= gamma_K * S(i,j),
 *     gamma_K = K*u / (1 - K*u),   S(i,j) = sum_k |a(i,k)| * |b(k,j)|.
 * That is the tolerance against the CPU (in double: its own error is 2^-30 of
 * that). Against cuBLAS, which obeys the same bound, it is 2 * gamma_K * S,
 * with S itself computed by cuBLAS from |A| and |B| (a sum of positive terms,
 * so low by at most a factor 1 - gamma_K, which the bound divides out).
 * Where the inputs are small integers (|a|, |b| <= 4) every partial sum is an
 * integer below 2^24 and every order gives the exact result: those checks
 * demand equality, so a single lost or doubled product fails them.
 *
 * The statistical check. The worst-case bound grows like K * S: at K = 8192
 * with inputs in [-1, 1) it is about 2 (4 against cuBLAS) while |C| is about
 * 30, so one lost or doubled product (an error of |a b| <= 1) passes it. The
 * rounding errors of an honest FP32 sum of random terms do not add up in the
 * worst case: they grow like a random walk, about sqrt(K) * u * rms(C) with
 * u = 2^-24 (1.6e-4 at K = 8192). So beside the bound every comparison on
 * random inputs also requires
 *     |C_computed(i,j) - C_ref(i,j)| <= TC_STAT_C * sqrt(K) * u * rms(C_ref)
 * with TC_STAT_C = 128 (0.021 at K = 8192: 9 in 10 single products are
 * larger). The constant leaves room for adders that truncate. In
 * tests/test_tc_host.c (256 dot products at K = 8192, in units of
 * sqrt(K) u rms(C)) FP32 sums rounded to nearest in forward, reverse,
 * pairwise and blocked order stay below 1, sums truncated in blocks of 4 to
 * 16 products (as tensor cores add them) below 15, and a sum truncated one
 * product at a time below 23 against the exact values (and each passes
 * against any other as reference, as a variant does against cuBLAS); one
 * product lost or doubled fails 9 dot products in 10 (every one
 * whose product is above 1.25 times the limit), and all of them pass the
 * worst-case bound.
 */
#ifndef TC_HOST_H
#define TC_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest accepted --m, --n, --k: keeps every row * ld index below 2^31. */
#define TC_MAX_DIM 32768
/* Integer inputs are uniform in [-TC_INT_MAX, TC_INT_MAX]. */
#define TC_INT_MAX 4

/* The TMA kernels' tiles (the kernels' static_asserts use these too). Each
 * TMA copy moves a box TC_BOX_COLS elements (128 bytes) wide: the widest box
 * the 128-byte swizzle allows. */
#define TC_BM 128
#define TC_BK 64
#define TC_BOX_COLS 64

/* 1 <= v <= TC_MAX_DIM; 0 ok, -1 with "--<opt>=<v>: ..." in err. */
int tc_check_dim(const char *opt, long long v, char *err, size_t errlen);

/* The TMA variants read A (M x K) and B (K x N) through tensor maps, whose
 * row strides (K*2 and N*2 bytes) must be multiples of 16 bytes: K and N must
 * be multiples of 8. Returns 1 if (N, K) qualifies, else 0 with a sentence
 * naming the constraint and why in why. */
int tc_tma_shape_ok(long long N, long long K, char *why, size_t whylen);

/* Device bytes of one problem: A and B in BF16, C, the cuBLAS result and the
 * bound matrix S in FP32, and |A|, |B| (the large check); 0 with a message
 * when that overflows or exceeds limit. */
size_t tc_device_bytes(long long M, long long N, long long K, unsigned long long limit,
                       char *err, size_t errlen);

/* 2*M*N*K / (ms * 1e6); 0 when ms <= 0. */
double tc_gflops(long long M, long long N, long long K, double ms);

/* BF16 <-> FP32. tc_f32_to_bf16 rounds to nearest even (NaN stays NaN). */
uint16_t tc_f32_to_bf16(float f);
float tc_bf16_to_f32(uint16_t h);

/* Inputs (rows x cols, row-major, BF16 bits), element (r, c) a pure function
 * of (seed, stream, r * cols + c):
 *   TC_DATA_INT      integers in [-4, 4]: exact results, checked with equality
 *   TC_DATA_REAL     uniform in [-1, 1) rounded to BF16: the timed data
 *   TC_DATA_IDENT    the identity (1 where r == c)
 *   TC_DATA_PATTERN  (r % 16) * 16 + (c % 16): with the other operand the
 *                    identity, C is this pattern, and a wrong value names the
 *                    (row % 16, col % 16) it came from (tc_compare decodes it) */
typedef enum { TC_DATA_INT, TC_DATA_REAL, TC_DATA_IDENT, TC_DATA_PATTERN } tc_data;
void tc_fill(uint16_t *x, int rows, int cols, tc_data kind, uint64_t seed, uint64_t stream);
const char *tc_data_name(tc_data kind);

/* CPU reference in double: C = A * B and, if S != NULL, S = |A| * |B|
 * (M x N, row-major). */
void tc_gemm_ref(int M, int N, int K, const uint16_t *A, const uint16_t *B, double *C,
                 double *S);
/* One element of the same, with *s = sum |a||b| when s != NULL. */
double tc_dot_ref(int i, int j, int N, int K, const uint16_t *A, const uint16_t *B, double *s);

/* The bound factor gamma_K: tolerance = tc_bound_factor(K) * S(i,j) against
 * the CPU; tc_bound_factor_vs_ref(K) * S_cublas(i,j) against cuBLAS (see the top). */
double tc_bound_factor(long long K);
double tc_bound_factor_vs_ref(long long K);

/* The statistical check's constant and unit (see the top): the limit is
 * TC_STAT_C * tc_stat_unit(K, rms of the reference). */
#define TC_STAT_C 128.0
double tc_stat_unit(long long K, double rms_ref); /* sqrt(K) * 2^-24 * rms_ref */
double tc_rms_f64(const double *x, size_t n);     /* sqrt(mean(x^2)); 0 when n == 0 */
double tc_rms_f32(const float *x, size_t n);

/* What a result is compared against. Exactly one of ref64/ref32; with both
 * s64 and s32 NULL the comparison is exact (factor unused). */
typedef struct {
    const double *ref64; /* CPU reference */
    const float *ref32;  /* cuBLAS's result */
    const double *s64;   /* S = |A||B| from the CPU */
    const float *s32;    /* S = |A||B| from cuBLAS */
    double factor;       /* tolerance = factor * S */
    int decode_pattern;  /* 1: name the pattern cell a wrong value came from */
    double stat_unit;    /* > 0: also |diff| <= TC_STAT_C * stat_unit (tc_stat_unit) */
} tc_ref;

/* What a comparison saw, in units of stat_unit (0 when it had none). */
typedef struct {
    double max_z; /* largest |diff| / stat_unit */
    double rms_z; /* rms of |diff| / stat_unit over the elements compared */
} tc_err;

#define TC_MAX_REPORTED 8

/* Compare an M x N result. Prints the first TC_MAX_REPORTED mismatches as
 * "what: C(row,col) expected E, got G (|diff| D > bound B)" (or "> statistical
 * limit L") and a summary (count, largest |diff|/bound, largest |diff| in
 * statistical units); NaN never passes. Returns the number of mismatching
 * elements; fills *err when err != NULL. */
size_t tc_compare(const char *what, const float *got, int M, int N, const tc_ref *ref,
                  tc_err *err);

/* nsamples elements of an M x N result (the four corners first, then random
 * (i, j) from seed) against tc_dot_ref in double: exact when exact != 0,
 * else within tc_bound_factor(K) * S(i,j) and within the statistical limit
 * (the unit from the rms of the exact values at the samples). Prints
 * mismatches like tc_compare; returns their count. */
size_t tc_check_samples(const char *what, const float *got, int M, int N, int K,
                        const uint16_t *A, const uint16_t *B, int nsamples, uint64_t seed,
                        int exact);

/* If v is an integer 0..255 (a TC_DATA_PATTERN value), its (row % 16, col % 16)
 * in *r, *c and 1; else 0. */
int tc_pattern_decode(double v, int *r, int *c);

/* A 2-D tensor map over a row-major BF16 matrix of rows x cols, copied in
 * boxes of box_rows x box_cols with the 128-byte swizzle, in the terms of
 * cuTensorMapEncodeTiled (innermost dimension first). */
typedef struct {
    uint64_t dim[2];       /* {cols, rows} */
    uint64_t stride_bytes; /* bytes from one row to the next: cols * 2 */
    uint32_t box[2];       /* {box_cols, box_rows} */
    uint32_t box_bytes;    /* bytes one copy writes into shared memory */
} tc_tmap;

/* Fill *out; 0, or -1 with the broken requirement in err (driver rules:
 * stride a multiple of 16 bytes and < 2^40, dims 1..2^32, box 1..256 per
 * dimension, inner box a multiple of 16 bytes and at most 128 bytes for the
 * 128-byte swizzle). */
int tc_tmap_rowmajor(long long rows, long long cols, int box_rows, int box_cols,
                     tc_tmap *out, char *err, size_t errlen);

/* Bytes the TMA copies of one pipeline stage deliver (the expect-tx count):
 * a BM x BK box of A and BN/64 boxes of BK x 64 of B. */
uint32_t tc_stage_tx_bytes(int bm, int bn, int bk);

/* Join names with '|' after an optional first word ("all|a|b"); returns the
 * length, or -1 if buf is too small (buf then holds ""). */
int tc_join_names(const char *first, const char *const *names, int n, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* TC_HOST_H */
