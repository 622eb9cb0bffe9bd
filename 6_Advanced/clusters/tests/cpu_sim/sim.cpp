// sim.cpp: runs the clusters sample's histogram kernels (steps 01 to 12) on
// the CPU, without a GPU: one fiber per CUDA thread (tests/support/
// sim_fibers.h: all on one OS thread, lowest first in the order block 0's
// threads, block 1's, ...: after each wait the first thread that may go on
// runs, so a warp goes on through its warp operations to the next
// cluster.sync() before the next warp starts), one cluster at a time (all its blocks at once, as the
// hardware runs them), cluster.sync() as a barrier over every thread of the
// cluster, map_shared_rank as the same byte offset in another block's
// buffer, atomics as GCC __atomic builtins (harmless on one OS thread), and
// the warp's collectives (__ballot_sync, __shfl_sync, __syncwarp: steps 08
// to 11) as a barrier over the warp's 32 threads with a slot per lane.
// The kernels are the real source (kernels/*.cuh, which
// run.sh copies with their dynamic shared memory pointed at the block's
// buffer). Each block's shared memory is filled with 0xA5 bytes before the
// cluster starts, so a slice the kernel forgot to zero shows.
//
// What it checks: the split of the bins (owner, offset, the two passes), the
// vector loop and its tail, the grid-stride step, the merge, and the
// barriers (a missing cluster.sync() makes results wrong here too, most of
// the time: a fiber runs until it waits, so without the barrier the first
// threads finish before the others start), and the inbox steps' protocol
// (reservations, packing and padding, counters per round, draining): at the
// simulator's sizes a cluster makes up to 16 rounds. Not timing, not the GPU's
// memory model (compute-sanitizer on the GPU remains the authority on
// races), not the DSMEM probe (its inline PTX has no CPU meaning), not step
// 07's two PTX lines (mapa, red.shared::cluster: step 03's add stands in).
#include <chrono>
#include <memory>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>

