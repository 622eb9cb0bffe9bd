/* p2pBandwidthLatencyTest: what the links between the GPUs of one machine
 * carry, measured so the figures can be trusted, every transfer verified.
 *
 * What it teaches: peer access (cudaDeviceCanAccessPeer, then
 * cudaDeviceEnablePeerAccess) and the two engines that move bytes between
 * GPUs: the copy engines (cudaMemcpyPeerAsync, a DMA) and the SMs (a kernel
 * on one GPU that loads or stores the peer's memory through its pointer).
 * Without peer access a peer copy is staged through host memory; with it,
 * bytes go over NVLink or PCIe directly. The link type is read from NVML
 * when it answers, else inferred from the measured figure (README.md says
 * how), and every bandwidth is set against the link's peak.
 *
 * Build:  make -C 1_Utilities/p2pBandwidthLatencyTest   (or `make p2pBandwidthLatencyTest`)
 * Run:    bin/p2pBandwidthLatencyTest                   every visible GPU: 256 MiB transfers,
 *                                                       8-byte latency copies
 *         bin/p2pBandwidthLatencyTest --quick           32 MiB + 13 bytes, 3 trials (sanitizers)
 *         bin/p2pBandwidthLatencyTest --csv             CSV rows (matrices on stderr)
 *         bin/p2pBandwidthLatencyTest --json            JSON lines
 *         bin/p2pBandwidthLatencyTest --test=latency --p2p=on
 *         CUDA_VISIBLE_DEVICES=0,3 bin/p2pBandwidthLatencyTest   a chosen pair
 * Matrices (row = source GPU, column = destination GPU):
 *   ce_uni_p2p_off / ce_uni_p2p_on   cudaMemcpyPeerAsync, one direction at a time
 *   ce_bi_p2p_off / ce_bi_p2p_on     both directions at once (bytes of both counted)
 *   sm_read_uni / sm_read_bi         a kernel on the destination GPU loads the source's memory
 *   sm_write_uni / sm_write_bi       a kernel on the source GPU stores into the destination's
 *   lat_ce_p2p_off / lat_ce_p2p_on   8-byte cudaMemcpyPeerAsync, median per copy (us)
 *   lat_h2d / lat_d2h                8-byte pinned host <-> GPU copies, median per copy (us)
 * The diagonal is a copy within one GPU (bytes counted once, like every
 * cell). Bytes are counted once per transfer, 1e9 bytes per GB.
 * With one GPU it exits 2 (WAIVED): there is no peer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "check.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "p2p_util.h"
#include "report.h"
#include "rng.h"
#include "timing.h"

/* ---- kernels ----------------------------------------------------------- */

/* Holds a stream until the host sets flag[0], or until timeout_ns pass
 * (then flag[1] says so and the host stops relying on it: where launches
 * block, as under some tools, it must not hang the run). */
__global__ void spin_on_host_flag(volatile int *flag, unsigned long long timeout_ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (flag[0] == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > timeout_ns) {
            flag[1] = 1;
            break;
        }
    }
}

/* The SM copy: one of the two pointers is the peer's memory (peer access
 * enabled), so its loads or stores cross the link. A remote load takes
 * around a microsecond, and the link stays busy only with many bytes in
 * flight: each thread issues four independent 16-byte loads before its
 * first store. Both pointers come from cudaMalloc (256-byte aligned); the
 * last bytes % 16 bytes are copied one per thread by the first threads. */
__global__ void sm_copy(unsigned char *dst, const unsigned char *src, size_t bytes)
{
    size_t n16 = bytes / 16;
    const uint4 *s4 = (const uint4 *)src;
    uint4 *d4 = (uint4 *)dst;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n16; i += 4 * stride) {
        uint4 a = s4[i], b = s4[i + stride], c = s4[i + 2 * stride], d = s4[i + 3 * stride];
        d4[i] = a;
        d4[i + stride] = b;
        d4[i + 2 * stride] = c;
        d4[i + 3 * stride] = d;
    }
    for (; i < n16; i += stride) d4[i] = s4[i];
    size_t t = 16 * n16 + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < bytes) dst[t] = src[t];
}

/* The pattern of p2p_util.h written on the device: one 8-byte word per
 * thread iteration, the last bytes % 8 bytes by thread 0. */
__global__ void pattern_fill(unsigned char *p, size_t bytes, uint64_t seed, uint64_t stream)
{
    size_t words = bytes / 8;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t w = tid; w < words; w += stride) ((uint64_t *)p)[w] = rng_hash(seed, stream, w);
    if (tid == 0)
        for (size_t j = 8 * words; j < bytes; j++)
            p[j] = (unsigned char)(rng_hash(seed, stream, j / 8) >> (8 * (j % 8)));
}

/* Compare with the pattern: res[0] counts wrong 8-byte words (and tail
 * bytes), res[1] is the lowest wrong byte offset (starts at ~0). */
__global__ void pattern_check(const unsigned char *p, size_t bytes, uint64_t seed,
                              uint64_t stream, unsigned long long *res)
{
    size_t words = bytes / 8;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t w = tid; w < words; w += stride) {
        uint64_t e = rng_hash(seed, stream, w), g = ((const uint64_t *)p)[w];
        if (e != g) {
            int b = 0;
            while (((e ^ g) >> (8 * b) & 0xff) == 0) b++;
            atomicAdd(&res[0], 1ULL);
            atomicMin(&res[1], (unsigned long long)(8 * w + b));
        }
    }
    if (tid == 0)
        for (size_t j = 8 * words; j < bytes; j++)
            if (p[j] != (unsigned char)(rng_hash(seed, stream, j / 8) >> (8 * (j % 8)))) {
                atomicAdd(&res[0], 1ULL);
                atomicMin(&res[1], (unsigned long long)j);
            }
}

/* ---- state ------------------------------------------------------------- */

