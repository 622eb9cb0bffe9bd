/* fp8_host.h: fp8Gemm's host code (fp8_host.c, built with gcc and unit-tested
 * on the CPU by tests/test_fp8_host.c), plus the few inline helpers the GPU
 * uses too (FP8_HD): the e4m3 and BF16 formats, the wgmma descriptor and the
 * tile order.
 *
 * The numbers: A is M x K and B is N x K, both row-major FP8 e4m3 bytes (so
 * both are "K-major": the K elements of one row of A, or of one column of the
 * product's B^T, are consecutive, which is what FP8 wgmma reads). The product
 * D = scale_a * scale_b * A * B^T is M x N, row-major BF16. */
#ifndef FP8_HOST_H
#define FP8_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define FP8_HD __host__ __device__ __forceinline__
#else
#define FP8_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- formats ------------------------------------------------------------
 * e4m3 (the "fn" flavour of the OCP FP8 spec): 1 sign, 4 exponent bits
 * (bias 7), 3 mantissa bits; no infinities; S.1111.111 is NaN; the largest
 * value is 448 = 1.75 * 2^8, the smallest subnormal 2^-9. */
#define FP8_E4M3_MAX 448.0f

FP8_HD float fp8_e4m3_to_float(uint8_t v)
{
    const uint32_t sign = (uint32_t)(v >> 7) << 31, e = (v >> 3) & 15u, m = v & 7u;
    float f;
    if (e == 15u && m == 7u) {
        uint32_t nan = 0x7FC00000u;
        memcpy(&f, &nan, 4);
        return f;
    }
    if (e == 0) { /* subnormal: m * 2^-9, exact in float */
        f = (float)m * (1.0f / 512.0f);
        return sign ? -f : f;
    }
    uint32_t bits = sign | ((e - 7u + 127u) << 23) | (m << 20);
    memcpy(&f, &bits, 4);
    return f;
}

/* BF16: the top 16 bits of a float. */
FP8_HD float bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* ---- the wgmma shared-memory matrix descriptor ----------------------------
 * 64 bits: start address >> 4 (bits 0-13), leading-dimension byte offset >> 4
 * (16-29), stride byte offset >> 4 (32-45), layout (62-63; 1 = 128-byte
 * swizzle). For a K-major operand in the 128-byte swizzle, the leading offset
 * is unused and the stride offset is the distance between groups of 8 rows
 * (8 x 128 bytes = 1024). */
#define FP8_DESC_SWIZZLE_128B 1ull
FP8_HD uint64_t fp8_wgmma_desc(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes)
{
    return (uint64_t)((smem_addr & 0x3FFFFu) >> 4) | ((uint64_t)((lbo_bytes & 0x3FFFFu) >> 4) << 16) |
           ((uint64_t)((sbo_bytes & 0x3FFFFu) >> 4) << 32) | (FP8_DESC_SWIZZLE_128B << 62);
}

/* ---- tile order ------------------------------------------------------------
 * Block tile t -> (tile row tm, tile column tn), in groups of `group` tile
 * rows: consecutive t walk down a group's rows before moving right, so the
 * blocks running at one time share their columns of B (and their rows of A)
 * in L2. The last group may be shorter. */
FP8_HD void fp8_tile_of(int t, int tiles_m, int tiles_n, int group, int *tm, int *tn)
{
    const int per_group = group * tiles_n;
    const int g = t / per_group, first_m = g * group;
    const int rows = tiles_m - first_m < group ? tiles_m - first_m : group;
    const int r = t - g * per_group;
    *tm = first_m + r % rows;
    *tn = r / rows;
}

/* ---- host-only ------------------------------------------------------------ */

/* float -> e4m3, round to nearest even, saturating to +-448 (the conversion
 * FP8 training recipes use); NaN -> 0x7F. */
uint8_t fp8_e4m3_from_float(float x);
/* float -> BF16 bits, round to nearest even (what __float2bfloat16 does). */
uint16_t bf16_from_float(float x);

