/* Step 02: cluster1_2pass. The one change from step 01: privatization. Each
 * block counts into its own copy of the bins in shared memory (an atomic on
 * the SM, not a trip to L2) and adds its copy into the global histogram once
 * at the end. But 65,536 bins of 32 bits are 256 KiB, and one block may have
 * 227 KiB: so a single block keeps half the bins (128 KiB) and reads the
 * input twice, pass 0 counting values 0..32767, pass 1 the rest. That is
 * what a cluster of one block costs: twice the reads, half the samples of
 * each pass thrown away.
 *
 * The kernel is written for a cluster of CLUSTER blocks from the start (a
 * grid launched without clusters is a grid of 1-block clusters on sm_90):
 * block rank r keeps slice r of the span (clusters_common.h, cl_slice), and
 * a sample's counter lives in the shared memory of block cl_owner(b), which
 * cluster.map_shared_rank turns into a pointer this block can add through.
 * Steps 03 to 06 change only CLUSTER (and PASSES to 1).
 *
 * The two cluster.sync() calls of a pass are the whole protocol:
 *   1. after zeroing: no block may add into a peer's slice before the peer
 *      has zeroed it;
 *   2. after counting: a block merges its slice only once every block has
 *      finished adding into it, and no block exits (its shared memory going
 *      away) while a peer may still be adding into it.
 * A thread zeroes and merges the same words (the same q loop), so the next
 * pass's zeroing needs no extra barrier within the block.
 *
 * stall (0 in every timed run): a check makes warp 0 of block rank 0 wait
 * that many clock cycles before it zeroes its share of the slice. On the GPU
 * the blocks of a cluster start together and zeroing is fast, so without
 * barrier 1 an add would almost never beat the zeroing; with the stall, the
 * other warps and blocks count long before warp 0 zeroes, and a missing
 * barrier 1 loses their adds into those words: the check sees it. */
template <int CLUSTER, int PASSES>
__global__ void __launch_bounds__(CL_THREADS)
hist_cluster(const uint16_t *data, size_t n, unsigned *hist, long long stall)
{
    extern __shared__ unsigned slice_bins[];   /* cl_slice(CLUSTER, PASSES) counters */
    constexpr unsigned SPAN = CL_BINS / PASSES;
    constexpr unsigned SLICE = SPAN / CLUSTER;
    static_assert(SPAN % CLUSTER == 0, "the span splits evenly over the cluster");
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();

    if (stall && rank == 0 && threadIdx.x < 32) {   /* the checks' late zeroer (see above) */
        const long long t0 = clock64();
        while (clock64() - t0 < stall) { }
    }

    uint4 *slice4 = (uint4 *)slice_bins;   /* zeroed and merged 16 bytes (4 counters) at a time */
    for (unsigned pass = 0; pass < PASSES; pass++) {
        const unsigned base = pass * SPAN;
        for (unsigned q = threadIdx.x; q < SLICE / 4; q += blockDim.x) slice4[q] = make_uint4(0, 0, 0, 0);
        cluster.sync();   /* 1: every slice of the cluster is zero */

        for_each_sample(data, n, [&](unsigned v) {
            const unsigned b = v - base;          /* wraps past SPAN when v < base */
            if (PASSES == 1 || b < SPAN) {
                unsigned *owner = cluster.map_shared_rank(slice_bins, cl_owner(b, SLICE));
                atomicAdd(owner + cl_offset(b, SLICE), 1u);
            }
        });
        cluster.sync();   /* 2: every add into my slice has landed; nobody leaves early */

        for (unsigned q = threadIdx.x; q < SLICE / 4; q += blockDim.x) {
            const uint4 c = slice4[q];
            unsigned *out = &hist[base + rank * SLICE + 4 * q];
            if (c.x) atomicAdd(out + 0, c.x);
            if (c.y) atomicAdd(out + 1, c.y);
            if (c.z) atomicAdd(out + 2, c.z);
            if (c.w) atomicAdd(out + 3, c.w);
        }
    }
}