enum { ENG_CE = 0, ENG_SM_READ = 1, ENG_SM_WRITE = 2, N_ENGINES = 3 };
#define HOST (-1)
#define SPIN_TIMEOUT_NS (200ULL * 1000 * 1000)

typedef struct {
    int n;                                   /* GPUs */
    device_info dev[P2P_MAX_GPUS];
    int pci_domain[P2P_MAX_GPUS], pci_bus[P2P_MAX_GPUS], pci_dev[P2P_MAX_GPUS];
    int access[P2P_MAX_GPUS][P2P_MAX_GPUS];  /* cudaDeviceCanAccessPeer */
    int enabled[P2P_MAX_GPUS][P2P_MAX_GPUS]; /* peer access as this program last set it */
    int rank[P2P_MAX_GPUS][P2P_MAX_GPUS];    /* cudaDevP2PAttrPerformanceRank, -1 unknown */
    int atomics[P2P_MAX_GPUS][P2P_MAX_GPUS]; /* cudaDevP2PAttrNativeAtomicSupported */
    int peer_on;                             /* peer access enabled between every pair that can */
    cudaStream_t s[P2P_MAX_GPUS];
    cudaEvent_t start[P2P_MAX_GPUS], stop[P2P_MAX_GPUS], mark[P2P_MAX_GPUS];
    cudaEvent_t *lat_ev[P2P_MAX_GPUS];       /* lat_copies + 1 per device */
    unsigned char *src[P2P_MAX_GPUS];        /* the source of every transfer from GPU d */
    unsigned char *dst[P2P_MAX_GPUS];        /* the destination of every transfer to GPU d (guarded) */
    unsigned long long *res[P2P_MAX_GPUS];   /* pattern_check results */
    int *d_flag[P2P_MAX_GPUS];
    int *h_flag;                             /* [0] release, [1] a spin timed out */
    unsigned char *h_src, *h_dst;            /* pinned, for the host latency copies */
    int use_spin[2];                         /* per P2P mode: off, on */
    int copy_blocks[P2P_MAX_GPUS];           /* sm_copy grid: fills the GPU once */
    int check_blocks[P2P_MAX_GPUS];
    size_t cap;                              /* bytes of every src/dst buffer */
    uint64_t seed, stream_ctr;
    int reps, warmups, lat_copies;
    size_t bytes, lat_bytes;
} p2p_ctx;

static p2p_ctx g;    /* large (matrices of 64 x 64): static, not on the stack */

/* ---- options ----------------------------------------------------------- */

static long long opt_size = 256LL << 20;
static long long opt_lat_bytes = 8;
static long long opt_lat_copies = 100;
static const char *opt_test = "all";
static const char *opt_engine = "all";
static const char *opt_p2p = "all";
static int opt_csv = 0;
#define DEF_SIZE (256LL << 20)
/* --quick: odd, so the SM copy's byte tail is timed too, and large enough
 * (over 4 x the copy grid's 16-byte stride on an H200, 17 MB) that every
 * thread runs sm_copy's unrolled loop at least once before its remainder. */
#define QUICK_SIZE ((32LL << 20) + 13)
#define ODD_SMALL ((size_t)3)
#define ODD_BIG (((size_t)1 << 20) + 7)

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("size", "BYTES", "bytes per bandwidth transfer", &opt_size, 1, 1LL << 36),
    OPT_INT_SPEC("lat-bytes", "BYTES", "bytes per latency copy", &opt_lat_bytes, 1, 1LL << 20),
    OPT_INT_SPEC("lat-copies", "N", "timed latency copies per cell (median reported)",
                 &opt_lat_copies, 1, 10000),
    OPT_STRING_SPEC("test", "WHICH", "bandwidth matrices, latency matrices, or both", &opt_test,
                    "all|bandwidth|latency"),
    OPT_STRING_SPEC("engine", "E", "bandwidth by copy engine, by SM kernels, or both",
                    &opt_engine, "all|ce|sm"),
    OPT_STRING_SPEC("p2p", "MODE", "peer access disabled, enabled, or both in turn", &opt_p2p,
                    "all|off|on"),
    OPT_FLAG_SPEC("csv", "print CSV rows (a header, then one row per result) instead of RESULT lines",
                  &opt_csv),
};

static const opts_config cfg = {
    "p2pBandwidthLatencyTest",
    "GPU-to-GPU bandwidth and latency matrices, P2P off and on, copy engine and SM copy, verified",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]),
    "Every visible GPU takes part (choose them with CUDA_VISIBLE_DEVICES); --device takes only\n"
    "'all'. Rows are source GPUs, columns destinations; the diagonal is a copy within one GPU.\n"
    "Bandwidth variants: ce_uni_p2p_off ce_uni_p2p_on ce_bi_p2p_off ce_bi_p2p_on sm_read_uni\n"
    "sm_read_bi sm_write_uni sm_write_bi (SM copies need peer access). Latency variants:\n"
    "lat_ce_p2p_off lat_ce_p2p_on lat_h2d lat_d2h. One 'link' record per pair says what\n"
    "carries it (NVML, else the measured figure). --quick: 32 MiB + 13 bytes, 3 trials,\n"
    "10 latency copies. Every transfer is checked at 3 bytes and 1 MiB + 7 first.",
    1};

static void note_line(const char *line)
{
    if (opt_csv) fprintf(stderr, "# %s\n", line);
    else report_note("%s", line);
}

/* A multi-line block (a matrix) as notes, line by line. */
static void note_block(char *text)
{
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) note_line(line);
}

static void emit(const result_rec *r)
{
    if (!opt_csv) {
        rec_emit(r);
        return;
    }
    char line[2048];
    if (p2p_csv_format(r, line, sizeof line) < 0) report_fail("CSV row too long");
    else printf("%s\n", line);
    fflush(stdout);
    for (int k = 0; k < r->n; k++)
        if (!strcmp(r->f[k].key, "status") && !strcmp(r->f[k].val, "FAIL"))
            report_fail("%s: a transfer was wrong", r->f[1].val);
}

