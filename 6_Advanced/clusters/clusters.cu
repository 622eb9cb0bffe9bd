/* clusters: thread block clusters and distributed shared memory (DSMEM).
 * A histogram of 16-bit samples has 65,536 bins: 256 KiB of 32-bit counts,
 * more than one block's shared memory (227 KiB on an H200). A cluster of 2
 * to 16 blocks, scheduled together on one GPC, can hold them all: each block
 * keeps a slice, and a thread adds into any block's slice through
 * cluster.map_shared_rank.
 *
 * What it teaches: launching clusters (cudaLaunchKernelEx with
 * cudaLaunchAttributeClusterDimension; cudaOccupancyMaxActiveClusters; the
 * non-portable size 16), addressing a peer block's shared memory, the two
 * cluster.sync() calls that make it safe, what a DSMEM access costs
 * next to the block's own shared memory and to L2, and (steps 08 to 12) how
 * to batch the remote traffic: samples sent into an inbox in the owner's
 * shared memory, with one remote atomic per warp, instead of a remote
 * atomic per sample.
 *
 * Build:  make -C 6_Advanced/clusters     (or `make clusters` at the top; sm_90 or later)
 * Run:    bin/clusters                    2^28 samples (512 MiB), both inputs, every variant, the probe
 *         bin/clusters --input=skewed --variant=cluster4
 *         bin/clusters --variant=probe    the DSMEM latency and bandwidth probe alone
 *         bin/clusters --quick            small sizes, for compute-sanitizer
 *
 * The kernels: one file per step, kernels/NN_<variant>.cuh, in teaching order.
 *   cpu              the CPU histogram (clusters_cpu.c), timed once
 *   cub              cub::DeviceHistogram::HistogramEven, 65,537 levels: the reference
 *   01 global_atomics  one thread per sample, one global atomicAdd each
 *   02 cluster1_2pass  bins in shared memory, one block per cluster: half the bins
 *                      fit, so two passes over the input
 *   03 cluster2        a cluster of 2 holds all the bins: one pass, half the adds remote
 *   04 cluster4        4 blocks of 64 KiB
 *   05 cluster8        8 blocks of 32 KiB (the largest portable size)
 *   06 cluster16       16 blocks of 16 KiB (non-portable; only where it fits)
 *   07 cluster2_red    step 03 with each add a red.shared::cluster on a mapa
 *                      address instead of an atomicAdd through a generic pointer
 *   08 cluster2_inbox  remote samples sent as 16-bit offsets into the owner's
 *                      inbox (one remote atomic per warp reserves the space),
 *                      added there with local atomics after a cluster.sync()
 *   09 cluster2_inbox_vec       the offsets staged and sent 16 bytes at a time
 *   10 cluster2_inbox_prefetch  the next round's loads issued before the barriers
 *   11 cluster2_inbox_split     each barrier split into arrive and wait, work in between
 *   12 cluster4_inbox_split     step 11 on a cluster of 4
 *   probe              DSMEM latency (pointer chase, clock64) and bandwidth, next to
 *                      shared memory and L2 (dsmem_probe.cuh)
 *
 * Inputs (clusters_common.h): uniform 16-bit values, and a skewed
 * (log-uniform) one where bins 0 and 1 each take 6.25% of the samples.
 * Counts are exact and compared exactly with the CPU's.
 * Bytes counted: 2 per sample, read once (1e9 bytes per GB); the 256 KiB
 * histogram written is left out (0.05% of 512 MiB).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cub/device/device_histogram.cuh>

#include "check.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "timing.h"

#include "clusters_common.h"
#include "clusters_cpu.h"

/* ---- CPU reference -------------------------------------------------------
 * clusters_cpu_hist (clusters_cpu.c): hist[v]++ per sample. */

/* ---- kernels: one file per step ------------------------------------------ */
#include "kernels/00_common.cuh"
#include "kernels/01_global_atomics.cuh"
#include "kernels/02_cluster1_2pass.cuh"
#include "kernels/03_cluster2.cuh"
#include "kernels/04_cluster4.cuh"
#include "kernels/05_cluster8.cuh"
#include "kernels/06_cluster16.cuh"
#include "kernels/07_cluster2_red.cuh"
#include "kernels/08_cluster2_inbox.cuh"
#include "kernels/09_cluster2_inbox_vec.cuh"
#include "kernels/10_cluster2_inbox_prefetch.cuh"
#include "kernels/11_cluster2_inbox_split.cuh"
#include "kernels/12_cluster4_inbox_split.cuh"
#include "dsmem_probe.cuh"   /* not a step: the measurement beside them */

