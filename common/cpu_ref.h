/* cpu_ref.h: the CPU baselines every sample checks against (C11, gcc-built,
 * unit-tested in tests/test_cpu_ref.c against known answers).
 *
 * They favour being right over being fast: sums accumulate in double with
 * Neumaier (improved Kahan) compensation, SGEMM accumulates in double.
 * Row-major everywhere; pitches and leading dimensions are in elements.
 * Later samples add their baselines here, next to a unit test.
 */
#ifndef COMMON_CPU_REF_H
#define COMMON_CPU_REF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* c[i] = a[i] + b[i] */
void cpu_vector_add(const float *a, const float *b, float *c, size_t n);

/* C_out = alpha * A(MxK) * B(KxN) + beta * C_in, row-major with leading
 * dimensions, dot products accumulated in double and the result kept in
 * double for the tolerance check. With beta == 0, C_in is not read (it may be
 * NULL, or hold NaN poison). */
void cpu_sgemm_f64(int M, int N, int K, double alpha, const float *A, int lda, const float *B,
                   int ldb, double beta, const float *C_in, double *C_out, int ldc);

/* Compensated (Neumaier) sums, returned in double. */
double cpu_sum_f32(const float *x, size_t n);
double cpu_sum_f64(const double *x, size_t n);
/* Exact integer sum (64-bit accumulator). */
long long cpu_sum_i32(const int *x, size_t n);

/* 256-bin histogram of bytes; hist is overwritten. */
void cpu_histogram256(const unsigned char *data, size_t n, unsigned int hist[256]);

/* 3x3 mean blur: out(x,y) = mean of the in-image pixels among the 9
 * neighbours of (x,y) (4 at corners, 6 on edges, 9 inside). width x height
 * pixels; in_pitch and out_pitch are row strides in elements (>= width);
 * padding elements of out are not written. */
void cpu_blur3x3_mean(const float *in, size_t in_pitch, float *out, size_t out_pitch, int width,
                      int height);

/* Box mean of radius r >= 0 under the same edge rule, for any r (r = 1 is
 * the 3x3 mean above, r = 0 a copy): with (x, y) and (i, j) counted inside
 * the width x height image,
 *     out(x, y) = sum of in(i, j) over |i - x| <= r, |j - y| <= r,
 *                 0 <= i < width, 0 <= j < height,
 *                 divided by the number of such pixels,
 *                 (min(x+r, width-1) - max(x-r, 0) + 1) * (min(y+r, height-1) - max(y-r, 0) + 1).
 * Pixels outside the image (an enclosing image's, when in points into one)
 * are never read. Sums in double, separably (each row's sums, then sums of
 * 2r+1 of those down each column: the box is the product of a column range
 * and a row range, so this is the same sum), O(r) per pixel, result in
 * double. in_pitch and out_pitch are row strides in elements (>= width);
 * padding elements of out are not written. Returns 0, or -1 when the
 * arguments are invalid (sizes < 1, r < 0, a pitch < width) or its scratch
 * rows ((2r + 2) * width doubles) cannot be allocated. */
int cpu_box_mean_f64(const float *in, size_t in_pitch, double *out, size_t out_pitch, int width,
                     int height, int radius);

/* Histogram of bytes into `bins` equal-width bins over [0, 256) with 64-bit
 * counts, ADDED to hist (zero it first for a plain histogram; adding lets a
 * caller count a long input in pieces). Byte v falls in bin v * bins / 256,
 * the rule of cub::DeviceHistogram::HistogramEven with levels 0..256.
 * bins must be a power of two from 1 to 256; returns 0, or -1 (hist
 * untouched) for any other value. 64-bit counts: a bin of a 4 GiB + 1 input
 * of equal bytes holds 2^32 + 1, which an unsigned int cannot. */
int cpu_histogram_add_u64(const unsigned char *data, size_t n, int bins,
                          unsigned long long *hist);

#ifdef __cplusplus
}
#endif
#endif /* COMMON_CPU_REF_H */
