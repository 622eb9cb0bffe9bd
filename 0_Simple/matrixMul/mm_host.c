/* mm_host.c: see mm_host.h. */
#include "mm_host.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

double mm_tol_fp32(long long K)
{
    return ((double)K + 16.0) * ldexp(1.0, -22);
}

double mm_tol_tf32_abs(long long K)
{
    return sqrt((double)K) * ldexp(1.0, -8);
}

double mm_tol_tf32_rel(void)
{
    return ldexp(1.0, -8);
}

double mm_gflops(long long M, long long N, long long K, double ms)
{
    if (!(ms > 0)) return 0;
    return 2.0 * (double)M * (double)N * (double)K / (ms * 1e6);
}

int mm_check_dim(const char *opt, long long v, char *err, size_t errlen)
{
    if (v < 1 || v > MM_MAX_DIM) {
        snprintf(err, errlen, "--%s=%lld: must be between 1 and %d", opt, v, MM_MAX_DIM);
        return -1;
    }
    return 0;
}

size_t mm_device_bytes(long long M, long long N, long long K, unsigned long long limit,
                       char *err, size_t errlen)
{
    if (M < 1 || N < 1 || K < 1) {
        snprintf(err, errlen, "matrix sizes must be positive (m=%lld n=%lld k=%lld)", M, N, K);
        return 0;
    }
    /* Each product of two dimensions <= 2^30 by the bound on each; the sum
     * of four such counts times 4 bytes fits in 64 bits. */
    unsigned long long elems = (unsigned long long)M * (unsigned long long)K +
                               (unsigned long long)K * (unsigned long long)N +
                               2ULL * (unsigned long long)M * (unsigned long long)N;
    if (M > MM_MAX_DIM || N > MM_MAX_DIM || K > MM_MAX_DIM || elems > SIZE_MAX / 4 ||
        elems * 4ULL > limit) {
        snprintf(err, errlen,
                 "--m=%lld --n=%lld --k=%lld: the matrices need more than %llu bytes", M, N,
                 K, limit);
        return 0;
    }
    return (size_t)(elems * 4ULL);
}

int mm_join_names(const char *first, const char *const *names, int n, char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0) return -1;
    buf[0] = '\0';
    for (int i = -1; i < n; i++) {
        const char *s = i < 0 ? first : names[i];
        if (!s) continue;
        size_t sl = strlen(s) + (used ? 1 : 0);
        if (used + sl + 1 > len) {
            buf[0] = '\0';
            return -1;
        }
        if (used) buf[used++] = '|';
        memcpy(buf + used, s, strlen(s));
        used += strlen(s);
        buf[used] = '\0';
    }
    return (int)used;
}