/* ---- launchers ----------------------------------------------------------- */

typedef struct {
    const uint16_t *data;
    size_t n;
    unsigned *hist;          /* 65,536 32-bit counts: every variant's output */
    void *cub_temp;
    size_t cub_bytes;
    unsigned force_clusters; /* a checked launch's own number of clusters; 0 = the launcher's */
    long long stall;         /* a checked launch's late zeroer (kernels/02) and drainer (kernels/08):
                                clock cycles; 0 = none */
} cl_ctx;

typedef void (*hist_kernel)(const uint16_t *, size_t, unsigned *, long long);

static void run_global_atomics(void *p, cudaStream_t s)
{
    const cl_ctx *x = (const cl_ctx *)p;
    CUDA_CHECK(cudaMemsetAsync(x->hist, 0, CL_BINS * sizeof(unsigned), s));
    const size_t blocks = (x->n + ATOMIC_THREADS - 1) / ATOMIC_THREADS;
    hist_global_atomics<<<(unsigned)blocks, ATOMIC_THREADS, 0, s>>>(x->data, x->n, x->hist);
    CHECK_LAUNCH();
}

/* Which kernel a cluster step runs: hist_cluster (steps 02 to 06),
 * hist_cluster_red (step 07), hist_inbox (steps 08 to 12: the 16-bit sends,
 * the staged 16-byte sends, those with the loads one round early, and those
 * with each barrier split in two). */
enum { K_PLAIN = 0, K_RED = 1, K_INBOX = 2, K_INBOX_VEC = 3, K_INBOX_PREFETCH = 4, K_INBOX_SPLIT = 5 };

/* Vectors per thread and round of an inbox step: as many as its inbox fits. */
static constexpr int inbox_vecs(int cluster) { return cluster == 2 ? CL_INBOX_VECS2 : CL_INBOX_VECS4; }

/* A block's dynamic shared memory: its slice of the bins, and for the inbox
 * steps the inbox and the staging (clusters_common.h, cl_inbox_smem_bytes). */
template <int CLUSTER, int PASSES, int KIND>
static size_t cluster_smem(void)
{
    if (KIND >= K_INBOX) return cl_inbox_smem_bytes(CLUSTER, CL_THREADS, inbox_vecs(CLUSTER), KIND != K_INBOX);
    return cl_slice(CLUSTER, PASSES) * sizeof(unsigned);
}

/* The launch configuration of a cluster step: CLUSTER blocks per cluster
 * along x, cluster_smem() bytes of dynamic shared memory per block.
 * `clusters` = 0 leaves the grid to fill in. */
template <int CLUSTER, int PASSES, int KIND>
static cudaLaunchConfig_t cluster_config(unsigned clusters, cudaLaunchAttribute *attr, cudaStream_t s)
{
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(clusters * CLUSTER);
    c.blockDim = dim3(CL_THREADS);
    c.dynamicSmemBytes = cluster_smem<CLUSTER, PASSES, KIND>();
    c.stream = s;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = CLUSTER;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    c.attrs = attr;
    c.numAttrs = 1;
    return c;
}

/* The kernel of a cluster step (KIND above). */
template <int CLUSTER, int PASSES, int KIND>
static hist_kernel cluster_kernel(void)
{
    if constexpr (KIND == K_RED) return hist_cluster_red<CLUSTER>;
    else if constexpr (KIND == K_INBOX) return hist_inbox<CLUSTER, inbox_vecs(CLUSTER), 0, 0, 0>;
    else if constexpr (KIND == K_INBOX_VEC) return hist_inbox<CLUSTER, inbox_vecs(CLUSTER), 1, 0, 0>;
    else if constexpr (KIND == K_INBOX_PREFETCH) return hist_inbox<CLUSTER, inbox_vecs(CLUSTER), 1, 1, 0>;
    else if constexpr (KIND == K_INBOX_SPLIT) return hist_inbox<CLUSTER, inbox_vecs(CLUSTER), 1, 1, 1>;
    else return hist_cluster<CLUSTER, PASSES>;
}

/* How many clusters of this step fit on the GPU at once (0: none; a size 16
 * cluster may not fit). Sets the kernel's attributes first: the dynamic
 * shared memory above 48 KiB, and the non-portable size for 16. Asked once. */
