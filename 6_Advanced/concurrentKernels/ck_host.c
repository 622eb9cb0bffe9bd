/* ck_host.c: chunks, overlap bounds and the text timeline of concurrentKernels (see ck_host.h). */
#include "ck_host.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void ck_chunk(size_t n, int chunks, int c, size_t *off, size_t *len)
{
    /* floor(n c / chunks): n (c + 1) fits in 64 bits (n <= 2^30, chunks <= 1024 here) */
    size_t a = (size_t)((unsigned long long)n * (unsigned long long)c / (unsigned long long)chunks);
    size_t b = (size_t)((unsigned long long)n * (unsigned long long)(c + 1) /
                        (unsigned long long)chunks);
    *off = a;
    *len = b - a;
}

int ck_kernels_at_once(int kernels, int blocks, int per_sm, int sms, int max_grids)
{
    long long slots = (long long)per_sm * sms;
    long long fit = blocks > 0 ? slots / blocks : 0;
    if (fit > max_grids) fit = max_grids;
    if (fit > kernels) fit = kernels;
    return fit < 1 ? 1 : (int)fit;
}

double ck_kernel_overlap_bound(int kernels, int at_once)
{
    if (kernels < 1 || at_once < 1) return 1.0;
    int waves = (kernels + at_once - 1) / at_once;
    return (double)kernels / waves;
}

double ck_pipeline_bound(double h, double k, double d, int chunks, int copy_engines)
{
    double serial = h + k + d;
    if (!(serial > 0) || chunks < 1) return 1.0;
    double slowest;
    if (copy_engines >= 2) slowest = fmax(h, fmax(k, d));
    else slowest = fmax(h + d, k);
    double piped = slowest + (serial - slowest) / chunks;
    double b = serial / piped;
    return b < 1.0 ? 1.0 : b;
}

int ck_timeline(const uint64_t *start_ns, const uint64_t *end_ns, int rows,
                const char *const *labels, int width, char *out, size_t out_len)
{
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (int r = 0; r < rows; r++) {
        if (start_ns[r] > end_ns[r]) continue;
        if (start_ns[r] < t0) t0 = start_ns[r];
        if (end_ns[r] > t1) t1 = end_ns[r];
    }
    if (t0 > t1) t0 = t1 = 0;   /* nothing stamped */
    double span = (double)(t1 - t0);
    if (span <= 0) span = 1;
    size_t used = 0;
    out[0] = '\0';
    for (int r = 0; r < rows; r++) {
        char bar[1024];
        int w = width < (int)sizeof bar - 1 ? width : (int)sizeof bar - 1;
        int stamped = start_ns[r] <= end_ns[r];
        for (int c = 0; c < w; c++) bar[c] = stamped ? ' ' : '?';
        bar[w] = '\0';
        double s_us = 0, e_us = 0;
        if (stamped) {
            double s = (double)(start_ns[r] - t0), e = (double)(end_ns[r] - t0);
            int c0 = (int)floor(s * w / span), c1 = (int)ceil(e * w / span) - 1;
            if (c0 > w - 1) c0 = w - 1;
            if (c1 < c0) c1 = c0;
            if (c1 > w - 1) c1 = w - 1;
            for (int c = c0; c <= c1; c++) bar[c] = '#';
            s_us = s / 1e3;
            e_us = e / 1e3;
        }
        int k = snprintf(out + used, out_len - used, "%-10s |%s| %9.1f .. %9.1f us\n",
                         labels[r], bar, s_us, e_us);
        if (k < 0 || (size_t)k >= out_len - used) return -1;
        used += (size_t)k;
    }
    return 0;
}
