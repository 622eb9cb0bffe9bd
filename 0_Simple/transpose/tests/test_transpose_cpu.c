/* test_transpose_cpu.c: transpose's host code on the CPU (make test builds and
 * runs every <folder>/tests/test_*.c with cmocka): the row stride, the CPU
 * transpose, the exact check (that it fails when it should), and step 05's
 * shared-memory layout (tma_layout.h): every element lands in its place,
 * and no quarter-warp has a bank conflict; and its output stage keeps the
 * padding columns unwritten at odd shapes; step 06's ring of stages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "transpose_cpu.h"
#include "tma_layout.h"

static void row_stride_is_16_byte_multiple(void **state)
{
    (void)state;
    assert_int_equal(transpose_ld(1), 4);
    assert_int_equal(transpose_ld(4), 4);
    assert_int_equal(transpose_ld(5), 8);
    assert_int_equal(transpose_ld(17), 20);
    assert_int_equal(transpose_ld(3001), 3004);
    assert_int_equal(transpose_ld(16384), 16384);
}

/* A rows x cols matrix with row stride ld whose element (r, c) is 1000 r + c
 * (exact in float), padding columns -1. */
static float *numbered(size_t rows, size_t cols, size_t ld)
{
    float *m = malloc(rows * ld * sizeof(float));
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < ld; c++) m[r * ld + c] = c < cols ? (float)(1000 * r + c) : -1.0f;
    return m;
}

/* Shapes around the CPU's 64 x 64 blocks, and 1 x 1. */
static void cpu_transpose_by_definition(void **state)
{
    (void)state;
    const size_t shapes[][2] = {{1, 1}, {3, 5}, {33, 17}, {65, 130}, {130, 65}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        size_t rows = shapes[k][0], cols = shapes[k][1];
        size_t ld_in = transpose_ld(cols), ld_out = transpose_ld(rows);
        float *in = numbered(rows, cols, ld_in);
        float *out = malloc(cols * ld_out * sizeof(float));
        for (size_t i = 0; i < cols * ld_out; i++) out[i] = -7.0f;
        transpose_cpu(in, rows, cols, ld_in, out, ld_out);
        for (size_t c = 0; c < cols; c++)
            for (size_t r = 0; r < ld_out; r++)
                assert_true(out[c * ld_out + r] == (r < rows ? (float)(1000 * r + c) : -7.0f));
        free(in);
        free(out);
    }
}

/* The check passes the reference itself and fails each planted fault:
 * a wrong element, an element never written (still poison), a write into
 * the padding. */
static void check_catches_each_fault(void **state)
{
    (void)state;
    const size_t rows = 33, cols = 17, ld_in = transpose_ld(cols), ld_out = transpose_ld(rows);
    float *in = numbered(rows, cols, ld_in);
    float *ref = malloc(cols * ld_out * sizeof(float));
    float *got = malloc(cols * ld_out * sizeof(float));
    transpose_reference(in, rows, cols, ld_in, ref, ld_out);
    uint32_t pad;
    memcpy(&pad, &ref[0 * ld_out + rows], sizeof pad);
    assert_int_equal(pad, 0xFFFFFFFFu);   /* the reference's padding is poison */
    memcpy(got, ref, cols * ld_out * sizeof(float));
    assert_int_equal(transpose_check("same", ref, got, rows, cols, ld_out), 0);

    got[5 * ld_out + 7] = got[5 * ld_out + 8];   /* two neighbours swapped into one */
    assert_int_equal(transpose_check("wrong", ref, got, rows, cols, ld_out), 1);
    memcpy(got, ref, cols * ld_out * sizeof(float));
    memset(&got[16 * ld_out + 32], 0xFF, sizeof(float));   /* the last element never written */
    assert_int_equal(transpose_check("unwritten", ref, got, rows, cols, ld_out), 1);
    memcpy(got, ref, cols * ld_out * sizeof(float));
    got[3 * ld_out + rows + 1] = 0.0f;   /* a write into the padding */
    assert_int_equal(transpose_check("padding", ref, got, rows, cols, ld_out), 1);
    /* -0.0 and 0.0 compare equal as floats but are different bits */
    float z[1] = {0.0f}, mz[1] = {-0.0f};
    assert_int_equal(transpose_check("signed zero", z, mz, 1, 1, 1), 1);
    free(in);
    free(ref);
    free(got);
}