/* The kinds of input: small integers in {-2, ..., 2} (every product and
 * every sum at K <= 2048 is an integer below 2^13, exact in any FP32
 * accumulator; only the final BF16 rounding remains, and the CPU does it
 * too: the check is equality), and uniform values in [-1, 1) rounded to
 * e4m3 (checked statistically). */
typedef enum { FP8_DATA_INT = 0, FP8_DATA_REAL = 1 } fp8_data;
const char *fp8_data_name(fp8_data kind);
/* rows x cols e4m3 bytes, element i from rng_hash(seed, stream, i). */
void fp8_fill(uint8_t *x, size_t rows, size_t cols, fp8_data kind, uint64_t seed, uint64_t stream);

/* The reference: ref[i*N + j] = scale * sum_k A[i][k] B[j][k], in double on
 * the decoded e4m3 values (exact for the integer inputs). */
void fp8_gemm_ref(int M, int N, int K, const uint8_t *A, const uint8_t *B, double scale,
                  double *ref);
/* One element of it. */
double fp8_dot_ref(int K, const uint8_t *A, const uint8_t *B, int i, int j, double scale);

/* The error bound of a BF16 result d against the exact value r:
 *   |d - r| <= 2^-8 |r| + FP8_STAT_C sqrt(K) FP8_U_ACC rms(ref)
 * the first term is the final rounding to BF16 (half an ulp is at most 2^-9
 * |r|; twice that leaves room for a near-tie of an inexact accumulator), the
 * second the accumulation: the FP8 tensor cores' accumulator is not a full
 * FP32 one (about 14 bits survive each addition on Hopper, as reported for
 * DeepSeek-V3's FP8 training on H800), so u is taken as 2^-14, not 2^-24,
 * and random rounding errors grow as sqrt(K). FP8_STAT_C: our first guess,
 * 4, was reached on the H200 by the wgmma kernels' largest errors at 4096
 * sampled elements at K = 4096 and 8192 (err_z in the RESULT lines): no
 * room left for the rest of the product, other seeds and shapes, or
 * cuBLASLt's own accumulation order. 8 leaves it, and is still far below
 * what a wrong tile, row or scale gives (errors the size of rms(ref) itself,
 * which the integer inputs catch exactly anyway). */
#define FP8_STAT_C 8.0
#define FP8_U_ACC (1.0 / 16384.0)
double fp8_stat_unit(int K, double rms_ref);
double fp8_rms(const double *x, size_t n);

typedef struct {
    double max_abs; /* max |d - r| */
    double rms;     /* sqrt(mean (d - r)^2) */
    double rms_ref; /* sqrt(mean r^2): the errors' unit when reported */
    double max_z;   /* max |d - r| / (sqrt(K) u rms(ref)) */
    size_t bad;
} fp8_err;

/* Compare n BF16 results with their references (at sampled positions when
 * idx is not NULL: got[idx[s]] against ref[s]). exact: equality with the
 * reference rounded to BF16. Otherwise the bound above, with rms_ref the
 * reference's rms over the whole product. Prints the first few mismatches as
 * "what: (row, col) expected ..., got ..., bound ..." and fills *e. */
size_t fp8_compare(const char *what, const uint16_t *got, const double *ref, const size_t *idx,
                   size_t n, int N, int K, int exact, double rms_ref, fp8_err *e);

/* Two BF16 results of the same product, every element: each is within the
 * bound above of the exact value, so they are within twice it of each other
 * (2^-7 max(|x|, |y|) + 2 FP8_STAT_C sqrt(K) u rms_ref). */
size_t fp8_compare_bf16(const char *what, const uint16_t *got, const uint16_t *ref, size_t n, int N,
                        int K, double rms_ref);

/* The TMA variants read A and B through tensor maps whose row stride (K
 * bytes) must be a multiple of 16: 1 if K allows them, else 0 and why. */
int fp8_tma_shape_ok(int K, char *why, size_t len);

/* 2 M N K / ms, in GFLOP/s. */
double fp8_gflops(int M, int N, int K, double ms);

#ifdef __cplusplus
}
#endif
#endif /* FP8_HOST_H */
