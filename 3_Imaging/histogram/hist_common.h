/* hist_common.h: what the histogram's kernels, its host code and its unit
 * tests share, so that each rule is written once: the three inputs, the
 * shared-memory size of each privatized layout, how often the packed 16-bit
 * counters must be flushed, and the size limits behind the 32-bit counters.
 *
 * Every function here compiles for the host (C11, unit-tested in
 * tests/test_hist_host.c) and, under nvcc, for the device too.
 */
#ifndef HIST_COMMON_H
#define HIST_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#ifdef __CUDACC__
#define HIST_HD __host__ __device__ __forceinline__
#else
#define HIST_HD static inline
#endif

/* ---- inputs -------------------------------------------------------------
 * Byte i of an input is a pure function of (kind, seed, i), so the device
 * fills 4 GiB in milliseconds and every checked size is a prefix (or, at an
 * offset, a window) of the same bytes.
 *   uniform     every byte value equally likely: byte i mod 8 of
 *               rng_hash(seed, A, i / 8) (8 random bytes per hash)
 *   skewed      a discrete bell curve: the sum of the 16 hex digits (4-bit
 *               fields) of rng_hash(seed, B, i), i.e. the sum of 16
 *               independent uniform integers 0..15. Mean 120, standard
 *               deviation sqrt(16 * 255 / 12) = 18.44, values 0..240 (241..255
 *               never occur), 95% of the bytes in 84..156; the busiest bin
 *               (120) holds 2.1% of the bytes at 256 bins, 8.5% at 64 bins
 *               (bin 30). A stand-in for the histogram of a natural image:
 *               a few dozen busy bins, long empty tails.
 *   degenerate  every byte equal, to 1 + rng_hash(seed, C, 0) mod 255
 *               (never 0): the worst case for atomics, one bin takes all.
 */
typedef enum { HIST_UNIFORM = 0, HIST_SKEWED = 1, HIST_DEGENERATE = 2 } hist_input_kind;
#define HIST_N_INPUTS 3

HIST_HD unsigned hist_degenerate_value(uint64_t seed)
{
    return 1u + (unsigned)(rng_hash(seed, RNG_STREAM_C, 0) % 255u);
}

/* The sum of the 16 nibbles of h: pairs of nibbles into bytes (each <= 30),
 * then the 8 bytes summed by one multiply (the sum, <= 240, lands in the
 * top byte without carrying out of it). */
HIST_HD unsigned hist_nibble_sum(uint64_t h)
{
    const uint64_t lo = 0x0F0F0F0F0F0F0F0FULL;
    uint64_t pairs = (h & lo) + ((h >> 4) & lo);
    return (unsigned)((pairs * 0x0101010101010101ULL) >> 56);
}

HIST_HD unsigned hist_input_byte(int kind, uint64_t seed, uint64_t i)
{
    if (kind == HIST_UNIFORM)
        return (unsigned)(rng_hash(seed, RNG_STREAM_A, i >> 3) >> (8 * (i & 7))) & 0xFFu;
    if (kind == HIST_SKEWED) return hist_nibble_sum(rng_hash(seed, RNG_STREAM_B, i));
    return hist_degenerate_value(seed);
}

/* ---- privatized layouts ---------------------------------------------------
 * Where a block keeps its private counts (the kernels' comments say why):
 *   PER_BLOCK  one copy of the bins per block            words: bins
 *   PER_WARP   one copy per warp                        words: warps x bins
 *   PER_LANE   32 x groups copies, counter of bin b in copy c at word
 *              b x copies + c, so lane L of a warp always touches bank L;
 *              with pack16 bins p and p + bins/2 share word p x copies + c
 *              (low and high 16-bit halves)         words: bins x copies (/ 2)
 * pack16 adds one 32-bit accumulator per bin, where the 16-bit counters are
 * flushed to before they can overflow. */
enum { HIST_PER_BLOCK = 0, HIST_PER_WARP = 1, HIST_PER_LANE = 2 };

HIST_HD unsigned hist_copy_words(int layout, unsigned bins, unsigned groups, int pack16,
                                 unsigned warps)
{
    if (layout == HIST_PER_BLOCK) return bins;
    if (layout == HIST_PER_WARP) return warps * bins;
    return (pack16 ? bins / 2 : bins) * 32u * groups;
}

/* Shared memory of one block, in 32-bit words (copies + accumulators). */
HIST_HD unsigned hist_smem_words(int layout, unsigned bins, unsigned groups, int pack16,
                                 unsigned warps)
{
    return hist_copy_words(layout, bins, groups, pack16, warps) + (pack16 ? bins : 0u);
}

/* Shared memory of one block of steps 12 to 16 (fast_r32_bmerge and after), in
 * bytes: the 32 lane copies of the bins, a row of per-bin totals for the
 * merge, and `stages` 16-byte ring slots per thread (fast_r32_async; 0
 * otherwise). 256 bins, 1024 threads, 4 stages: 32 KiB + 1 KiB + 64 KiB. */
HIST_HD unsigned hist_lanes_smem_bytes(unsigned bins, unsigned block_threads, unsigned stages)
{
    return 4u * (bins * 32u + bins) + 16u * stages * block_threads;
}

/* Rounds of the packed kernel between two flushes. In one round each thread
 * counts at most one 16-byte vector, so a 16-bit counter of copy (lane, g)
 * grows by at most 16 x (the warps that share group g) per round: warps w
 * with w mod groups == g, at most ceil(warps / groups) of them. The largest
 * number of rounds that keeps every counter <= 65535 is therefore
 * floor(65535 / (16 x ceil(warps / groups))): 511 for 32 warps in 4 groups,
 * 4095 for a single warp. */
HIST_HD unsigned hist_flush_rounds(unsigned block_threads, unsigned groups)
{
    unsigned warps = block_threads / 32u;
    unsigned per_copy = (warps + groups - 1u) / groups;
    if (per_copy == 0u) per_copy = 1u;
    return 65535u / (16u * per_copy);
}

/* The overflow check of the packed counters: HIST_STRESS_N equal bytes
 * counted by one block of one warp, so each lane's copy gets 1/32 of them:
 * 139264 vectors, 4352 rounds of 16 bytes, 69632 > 65535 per counter. The
 * flush (every hist_flush_rounds(32, 4) = 4095 rounds) must run once in the
 * loop; without it a 16-bit counter wraps and the check fails. */
#define HIST_STRESS_N ((1ULL << 21) + (1ULL << 17) + 3)

/* ---- size limits ----------------------------------------------------------
 * Shared-memory counters are 32-bit; a block never counts more than
 * HIST_MAX_BLOCK_BYTES (+ one round) bytes, so none can pass 2^31. The
 * launchers add blocks when n would need more (n > 264 x 2^30 on an H200:
 * never, in practice). Global counts are 64-bit (unsigned long long). */
#define HIST_MAX_BLOCK_BYTES (1ULL << 30)
/* CUB counts into counters of the type of the output it is given, in one
 * call at any size (histogram.cu, run_cub): inputs up to HIST_CUB_32BIT_MAX
 * bytes into 32-bit ones (no bin can pass 2^32 - 1 there), longer ones into
 * 64-bit ones. */
#define HIST_CUB_32BIT_MAX 0xFFFFFFFFULL

#endif /* HIST_COMMON_H */