template <int CLUSTER, int PASSES, int KIND = K_PLAIN>
static int resident_clusters(void)
{
    static int cached = -1;
    if (cached >= 0) return cached;
    hist_kernel k = cluster_kernel<CLUSTER, PASSES, KIND>();
    int dev = 0, optin = 0;   /* the inbox steps ask for up to 224 KiB: more than some GPUs allow */
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (cluster_smem<CLUSTER, PASSES, KIND>() > (size_t)optin) {
        report_note("cluster of %d: %zu bytes of shared memory per block, this GPU allows %d", CLUSTER,
                    cluster_smem<CLUSTER, PASSES, KIND>(), optin);
        cached = 0;
        return 0;
    }
    CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)cluster_smem<CLUSTER, PASSES, KIND>()));
    if (CLUSTER > 8) CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t c = cluster_config<CLUSTER, PASSES, KIND>(1, attr, 0);
    int nc = 0;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&nc, (const void *)k, &c);
    if (e != cudaSuccess) {   /* an unsupported size: say so, count it as none */
        report_note("cluster of %d: cudaOccupancyMaxActiveClusters: %s", CLUSTER, cudaGetErrorString(e));
        (void)cudaGetLastError();
        nc = 0;
    }
    cached = nc;
    return nc;
}

/* Steps 02 to 07: as many clusters as fit at once (each block loops over its
 * share of the input), fewer when n is small (one 16-byte vector per thread
 * at least). The output is zeroed first: the blocks add into it. */
template <int CLUSTER, int PASSES, int KIND = K_PLAIN>
static void run_cluster(void *p, cudaStream_t s)
{
    const cl_ctx *x = (const cl_ctx *)p;
    const unsigned fit = (unsigned)resident_clusters<CLUSTER, PASSES, KIND>();
    const size_t per_cluster = (size_t)CLUSTER * CL_THREADS * 8;   /* samples in one sweep of one cluster */
    size_t want = (x->n + per_cluster - 1) / per_cluster;
    if (want > fit) want = fit;
    if (want < 1) want = 1;
    const unsigned clusters = x->force_clusters ? x->force_clusters : (unsigned)want;
    CUDA_CHECK(cudaMemsetAsync(x->hist, 0, CL_BINS * sizeof(unsigned), s));
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t c = cluster_config<CLUSTER, PASSES, KIND>(clusters, attr, s);
    CUDA_CHECK(cudaLaunchKernelEx(&c, cluster_kernel<CLUSTER, PASSES, KIND>(), x->data, x->n, x->hist, x->stall));
}

/* The reference: HistogramEven over 65,537 levels 0, 1, ..., 65536 (one bin
 * per value), 32-bit counters; CUB zeroes them itself. Its temporary storage
 * is allocated once, outside the timing. */
static void run_cub(void *p, cudaStream_t s)
{
    const cl_ctx *x = (const cl_ctx *)p;
    size_t bytes = x->cub_bytes;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(x->cub_temp, bytes, x->data, x->hist, (int)CL_BINS + 1,
                                                   0, (int)CL_BINS, (long long)x->n, s));
}

/* ---- variant table ------------------------------------------------------- */

typedef struct {
    const char *name;
    timed_fn run;
    int is_reference;   /* cub: every pct_ref is against it */
    int cluster;        /* blocks per cluster (0: not a cluster launch) */
    int (*fits)(void);  /* clusters resident at once (0: this size cannot run here) */
    const char *what;
} variant;

