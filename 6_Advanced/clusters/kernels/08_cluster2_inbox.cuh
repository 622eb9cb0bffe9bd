/* Step 08: cluster2_inbox. The one change from step 03 (cluster2): a sample
 * whose bin lives in the other block is not added there with a remote
 * atomic; its offset in that block's slice (16 bits: a slice holds at most
 * 32,768 bins) is *sent*: written with a plain store into an inbox in the
 * owner's shared memory. The owner adds what its inbox holds with its own
 * shared-memory atomics. A sample of the block's own slice is added at once,
 * with a shared-memory atomic (atom.shared, as in step 02).
 *
 * The input is read in rounds: in each round every thread loads VECS 16-byte
 * vectors (8 samples each) of the grid's next VECS * threads vectors, then
 *   send     for each vector and each peer block d, the warp finds which of
 *            its 256 samples belong to d (one __ballot_sync per sample
 *            position), lane 0 reserves that many entries in d's inbox with
 *            ONE remote atomicAdd on d's inbox counter, and each lane stores
 *            its offsets at its place in the reserved run;
 *   A        cluster.sync(): every entry sent to me has landed;
 *   drain    the block adds the entries of its inbox into its slice with
 *            local atomics, 8 entries (16 bytes) read at a time;
 *   B        cluster.sync(): my inbox is drained before anyone writes it again.
 * The inbox holds one round's worst case (every sample every peer reads
 * belongs to me: cl_inbox_entries), so it never overflows; should it, a
 * warp's reservation is dropped and the exact check fails. The drain reads
 * no further than the inbox and adds no entry outside the slice: a broken
 * protocol gives wrong counts (a FAIL record), never an access out of the
 * block's shared memory.
 *
 * The counters: inbox_count[r % 2] counts round r's entries. After A the
 * block reads inbox_count[r % 2], and thread 0 zeroes the other one, last
 * read before the previous round's B and next written after this round's B:
 * so no thread of the block can read a counter another thread has zeroed.
 *
 * stall (0 in every timed run): as in step 02, warp 0 of block rank 0 zeroes
 * late; and in round 0 it also drains late, so that without barrier B a
 * peer's next round would overwrite the entries it has not drained yet.
 *
 * Around the rounds stand step 02's barriers: 1 after zeroing the slice and
 * the counters, 2 before the merge (the n % 8 samples after the last whole
 * vector are added with step 03's remote atomics, before barrier 2). Every
 * block makes the same number of rounds (it depends on n and the grid only),
 * so every thread of the cluster reaches every cluster.sync().
 *
 * Why it should help: step 03 sends one remote request per remote sample,
 * an atomic the owner must read, modify and write; here one remote atomic
 * per warp per peer per vector (1 in 128 remote samples, on uniform
 * samples at cluster 2), and stores, which nobody waits for; the adds
 * themselves all run at shared-memory speed. Against it: a second pass over
 * half the samples (the drain), two cluster.sync() per round, and still one
 * 2-byte store per remote sample (whether the network merges a warp's
 * neighbouring stores is what this step measures; step 09 does not leave
 * it to chance).
 *
 * Measured: 0.5124 ms at 2^28 uniform samples, 3.25x faster than step 03
 * (1.667 ms) and 5.66x global atomics (2.901 ms) in the same run, and 8%
 * faster than step 02: the fastest variant of that run (results/H200/clusters_inbox_steps.txt, commit 39af820).
 *
 * The same kernel runs steps 09 to 12 (their files say what they change):
 *   WIDE      0: one 2-byte store per remote sample, straight to the owner;
 *             1 (step 09): the warp packs a peer's offsets in a staging
 *             buffer of its own shared memory first and sends them as
 *             16-byte stores (8 offsets each; a partial last one padded with
 *             CL_EMPTY); the counters then count 16-byte chunks.
 *   PREFETCH  1 (step 10): each round's loads are issued one round early,
 *             so they fly during the barriers and the drain.
 *   SPLIT     1 (step 11): barriers A and B each split into an arrive and a
 *             wait, with work that needs no peer in between: the own-slice
 *             adds between A's arrive and wait; the next round's loads
 *             between B's arrive and wait (B's wait comes just before the
 *             next round's first send, and after the last round).
 */
#define CL_FULL_WARP 0xFFFFFFFFu

/* The entries of an inbox round (see clusters_common.h, cl_inbox_*) and the
 * staging buffers of step 09, after the slice and the two counters:
 *   [slice: SLICE counters][inbox_count[2], 2 words spare][inbox][staging]
 * Everything is reached through slice_bins, the block's dynamic shared
 * memory, so map_shared_rank finds the same places in a peer. */

/* The 8 samples of one 16-byte vector. */
__device__ __forceinline__ void cl_unpack8(const uint4 w, unsigned s[8])
{
    s[0] = w.x & 0xFFFFu; s[1] = w.x >> 16;
    s[2] = w.y & 0xFFFFu; s[3] = w.y >> 16;
    s[4] = w.z & 0xFFFFu; s[5] = w.z >> 16;
    s[6] = w.w & 0xFFFFu; s[7] = w.w >> 16;
}