/* ---- peer access ------------------------------------------------------- */

/* Enable (or disable) peer access both ways between every pair that can
 * have it. Access is per direction and per device: the device that is
 * current when cudaDeviceEnablePeerAccess(peer) is called may then touch
 * the peer's memory. */
static void set_peer_access(int on)
{
    for (int i = 0; i < g.n; i++) {
        CUDA_CHECK(cudaSetDevice(i));
        for (int j = 0; j < g.n; j++) {
            /* Only calls that change the state: disabling access that was
             * never enabled returns cudaErrorPeerAccessNotEnabled, which
             * memcheck reports as an API error even when it is expected
             * (seen on the H200 x2, 2026-11-30). */
            if (i == j || !g.access[i][j] || g.enabled[i][j] == on) continue;
            cudaError_t e = on ? cudaDeviceEnablePeerAccess(j, 0) : cudaDeviceDisablePeerAccess(j);
            g.enabled[i][j] = on;
            if (e == cudaErrorPeerAccessAlreadyEnabled || e == cudaErrorPeerAccessNotEnabled) {
                (void)cudaGetLastError();   /* already as wanted */
            } else if (e == cudaErrorTooManyPeers) {
                /* a device maps a limited number of peers (8 over PCIe): the
                 * rest are measured as without peer access */
                (void)cudaGetLastError();
                char t[160];
                snprintf(t, sizeof t, "device %d cannot map device %d too (too many peers): "
                         "treated as without peer access", i, j);
                note_line(t);
                g.access[i][j] = 0;
            } else {
                CUDA_CHECK(e);
            }
        }
    }
    g.peer_on = on;
}

/* ---- one transfer ------------------------------------------------------ */

/* The device whose stream (and, for SM copies, whose SMs) moves a -> b. */
static int issuer(int engine, int a, int b)
{
    return engine == ENG_SM_READ ? b : a;
}

/* Enqueue one transfer of `bytes` from src[a] to dst[b] on the issuer's stream. */
static void issue(int engine, int a, int b, size_t bytes)
{
    int d = issuer(engine, a, b);
    CUDA_CHECK(cudaSetDevice(d));
    if (engine == ENG_CE) {
        CUDA_CHECK(cudaMemcpyPeerAsync(g.dst[b], b, g.src[a], a, bytes, g.s[d]));
    } else {
        sm_copy<<<g.copy_blocks[d], 256, 0, g.s[d]>>>(g.dst[b], g.src[a], bytes);
        CHECK_LAUNCH();
    }
}

static void sync_device_stream(int d)
{
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaStreamSynchronize(g.s[d]));
}

/* Write the pattern (stream `stream`) into p, which lives on device d. */
static void dev_fill(int d, unsigned char *p, size_t bytes, uint64_t stream)
{
    CUDA_CHECK(cudaSetDevice(d));
    pattern_fill<<<g.check_blocks[d], 256, 0, g.s[d]>>>(p, bytes, g.seed, stream);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(g.s[d]));
}

/* 0xFF over p's first `bytes` and its guard zone (p on device d). */
static void dev_poison(int d, unsigned char *p, size_t bytes)
{
    CUDA_CHECK(cudaSetDevice(d));
    poison_guarded(p, bytes);
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* 1 if p (on device d) holds the pattern over `bytes` and its guard zone
 * is untouched; a mismatch is described on stderr. */
static int dev_check(int d, const char *what, const unsigned char *p, size_t bytes,
                     uint64_t stream)
{
    unsigned long long res[2];
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaMemsetAsync(g.res[d], 0, sizeof(unsigned long long), g.s[d]));
    CUDA_CHECK(cudaMemsetAsync(g.res[d] + 1, 0xFF, sizeof(unsigned long long), g.s[d]));
    pattern_check<<<g.check_blocks[d], 256, 0, g.s[d]>>>(p, bytes, g.seed, stream, g.res[d]);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(res, g.res[d], sizeof res, cudaMemcpyDeviceToHost, g.s[d]));
    CUDA_CHECK(cudaStreamSynchronize(g.s[d]));
    int ok = res[0] == 0;
    if (!ok) {
        unsigned char got = 0;
        CUDA_CHECK(cudaMemcpy(&got, p + res[1], 1, cudaMemcpyDeviceToHost));
        fprintf(stderr, "  %s: first wrong byte at %llu: expected 0x%02x, got 0x%02x; %llu wrong "
                        "8-byte words of %zu bytes\n",
                what, res[1], byte_pattern_byte(g.seed, stream, (size_t)res[1]), got, res[0], bytes);
    }
    return check_guard(what, p, bytes) == 0 && ok;
}

/* Fill the source(s), poison the destination(s), transfer once as the
 * timed loop does, wait, verify. bidir: b -> a at the same time. The
 * pattern streams used are returned in *sa (a -> b) and *sb (b -> a): the
 * sources keep them, so the timed transfers can be verified too. */
static int checked_transfer(int engine, int a, int b, int bidir, size_t bytes, const char *what,
                            uint64_t *sa, uint64_t *sb)
{
    *sa = ++g.stream_ctr;
    *sb = ++g.stream_ctr;
    dev_fill(a, g.src[a], bytes, *sa);
    dev_poison(b, g.dst[b], bytes);
    if (bidir) {
        dev_fill(b, g.src[b], bytes, *sb);
        dev_poison(a, g.dst[a], bytes);
    }
    issue(engine, a, b, bytes);
    if (bidir) issue(engine, b, a, bytes);
    sync_device_stream(issuer(engine, a, b));
    if (bidir) sync_device_stream(issuer(engine, b, a));
    char w[160];
    snprintf(w, sizeof w, "%s: %d->%d", what, a, b);
    int ok = dev_check(b, w, g.dst[b], bytes, *sa);
    if (bidir) {
        snprintf(w, sizeof w, "%s: %d->%d", what, b, a);
        ok &= dev_check(a, w, g.dst[a], bytes, *sb);
    }
    return ok;
}