static const variant variants[] = {
    {"cub", run_cub, 1, 0, NULL, "cub::DeviceHistogram::HistogramEven (reference)"},
    {"global_atomics", run_global_atomics, 0, 0, NULL, "01: one global atomicAdd per sample"},
    {"cluster1_2pass", run_cluster<1, 2>, 0, 1, resident_clusters<1, 2>,
     "02: shared-memory bins, 1 block: half the bins per pass, two passes"},
    {"cluster2", run_cluster<2, 1>, 0, 2, resident_clusters<2, 1>, "03: cluster of 2, 128 KiB each, one pass"},
    {"cluster4", run_cluster<4, 1>, 0, 4, resident_clusters<4, 1>, "04: cluster of 4, 64 KiB each"},
    {"cluster8", run_cluster<8, 1>, 0, 8, resident_clusters<8, 1>, "05: cluster of 8, 32 KiB each"},
    {"cluster16", run_cluster<16, 1>, 0, 16, resident_clusters<16, 1>,
     "06: cluster of 16 (non-portable), 16 KiB each"},
    {"cluster2_red", run_cluster<2, 1, K_RED>, 0, 2, resident_clusters<2, 1, K_RED>,
     "07: cluster of 2, the adds as red.shared::cluster on a mapa address"},
    {"cluster2_inbox", run_cluster<2, 1, K_INBOX>, 0, 2, resident_clusters<2, 1, K_INBOX>,
     "08: cluster of 2, remote samples sent as 16-bit offsets to the owner's inbox"},
    {"cluster2_inbox_vec", run_cluster<2, 1, K_INBOX_VEC>, 0, 2, resident_clusters<2, 1, K_INBOX_VEC>,
     "09: step 08 with the offsets staged and sent 16 bytes at a time"},
    {"cluster2_inbox_prefetch", run_cluster<2, 1, K_INBOX_PREFETCH>, 0, 2,
     resident_clusters<2, 1, K_INBOX_PREFETCH>, "10: step 09 with each round's loads issued a round early"},
    {"cluster2_inbox_split", run_cluster<2, 1, K_INBOX_SPLIT>, 0, 2, resident_clusters<2, 1, K_INBOX_SPLIT>,
     "11: step 10 with each barrier split into arrive and wait, work in between"},
    {"cluster4_inbox_split", run_cluster<4, 1, K_INBOX_SPLIT>, 0, 4, resident_clusters<4, 1, K_INBOX_SPLIT>,
     "12: step 11 on a cluster of 4"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ------------------------------------------------------------- */

#define QUICK_N (((size_t)1 << 18) + 3)

static long long opt_n = 0;   /* 0: 2^28, or QUICK_N with --quick */
static const char *opt_input = "all";
static const char *opt_variant = "all";
static char variant_choices[512];
static char help_notes[3072];

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("n", "SAMPLES", "16-bit samples to count, 2 bytes each (0: 2^28, or 2^18+3 with --quick)",
                 &opt_n, 0, 1LL << 31),
    OPT_STRING_SPEC("input", "KIND", "the samples: uniform, or log-uniform (skewed)", &opt_input,
                    "all|uniform|skewed"),
    OPT_STRING_SPEC("variant", "NAME", "check and time one variant (cub, the reference, always runs)",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "clusters",
    "a 65,536-bin histogram in the distributed shared memory of a thread block cluster, and DSMEM measured",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

static void build_help_from_table(void)
{
    int len = opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu", &variants[0].name,
                                sizeof variants[0], N_VARIANTS);
    if (len > 0) snprintf(variant_choices + len, sizeof variant_choices - (size_t)len, "|probe");
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-24s %s\n", "cpu",
                                "the CPU histogram, timed once");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-24s %s\n", variants[v].name,
                              variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "  %-24s %s\n--quick checks n = 1, 7, 9, 1000, 4097, 65541 and 2^18+3 samples (each cluster "
             "step also on a grid of one cluster, at 65541 and 2^18+3); with --n=N, the sizes up to N; the probe "
             "on one cluster.",
             "probe", "DSMEM latency and bandwidth next to shared memory and L2");
}

/* ---- checking ------------------------------------------------------------ */

/* One run of variant v on the first x->n samples, compared exactly with the
 * CPU histogram of the same samples. The output is poisoned (0xFF) with its
 * guard zone first: a launcher that forgot to zero it, or a bin written
 * past the end, fails. */
static size_t full_n;             /* the run's size, whose CPU histogram is full_ref */
static const uint32_t *full_ref;
static const char *cur_input;     /* the input being checked, for a FAIL record */
#define CL_STALL_CYCLES 1000000LL /* about 0.5 ms at 1.98 GHz: one cluster counts 65,541 samples far sooner */

/* Wait for a checked kernel. A kernel that faults (a block's shared memory
 * used after the block exited, an address out of bounds) leaves the CUDA
 * context unusable: nothing more can run, so this is the variant's FAIL
 * record and the sample's FAIL, said here, and exit 1. */
static void kernel_done_or_fail(const variant *v, const char *what)
{
    const cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) return;
    fprintf(stderr, "clusters: %s: the kernel failed on the GPU: %s (%s); nothing more can run\n", what,
            cudaGetErrorString(e), cudaGetErrorName(e));
    result_rec r;
    rec_begin(&r, v->name);
    if (cur_input) rec_str(&r, "input", cur_input);
    rec_str(&r, "status", "FAIL");
    rec_emit(&r);
    exit(report_finish());
}

