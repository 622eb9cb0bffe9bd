/* dsmem_probe.cuh: not a histogram step but the measurement beside them:
 * what one access to another block's shared memory (DSMEM) costs, next to
 * the block's own shared memory and to global memory served by L2.
 *
 * Both kernels run as clusters of 2 blocks and address memory with PTX, so
 * the compiler can neither merge nor hoist a load and the state space of
 * each load is the one named:
 *   own shared memory   ld.shared (a 32-bit shared address)
 *   the partner's       mapa.shared::cluster turns our address into the same
 *                       word of block `rank`, ld.shared::cluster reads it
 *   global (L2)         ld.global.cg: cached in L2 only, never in L1
 * Both end with cluster.sync(): a block's shared memory must outlive every
 * read of it by its partner. */

enum { PROBE_LOCAL = 0, PROBE_REMOTE = 1, PROBE_GLOBAL = 2 };

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ unsigned cluster_addr(unsigned local, unsigned rank)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(local), "r"(rank));
    return r;
}

__device__ __forceinline__ unsigned ld_local(unsigned a)
{
    unsigned v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
    return v;
}
__device__ __forceinline__ unsigned ld_remote(unsigned a)
{
    unsigned v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
    return v;
}
__device__ __forceinline__ unsigned ld_l2(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* Latency: grid of one cluster of 2 blocks of 32 threads. Both blocks copy
 * the chain (next[], CL_CHASE_WORDS indices) into their shared memory; then
 * thread 0 of block 0 follows it from index 0 for `steps` loads, each
 * address the value of the load before (so no two overlap), twice: the first
 * walk untimed (it brings the global chain's lines into L2), the second
 * timed with clock64 over the same path. out[0] = the index the timed walk
 * ended on (the host checks it against clusters_chase_end), out[1] = its
 * cycles. For PROBE_GLOBAL it follows gchain[] (CL_CHASE_GLOBAL_WORDS, in
 * global memory) instead. */
__global__ void probe_latency(const unsigned *chain, const unsigned *gchain, int where, unsigned steps,
                              unsigned long long *out)
{
    extern __shared__ unsigned chase[];
    cg::cluster_group cluster = cg::this_cluster();
    for (unsigned i = threadIdx.x; i < CL_CHASE_WORDS; i += blockDim.x) chase[i] = chain[i];
    cluster.sync();   /* both chains in place before anyone reads the partner's */
    if (cluster.block_rank() == 0 && threadIdx.x == 0) {
        const unsigned base = where == PROBE_REMOTE ? cluster_addr(smem_addr(chase), 1) : smem_addr(chase);
        unsigned j = 0;
        long long t0 = 0, t1 = 0;
        for (int walk = 0; walk < 2; walk++) {
            j = 0;
            t0 = clock64();
            for (unsigned k = 0; k < steps; k++) {
                if (where == PROBE_GLOBAL) j = ld_l2(gchain + j);
                else if (where == PROBE_REMOTE) j = ld_remote(base + 4 * j);
                else j = ld_local(base + 4 * j);
            }
            t1 = clock64();
        }
        out[0] = j;
        out[1] = (unsigned long long)(t1 - t0);
    }
    cluster.sync();   /* block 1's shared memory stays until block 0 is done with it */
}

/* Bandwidth: a full grid of 2-block clusters, CL_BW_THREADS threads each.
 * Each block fills its CL_BW_WORDS words (word i = i), then reads a whole
 * buffer `rounds` times with 16-byte loads: its own, its partner's (rank ^ 1),
 * or its own CL_BW_WORDS words of gbuf in global memory (filled the same
 * way by the host). Each thread adds what it read and adds its sum into
 * *total once: the host checks it (cl_bw_expected_sum). */
__global__ void __launch_bounds__(CL_BW_THREADS)
probe_bandwidth(const unsigned *gbuf, int where, unsigned rounds, unsigned long long *total)
{
    __shared__ __align__(16) unsigned buf[CL_BW_WORDS];
    cg::cluster_group cluster = cg::this_cluster();
    for (unsigned i = threadIdx.x; i < CL_BW_WORDS; i += blockDim.x) buf[i] = i;
    cluster.sync();
    const unsigned own = smem_addr(buf);
    const unsigned base = where == PROBE_REMOTE ? cluster_addr(own, cluster.block_rank() ^ 1) : own;
    const unsigned *g = gbuf + (size_t)blockIdx.x * CL_BW_WORDS;
    unsigned sum = 0;
    for (unsigned r = 0; r < rounds; r++) {
        for (unsigned i = 4 * threadIdx.x; i < CL_BW_WORDS; i += 4 * blockDim.x) {
            unsigned a, b, c, d;
            if (where == PROBE_GLOBAL)
                asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                             : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(g + i) : "memory");
            else if (where == PROBE_REMOTE)
                asm volatile("ld.shared::cluster.v4.u32 {%0,%1,%2,%3}, [%4];"
                             : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(base + 4 * i) : "memory");
            else
                asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                             : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(base + 4 * i) : "memory");
            sum += a + b + c + d;
        }
    }
    atomicAdd(total, (unsigned long long)sum);
    cluster.sync();   /* the partner may still be reading this block's buffer */
}
