/* Step 07: cluster2_red. The one change from step 03 (cluster2): how a
 * sample is added. Steps 03 to 06 add through the generic pointer that
 * cluster.map_shared_rank returns: the PTX is mapa.u64 (generic) and a
 * generic atom.add.u32, which returns the old value and must be told at run
 * time which memory the address points into. Here the bin's address is taken
 * in the shared window (__cvta_generic_to_shared: a 32-bit offset), mapped to
 * the owner block with mapa.shared::cluster.u32, and the add is
 * red.shared::cluster.add.u32: a reduction in distributed shared memory that
 * returns nothing, so no thread waits for it. Everything else (the slices,
 * the two cluster.sync(), the stall of the checks, the merge) is step 02's.
 *
 * Why it could help: step 02, whose compiler could see that every add stays
 * in its own block, got atom.shared.add and beat every real cluster in our
 * first H200 run; this gives the cluster's adds an address space too.
 *
 * Measured: no change. 1.647 ms at 512 MiB of uniform samples against step
 * 03's 1.649 ms, and 2.603 against 2.605 ms on the skewed input (results/H200/clusters.txt, commit 13f861f).
 * How a thread issues the remote add is not what it costs; the README's deep
 * dive counts the adds per second against the DSMEM probe. */

/* Add 1 to the counter at `local` (a pointer into this block's slice) in
 * block `rank` of the cluster: the same offset in that block's slice. (The
 * CPU simulator, which cannot run PTX, brings its own: an atomicAdd through
 * map_shared_rank, i.e. step 03's add.) */
#ifndef CL_RED_ADD_ONE_DEFINED
__device__ __forceinline__ void cl_red_add_one(unsigned *local, unsigned rank)
{
    const unsigned addr = (unsigned)__cvta_generic_to_shared(local);
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
    asm volatile("red.shared::cluster.add.u32 [%0], %1;" ::"r"(remote), "r"(1u) : "memory");
}
#endif

template <int CLUSTER>
__global__ void __launch_bounds__(CL_THREADS)
hist_cluster_red(const uint16_t *data, size_t n, unsigned *hist, long long stall)
{
    extern __shared__ unsigned slice_bins[];   /* cl_slice(CLUSTER, 1) counters */
    constexpr unsigned SLICE = CL_BINS / CLUSTER;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();

    if (stall && rank == 0 && threadIdx.x < 32) {   /* the checks' late zeroer (step 02) */
        const long long t0 = clock64();
        while (clock64() - t0 < stall) { }
    }

    uint4 *slice4 = (uint4 *)slice_bins;
    for (unsigned q = threadIdx.x; q < SLICE / 4; q += blockDim.x) slice4[q] = make_uint4(0, 0, 0, 0);
    cluster.sync();   /* 1: every slice of the cluster is zero */

    for_each_sample(data, n, [&](unsigned v) {
        cl_red_add_one(slice_bins + cl_offset(v, SLICE), cl_owner(v, SLICE));
    });
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
constexpr auto hist_cluster2_red = hist_cluster_red<2>;
