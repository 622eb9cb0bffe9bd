/* hist_host.h: the histogram sample's host-side decisions, in C11 so that
 * tests/test_hist_host.c checks them on a machine without a GPU: which
 * inputs and bin counts a run covers, at which sizes and offsets every
 * variant is checked, and how many blocks a launch gets.
 */
#ifndef HIST_HOST_H
#define HIST_HOST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "uniform", "skewed", "degenerate" for HIST_UNIFORM...; NULL otherwise. */
const char *hist_input_name(int kind);

/* One (input, bins) combination: a run prints one set of RESULT lines per case. */
typedef struct {
    int kind;   /* hist_input_kind */
    int bins;   /* 256 or 64 */
} hist_case;
#define HIST_MAX_CASES 6

/* The cases of --input (all|uniform|skewed|degenerate) and --bins
 * (256|64|both): inputs vary fastest. Returns how many (1..6), or -1 with a
 * message naming the bad option in err. */
int hist_cases(const char *input, const char *bins, hist_case *out, char *err, size_t errlen);

/* One checked run: `n` bytes starting `offset` bytes into the input. */
typedef struct {
    size_t n, offset;
} hist_check;
#define HIST_MAX_CHECKS 64

/* The checks of a run whose size is n, in order: the sizes 1, 3, 15, 16, 17,
 * 1000, 4097 and 2^20+5 that are below n (not multiples of the block or of
 * the 16-byte vector: partial vectors, partial blocks); the input pointer
 * offset by 1..15 bytes at sizes 17 and 4097 and by 9 at 2^20+5 (where those
 * fit in n), for the kernels that load 16 bytes at a time and must first
 * count the bytes up to a 16-byte boundary; then n itself at offset 0.
 * Every window [offset, offset + size) lies inside [0, n + 15). Returns the
 * number of checks written (at most HIST_MAX_CHECKS). */
int hist_check_plan(size_t n, hist_check *out);

/* Blocks for a grid-stride kernel over n bytes that counts bytes_per_thread
 * bytes per thread per round: enough to give every thread one round, at
 * most max_blocks (the blocks that fit on the GPU at once), but never so
 * few that one block counts more than HIST_MAX_BLOCK_BYTES (see
 * hist_common.h); at least 1. */
unsigned long long hist_grid_blocks(size_t n, unsigned bytes_per_thread, unsigned block,
                                    unsigned long long max_blocks);

/* The most bytes one block of such a grid counts: every thread of it does
 * ceil(n / (grid x block x bytes_per_thread)) rounds at most. */
unsigned long long hist_block_bytes_max(size_t n, unsigned long long grid, unsigned block,
                                        unsigned bytes_per_thread);

/* The shared-memory carveout, in percent of an SM's shared memory (what
 * cudaFuncAttributePreferredSharedMemoryCarveout takes), that holds
 * `blocks` blocks of smem_per_block bytes each, every block also costing
 * reserved_per_block bytes (1 KiB on sm_80 and later): rounded up, at most
 * 100 (and 100 when smem_per_sm is 0). The driver rounds it up again to a
 * size the SM has (on an H200 0, 8, 16, 32, 64, 100, 132, 164, 196 or 228
 * KiB of its 256); the rest of the SM's 256 KiB is L1 cache. */
int hist_carveout_percent(size_t smem_per_block, size_t reserved_per_block, unsigned blocks,
                          size_t smem_per_sm);

/* The waves check's grid (histogram.cu, check_variant): with one block per
 * SM (each block given all the shared memory a block may have), the SMs
 * plus a quarter as many blocks (at least one more than the SMs), so that
 * the last quarter can only start on an SM where an earlier block of the
 * same launch finished. */
unsigned hist_waves_grid(int sm_count);

/* The bytes the waves check counts on that grid, with blocks of `block`
 * threads: one 16-byte vector for every thread of the grid (so every
 * block, the first wave's included, counts block x 16 bytes), and 5 more
 * for a tail. */
size_t hist_waves_n(int sm_count, unsigned block);

#ifdef __cplusplus
}
#endif
#endif /* HIST_HOST_H */