/* Add the samples of s[8] that are in my slice, with shared-memory atomics. */
__device__ __forceinline__ void cl_add_own(unsigned *slice_bins, const unsigned s[8], bool have, unsigned rank,
                                           unsigned slice)
{
#pragma unroll
    for (int j = 0; j < 8; j++)
        if (have && cl_owner(s[j], slice) == rank) atomicAdd(&slice_bins[cl_offset(s[j], slice)], 1u);
}

template <int CLUSTER, int VECS, int WIDE, int PREFETCH, int SPLIT>
__global__ void __launch_bounds__(CL_THREADS)
hist_inbox(const uint16_t *data, size_t n, unsigned *hist, long long stall)
{
    extern __shared__ unsigned slice_bins[];   /* cl_inbox_smem_bytes(CLUSTER, blockDim.x, VECS, WIDE) */
    constexpr unsigned SLICE = CL_BINS / CLUSTER;
    static_assert(CLUSTER >= 2 && SLICE <= CL_EMPTY, "an offset and the pad value fit in 16 bits");
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const unsigned lane = threadIdx.x % 32, below = (1u << lane) - 1u;   /* the lanes before mine */

    unsigned *inbox_count = slice_bins + SLICE;   /* [0]: even rounds, [1]: odd rounds */
    uint16_t *inbox = (uint16_t *)(slice_bins + SLICE + 4);
    /* in entries (WIDE = 0) or 16-byte chunks of 8 entries (WIDE = 1) */
    const unsigned cap = WIDE ? cl_inbox_chunks(CLUSTER, blockDim.x, VECS)
                              : cl_inbox_entries(CLUSTER, blockDim.x, VECS);
    uint16_t *stage = inbox + (WIDE ? 8 * cap : cap) + (threadIdx.x / 32) * CL_STAGE_ENTRIES;   /* WIDE: my warp's */

    if (stall && rank == 0 && threadIdx.x < 32) {   /* the checks' late zeroer (step 02) */
        const long long t0 = clock64();
        while (clock64() - t0 < stall) { }
    }
    uint4 *slice4 = (uint4 *)slice_bins;
    for (unsigned q = threadIdx.x; q < SLICE / 4; q += blockDim.x) slice4[q] = make_uint4(0, 0, 0, 0);
    if (threadIdx.x == 0) inbox_count[0] = inbox_count[1] = 0;
    cluster.sync();   /* 1: every slice and every inbox counter of the cluster is zero */

    const size_t threads = (size_t)gridDim.x * blockDim.x;
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t nvec = n / 8;
    const size_t rounds = (nvec + threads * VECS - 1) / (threads * VECS);   /* the same in every block */
    const uint4 *vec = (const uint4 *)data;
    uint4 next[VECS];   /* PREFETCH: the round after this one */
    if (PREFETCH) {
#pragma unroll
        for (int k = 0; k < VECS; k++) {
            const size_t i = (size_t)k * threads + gtid;
            next[k] = i < nvec ? __ldg(vec + i) : make_uint4(0, 0, 0, 0);
        }
    }

    for (size_t r = 0; r < rounds; r++) {
        const unsigned parity = (unsigned)(r & 1);
        uint4 w[VECS];
        bool have[VECS];
#pragma unroll
        for (int k = 0; k < VECS; k++) {
            const size_t i = (r * VECS + k) * threads + gtid;
            have[k] = i < nvec;
            if (PREFETCH) {
                w[k] = next[k];
                const size_t j = i + VECS * threads;   /* the same vector of round r + 1 */
                next[k] = j < nvec ? __ldg(vec + j) : make_uint4(0, 0, 0, 0);
            } else {
                w[k] = have[k] ? __ldg(vec + i) : make_uint4(0, 0, 0, 0);
            }
        }
        if (SPLIT && r > 0) cluster.barrier_wait();   /* B of round r - 1: peers may be sent to again */

#pragma unroll
        for (int k = 0; k < VECS; k++) {
            unsigned s[8];
            cl_unpack8(w[k], s);
            if (!SPLIT) cl_add_own(slice_bins, s, have[k], rank, SLICE);   /* SPLIT: after A's arrive */

            for (unsigned d = 0; d < CLUSTER; d++) {   /* each peer: its samples, sent */
                if (d == rank) continue;              /* the same in the whole block */
                unsigned m[8], total = 0;
#pragma unroll
                for (int j = 0; j < 8; j++) {
                    m[j] = __ballot_sync(CL_FULL_WARP, have[k] && cl_owner(s[j], SLICE) == d);
                    total += __popc(m[j]);
                }
                if (total == 0) continue;   /* the same in the whole warp */
                unsigned *peer_count = cluster.map_shared_rank(inbox_count, d);
                uint16_t *peer_inbox = cluster.map_shared_rank(inbox, d);
                if (!WIDE) {
                    /* Reserve `total` entries, then each lane stores its own. */
                    unsigned base = 0;
                    if (lane == 0) {
                        base = atomicAdd(peer_count + parity, total);
                        if (base + total > cap) base = ~0u;   /* cannot happen; if it did, the check fails */
                    }
                    base = __shfl_sync(CL_FULL_WARP, base, 0);
                    if (base == ~0u) continue;
#pragma unroll
                    for (int j = 0; j < 8; j++) {
                        if (m[j] >> lane & 1u) peer_inbox[base + __popc(m[j] & below)] = (uint16_t)cl_offset(s[j], SLICE);
                        base += __popc(m[j]);
                    }
                } else {
                    /* Pack into my warp's staging buffer, pad to whole 16-byte
                     * chunks, reserve that many chunks, one chunk per lane. */
                    unsigned pos = 0;
#pragma unroll
                    for (int j = 0; j < 8; j++) {
                        if (m[j] >> lane & 1u) stage[pos + __popc(m[j] & below)] = (uint16_t)cl_offset(s[j], SLICE);
                        pos += __popc(m[j]);
                    }
                    const unsigned chunks = (total + 7) / 8;
                    if (lane < 8 * chunks - total) stage[total + lane] = (uint16_t)CL_EMPTY;
                    __syncwarp();   /* the staged chunks are complete */
                    unsigned base = 0;
                    if (lane == 0) {
                        base = atomicAdd(peer_count + parity, chunks);
                        if (base + chunks > cap) base = ~0u;   /* cannot happen; if it did, the check fails */
                    }
                    base = __shfl_sync(CL_FULL_WARP, base, 0);
                    if (base != ~0u && lane < chunks)
                        ((uint4 *)peer_inbox)[base + lane] = ((const uint4 *)stage)[lane];
                    __syncwarp();   /* read before the next peer or vector stages again */
                }
            }
        }
        if (SPLIT) {
            cluster.barrier_arrive();   /* A, arrive: my sends of this round are done */
#pragma unroll
            for (int k = 0; k < VECS; k++) {
                unsigned s[8];
                cl_unpack8(w[k], s);
                cl_add_own(slice_bins, s, have[k], rank, SLICE);
            }
            cluster.barrier_wait();     /* A, wait: every entry sent to me this round has landed */
        } else {
            cluster.sync();   /* A: every entry sent to me this round has landed */
        }

        if (stall && r == 0 && rank == 0 && threadIdx.x < 32) {   /* the checks' late drainer (above) */
            const long long t0 = clock64();
            while (clock64() - t0 < stall) { }
        }
        const unsigned got = min(inbox_count[parity], cap);   /* past cap: dropped reservations */
        const uint4 *in4 = (const uint4 *)inbox;
        const unsigned whole = WIDE ? got : got / 8;   /* 16-byte chunks */
        for (unsigned q = threadIdx.x; q < whole; q += blockDim.x) {
            unsigned e[8];
            cl_unpack8(in4[q], e);
#pragma unroll
            for (int j = 0; j < 8; j++)
                if (e[j] < SLICE) atomicAdd(&slice_bins[e[j]], 1u);   /* not a pad (CL_EMPTY) */
        }
        if (!WIDE)   /* the entries after the last whole chunk */
            for (unsigned q = 8 * whole + threadIdx.x; q < got; q += blockDim.x)
                if (inbox[q] < SLICE) atomicAdd(&slice_bins[inbox[q]], 1u);
        if (threadIdx.x == 0) inbox_count[parity ^ 1] = 0;   /* next round's (see above) */
        if (SPLIT) cluster.barrier_arrive();   /* B, arrive: waited for before the next sends */
        else cluster.sync();   /* B: my inbox is drained; peers may send again */
    }
    if (SPLIT && rounds > 0) cluster.barrier_wait();   /* the last round's B */

    /* The samples after the last whole vector: at most 7, step 03's way. */
    for (size_t i = 8 * nvec + gtid; i < n; i += threads) {
        const unsigned v = data[i];
        atomicAdd(cluster.map_shared_rank(slice_bins, cl_owner(v, SLICE)) + cl_offset(v, SLICE), 1u);
    }
    cluster.sync();   /* 2: every add into my slice has landed; nobody leaves early */

    for (unsigned q = threadIdx.x; q < SLICE / 4; q += blockDim.x) {
        const uint4 c = slice4[q];
        unsigned *out = &hist[rank * SLICE + 4 * q];
        if (c.x) atomicAdd(out + 0, c.x);
        if (c.y) atomicAdd(out + 1, c.y);
        if (c.z) atomicAdd(out + 2, c.z);
        if (c.w) atomicAdd(out + 3, c.w);
    }
}
constexpr auto hist_cluster2_inbox = hist_inbox<2, CL_INBOX_VECS2, 0, 0, 0>;