static void swizzle_permutes_chunks_within_a_row(void **state)
{
    (void)state;
    for (unsigned row = 0; row < 16; row++) {
        unsigned seen = 0;
        for (unsigned chunk = 0; chunk < 8; chunk++) {
            unsigned off = swz128_offset(row, chunk);
            assert_int_equal(off / 128, row);          /* stays in its row */
            seen |= 1u << ((off % 128) / 16);
        }
        assert_int_equal(seen, 0xFFu);
    }
    /* the pattern TMA's 128-byte swizzle writes (PTX ISA, "tensor swizzling
     * modes"): address bits 4-6 XOR bits 7-9, pinned at a few points */
    assert_int_equal(swz128_offset(0, 3), 3 * 16);
    assert_int_equal(swz128_offset(1, 0), 128 + 1 * 16);
    assert_int_equal(swz128_offset(7, 7), 7 * 128 + 0);
    assert_int_equal(swz128_offset(9, 2), 9 * 128 + (2 ^ 1) * 16);
    assert_int_equal(swz128_offset(13, 6), 13 * 128 + (6 ^ 5) * 16);
}

/* Step 05's shared-memory transpose, run on the CPU: the input box filled
 * as TMA fills it (swizzled), every thread's rounds of 4 float4 reads and 4
 * float4 writes, then the output boxes read as TMA reads them. Every element
 * of the 32 x TMA_ROWS mirror tile must hold its input, every block must be
 * taken exactly once, and each quarter-warp's 8 accesses of every read and
 * write must fall on 8 different 16-byte chunk positions (no bank conflict). */
static void tma_tile_transpose_and_banks(void **state)
{
    (void)state;
    static float box_in[TMA_ROWS * 32], box_out[TMA_ROWS * 32];
    static unsigned char taken[TMA_ROWS / 4][8];
    memset(taken, 0, sizeof taken);
    for (unsigned r = 0; r < TMA_ROWS; r++)
        for (unsigned c = 0; c < 32; c++)
            box_in[(swz128_offset(r, c / 4) + (c % 4) * 4) / 4] = (float)(1000 * r + c);
    for (unsigned i = 0; i < TMA_ROWS * 32; i++) box_out[i] = -1.0f;

    for (unsigned s = 0; s < TMA_ROUNDS; s++)
        for (unsigned q0 = 0; q0 < TMA_THREADS; q0 += 8) {   /* one quarter-warp */
            unsigned rd[4] = {0}, wr[4] = {0};   /* chunk positions used, per access */
            for (unsigned t = q0; t < q0 + 8; t++) {
                unsigned rb, cb;
                tma_block_of(t, s, &rb, &cb);
                assert_true(rb < TMA_ROWS / 4 && cb < 8);
                assert_int_equal(taken[rb][cb], 0);
                taken[rb][cb] = 1;
                float v[4][4];
                for (unsigned i = 0; i < 4; i++) {
                    unsigned off = swz128_offset(4 * rb + i, cb);
                    rd[i] |= 1u << ((off / 16) % 8);
                    memcpy(v[i], &box_in[off / 4], sizeof v[i]);
                }
                for (unsigned j = 0; j < 4; j++) {
                    unsigned off = tma_out_offset(rb, cb, j);
                    wr[j] |= 1u << ((off / 16) % 8);
                    for (unsigned i = 0; i < 4; i++) box_out[off / 4 + i] = v[i][j];
                }
            }
            for (unsigned i = 0; i < 4; i++) {
                assert_int_equal(rd[i], 0xFFu);   /* 8 threads, 8 chunk positions */
                assert_int_equal(wr[i], 0xFFu);
            }
        }
    for (unsigned rb = 0; rb < TMA_ROWS / 4; rb++)
        for (unsigned cb = 0; cb < 8; cb++) assert_int_equal(taken[rb][cb], 1);
    /* out-tile row c, column r lives in output box r / 32, row c, column r % 32 */
    for (unsigned c = 0; c < 32; c++)
        for (unsigned r = 0; r < TMA_ROWS; r++) {
            unsigned off = (r / 32) * TMA_OUT_BOX_BYTES + swz128_offset(c, (r % 32) / 4) + (r % 4) * 4;
            assert_true(box_out[off / 4] == (float)(1000 * r + c));
        }
}