/* ---- timing ------------------------------------------------------------ */

static void spin_begin(int d, int spin)
{
    if (!spin) return;
    ((volatile int *)g.h_flag)[0] = 0;
    ((volatile int *)g.h_flag)[1] = 0;
    spin_on_host_flag<<<1, 1, 0, g.s[d]>>>(g.d_flag[d], SPIN_TIMEOUT_NS);
    CHECK_LAUNCH();
}

/* Let the spin kernel go (spin_verdict looks at whether it had timed out). */
static void spin_release(int spin)
{
    if (spin) __atomic_store_n(&g.h_flag[0], 1, __ATOMIC_SEQ_CST);
}

static void spin_verdict(int spin, int p2p_on)
{
    if (spin && ((volatile int *)g.h_flag)[1] && g.use_spin[p2p_on]) {
        g.use_spin[p2p_on] = 0;
        note_line("the spin kernel timed out waiting for the host (launches or copies block, "
                  "e.g. under a tool or for staged copies): plain events from here on in this "
                  "P2P mode");
    }
}

/* Median ms per transfer (per pair of transfers when bidir) over g.reps
 * trials of `batch` back-to-back transfers. The first issuer's stream is
 * held by the spin kernel while everything is enqueued; the reverse
 * direction's stream waits on the start event, so both start together, and
 * the first stream waits on the reverse stream's last transfer before its
 * stop event: start and stop bracket all of it, on one device's clock. */
static double time_bandwidth(int engine, int a, int b, int bidir, size_t bytes, int batch,
                             const char **method)
{
    int ia = issuer(engine, a, b), ib = bidir ? issuer(engine, b, a) : -1;
    double *ms = (double *)malloc(sizeof(double) * (size_t)g.reps);
    if (!ms) {
        fprintf(stderr, "p2pBandwidthLatencyTest: out of host memory\n");
        exit(1);
    }
    for (int t = -g.warmups; t < g.reps; t++) {
        int spin = g.use_spin[g.peer_on];
        CUDA_CHECK(cudaSetDevice(ia));
        spin_begin(ia, spin);
        CUDA_CHECK(cudaEventRecord(g.start[ia], g.s[ia]));
        if (bidir) {
            CUDA_CHECK(cudaSetDevice(ib));
            CUDA_CHECK(cudaStreamWaitEvent(g.s[ib], g.start[ia], 0));
        }
        for (int k = 0; k < batch; k++) {
            issue(engine, a, b, bytes);
            if (bidir) issue(engine, b, a, bytes);
        }
        if (bidir) {
            CUDA_CHECK(cudaSetDevice(ib));
            CUDA_CHECK(cudaEventRecord(g.mark[ib], g.s[ib]));
            CUDA_CHECK(cudaSetDevice(ia));
            CUDA_CHECK(cudaStreamWaitEvent(g.s[ia], g.mark[ib], 0));
        }
        CUDA_CHECK(cudaSetDevice(ia));
        CUDA_CHECK(cudaEventRecord(g.stop[ia], g.s[ia]));
        spin_release(spin);
        CUDA_CHECK(cudaEventSynchronize(g.stop[ia]));
        spin_verdict(spin, g.peer_on);
        float e = 0;
        CUDA_CHECK(cudaEventElapsedTime(&e, g.start[ia], g.stop[ia]));
        if (t >= 0) ms[t] = e / batch;
    }
    if (bidir) sync_device_stream(ib);
    *method = g.use_spin[g.peer_on] ? "events+spin" : "events";
    double med = stats_median(ms, g.reps);
    free(ms);
    return med;
}

/* ---- bandwidth matrices ------------------------------------------------ */

typedef struct {
    double v[P2P_MAX_GPUS * P2P_MAX_GPUS];
    int state[P2P_MAX_GPUS * P2P_MAX_GPUS];
} matrix;

static matrix g_ce_uni_on;   /* kept for the link decision */
static p2p_link g_link[P2P_MAX_GPUS][P2P_MAX_GPUS];

/* The link between a and b as decided before the run (NVML); its peak
 * sets pct_peak. The diagonal is the device's own memory (read + write
 * once each: half the HBM peak is the ceiling of a copy counted once). */
static void peak_of(int a, int b, double *peak, const char **basis)
{
    if (a == b) {
        *peak = g.dev[a].peak_gbps / 2;
        *basis = "hbm_copy";
    } else {
        *peak = g_link[a][b].peak_gbps;
        *basis = g_link[a][b].peak_basis;
    }
}

