/* tma_layout.h: the shared-memory layout of step 05 (kernels/05_tma.cuh), in
 * plain C that the kernel and the CPU tests (tests/test_transpose_cpu.c)
 * both compile: the 128-byte swizzle that TMA writes and reads, and which
 * 4 x 4 block of the tile each thread takes.
 *
 * The tiles: a block owns 32 columns x TMA_ROWS rows of in (the input box,
 * TMA_ROWS rows of 128 bytes) and writes the mirror tile of out, 32 rows x
 * TMA_ROWS columns, kept as TMA_ROWS / 32 output boxes of 32 x 32 floats
 * (4 KiB each; a swizzled box row is at most 128 bytes). */
#ifndef TRANSPOSE_TMA_LAYOUT_H
#define TRANSPOSE_TMA_LAYOUT_H

#ifdef __CUDACC__
#define TR_HD __host__ __device__ __forceinline__
#else
#define TR_HD static inline
#endif

#ifndef TMA_ROWS
#define TMA_ROWS 128      /* rows of in per block: the input box's height (<= 256) */
#endif
#ifndef TMA_THREADS
#define TMA_THREADS 128   /* threads per block */
#endif
#define TMA_BOX_COLS 32                                 /* 32 floats = one 128-byte row */
#define TMA_IN_BYTES (TMA_ROWS * TMA_BOX_COLS * 4)      /* the input box (= the output boxes) */
#define TMA_OUT_BOX_BYTES (TMA_BOX_COLS * TMA_BOX_COLS * 4)
#define TMA_OUT_BOXES (TMA_ROWS / TMA_BOX_COLS)
#define TMA_ROUNDS (TMA_ROWS / 4 * 8 / TMA_THREADS)     /* 4 x 4 blocks per thread */

/* TMA with the 128-byte swizzle stores 16-byte chunk `chunk` (0..7) of box
 * row `row` at chunk chunk ^ (row % 8) of that row: the 8 rows of each
 * 1024-byte group hold their chunks in 8 different orders, so one chunk
 * position down 8 consecutive rows covers all 32 banks instead of 4. (The
 * box must start on a 1024-byte boundary for this to line up with row % 8.)
 * The byte offset of that chunk from the start of the box: */
TR_HD unsigned swz128_offset(unsigned row, unsigned chunk)
{
    return row * 128u + ((chunk ^ (row & 7u)) << 4);
}

/* The 4 x 4 block of the input box that thread t takes in round s: block
 * row *rb (box rows 4 rb .. 4 rb + 3), block column *cb (columns 4 cb ..
 * 4 cb + 3: chunk cb). A 16-byte access is served for 8 threads at a time
 * (a quarter-warp); those 8 (k = t % 8) take block columns 0..7 along a
 * diagonal, block rows 8 q + (k + d) % 8, so that both their reads of the
 * input box and their writes of the output boxes fall on 8 different chunk
 * positions: no bank conflicts. Over all threads and rounds every block of
 * the box is taken exactly once (both facts are tested on the CPU). */
TR_HD void tma_block_of(unsigned t, unsigned s, unsigned *rb, unsigned *cb)
{
    const unsigned k = t & 7u;
    const unsigned g = (t >> 3) + s * (TMA_THREADS / 8);   /* diagonal g % 8 of group g / 8 */
    *cb = k;
    *rb = 8u * (g >> 3) + ((k + g) & 7u);
}

/* Byte offset, from the first output box, of the float4 that holds out-tile
 * row 4 cb + j (0..31), columns 4 rb .. 4 rb + 3: output box rb / 8, chunk rb % 8. */
TR_HD unsigned tma_out_offset(unsigned rb, unsigned cb, unsigned j)
{
    return (rb >> 3) * TMA_OUT_BOX_BYTES + swz128_offset(4u * cb + j, rb & 7u);
}

/* Byte offset, within one output box, of out-tile element (row j, column i),
 * 0 <= j, i < 32: chunk i / 4 of box row j, float i % 4 of the chunk. */
TR_HD unsigned tma_out_elem_offset(unsigned j, unsigned i)
{
    return swz128_offset(j, i >> 2) + ((i & 3u) << 2);
}

/* Does the output box whose first column is x0 need the threads to store it?
 * out has out_cols columns (the rows of in). A TMA store clips a box at the
 * tensor's edge in whole 16-byte chunks only: the chunk that holds the last
 * column is written whole, so when out_cols is not a multiple of 4 floats the
 * 1 to 3 padding columns after it would be written too (our H200 did exactly
 * that). Only the box that reaches past the last column, and only then, is
 * left to the threads, which store it element by element with bounds
 * checks. (A box that starts past the last column is not stored at all.) */
TR_HD int tma_box_by_threads(int out_cols, int x0)
{
    return (out_cols & 3) != 0 && x0 < out_cols && x0 + TMA_BOX_COLS > out_cols;
}

/* Step 06 (kernels/06_pipelined.cuh): block `block` of `grid` takes its
 * tiles blockIdx.x + k gridDim.x, k = 0, 1, ...; tile k uses input stage
 * k % PIPE_STAGES, waits for that stage's mbarrier phase k / PIPE_STAGES
 * (parity (k / PIPE_STAGES) & 1: a barrier completes once per use), and
 * writes output buffer k % PIPE_OUT_BUFS. */
#ifndef PIPE_STAGES
#define PIPE_STAGES 4     /* input boxes in the ring */
#endif
#define PIPE_OUT_BUFS 2   /* output tiles: one being stored, one being written */
/* The grid: as many blocks as the GPU holds at once (resident), but no
 * fewer than 2 rounds of the ring per block, so that a small matrix
 * (--quick) still walks the ring. */
TR_HD int pipe_grid(int n_tiles, int resident)
{
    const int want = (n_tiles + 2 * PIPE_STAGES - 1) / (2 * PIPE_STAGES);
    return want < resident ? want : resident;
}
TR_HD int pipe_tile(int block, int grid, int k) { return block + k * grid; }
TR_HD int pipe_stage(int k) { return k % PIPE_STAGES; }
TR_HD unsigned pipe_parity(int k) { return (unsigned)(k / PIPE_STAGES) & 1u; }
TR_HD int pipe_out_buf(int k) { return k % PIPE_OUT_BUFS; }

#endif /* TRANSPOSE_TMA_LAYOUT_H */