/* Step 05's output stage on the CPU, for a whole matrix: every block's
 * output boxes (filled as the shared-memory transpose leaves them), stored
 * as the kernel stores them: by TMA, which clips along a row only in whole
 * 16-byte chunks (what our H200 did: the chunk holding the last column is
 * written whole), except the box tma_box_by_threads() leaves to the threads,
 * which store element by element with bounds checks. by_threads = 0 plants
 * the bug the H200 found (every box through TMA). Returns the check's count
 * of wrong elements. */
static size_t tma_store_model(size_t rows, size_t cols, int by_threads)
{
    const size_t ld_in = transpose_ld(cols), ld_out = transpose_ld(rows);
    const size_t tma_cols = (rows + 3) / 4 * 4;   /* what a TMA store reaches along a row */
    float *in = numbered(rows, cols, ld_in);
    float *ref = malloc(cols * ld_out * sizeof(float));
    float *got = malloc(cols * ld_out * sizeof(float));
    static float box[TMA_OUT_BOXES][32 * 32];
    transpose_reference(in, rows, cols, ld_in, ref, ld_out);
    memset(got, 0xFF, cols * ld_out * sizeof(float));   /* poison, as on the GPU */
    for (size_t c0 = 0; c0 < cols; c0 += 32)
        for (size_t r0 = 0; r0 < rows; r0 += TMA_ROWS) {
            for (unsigned b = 0; b < TMA_OUT_BOXES; b++)   /* what the threads left in shared memory */
                for (unsigned j = 0; j < 32; j++)
                    for (unsigned i = 0; i < 32; i++) {
                        size_t r = r0 + 32 * b + i, c = c0 + j;   /* the input element */
                        box[b][tma_out_elem_offset(j, i) / 4] =
                            r < rows && c < cols ? in[r * ld_in + c] : 0.0f;   /* TMA's zero fill */
                    }
            for (unsigned b = 0; b < TMA_OUT_BOXES; b++) {
                const int x0 = (int)(r0 + 32 * b);
                const int threads = by_threads && tma_box_by_threads((int)rows, x0);
                if (x0 >= (int)rows) continue;   /* the kernel stores nothing there */
                for (unsigned j = 0; j < 32; j++)
                    for (unsigned i = 0; i < 32; i++) {
                        size_t orow = c0 + j, ocol = (size_t)x0 + i;
                        if (orow < cols && ocol < (threads ? rows : tma_cols))
                            got[orow * ld_out + ocol] = box[b][tma_out_elem_offset(j, i) / 4];
                    }
            }
        }
    size_t bad = transpose_check("tma store model", ref, got, rows, cols, ld_out);
    free(in);
    free(ref);
    free(got);
    return bad;
}

/* The element offsets the threads' edge store uses are the float4 layout the
 * transpose writes; every odd shape comes out exact with the padding
 * untouched; and without the threads' edge box the same model fails exactly
 * where out's column count is not a multiple of 4. */
static void tma_edge_box_leaves_padding_alone(void **state)
{
    (void)state;
    for (unsigned j = 0; j < 32; j++)
        for (unsigned i = 0; i < 32; i++)
            assert_int_equal(tma_out_elem_offset(j, i), tma_out_offset(i / 4, j / 4, j % 4) + (i % 4) * 4);
    assert_int_equal(tma_box_by_threads(1, 0), 1);
    assert_int_equal(tma_box_by_threads(4, 0), 0);      /* 16 bytes: TMA clips exactly */
    assert_int_equal(tma_box_by_threads(4097, 4096), 1);
    assert_int_equal(tma_box_by_threads(4097, 4064), 0); /* ends before the last column */
    assert_int_equal(tma_box_by_threads(33, 64), 0);     /* starts past it: not stored */
    const size_t shapes[][2] = {{1, 1}, {33, 17}, {17, 33}, {515, 1031}, {1031, 515},
                                {128, 96}, {130, 5}, {4097, 70}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        size_t rows = shapes[k][0], cols = shapes[k][1];
        assert_int_equal(tma_store_model(rows, cols, 1), 0);
        size_t planted = tma_store_model(rows, cols, 0);
        if (rows % 4 == 0)
            assert_int_equal(planted, 0);
        else   /* each row of out gets its 1..3 padding floats written */
            assert_int_equal(planted, cols * (4 - rows % 4));
    }
}