/* Check, time, check again; emit the record; fill the cell. */
static void bandwidth_cell(int engine, int bidir, int a, int b, matrix *m, int precheck_ok)
{
    int cell = a * g.n + b;
    char variant[40], what[96], range[96];
    p2p_variant_name(variant, sizeof variant, engine, bidir, g.peer_on);
    size_t bytes = g.bytes;
    int direct = a == b || (g.peer_on && g.access[a][b]);
    p2p_row row;
    memset(&row, 0, sizeof row);
    row.variant = variant;
    row.src = a;
    row.dst = b;
    row.bytes = bytes;
    row.p2p = a == b ? "-" : !g.peer_on ? "off" : g.access[a][b] ? "on" : "unavailable";
    snprintf(what, sizeof what, "%s(%zu bytes)", variant, bytes);
    uint64_t sa = 0, sb = 0;
    row.ok = precheck_ok && checked_transfer(engine, a, b, bidir, bytes, what, &sa, &sb);
    if (row.ok) {
        /* the timed transfers must write the destinations again */
        dev_poison(b, g.dst[b], bytes);
        if (bidir) dev_poison(a, g.dst[a], bytes);
        int batch = p2p_batch_for(bytes);
        snprintf(range, sizeof range, "p2pBandwidthLatencyTest/%s", variant);
        int pushed = nvtx_push_path(range);
        row.time_ms = time_bandwidth(engine, a, b, bidir, bytes, batch, &row.timing);
        nvtx_pop_n(pushed);
        char after[200];
        snprintf(after, sizeof after, "%s after timing: %d->%d", what, a, b);
        row.ok = dev_check(b, after, g.dst[b], bytes, sa);
        if (bidir) {
            snprintf(after, sizeof after, "%s after timing: %d->%d", what, b, a);
            row.ok &= dev_check(a, after, g.dst[a], bytes, sb);
        }
        row.gbps = p2p_gbps(bytes, bidir ? 2 : 1, row.time_ms);
        if (direct) {
            peak_of(a, b, &row.peak_gbps, &row.peak_basis);
            if (bidir) row.peak_gbps *= 2;   /* each direction has the link's peak */
        } else {
            row.peak_basis = "staged_via_host";   /* two hops through host memory: no one peak */
        }
        row.batch = batch;
        row.samples = g.reps;
    }
    result_rec r;
    p2p_fill_record(&r, &row);
    emit(&r);
    m->v[cell] = row.gbps;
    m->state[cell] = row.ok ? CELL_OK : CELL_FAIL;
}

/* Odd sizes first (not multiples of 16, 8 or any block), for every pair. */
static int odd_checks(int engine, int bidir, int a, int b)
{
    const size_t odd[] = {ODD_SMALL, ODD_BIG};
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        char what[96], variant[40];
        p2p_variant_name(variant, sizeof variant, engine, bidir, g.peer_on);
        snprintf(what, sizeof what, "%s(odd size %zu bytes)", variant, odd[k]);
        uint64_t sa, sb;
        if (!checked_transfer(engine, a, b, bidir, odd[k], what, &sa, &sb)) {
            report_fail("%s %d->%d: the transfer was wrong", what, a, b);
            ok = 0;
        }
    }
    return ok;
}

static void bandwidth_matrix(int engine, int bidir)
{
    static matrix m;
    char variant[40], title[256];
    memset(&m, 0, sizeof m);
    p2p_variant_name(variant, sizeof variant, engine, bidir, g.peer_on);
    for (int a = 0; a < g.n; a++)
        for (int b = 0; b < g.n; b++) {
            int cell = a * g.n + b;
            if (bidir && a == b) continue;   /* CELL_NONE: one device cannot face itself */
            if (engine != ENG_CE && a != b && !(g.access[a][b] && g.access[b][a])) {
                m.state[cell] = CELL_NA;
                continue;
            }
            bandwidth_cell(engine, bidir, a, b, &m, odd_checks(engine, bidir, a, b));
        }
    snprintf(title, sizeof title, "%s: %s bandwidth, %s, %s (GB/s; row = source, column = "
             "destination%s)", variant, bidir ? "bidirectional" : "unidirectional",
             engine == ENG_CE ? "copy engine (cudaMemcpyPeerAsync)"
             : engine == ENG_SM_READ ? "SM kernel on the destination loading the source"
                                     : "SM kernel on the source storing into the destination",
             g.peer_on ? "P2P enabled" : "P2P disabled",
             bidir ? "; both directions at once, their bytes summed" : "");
    static char text[1 << 16];
    if (p2p_format_matrix(text, sizeof text, title, "D\\D", g.n, NULL, g.n, m.v, m.state, 2) > 0)
        note_block(text);
    if (engine == ENG_CE && !bidir && g.peer_on) g_ce_uni_on = m;
}

/* ---- latency ----------------------------------------------------------- */

/* One latency copy of g.lat_bytes from sp (on GPU a, or the host) to dp
 * (on GPU b, or the host) on device d's stream. */
static void lat_copy(int d, void *dp, int b, const void *sp, int a)
{
    if (a == HOST || b == HOST)
        CUDA_CHECK(cudaMemcpyAsync(dp, sp, g.lat_bytes, cudaMemcpyDefault, g.s[d]));
    else
        CUDA_CHECK(cudaMemcpyPeerAsync(dp, b, sp, a, g.lat_bytes, g.s[d]));
}

/* g.lat_copies copies, each followed by an event: the gaps between
 * consecutive events are the per-copy times. The spin kernel holds the
 * stream while they are enqueued, so the gaps are the GPU's, not the
 * host's enqueue rate. */
static void time_latency(int d, void *dp, int b, const void *sp, int a, double *med_us,
                         double *min_us, const char **method)
{
    int spin = g.use_spin[g.peer_on];
    int n = g.lat_copies;
    CUDA_CHECK(cudaSetDevice(d));
    spin_begin(d, spin);
    for (int k = 0; k < 3; k++) lat_copy(d, dp, b, sp, a);   /* warm-ups */
    CUDA_CHECK(cudaEventRecord(g.lat_ev[d][0], g.s[d]));
    for (int k = 0; k < n; k++) {
        lat_copy(d, dp, b, sp, a);
        CUDA_CHECK(cudaEventRecord(g.lat_ev[d][k + 1], g.s[d]));
    }
    spin_release(spin);
    CUDA_CHECK(cudaEventSynchronize(g.lat_ev[d][n]));
    spin_verdict(spin, g.peer_on);
    double *us = (double *)malloc(sizeof(double) * (size_t)n);
    if (!us) {
        fprintf(stderr, "p2pBandwidthLatencyTest: out of host memory\n");
        exit(1);
    }
    for (int k = 0; k < n; k++) {
        float e = 0;
        CUDA_CHECK(cudaEventElapsedTime(&e, g.lat_ev[d][k], g.lat_ev[d][k + 1]));
        us[k] = 1e3 * e;
    }
    timing_stats st;
    stats_summary(us, n, &st);
    *med_us = st.median_ms;   /* the values were microseconds */
    *min_us = st.min_ms;
    *method = spin ? "events+spin" : "events";
    free(us);
}

