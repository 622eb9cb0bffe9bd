/* clusters_common.h: what the kernels, the host code and the unit tests
 * share, so each rule is written once: the two inputs, how the 65,536 bins
 * are split over the blocks of a cluster, and the sizes of the DSMEM probe.
 *
 * Every function here compiles for the host (C11, unit-tested in
 * tests/test_clusters_cpu.c) and, under nvcc, for the device too.
 */
#ifndef CLUSTERS_COMMON_H
#define CLUSTERS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#ifdef __CUDACC__
#define CL_HD __host__ __device__ __forceinline__
#else
#define CL_HD static inline
#endif

/* 16-bit samples, one bin per value: 65,536 bins of 32-bit counts, 256 KiB,
 * more than the 227 KiB one block may have of shared memory on an H200. */
#define CL_BINS 65536u

/* ---- inputs -------------------------------------------------------------
 * Sample i is a pure function of (kind, seed, i), so the device fills 512 MiB
 * in a millisecond and every checked size is a prefix of the same samples.
 *   uniform  every value equally likely: 16-bit field i mod 4 of
 *            rng_hash(seed, A, i / 4)
 *   skewed   log-uniform: h = rng_hash(seed, B, i), a random 16-bit value
 *            shifted right by a random 0..15 bits (h's low 4 bits), so 56%
 *            of the samples are below 256 and bins 0 and 1 each take 1/16
 *            of them (6.25%): many threads of a cluster add into the same few
 *            words of one block's shared memory.
 */
typedef enum { CL_UNIFORM = 0, CL_SKEWED = 1 } cl_input_kind;
#define CL_N_INPUTS 2

CL_HD unsigned cl_input_value(int kind, uint64_t seed, uint64_t i)
{
    if (kind == CL_UNIFORM)
        return (unsigned)(rng_hash(seed, RNG_STREAM_A, i >> 2) >> (16 * (i & 3))) & 0xFFFFu;
    uint64_t h = rng_hash(seed, RNG_STREAM_B, i);
    return (unsigned)((h >> 16) & 0xFFFFu) >> (unsigned)(h & 15u);
}

/* ---- the split ------------------------------------------------------------
 * A pass over the input counts CL_BINS / passes bins (the span); the span is
 * split into `cluster` equal slices, block rank r of the cluster keeping bins
 * [r * slice, (r + 1) * slice) of the span in its shared memory. A cluster of
 * 2 or more holds all 65,536 bins in one pass (128 KiB per block at 2, 16 KiB
 * at 16); a single block (cluster of 1) holds half of them, 128 KiB, and so
 * reads the input twice. */
CL_HD unsigned cl_span(unsigned passes) { return CL_BINS / passes; }
CL_HD unsigned cl_slice(unsigned cluster, unsigned passes) { return CL_BINS / passes / cluster; }
/* Which block of the cluster owns bin b of the span, and where in its slice. */
CL_HD unsigned cl_owner(unsigned b, unsigned slice) { return b / slice; }
CL_HD unsigned cl_offset(unsigned b, unsigned slice) { return b % slice; }

/* ---- the inbox steps (kernels/08 to 12) -----------------------------------
 * A block of a cluster of C >= 2 sends the samples of a peer's slice to it as
 * 16-bit offsets into the peer's inbox; the peer adds them after a barrier.
 * Per round every thread reads `vecs` 16-byte vectors (8 samples each), and
 * the inbox must hold the worst case: every sample of all C - 1 peers'
 * round for this block: (C - 1) * threads * 8 * vecs entries (step 08).
 * Steps 09 to 12 send whole 16-byte chunks of 8 entries, the last one of a
 * send padded with CL_EMPTY (never an offset: a slice has at most 32,768
 * bins). A send carries the K <= 256 samples of one warp's vector that are
 * the peer's, ceil(K / 8) <= 32 chunks, and a peer's warp sends me once per
 * vector: so at most (C - 1) * threads * vecs chunks, no more than the
 * entries' count / 8; padding never needs room of its own.
 * Step 09's staging: CL_STAGE_ENTRIES per warp, one vector's 256 samples.
 * Shared memory of a block: the slice, 16 bytes of counters, the inbox, the
 * staging (the chunked steps only); each part a multiple of 16 bytes. */
#define CL_EMPTY 0xFFFFu
#define CL_STAGE_ENTRIES 256u
#define CL_INBOX_VECS2 4   /* vectors per thread and round at cluster 2: 208 KiB with staging */
#define CL_INBOX_VECS4 3   /* at cluster 4 (3 peers): 224 KiB; 4 would need 272 KiB */
#define CL_SMEM_MAX (227u * 1024u)   /* one block's shared memory on the H200 (sm_90) */

CL_HD unsigned cl_inbox_entries(unsigned cluster, unsigned threads, unsigned vecs)
{
    return (cluster - 1) * threads * 8 * vecs;
}
CL_HD unsigned cl_inbox_chunks(unsigned cluster, unsigned threads, unsigned vecs)
{
    return (cluster - 1) * threads * vecs;
}
CL_HD size_t cl_inbox_smem_bytes(unsigned cluster, unsigned threads, unsigned vecs, int wide)
{
    const size_t slice = (size_t)CL_BINS / cluster * 4, counters = 16;
    if (!wide) return slice + counters + ((size_t)cl_inbox_entries(cluster, threads, vecs) * 2 + 15) / 16 * 16;
    return slice + counters + (size_t)cl_inbox_chunks(cluster, threads, vecs) * 16 +
           (size_t)(threads / 32) * CL_STAGE_ENTRIES * 2;
}

/* ---- the DSMEM probe ------------------------------------------------------
 * Latency: one thread follows a chain of CL_CHASE_WORDS indices (a random
 * single cycle) for CL_CHASE_STEPS loads, in its own block's shared memory,
 * in the other block's (DSMEM), or a chain of CL_CHASE_GLOBAL_WORDS (4 MiB)
 * in global memory; the walk is made twice and the second timed, so the
 * global one finds its lines in L2 (ld.global.cg keeps them out of L1).
 * Bandwidth: every block of a full grid of 2-block clusters reads
 * CL_BW_WORDS 32-bit words (32 KiB) CL_BW_ROUNDS times with 16-byte loads:
 * its own shared memory, its partner's, or its own 32 KiB of global memory
 * (L2 hits after the first round). Word i holds i, so the sum of all words
 * read is known: blocks * rounds * W * (W - 1) / 2. */
#define CL_CHASE_WORDS 8192u
#define CL_CHASE_GLOBAL_WORDS (1u << 20)
#define CL_CHASE_STEPS 4096u
#define CL_BW_WORDS 8192u
#define CL_BW_ROUNDS 256u
#define CL_BW_THREADS 512u

CL_HD uint64_t cl_bw_expected_sum(uint64_t blocks, uint64_t rounds, uint64_t words)
{
    return blocks * rounds * (words * (words - 1) / 2);
}

#endif /* CLUSTERS_COMMON_H */
