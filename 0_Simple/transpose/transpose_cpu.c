/* transpose_cpu.c: see transpose_cpu.h. */
#include "transpose_cpu.h"

#include <stdio.h>
#include <string.h>

#define CPU_BLOCK 64
#define MAX_REPORTED 5

size_t transpose_ld(size_t cols)
{
    return (cols + 3) / 4 * 4;
}

void transpose_cpu(const float *in, size_t rows, size_t cols, size_t ld_in, float *out,
                   size_t ld_out)
{
    for (size_t r0 = 0; r0 < rows; r0 += CPU_BLOCK)
        for (size_t c0 = 0; c0 < cols; c0 += CPU_BLOCK) {
            size_t r1 = r0 + CPU_BLOCK < rows ? r0 + CPU_BLOCK : rows;
            size_t c1 = c0 + CPU_BLOCK < cols ? c0 + CPU_BLOCK : cols;
            for (size_t c = c0; c < c1; c++)
                for (size_t r = r0; r < r1; r++) out[c * ld_out + r] = in[r * ld_in + c];
        }
}

void transpose_reference(const float *in, size_t rows, size_t cols, size_t ld_in, float *out,
                         size_t ld_out)
{
    memset(out, 0xFF, cols * ld_out * sizeof(float));
    transpose_cpu(in, rows, cols, ld_in, out, ld_out);
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

size_t transpose_check(const char *what, const float *ref, const float *got, size_t rows,
                       size_t cols, size_t ld_out)
{
    const size_t n = cols * ld_out;
    if (memcmp(ref, got, n * sizeof(float)) == 0) return 0;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t want = bits_of(ref[i]), have = bits_of(got[i]);
        if (have == want) continue;
        size_t c = i / ld_out, r = i % ld_out;
        if (bad < MAX_REPORTED) {
            if (r < rows)
                fprintf(stderr, "%s: out[%zu][%zu] = %a (0x%08x), expected in[%zu][%zu] = %a "
                        "(0x%08x)\n", what, c, r, (double)got[i], have, r, c, (double)ref[i], want);
            else
                fprintf(stderr, "%s: out[%zu][%zu] is padding (the transpose has %zu columns) "
                        "and was written: 0x%08x\n", what, c, r, rows, have);
        }
        bad++;
    }
    fprintf(stderr, "%s: %zu of %zu elements wrong\n", what, bad, n);
    return bad;
}