/* One latency cell, a -> b (HOST for the host): fill, poison, time, verify. */
static void latency_cell(const char *variant, int a, int b, double *v, int *state)
{
    size_t nb = g.lat_bytes;
    uint64_t stream = ++g.stream_ctr;
    int d = a == HOST ? b : a;   /* whose stream carries it: the source GPU's, or the only GPU's */
    const void *sp = a == HOST ? (const void *)g.h_src : (const void *)g.src[a];
    void *dp = b == HOST ? (void *)g.h_dst : (void *)g.dst[b];
    if (a == HOST) byte_pattern_fill(g.h_src, nb, g.seed, stream);
    else dev_fill(a, g.src[a], nb, stream);
    if (b == HOST) memset(g.h_dst, 0xFF, nb);
    else dev_poison(b, g.dst[b], nb);

    p2p_row row;
    memset(&row, 0, sizeof row);
    row.variant = variant;
    row.src = a;
    row.dst = b;
    row.bytes = nb;
    row.latency = 1;
    row.p2p = (a == HOST || b == HOST || a == b) ? "-" : !g.peer_on ? "off"
              : g.access[a][b] ? "on" : "unavailable";
    char range[96], what[96];
    snprintf(range, sizeof range, "p2pBandwidthLatencyTest/%s", variant);
    int pushed = nvtx_push_path(range);
    time_latency(d, dp, b, sp, a, &row.lat_us, &row.min_us, &row.timing);
    nvtx_pop_n(pushed);
    snprintf(what, sizeof what, "%s(%zu bytes) %d->%d", variant, nb, a, b);
    if (b == HOST) row.ok = byte_pattern_check(what, g.h_dst, nb, g.seed, stream) == 0;
    else row.ok = dev_check(b, what, g.dst[b], nb, stream);
    row.time_ms = row.lat_us / 1e3;
    row.samples = g.lat_copies;
    result_rec r;
    p2p_fill_record(&r, &row);
    emit(&r);
    *v = row.lat_us;
    *state = row.ok ? CELL_OK : CELL_FAIL;
}

static void latency_matrices(int p2p_pass_host)
{
    static matrix m;
    char variant[40], title[200];
    static char text[1 << 16];
    memset(&m, 0, sizeof m);
    snprintf(variant, sizeof variant, "lat_ce_p2p_%s", g.peer_on ? "on" : "off");
    for (int a = 0; a < g.n; a++)
        for (int b = 0; b < g.n; b++)
            latency_cell(variant, a, b, &m.v[a * g.n + b], &m.state[a * g.n + b]);
    snprintf(title, sizeof title, "%s: latency of %zu-byte cudaMemcpyPeerAsync, %s (us, median "
             "of %d; row = source, column = destination)", variant, g.lat_bytes,
             g.peer_on ? "P2P enabled" : "P2P disabled", g.lat_copies);
    if (p2p_format_matrix(text, sizeof text, title, "D\\D", g.n, NULL, g.n, m.v, m.state, 2) > 0)
        note_block(text);
    if (!p2p_pass_host) return;

    /* Host <-> GPU: a 2 x n table, rows h2d and d2h. */
    memset(&m, 0, sizeof m);
    for (int d = 0; d < g.n; d++) {
        latency_cell("lat_h2d", HOST, d, &m.v[d], &m.state[d]);
        latency_cell("lat_d2h", d, HOST, &m.v[g.n + d], &m.state[g.n + d]);
    }
    const char *labels[2] = {"h2d", "d2h"};
    snprintf(title, sizeof title, "lat_h2d / lat_d2h: latency of %zu-byte copies between pinned "
             "host memory and each GPU (us, median of %d; column = GPU)", g.lat_bytes,
             g.lat_copies);
    if (p2p_format_matrix(text, sizeof text, title, "host", 2, labels, g.n, m.v, m.state, 2) > 0)
        note_block(text);
}

/* ---- links ------------------------------------------------------------- */

static p2p_nvml_info g_nvml;

static void decide_links(int measured)
{
    for (int a = 0; a < g.n; a++)
        for (int b = 0; b < g.n; b++) {
            p2p_link_facts f;
            memset(&f, 0, sizeof f);
            f.same = a == b;
            f.access = g.access[a][b];
            f.perf_rank = g.rank[a][b];
            f.atomics = g.atomics[a][b];
            f.cc_major = g.dev[a].cc_major;
            f.cc_minor = g.dev[a].cc_minor;
            const p2p_nvml_gpu *ga = &g_nvml.gpu[a], *gb = &g_nvml.gpu[b];
            f.nvml = g_nvml.available && ga->found && gb->found;
            f.nvml_nvlink_p2p = g_nvml.nvlink_p2p[a][b];
            f.links_direct = p2p_links_to(ga, (unsigned)g.pci_domain[b], (unsigned)g.pci_bus[b],
                                          (unsigned)g.pci_dev[b]);
            f.links_src = ga->links_active;
            f.links_dst = gb->links_active;
            f.src_to_switch = p2p_links_to_switch(ga);
            f.pcie_gen = ga->pcie_gen < gb->pcie_gen ? ga->pcie_gen : gb->pcie_gen;
            f.pcie_width = ga->pcie_width < gb->pcie_width ? ga->pcie_width : gb->pcie_width;
            int cell = a * g.n + b;
            if (measured && g_ce_uni_on.state[cell] == CELL_OK && g.access[a][b])
                f.measured_gbps = g_ce_uni_on.v[cell];
            p2p_classify_link(&f, &g_link[a][b]);
        }
}