static int check_once(const variant *v, cl_ctx *x, const uint16_t *h_data, uint32_t *h_ref,
                      uint32_t *h_out)
{
    char what[128];
    snprintf(what, sizeof what, "%s(n=%zu%s) hist", v->name, x->n,
             x->stall ? ", 1 cluster, warp 0 of block 0 late" : x->force_clusters ? ", 1 cluster" : "");
    poison_guarded(x->hist, CL_BINS * sizeof(unsigned));
    v->run(x, 0);
    kernel_done_or_fail(v, what);
    CUDA_CHECK(cudaMemcpy(h_out, x->hist, CL_BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    if (x->n != full_n) {   /* a prefix: its own CPU histogram (the full one is computed once) */
        memset(h_ref, 0, CL_BINS * sizeof(uint32_t));
        clusters_cpu_hist(h_data, x->n, h_ref);
    }
    const uint32_t *ref = x->n == full_n ? full_ref : h_ref;
    size_t bad = check_exact_u32(what, h_out, ref, CL_BINS);
    bad += check_guard(what, x->hist, CL_BINS * sizeof(unsigned));
    return bad == 0;
}

/* Sizes that are not multiples of 8 (the vector) or of a block's sweep,
 * then the full size; a cluster step also on a grid of one cluster, so
 * every thread loops and a wrong stride shows, with warp 0 of block 0
 * zeroing its share of the slice CL_STALL_CYCLES late (kernels/02): the
 * adds of everyone else come first, and only barrier 1 keeps them (in the
 * inbox steps it also drains round 0 late: only barrier B keeps a peer's
 * next round from overwriting what it has not drained). */
static int check_variant(const variant *v, const cl_ctx *ctx, const uint16_t *h_data, uint32_t *h_ref,
                         uint32_t *h_out)
{
    static const size_t sizes[] = {1, 7, 9, 1000, 4097, 65541, ((size_t)1 << 18) + 3};
    cl_ctx x = *ctx;
    int ok = 1;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (sizes[i] >= ctx->n) break;
        x.n = sizes[i];
        ok &= check_once(v, &x, h_data, h_ref, h_out);
    }
    x.n = ctx->n;
    ok &= check_once(v, &x, h_data, h_ref, h_out);
    if (v->cluster) {
        x.n = ctx->n < 65541 ? ctx->n : 65541;
        x.force_clusters = 1;
        x.stall = CL_STALL_CYCLES;
        ok &= check_once(v, &x, h_data, h_ref, h_out);
        /* One cluster over up to 2^18+3 samples: the inbox steps make 4 rounds
         * (a launcher's grid at --quick's sizes makes one), so a counter or an
         * inbox carried wrongly into the next round shows; with the stall,
         * warp 0 of block 0 also drains round 0 late (kernels/08). */
        if (ctx->n > 65541) {
            x.n = ctx->n < QUICK_N ? ctx->n : QUICK_N;
            ok &= check_once(v, &x, h_data, h_ref, h_out);
        }
    }
    return ok;
}

/* ---- the DSMEM probe ----------------------------------------------------- */

typedef struct {
    const unsigned *gbuf;
    int where;
    unsigned rounds;
    unsigned clusters;
    unsigned long long *total;
} bw_ctx;

static void launch_bw(void *p, cudaStream_t s)
{
    const bw_ctx *b = (const bw_ctx *)p;
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(2 * b->clusters);
    c.blockDim = dim3(CL_BW_THREADS);
    c.stream = s;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 2;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    c.attrs = attr;
    c.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&c, probe_bandwidth, b->gbuf, b->where, b->rounds, b->total));
}

static const char *const where_name[3] = {"smem", "dsmem", "l2"};

/* Latency and bandwidth of the three kinds of memory: a RESULT line each
 * (role=context: measurements beside the histogram, not a variant of it).
 * Each measurement is checked first (the chase's end, the bandwidth sum). */
