/* transpose_cpu.h: transpose's host-only code, compiled by gcc and unit-tested
 * on the CPU (tests/test_transpose_cpu.c): the row stride the matrices are
 * stored with, the CPU reference and baseline, and the exact check.
 *
 * Layout: a matrix of `rows` x `cols` floats, row-major, row r starting at
 * element r * ld (ld >= cols). The transpose of in (rows x cols, stride
 * ld_in) is out (cols x rows, stride ld_out): out[c][r] = in[r][c]. */
#ifndef TRANSPOSE_CPU_H
#define TRANSPOSE_CPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The row stride, in elements, of a matrix with `cols` columns: cols rounded
 * up to a multiple of 4 floats, so that every row starts on a 16-byte
 * boundary (a tensor map for TMA requires 16-byte row strides). */
size_t transpose_ld(size_t cols);

/* out[c * ld_out + r] = in[r * ld_in + c] for r < rows, c < cols, in blocks
 * of 64 x 64 so that both matrices are walked a cache line at a time. The
 * padding columns of out (c >= rows within a row) are not written. */
void transpose_cpu(const float *in, size_t rows, size_t cols, size_t ld_in, float *out,
                   size_t ld_out);

/* The reference a check compares with: out's every element set to the
 * poison pattern 0xFFFFFFFF (NaN), then transpose_cpu: so the padding
 * columns of the reference say "never written". */
void transpose_reference(const float *in, size_t rows, size_t cols, size_t ld_in, float *out,
                         size_t ld_out);

/* Compare got with a reference from transpose_reference, bit for bit, over
 * all cols x ld_out elements: every element of the transpose must be the
 * input's, every padding element (columns rows..ld_out-1) must still hold the
 * poison (nothing may write there). Prints the first few mismatches to
 * stderr, prefixed by `what`; returns how many there were. */
size_t transpose_check(const char *what, const float *ref, const float *got, size_t rows,
                       size_t cols, size_t ld_out);

#ifdef __cplusplus
}
#endif
#endif /* TRANSPOSE_CPU_H */