static void report_links(void)
{
    static char text[1 << 16];
    size_t at = 0;
    at += (size_t)snprintf(text + at, sizeof text - at,
                           "Links (row = source, column = destination): type/via/links, peak per "
                           "direction; CUDA's P2P access and performance rank\n");
    for (int a = 0; a < g.n; a++)
        for (int b = 0; b < g.n; b++) {
            const p2p_link *l = &g_link[a][b];
            if (a == b) continue;
            result_rec r;
            rec_begin(&r, "link");
            rec_int(&r, "src", a);
            rec_int(&r, "dst", b);
            rec_str(&r, "status", "PASS");
            rec_str(&r, "type", l->type);
            rec_str(&r, "via", l->via);
            rec_int(&r, "links", l->links);
            if (l->peak_gbps > 0) rec_num(&r, "peak_gbps", l->peak_gbps);
            rec_str(&r, "peak", l->peak_basis);
            rec_int(&r, "access", g.access[a][b]);
            rec_int(&r, "rank", g.rank[a][b]);
            rec_int(&r, "atomics", g.atomics[a][b]);
            emit(&r);
            if (at < sizeof text)
                at += (size_t)snprintf(text + at, sizeof text - at,
                                       "  %d->%d: %s via %s, %d link%s, peak %s (%.1f GB/s); "
                                       "access %d, rank %d, atomics %d: %s\n",
                                       a, b, l->type, l->via, l->links, l->links == 1 ? "" : "s",
                                       l->peak_basis, l->peak_gbps, g.access[a][b], g.rank[a][b],
                                       g.atomics[a][b], l->how);
        }
    note_block(text);
}

/* ---- main -------------------------------------------------------------- */

static int bad_arg(const char *msg)
{
    fprintf(stderr, "p2pBandwidthLatencyTest: error: %s\n", msg);
    fprintf(stderr, "Run 'p2pBandwidthLatencyTest --help' for the options.\n");
    printf("p2pBandwidthLatencyTest: FAIL (bad argument)\n");
    return 1;
}

static int want(const char *opt, const char *v)
{
    return !strcmp(opt, "all") || !strcmp(opt, v);
}

static void setup_devices(const common_opts *o)
{
    char text[512];
    for (int d = 0; d < g.n; d++) {
        CUDA_CHECK(cudaSetDevice(d));
        int rc = device_query(d, &g.dev[d]);
        if (rc != 0) {
            fprintf(stderr, "p2pBandwidthLatencyTest: error: cannot use device %d: %s\n", d,
                    cudaGetErrorString((cudaError_t)rc));
            printf("p2pBandwidthLatencyTest: FAIL (device %d unusable)\n", d);
            exit(1);
        }
        device_print_header(&g.dev[d], (o->json || opt_csv) ? stderr : stdout);
        CUDA_CHECK(cudaDeviceGetAttribute(&g.pci_domain[d], cudaDevAttrPciDomainId, d));
        CUDA_CHECK(cudaDeviceGetAttribute(&g.pci_bus[d], cudaDevAttrPciBusId, d));
        CUDA_CHECK(cudaDeviceGetAttribute(&g.pci_dev[d], cudaDevAttrPciDeviceId, d));
    }
    for (int a = 0; a < g.n; a++)
        for (int b = 0; b < g.n; b++) {
            g.rank[a][b] = g.atomics[a][b] = -1;
            if (a == b) continue;
            CUDA_CHECK(cudaDeviceCanAccessPeer(&g.access[a][b], a, b));
            int v;
            if (cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrPerformanceRank, a, b) == cudaSuccess)
                g.rank[a][b] = v;
            else (void)cudaGetLastError();
            if (cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrNativeAtomicSupported, a, b) == cudaSuccess)
                g.atomics[a][b] = v;
            else (void)cudaGetLastError();
        }

    /* Memory: a source and a guarded destination per GPU, both of cap bytes. */
    size_t need = 2 * g.cap + CHECK_GUARD_BYTES, margin = (size_t)256 << 20;
    for (int d = 0; d < g.n; d++) {
        size_t free_b = 0, total_b = 0;
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (need + margin > free_b) {
            fprintf(stderr, "p2pBandwidthLatencyTest: error: --size=%zu: needs %zu bytes of device "
                            "memory (+%zu spare) on each GPU, but device %d has %zu bytes free\n",
                    g.bytes, need, margin, d, free_b);
            printf("p2pBandwidthLatencyTest: FAIL (bad argument)\n");
            exit(1);
        }
        CUDA_CHECK(cudaStreamCreateWithFlags(&g.s[d], cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreate(&g.start[d]));
        CUDA_CHECK(cudaEventCreate(&g.stop[d]));
        CUDA_CHECK(cudaEventCreate(&g.mark[d]));
        g.lat_ev[d] = (cudaEvent_t *)malloc(sizeof(cudaEvent_t) * (size_t)(g.lat_copies + 1));
        if (!g.lat_ev[d]) {
            fprintf(stderr, "p2pBandwidthLatencyTest: out of host memory\n");
            exit(1);
        }
        for (int k = 0; k <= g.lat_copies; k++) CUDA_CHECK(cudaEventCreate(&g.lat_ev[d][k]));
        CUDA_CHECK(cudaMalloc(&g.src[d], g.cap));
        g.dst[d] = (unsigned char *)guarded_malloc(g.cap);
        CUDA_CHECK(cudaMalloc(&g.res[d], 2 * sizeof(unsigned long long)));
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sm_copy, 256, 0));
        g.copy_blocks[d] = g.dev[d].sm_count * (per_sm > 0 ? per_sm : 1);
        g.check_blocks[d] = g.dev[d].sm_count * 4;
    }
    /* One host flag for every GPU's spin kernel: portable (every device's
     * context sees it pinned) and mapped (kernels read it). */
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaHostAlloc((void **)&g.h_flag, 2 * sizeof(int),
                             cudaHostAllocMapped | cudaHostAllocPortable));
    g.h_flag[0] = g.h_flag[1] = 0;
    for (int d = 0; d < g.n; d++) {
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaHostGetDevicePointer((void **)&g.d_flag[d], g.h_flag, 0));
    }
    CUDA_CHECK(cudaHostAlloc((void **)&g.h_src, g.lat_bytes, cudaHostAllocPortable));
    CUDA_CHECK(cudaHostAlloc((void **)&g.h_dst, g.lat_bytes, cudaHostAllocPortable));

    snprintf(text, sizeof text, "%d GPUs; transfers of %zu bytes (checked first at %zu and %zu "
             "bytes), median of %d trials after %d warm-ups; latency: %zu-byte copies, median of %d",
             g.n, g.bytes, ODD_SMALL, ODD_BIG, g.reps, g.warmups, g.lat_bytes, g.lat_copies);
    note_line(text);
}