/* Step 06's bookkeeping walked on the CPU, block by block, with TMA loads
 * that land at once: every tile is taken exactly once over the grid; when
 * tile k waits on its stage, that stage's box holds tile k and its mbarrier
 * has completed exactly phase k / PIPE_STAGES (so the parity the kernel
 * waits for is that phase's, and no later refill has aliased it); and the
 * output buffer tile k writes is not one that a still-pending group of TMA
 * stores reads (after waiting for all but the newest PIPE_OUT_BUFS - 1). */
static void pipelined_ring_bookkeeping(void **state)
{
    (void)state;
    assert_int_equal(pipe_grid(65536, 264), 264);   /* 16384^2: every block the H200 holds */
    assert_int_equal(pipe_grid(165, 264), 21);      /* --quick's 515 x 1031: 8 tiles a block */
    assert_int_equal(pipe_grid(1, 264), 1);
    const int grids[] = {1, 3, 264}, counts[] = {1, 2, 5, 17, 1000};
    for (unsigned gi = 0; gi < 3; gi++)
        for (unsigned ni = 0; ni < 5; ni++) {
            const int n = counts[ni], grid = pipe_grid(n, grids[gi]);   /* as the launcher */
            assert_true(grid >= 1 && grid <= grids[gi]);
            int *visited = calloc((size_t)n, sizeof *visited);
            for (int blk = 0; blk < grid; blk++) {
                int box_tile[PIPE_STAGES], completed[PIPE_STAGES] = {0};
                int pending[64], npending = 0;   /* output buffer of each committed store group */
                for (int s = 0; s < PIPE_STAGES; s++) {
                    int t = pipe_tile(blk, grid, s);
                    if (t >= n) break;
                    box_tile[s] = t;
                    completed[s]++;
                }
                for (int k = 0;; k++) {
                    int t = pipe_tile(blk, grid, k);
                    if (t >= n) break;
                    int s = pipe_stage(k);
                    if (npending > PIPE_OUT_BUFS - 1) {   /* wait_group.read PIPE_OUT_BUFS - 1 */
                        memmove(pending, pending + npending - (PIPE_OUT_BUFS - 1),
                                (PIPE_OUT_BUFS - 1) * sizeof *pending);
                        npending = PIPE_OUT_BUFS - 1;
                    }
                    for (int q = 0; q < npending; q++) assert_int_not_equal(pending[q], pipe_out_buf(k));
                    assert_int_equal(completed[s], k / PIPE_STAGES + 1);
                    assert_int_equal((unsigned)(completed[s] - 1) & 1u, pipe_parity(k));
                    assert_int_equal(box_tile[s], t);
                    visited[t]++;
                    assert_true(npending < 64);
                    pending[npending++] = pipe_out_buf(k);
                    int tn = pipe_tile(blk, grid, k + PIPE_STAGES);
                    if (tn < n) {
                        box_tile[s] = tn;
                        completed[s]++;
                    }
                }
            }
            for (int t = 0; t < n; t++) assert_int_equal(visited[t], 1);
            free(visited);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(row_stride_is_16_byte_multiple),
        cmocka_unit_test(cpu_transpose_by_definition),
        cmocka_unit_test(check_catches_each_fault),
        cmocka_unit_test(swizzle_permutes_chunks_within_a_row),
        cmocka_unit_test(tma_tile_transpose_and_banks),
        cmocka_unit_test(tma_edge_box_leaves_padding_alone),
        cmocka_unit_test(pipelined_ring_bookkeeping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