static void run_probe(const device_info *dev, uint64_t seed, int quick, int reps)
{
    const unsigned steps = quick ? 256 : CL_CHASE_STEPS;
    uint32_t *chain = (uint32_t *)malloc(CL_CHASE_GLOBAL_WORDS * sizeof(uint32_t));
    uint32_t *gchain = (uint32_t *)malloc(CL_CHASE_GLOBAL_WORDS * sizeof(uint32_t));
    if (!chain || !gchain) {
        report_fail("probe: cannot allocate the chains");
        free(chain);
        free(gchain);
        return;
    }
    clusters_make_chain(chain, CL_CHASE_WORDS, seed);
    clusters_make_chain(gchain, CL_CHASE_GLOBAL_WORDS, seed + 1);
    unsigned *d_chain, *d_gchain;
    unsigned long long *d_out;
    CUDA_CHECK(cudaMalloc(&d_chain, CL_CHASE_WORDS * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&d_gchain, CL_CHASE_GLOBAL_WORDS * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&d_out, 2 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemcpy(d_chain, chain, CL_CHASE_WORDS * sizeof(unsigned), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_gchain, gchain, CL_CHASE_GLOBAL_WORDS * sizeof(unsigned), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaFuncSetAttribute(probe_latency, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)(CL_CHASE_WORDS * sizeof(unsigned))));
    const double clock_ghz = dev->sm_clock_khz / 1e6;   /* the peak SM clock: ns are a lower bound */
    for (int where = 0; where < 3; where++) {
        cudaLaunchAttribute attr[1];
        cudaLaunchConfig_t c = {};
        c.gridDim = dim3(2);
        c.blockDim = dim3(32);
        c.dynamicSmemBytes = CL_CHASE_WORDS * sizeof(unsigned);
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = 2;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        c.attrs = attr;
        c.numAttrs = 1;
        /* The median of a few runs: one chase is a few microseconds. */
        double cyc[16];
        int runs = quick ? 3 : 9, ok = 1;
        const uint32_t *ch = where == PROBE_GLOBAL ? gchain : chain;
        const uint32_t expect = clusters_chase_end(ch, 0, steps);
        for (int r = 0; r < runs; r++) {
            CUDA_CHECK(cudaMemset(d_out, 0xFF, 2 * sizeof(unsigned long long)));
            CUDA_CHECK(cudaLaunchKernelEx(&c, probe_latency, (const unsigned *)d_chain,
                                          (const unsigned *)d_gchain, where, steps, d_out));
            unsigned long long h[2];
            CUDA_CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
            if (h[0] != expect) {
                fprintf(stderr, "clusters: probe %s latency: the chase ended on %llu, expected %u\n",
                        where_name[where], h[0], expect);
                ok = 0;
            }
            cyc[r] = (double)h[1] / steps;
        }
        result_rec rec;
        char name[32];
        snprintf(name, sizeof name, "%s_latency", where_name[where]);
        rec_begin(&rec, name);
        rec_int(&rec, "steps", steps);
        rec_str(&rec, "status", ok ? "PASS" : "FAIL");
        if (ok) {
            const double med = stats_median(cyc, runs);
            rec_num(&rec, "cycles", med);
            rec_num(&rec, "ns", med / clock_ghz);
        }
        rec_str(&rec, "role", "context");
        rec_emit(&rec);
    }

    /* Bandwidth: every resident 2-block cluster. */
    int nc = 0;
    {
        cudaLaunchAttribute attr[1];
        cudaLaunchConfig_t c = {};
        c.gridDim = dim3(2);
        c.blockDim = dim3(CL_BW_THREADS);
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = 2;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        c.attrs = attr;
        c.numAttrs = 1;
        CUDA_CHECK(cudaOccupancyMaxActiveClusters(&nc, (const void *)probe_bandwidth, &c));
    }
    if (nc < 1 || quick) nc = 1;   /* --quick (the sanitizer runs): one cluster */
    const unsigned blocks = 2u * (unsigned)nc;
    unsigned *h_g = (unsigned *)malloc((size_t)blocks * CL_BW_WORDS * sizeof(unsigned));
    unsigned *d_g;
    unsigned long long *d_total;
    CUDA_CHECK(cudaMalloc(&d_g, (size_t)blocks * CL_BW_WORDS * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));
    if (!h_g) {
        report_fail("probe: cannot allocate the bandwidth buffer");
    } else {
        for (size_t i = 0; i < (size_t)blocks * CL_BW_WORDS; i++) h_g[i] = (unsigned)(i % CL_BW_WORDS);
        CUDA_CHECK(cudaMemcpy(d_g, h_g, (size_t)blocks * CL_BW_WORDS * sizeof(unsigned),
                              cudaMemcpyHostToDevice));
        const unsigned rounds = quick ? 4 : CL_BW_ROUNDS;
        for (int where = 0; where < 3; where++) {
            bw_ctx b = {d_g, where, rounds, (unsigned)nc, d_total};
            CUDA_CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long)));
            launch_bw(&b, 0);
            unsigned long long got = 0;
            CUDA_CHECK(cudaMemcpy(&got, d_total, sizeof got, cudaMemcpyDeviceToHost));
            const unsigned long long want = cl_bw_expected_sum(blocks, rounds, CL_BW_WORDS);
            const int ok = got == want;
            if (!ok)
                fprintf(stderr, "clusters: probe %s bandwidth: sum %llu, expected %llu\n", where_name[where],
                        got, want);
            result_rec rec;
            char name[32], range[64];
            snprintf(name, sizeof name, "%s_bandwidth", where_name[where]);
            rec_begin(&rec, name);
            rec_int(&rec, "blocks", blocks);
            rec_str(&rec, "status", ok ? "PASS" : "FAIL");
            if (ok) {
                snprintf(range, sizeof range, "clusters/%s", name);
                timing_cfg tc = timing_defaults(reps);
                tc.nvtx_name = range;
                timing_stats t;
                time_gpu(launch_bw, &b, &tc, &t);
                const double bytes = (double)blocks * rounds * CL_BW_WORDS * sizeof(unsigned);
                rec_perf(&rec, t.median_ms, "gbps", bytes / (t.median_ms * 1e6), 0, NULL, 0);
                rec_num(&rec, "min_ms", t.min_ms);
                timing_rec_clocks(&rec, &t);
            }
            rec_str(&rec, "role", "context");
            rec_emit(&rec);
        }
    }
    free(h_g);
    free(chain);
    free(gchain);
    CUDA_CHECK(cudaFree(d_g));
    CUDA_CHECK(cudaFree(d_total));
    CUDA_CHECK(cudaFree(d_chain));
    CUDA_CHECK(cudaFree(d_gchain));
    CUDA_CHECK(cudaFree(d_out));
}