static void report_access_matrix(void)
{
    static matrix m;
    static char text[1 << 16];
    memset(&m, 0, sizeof m);
    for (int a = 0; a < g.n; a++)
        for (int b = 0; b < g.n; b++) {
            m.v[a * g.n + b] = a == b ? 1 : g.access[a][b];
            m.state[a * g.n + b] = a == b ? CELL_NONE : CELL_OK;
        }
    if (p2p_format_matrix(text, sizeof text,
                          "Peer access (cudaDeviceCanAccessPeer: 1 = row GPU can access column "
                          "GPU's memory)", "D\\D", g.n, NULL, g.n, m.v, m.state, 0) > 0)
        note_block(text);
    if (!g_nvml.available) {
        char t[256];
        snprintf(t, sizeof t, "NVML: %s; the link type is inferred from the measured figures",
                 g_nvml.why);
        note_line(t);
    }
}

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);

    /* Everything about the arguments is settled before any CUDA call. */
    if (opt_csv && o.json) return bad_arg("--csv and --json exclude each other");
    if (o.device_given && !o.all_devices) {
        char err[200];
        snprintf(err, sizeof err, "--device=%d: this sample uses every visible GPU (--device=all); "
                 "choose them with CUDA_VISIBLE_DEVICES", o.device);
        return bad_arg(err);
    }
    if (o.quick) {
        if (opt_size == DEF_SIZE) opt_size = QUICK_SIZE;
        if (opt_lat_copies == 100) opt_lat_copies = 10;
        if (o.reps == OPTS_DEFAULT_REPS) o.reps = 3;
    }
    g.bytes = (size_t)opt_size;
    g.lat_bytes = (size_t)opt_lat_bytes;
    g.lat_copies = (int)opt_lat_copies;
    g.reps = o.reps;
    g.warmups = 3;
    g.seed = o.seed;
    g.cap = g.bytes;
    if (g.cap < ODD_BIG) g.cap = ODD_BIG;
    if (g.cap < g.lat_bytes) g.cap = g.lat_bytes;
    g.use_spin[0] = g.use_spin[1] = 1;

    report_init("p2pBandwidthLatencyTest", o.json);
    int count = device_count_or_waive("p2pBandwidthLatencyTest");
    if (count < 2) {
        char name[300] = "", why[420];
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) snprintf(name, sizeof name, ": %s", p.name);
        snprintf(why, sizeof why, "needs at least 2 CUDA devices for peer transfers; this machine "
                 "shows 1%s", name);
        device_waive("p2pBandwidthLatencyTest", why);
    }
    g.n = count;
    if (g.n > P2P_MAX_GPUS) {
        char t[160];
        snprintf(t, sizeof t, "%d GPUs visible: the first %d take part", count, P2P_MAX_GPUS);
        note_line(t);
        g.n = P2P_MAX_GPUS;
    }
    if (opt_csv) {
        char h[1024];
        p2p_csv_header(h, sizeof h);
        printf("%s\n", h);
    }
    setup_devices(&o);
    p2p_nvml_query(g.n, g.pci_domain, g.pci_bus, g.pci_dev, &g_nvml);
    decide_links(0);   /* NVML's view, for pct_peak; the measured figure refines it below */
    report_access_matrix();

    int bw = want(opt_test, "bandwidth"), lat = want(opt_test, "latency");
    for (int on = 0; on <= 1; on++) {
        if (!want(opt_p2p, on ? "on" : "off")) continue;
        set_peer_access(on);
        if (bw) {
            for (int bidir = 0; bidir <= 1; bidir++)
                if (want(opt_engine, "ce")) bandwidth_matrix(ENG_CE, bidir);
            if (on && want(opt_engine, "sm"))
                for (int e = ENG_SM_READ; e <= ENG_SM_WRITE; e++)
                    for (int bidir = 0; bidir <= 1; bidir++) bandwidth_matrix(e, bidir);
        }
        if (lat) latency_matrices(!on || !want(opt_p2p, "off"));
    }
    decide_links(1);
    report_links();

    for (int d = 0; d < g.n; d++) {
        CUDA_CHECK(cudaSetDevice(d));
        for (int k = 0; k <= g.lat_copies; k++) CUDA_CHECK(cudaEventDestroy(g.lat_ev[d][k]));
        free(g.lat_ev[d]);
        CUDA_CHECK(cudaEventDestroy(g.start[d]));
        CUDA_CHECK(cudaEventDestroy(g.stop[d]));
        CUDA_CHECK(cudaEventDestroy(g.mark[d]));
        CUDA_CHECK(cudaStreamDestroy(g.s[d]));
        CUDA_CHECK(cudaFree(g.src[d]));
        guarded_free(g.dst[d]);
        CUDA_CHECK(cudaFree(g.res[d]));
    }
    if (g.peer_on) set_peer_access(0);
    CUDA_CHECK(cudaFreeHost(g.h_flag));
    CUDA_CHECK(cudaFreeHost(g.h_src));
    CUDA_CHECK(cudaFreeHost(g.h_dst));
    return report_finish();
}