#include "clusters_common.h"
#include "clusters_cpu.h"
#include "../../../../tests/support/sim_fibers.h"

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct alignas(16) uint4 { unsigned x, y, z, w; };
SIM_FIBER_LOCAL(dim3, threadIdx);
SIM_FIBER_LOCAL(dim3, blockIdx);   // the blocks of a cluster run at once
dim3 blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
static inline unsigned atomicAdd(unsigned *p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static inline uint4 __ldg(const uint4 *p) { return *p; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
/* The stall's clock: nanoseconds here, SM cycles on the GPU. It yields:
 * the stalled warp's 32 threads spin on it, and the other fibers run
 * (to their next barrier) meanwhile, as the other warps would. */
static inline long long clock64()
{
    sim_fibers::yield();
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* The cluster being run: its size, each block's shared memory, the barrier. */
static unsigned g_cluster = 1;
static std::vector<unsigned> g_smem[16];
static sim_fibers::barrier *g_cluster_bar;
SIM_FIBER_LOCAL(unsigned, t_rank);
static size_t g_smem_words;
struct sim_token { bool have; sim_fibers::barrier::arrival_token token; };
SIM_FIBER_LOCAL(sim_token, t_token);   /* barrier_arrive()'s, until barrier_wait() */

static unsigned *sim_smem() { return g_smem[t_rank].data(); }

/* The warps of the cluster being run: a barrier over each warp's 32 threads
 * and a slot per lane for what the collectives exchange. */
struct sim_warp {
    sim_fibers::barrier bar{32};
    unsigned slot[32];
};
static std::vector<std::unique_ptr<sim_warp>> g_warps;
SIM_FIBER_LOCAL(sim_warp *, t_warp);
static unsigned sim_exchange(unsigned v, unsigned (*pick)(const unsigned *, unsigned), unsigned arg)
{
    sim_warp &w = *t_warp;
    w.slot[threadIdx.x % 32] = v;
    w.bar.arrive_and_wait();
    const unsigned r = pick(w.slot, arg);
    w.bar.arrive_and_wait();   /* nobody writes a slot before everyone has read */
    return r;
}
static unsigned __ballot_sync(unsigned mask, bool p)
{
    return mask & sim_exchange(p, [](const unsigned *s, unsigned) {
        unsigned b = 0;
        for (unsigned l = 0; l < 32; l++) b |= (s[l] & 1u) << l;
        return b;
    }, 0);
}
static unsigned __shfl_sync(unsigned, unsigned v, int src)
{
    return sim_exchange(v, [](const unsigned *s, unsigned l) { return s[l]; }, (unsigned)src);
}
static void __syncwarp() { t_warp->bar.arrive_and_wait(); }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }

namespace cooperative_groups {
struct cluster_group {
    unsigned block_rank() const { return t_rank; }
    void sync() const { g_cluster_bar->arrive_and_wait(); }
    /* the two halves of sync() (step 11): this thread's token kept until its wait */
    struct arrival_token {};
    arrival_token barrier_arrive() const
    {
        t_token = {true, g_cluster_bar->arrive()};
        return {};
    }
    void barrier_wait() const
    {
        if (!t_token.have) {
            fprintf(stderr, "sim: barrier_wait() without an arrive\n");
            abort();
        }
        g_cluster_bar->wait(t_token.token);
        t_token.have = false;
    }
    template <typename T>
    T *map_shared_rank(T *p, unsigned r) const
    {
        if (r >= g_cluster) {
            fprintf(stderr, "sim: map_shared_rank to rank %u in a cluster of %u\n", r, g_cluster);
            abort();
        }
        const size_t off = (size_t)((const char *)p - (const char *)g_smem[t_rank].data());
        if (off >= g_smem[t_rank].size() * sizeof(unsigned)) {
            fprintf(stderr, "sim: map_shared_rank of a pointer outside the block's shared memory\n");
            abort();
        }
        return (T *)((char *)g_smem[r].data() + off);
    }
};
static inline cluster_group this_cluster() { return cluster_group(); }
}  // namespace cooperative_groups
/* Step 07's add is PTX (mapa, red.shared::cluster); here it is step 03's. */
#define CL_RED_ADD_ONE_DEFINED
static inline void cl_red_add_one(unsigned *local, unsigned rank)
{
    atomicAdd(cooperative_groups::this_cluster().map_shared_rank(local, rank), 1u);
}

#include "kernels.inc"

/* Every kernel as (data, n, hist, stall); step 01 has no stall. */
typedef void (*hist_fn)(const uint16_t *, size_t, unsigned *, long long);

/* Run kernel k as `clusters` clusters of `cluster` blocks of `block` threads,
 * one cluster after another, `words` counters of shared memory per block. */
static void launch(hist_fn k, unsigned clusters, unsigned cluster, unsigned block, size_t words,
                   const uint16_t *d, size_t n, unsigned *hist, long long stall)
{
    gridDim = dim3(clusters * cluster);
    blockDim = dim3(block);
    g_cluster = cluster;
    g_smem_words = words;
    for (unsigned c = 0; c < clusters; c++) {
        for (unsigned r = 0; r < cluster; r++) g_smem[r].assign(words ? words : 1, 0xA5A5A5A5u);
        sim_fibers::barrier bar(cluster * block);
        g_cluster_bar = &bar;
        g_warps.clear();
        for (unsigned w = 0; w < cluster * block / 32; w++) g_warps.push_back(std::make_unique<sim_warp>());
        sim_fibers::run(cluster * block, [=](unsigned i) {
            const unsigned r = i / block, t = i % block;
            threadIdx = dim3(t);
            blockIdx = dim3(c * cluster + r);
            t_rank = r;
            t_warp = block % 32 == 0 ? g_warps[(r * block + t) / 32].get() : nullptr;
            k(d, n, hist, stall);
        }, sim_fibers::LOWEST_FIRST);
    }
}

struct sim_variant {
    const char *name;
    hist_fn k;
    unsigned cluster, passes;   /* cluster 0: step 01, one thread per sample, no clusters */
    int inbox, vecs, wide;      /* the inbox steps' shared memory (cl_inbox_smem_bytes) */
};
static const sim_variant variants[] = {
    {"global_atomics", [](const uint16_t *d, size_t n, unsigned *h, long long) { hist_global_atomics(d, n, h); }, 0, 1},
    {"cluster1_2pass", hist_cluster<1, 2>, 1, 2},
    {"cluster2", hist_cluster2, 2, 1},
    {"cluster4", hist_cluster4, 4, 1},
    {"cluster8", hist_cluster8, 8, 1},
    {"cluster16", hist_cluster16, 16, 1},
    {"cluster2_red", hist_cluster2_red, 2, 1},   /* its PTX add replaced by step 03's */
    {"cluster2_inbox", hist_cluster2_inbox, 2, 1, 1, CL_INBOX_VECS2, 0},
    {"cluster2_inbox_vec", hist_cluster2_inbox_vec, 2, 1, 1, CL_INBOX_VECS2, 1},
    {"cluster2_inbox_prefetch", hist_cluster2_inbox_prefetch, 2, 1, 1, CL_INBOX_VECS2, 1},
    {"cluster2_inbox_split", hist_cluster2_inbox_split, 2, 1, 1, CL_INBOX_VECS2, 1},
    {"cluster4_inbox_split", hist_cluster4_inbox_split, 4, 1, 1, CL_INBOX_VECS4, 1},
};

#define SIM_GUARD_WORDS 8
static const unsigned SIM_GUARD = 0x5A5A5A5Au;
static char g_first_failure[256];

/* One launch on the first n samples, compared with the CPU, guard words after the bins. */
static int run_one(const sim_variant &v, const uint16_t *d, size_t n, unsigned clusters, unsigned block,
                   long long stall = 0)
{
    static unsigned hist[CL_BINS + SIM_GUARD_WORDS], ref[CL_BINS];
    for (unsigned b = 0; b < CL_BINS + SIM_GUARD_WORDS; b++) hist[b] = b < CL_BINS ? 0 : SIM_GUARD;
    memset(ref, 0, sizeof ref);
    clusters_cpu_hist(d, n, ref);
    if (v.cluster == 0) {
        launch(v.k, (unsigned)((n + block - 1) / block), 1, block, 0, d, n, hist, 0);
    } else {
        const size_t words = v.inbox ? cl_inbox_smem_bytes(v.cluster, block, v.vecs, v.wide) / sizeof(unsigned)
                                     : cl_slice(v.cluster, v.passes);
        launch(v.k, clusters, v.cluster, block, words, d, n, hist, stall);
    }
    for (unsigned b = 0; b < CL_BINS + SIM_GUARD_WORDS; b++) {
        const unsigned want = b < CL_BINS ? ref[b] : SIM_GUARD;
        if (hist[b] != want) {
            snprintf(g_first_failure, sizeof g_first_failure,
                     "%s n=%zu grid=%u clusters of %u x %u threads%s: bin %u is %u, want %u%s", v.name, n,
                     v.cluster ? clusters : (unsigned)((n + block - 1) / block), v.cluster ? v.cluster : 1, block,
                     stall ? ", warp 0 of block 0 late" : "", b, hist[b], want, b >= CL_BINS ? " (guard word)" : "");
            printf("  FAIL %s\n", g_first_failure);
            return 0;
        }
    }
    return 1;
}

/* sim [VARIANT...]: every variant, or those named; sim --list: their names. */
int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (const sim_variant &v : variants) printf("%s\n", v.name);
        return 0;
    }
    for (int a = 1; a < argc; a++) {
        int known = 0;
        for (const sim_variant &v : variants) known |= strcmp(argv[a], v.name) == 0;
        if (!known) {
            printf("sim: no variant named '%s'\nSIM ERROR\n", argv[a]);
            return 2;
        }
    }
    const size_t max_n = 65541;
    static uint16_t data[2][65544];   /* a multiple of 8 past max_n: the vectors stay inside */
    for (int kind = 0; kind < CL_N_INPUTS; kind++)
        for (size_t i = 0; i < sizeof data[0] / sizeof data[0][0]; i++)
            data[kind][i] = (uint16_t)cl_input_value(kind, 2026, i);
    /* The sample's odd sizes; 64-thread blocks (the kernels read blockDim). */
    const size_t sizes[] = {1, 7, 9, 1000, 4097, max_n};
    int failed = 0;
    for (const sim_variant &v : variants) {
        int wanted = argc == 1;
        for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], v.name) == 0;
        if (!wanted) continue;
        int ok = 1;
        for (int kind = 0; kind < CL_N_INPUTS && ok; kind++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && ok; s++) {
                /* one cluster of 64-thread blocks: every thread loops at 65541 */
                ok &= run_one(v, data[kind], sizes[s], 1, 64);
                /* three clusters: the grid stride spans clusters */
                if (ok && v.cluster) ok &= run_one(v, data[kind], sizes[s], 3, 32);
            }
        /* as the sample's check: warp 0 of block 0 zeroes 20 ms late */
        for (int kind = 0; kind < CL_N_INPUTS && ok && v.cluster; kind++)
            ok &= run_one(v, data[kind], max_n, 1, 64, 20000000);
        printf("%s: %s\n", v.name, ok ? "pass" : "FAIL");
        if (!ok) {
            failed = 1;
            break;
        }
    }
    if (failed) printf("SIM FAIL: %s\n", g_first_failure);
    else printf("SIM PASS\n");
    return failed;
}
