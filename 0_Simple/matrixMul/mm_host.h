/* mm_host.h: the host-only arithmetic of matrixMul (C11, unit-tested on the CPU
 * in tests/test_mm_host.c): tolerances, FLOP counts, shape validation and the
 * text generated from the variant table.
 */
#ifndef MM_HOST_H
#define MM_HOST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest accepted --m, --n, --k (keeps every row*ld index below 2^31). */
#define MM_MAX_DIM 32768

/* FP32 tolerance for an element of C = alpha*A*B + beta*C with inputs uniform
 * in [-1, 1): a K-term dot product rounds once per term, so the bound grows
 * with K. abs_tol = rel_tol = (K + 16) * 2^-22 (about 1e-3 at K = 4096, where
 * |C| is typically sqrt(K)/3 ~ 21 and the observed FP32 error ~1e-4). */
double mm_tol_fp32(long long K);

/* TF32 (10-bit mantissa inputs): error grows like sqrt(K) * 2^-11 per unit
 * product; abs_tol = sqrt(K) * 2^-8, rel_tol = 2^-8. Context only. */
double mm_tol_tf32_abs(long long K);
double mm_tol_tf32_rel(void);

/* 2*M*N*K / (ms * 1e6): GFLOP/s of one GEMM that took ms milliseconds;
 * 0 when ms <= 0. */
double mm_gflops(long long M, long long N, long long K, double ms);

/* Validate one dimension: 1 <= v <= MM_MAX_DIM. 0 ok, -1 with a message
 * naming the option in err. */
int mm_check_dim(const char *opt, long long v, char *err, size_t errlen);

/* Device bytes for A (MxK), B (KxN) and two MxN buffers (C, saved C), or 0
 * with a message in err if that overflows size_t or exceeds limit. */
size_t mm_device_bytes(long long M, long long N, long long K, unsigned long long limit,
                       char *err, size_t errlen);

/* Join names with '|' after an optional first word ("all|a|b"). Returns the
 * length, or -1 if buf is too small (buf then holds "" ). */
int mm_join_names(const char *first, const char *const *names, int n, char *buf,
                  size_t len);

/* Compiled for both sides: the kernels call mm_tile_of on the device. */
#ifdef __CUDACC__
#define MM_HD __host__ __device__
#else
#define MM_HD
#endif

/* Which tile of C the block with linear index pid computes, on a grid of
 * tiles_m x tiles_n tiles. group <= 1: row by row (pid = tm * tiles_n + tn,
 * what a 2D grid with x along N gives). group = G > 1: "grouped" order for
 * L2 reuse: the tiles are taken in bands of G tile rows, and inside a band
 * column by column, so consecutive blocks share the same few panels of A
 * and walk B together; the last band has tiles_m % G rows. Every pid in
 * [0, tiles_m * tiles_n) gets a different tile (tests/test_mm_host.c). */
static inline MM_HD void mm_tile_of(int pid, int tiles_m, int tiles_n, int group, int *tm,
                                    int *tn)
{
    if (group <= 1) {
        *tm = pid / tiles_n;
        *tn = pid % tiles_n;
        return;
    }
    const int per_band = group * tiles_n;
    const int band = pid / per_band;
    const int first = band * group;
    const int rows = tiles_m - first < group ? tiles_m - first : group;
    const int in_band = pid - band * per_band;
    *tm = first + in_band % rows;
    *tn = in_band / rows;
}

#ifdef __cplusplus
}
#endif
#endif /* MM_HOST_H */
