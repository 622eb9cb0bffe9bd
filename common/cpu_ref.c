/* cpu_ref.c: CPU baselines, written for clarity and accuracy. */
#include "cpu_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cpu_vector_add(const float *a, const float *b, float *c, size_t n)
{
    for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i];
}

/* One element of A*B, accumulated in double. The j-inner dot product keeps
 * one accumulator per element: slower than i-k-j order, but the value to trust. */
static double dot_f64(const float *A, int lda, const float *B, int ldb, int K, int i, int j)
{
    double acc = 0.0;
    for (int k = 0; k < K; k++)
        acc += (double)A[(size_t)i * lda + k] * (double)B[(size_t)k * ldb + j];
    return acc;
}

void cpu_sgemm_f64(int M, int N, int K, double alpha, const float *A, int lda, const float *B,
                   int ldb, double beta, const float *C_in, double *C_out, int ldc)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double c = alpha * dot_f64(A, lda, B, ldb, K, i, j);
            if (beta != 0.0) c += beta * (double)C_in[(size_t)i * ldc + j];
            C_out[(size_t)i * ldc + j] = c;
        }
}

/* Neumaier's variant of Kahan summation: also correct when the new term is
 * larger than the running sum. */
#define NEUMAIER_SUM(x, n)                                                  \
    double sum = 0.0, comp = 0.0;                                           \
    for (size_t i = 0; i < (n); i++) {                                      \
        double v = (double)(x)[i];                                          \
        double t = sum + v;                                                 \
        if (fabs(sum) >= fabs(v)) comp += (sum - t) + v;                    \
        else comp += (v - t) + sum;                                         \
        sum = t;                                                            \
    }                                                                       \
    return sum + comp;

double cpu_sum_f32(const float *x, size_t n) { NEUMAIER_SUM(x, n) }
double cpu_sum_f64(const double *x, size_t n) { NEUMAIER_SUM(x, n) }

long long cpu_sum_i32(const int *x, size_t n)
{
    long long s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s;
}

void cpu_histogram256(const unsigned char *data, size_t n, unsigned int hist[256])
{
    memset(hist, 0, 256 * sizeof hist[0]);
    for (size_t i = 0; i < n; i++) hist[data[i]]++;
}

void cpu_blur3x3_mean(const float *in, size_t in_pitch, float *out, size_t out_pitch, int width,
                      int height)
{
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            double s = 0.0;
            int count = 0;
            for (int dy = -1; dy <= 1; dy++) {
                int yy = y + dy;
                if (yy < 0 || yy >= height) continue;
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = x + dx;
                    if (xx < 0 || xx >= width) continue;
                    s += in[(size_t)yy * in_pitch + xx];
                    count++;
                }
            }
            out[(size_t)y * out_pitch + x] = (float)(s / count);
        }
    }
}

/* Row j's box sums: rs[x] = in(max(x-r,0) .. min(x+r,width-1), j), in double. */
static void box_row_sums_f64(const float *row, int width, int radius, double *rs)
{
    for (int x = 0; x < width; x++) {
        int lo = x - radius < 0 ? 0 : x - radius;
        int hi = x + radius > width - 1 ? width - 1 : x + radius;
        double s = 0.0;
        for (int i = lo; i <= hi; i++) s += row[i];
        rs[x] = s;
    }
}

int cpu_box_mean_f64(const float *in, size_t in_pitch, double *out, size_t out_pitch, int width,
                     int height, int radius)
{
    if (width < 1 || height < 1 || radius < 0 || in_pitch < (size_t)width ||
        out_pitch < (size_t)width)
        return -1;
    /* A ring of the 2r+1 row-sum rows the current output row needs (row j
     * lives in slot j % ring), plus one row of column sums. */
    int ring = 2 * radius + 1;
    if (ring > height) ring = height;   /* never more rows than the image has */
    double *rows = (double *)malloc(((size_t)ring + 1) * (size_t)width * sizeof(double));
    if (!rows) return -1;
    double *acc = rows + (size_t)ring * width;
    int next = 0;   /* the next image row whose sums are not yet in the ring */
    for (int y = 0; y < height; y++) {
        int ylo = y - radius < 0 ? 0 : y - radius;
        int yhi = y + radius > height - 1 ? height - 1 : y + radius;
        for (; next <= yhi; next++)
            box_row_sums_f64(in + (size_t)next * in_pitch, width, radius,
                             rows + (size_t)(next % ring) * width);
        for (int x = 0; x < width; x++) acc[x] = 0.0;
        for (int j = ylo; j <= yhi; j++) {
            const double *rs = rows + (size_t)(j % ring) * width;
            for (int x = 0; x < width; x++) acc[x] += rs[x];
        }
        double nrows = (double)(yhi - ylo + 1);
        double *o = out + (size_t)y * out_pitch;
        for (int x = 0; x < width; x++) {
            int xlo = x - radius < 0 ? 0 : x - radius;
            int xhi = x + radius > width - 1 ? width - 1 : x + radius;
            o[x] = acc[x] / (nrows * (double)(xhi - xlo + 1));
        }
    }
    free(rows);
    return 0;
}

/* Four sub-histograms, one per byte position mod 4: in a run of equal bytes
 * (the degenerate input) one counter would otherwise make every increment
 * wait for the previous one (store-to-load forwarding), several times
 * slower. The bin of each byte value is applied once, at the end. */
int cpu_histogram_add_u64(const unsigned char *data, size_t n, int bins,
                          unsigned long long *hist)
{
    if (bins < 1 || bins > 256 || (bins & (bins - 1)) != 0) return -1;
    unsigned long long h[4][256];
    memset(h, 0, sizeof h);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        h[0][data[i]]++;
        h[1][data[i + 1]]++;
        h[2][data[i + 2]]++;
        h[3][data[i + 3]]++;
    }
    for (; i < n; i++) h[0][data[i]]++;
    for (int v = 0; v < 256; v++) hist[v * bins / 256] += h[0][v] + h[1][v] + h[2][v] + h[3][v];
    return 0;
}