/* ---- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
    common_opts o;
    build_help_from_table();
    opts_parse_or_exit(&cfg, argc, argv, &o);
    /* --quick with --n: the checks up to n only (a short run for racecheck). */
    const size_t n = opt_n ? (size_t)opt_n : o.quick ? QUICK_N : (size_t)1 << 28;
    size_t bytes;
    char err[160];
    if (opts_checked_bytes("--n", (long long)n, sizeof(uint16_t), 1, 1ULL << 40, &bytes, err, sizeof err)) {
        fprintf(stderr, "clusters: error: %s\n", err);
        printf("clusters: FAIL (bad argument)\n");
        return 1;
    }
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;
    const int only_probe = strcmp(opt_variant, "probe") == 0;

    report_init("clusters", o.json);
    device_info dev;
    device_setup_or_exit("clusters", o.device, o.json, &dev);
    if (dev.cc_major < 9) {
        char why[96];
        snprintf(why, sizeof why, "thread block clusters need compute capability 9.0, this GPU is %d.%d",
                 dev.cc_major, dev.cc_minor);
        device_waive("clusters", why);
    }

    if (!only_probe) {
        uint16_t *h_data = (uint16_t *)malloc(bytes);
        uint32_t *h_ref = (uint32_t *)malloc(CL_BINS * sizeof(uint32_t));
        uint32_t *h_out = (uint32_t *)malloc(CL_BINS * sizeof(uint32_t));
        uint32_t *h_full = (uint32_t *)malloc(CL_BINS * sizeof(uint32_t));
        if (!h_data || !h_ref || !h_out || !h_full) {
            report_fail("cannot allocate %zu bytes of host memory", bytes);
            return report_finish();
        }
        uint16_t *d_data;
        CUDA_CHECK(cudaMalloc(&d_data, bytes));
        unsigned *d_hist = (unsigned *)guarded_malloc(CL_BINS * sizeof(unsigned));
        cl_ctx ctx = {d_data, n, d_hist, NULL, 0, 0, 0};
        CUDA_CHECK(cub::DeviceHistogram::HistogramEven(NULL, ctx.cub_bytes, (const uint16_t *)NULL,
                                                       (unsigned *)NULL, (int)CL_BINS + 1, 0, (int)CL_BINS,
                                                       (long long)n));
        CUDA_CHECK(cudaMalloc(&ctx.cub_temp, ctx.cub_bytes ? ctx.cub_bytes : 1));
        for (int v = 0; v < N_VARIANTS; v++)
            if (variants[v].fits && opts_variant_runs(opt_variant, variants[v].name, 0))
                report_note("%s: %d clusters of %d blocks of %d threads fit at once", variants[v].name,
                            variants[v].fits(), variants[v].cluster, CL_THREADS);

        for (int kind = 0; kind < CL_N_INPUTS; kind++) {
            const char *input = kind == CL_UNIFORM ? "uniform" : "skewed";
            if (strcmp(opt_input, "all") != 0 && strcmp(opt_input, input) != 0) continue;
            cur_input = input;
            fill_input<<<1024, 256>>>(d_data, n, kind, o.seed);
            CHECK_LAUNCH();
            CUDA_CHECK(cudaMemcpy(h_data, d_data, bytes, cudaMemcpyDeviceToHost));
            const int flush = (double)bytes <= 4.0 * dev.l2_bytes;
            report_note("input=%s: n=%zu samples (%.1f MiB), L2 %s", input, n, bytes / 1048576.0,
                        flush ? "flushed before each timed run (the data fits in 4x L2)"
                              : "not flushed (the data is over 4x L2)");

            /* The CPU histogram of all n samples: the reference of the full-size
             * checks, and the cpu variant's time (the output's pages touched
             * first, so the loop is timed and not its page faults). */
            host_prefault(h_full, CL_BINS * sizeof(uint32_t));
            memset(h_full, 0, CL_BINS * sizeof(uint32_t));
            const double t0 = host_seconds();
            clusters_cpu_hist(h_data, n, h_full);
            const double cpu_ms = (host_seconds() - t0) * 1e3;
            full_n = n;
            full_ref = h_full;

            /* Check every variant that runs, before any timing. */
            int ok[N_VARIANTS], runs[N_VARIANTS];
            for (int v = 0; v < N_VARIANTS; v++) {
                ok[v] = 1;
                runs[v] = opts_variant_runs(opt_variant, variants[v].name, variants[v].is_reference);
                if (runs[v] && variants[v].fits && variants[v].fits() < 1) {
                    report_note("%s: a cluster of %d does not fit on this GPU "
                                "(cudaOccupancyMaxActiveClusters = 0, or a note above says why): not run",
                                variants[v].name, variants[v].cluster);
                    runs[v] = 0;
                }
                if (runs[v]) ok[v] = check_variant(&variants[v], &ctx, h_data, h_ref, h_out);
            }

            result_rec r;
            if (opts_variant_runs_cpu(opt_variant)) {
                rec_begin(&r, "cpu");
                rec_str(&r, "input", input);
                rec_int(&r, "n", (long long)n);
                rec_str(&r, "status", "PASS");
                rec_perf(&r, cpu_ms, "gbps", (double)bytes / (cpu_ms * 1e6), 0, NULL, 0);
                rec_emit(&r);
            }

            /* The variants that passed and cub, timed round robin
             * (common/timing.h): pct_ref is from this run, at the same clocks. */
            timed_variant group[N_VARIANTS];
            timing_stats times[N_VARIANTS];
            char ranges[N_VARIANTS][64];
            int slot[N_VARIANTS], n_timed = 0, ref = -1;
            for (int v = 0; v < N_VARIANTS; v++) {
                const variant *var = &variants[v];
                slot[v] = -1;
                if (!runs[v] || !ok[v]) continue;
                if (var->is_reference) ref = v;
                snprintf(ranges[v], sizeof ranges[v], "clusters/%s", var->name);
                group[n_timed] = (timed_variant){var->run, &ctx, ranges[v]};
                slot[v] = n_timed++;
            }
            if (n_timed > 0) {
                timing_cfg tc = timing_defaults(reps);
                tc.flush_l2 = flush;
                time_gpu_group(group, n_timed, &tc, times);
            }
            const double ref_gbps = ref >= 0 ? (double)bytes / (times[slot[ref]].median_ms * 1e6) : 0;
            for (int v = 0; v < N_VARIANTS; v++) {
                const variant *var = &variants[v];
                if (!runs[v]) continue;
                rec_begin(&r, var->name);
                rec_str(&r, "input", input);
                rec_int(&r, "n", (long long)n);
                if (!ok[v]) {
                    rec_str(&r, "status", "FAIL");
                    rec_emit(&r);
                    continue;
                }
                const timing_stats *t = &times[slot[v]];
                const double gbps = (double)bytes / (t->median_ms * 1e6);
                rec_str(&r, "status", "PASS");
                rec_perf(&r, t->median_ms, "gbps", gbps, dev.peak_gbps, "cub", ref_gbps);
                if (var->cluster) rec_int(&r, "cluster", var->cluster);
                rec_num(&r, "min_ms", t->min_ms);
                timing_rec_clocks(&r, t);
                rec_emit(&r);
            }
        }
        CUDA_CHECK(cudaFree(ctx.cub_temp));
        CUDA_CHECK(cudaFree(d_data));
        guarded_free(d_hist);
        free(h_data);
        free(h_ref);
        free(h_out);
        free(h_full);
    }

    if (only_probe || strcmp(opt_variant, "all") == 0) run_probe(&dev, o.seed, o.quick, reps);
    return report_finish();
}
