/* bandwidthTest: how fast bytes move between host and device, and within
 * the device, measured so the figure can be trusted.
 *
 * What it teaches: how to time a copy and nothing else. For pinned (and
 * write-combined) host memory and device-to-device, a spin kernel holds the
 * stream on a host-mapped flag while the start event, a batch of copies and
 * the stop event are enqueued; the host then releases the flag, so the
 * events bracket back-to-back copies and not the CPU's enqueue overhead (the
 * method nvbandwidth uses). The median of --reps trials is reported.
 * Pageable copies are synchronous (the driver stages them through its own
 * pinned buffers), so each one is timed with a host timer, after touching a
 * buffer larger than the CPU's last-level cache so no copy starts from a
 * warm cache. Device-to-device copies smaller than 4x the L2 rotate over
 * enough source/destination pairs that no copy finds its data in the L2
 * (otherwise a 16 MiB copy "runs" at 104.7% of the HBM peak on the H200:
 * results/H200/stale/bandwidthTest__mode_shmoo_csv.txt, commit 10393d1). Every copied
 * buffer is verified (a seeded pattern written, copied, compared, and a
 * poisoned guard zone after the destination left alone), before and after
 * timing: a wrong copy is a FAIL, never a figure, and so is a figure above
 * the physical peak.
 *
 * Build:  make -C 1_Utilities/bandwidthTest      (or `make bandwidthTest` at the top)
 * Run:    bin/bandwidthTest                      pinned H2D/D2H at 256 MiB, D2D at 1 GiB,
 *                                                pageable and write-combined H2D/D2H at 256 MiB
 *         bin/bandwidthTest --mode=shmoo         1 KiB .. 1 GiB in powers of two
 *         bin/bandwidthTest --mode=range --start=1M --end=64M --increment=1M --dir=h2d
 *         bin/bandwidthTest --memory=pinned --csv --device=all
 *         bin/bandwidthTest --quick              1 MiB per direction, 3 trials (sanitizers)
 * Results, one per direction and host memory (variant=direction_memory in the
 *   RESULT lines; chosen with --dir and --memory, there is no --variant):
 *   h2d_pinned d2h_pinned d2d h2d_pageable d2h_pageable h2d_wc d2h_wc. Device-to-device bytes are counted read + write (2 x size);
 *   host transfers once. pct_peak: HBM peak (memory clock x 2 x bus width / 8)
 *   for D2D; the PCIe link's max generation x width (from NVML, loaded at run
 *   time) for host transfers, omitted when NVML is absent. buffers=K on a
 *   record: the timed copies rotated over K source/destination pairs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime.h>

#include "bw_util.h"
#include "check.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "rng.h"
#include "timing.h"

/* ---- kernels ----------------------------------------------------------- */

/* Holds the stream until the host sets flag[0], or until timeout_ns pass
 * (then flag[1] says so, and the host stops using the spin: a launch that
 * blocks, as under some tools, must not hang the run). */
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

/* The pattern of bw_util.h, written on the device: one 8-byte word per
 * thread iteration, the last bytes % 8 bytes by thread 0. */
__global__ void pattern_fill(unsigned char *p, size_t bytes, uint64_t seed, uint64_t stream)
{
    size_t words = bytes / 8;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t w = tid; w < words; w += stride)
        ((uint64_t *)p)[w] = rng_hash(seed, stream, w);
    if (tid == 0)
        for (size_t j = 8 * words; j < bytes; j++)
            p[j] = (unsigned char)(rng_hash(seed, stream, j / 8) >> (8 * (j % 8)));
}

/* Compare [0, bytes) against bw_expected_byte (slot and len): res[0]
 * counts wrong 8-byte words (and tail bytes), res[1] is the lowest wrong
 * byte offset (start at ~0). */
__global__ void pattern_check(const unsigned char *p, size_t bytes, size_t slot, size_t len,
                              uint64_t seed, uint64_t stream, unsigned long long *res)
{
    size_t words = bytes / 8;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t w = tid; w < words; w += stride) {
        uint64_t g = ((const uint64_t *)p)[w], e;
        if (slot == len || (8 * w) % slot + 8 <= len) {
            e = rng_hash(seed, stream, w);   /* the whole word is pattern */
        } else {
            e = 0;
            for (int b = 0; b < 8; b++)
                e |= (uint64_t)bw_expected_byte(8 * w + b, slot, len, seed, stream) << (8 * b);
        }
        if (e != g) {
            int b = 0;
            while (((e ^ g) >> (8 * b) & 0xff) == 0) b++;
            atomicAdd(&res[0], 1ULL);
            atomicMin(&res[1], (unsigned long long)(8 * w + b));
        }
    }
    if (tid == 0)
        for (size_t j = 8 * words; j < bytes; j++)
            if (p[j] != bw_expected_byte(j, slot, len, seed, stream)) {
                atomicAdd(&res[0], 1ULL);
                atomicMin(&res[1], (unsigned long long)j);
            }
}

/* ---- options ----------------------------------------------------------- */

static const char *opt_mode = "quick";
static const char *opt_dir = "all";
static const char *opt_memory = "all";
static long long opt_size = 256LL << 20;
static long long opt_d2d_size = 1LL << 30;
static long long opt_start = 64LL << 20;
static long long opt_end = 256LL << 20;
static long long opt_inc = 64LL << 20;
static int opt_csv = 0;
#define DEF_SIZE (256LL << 20)
#define DEF_D2D (1LL << 30)
#define DEF_START (64LL << 20)
#define DEF_END (256LL << 20)
#define DEF_INC (64LL << 20)
#define MAX_BYTES (1LL << 40)

static const opt_spec sample_opts[] = {
    OPT_STRING_SPEC("mode", "MODE", "quick: one size; range: --start..--end; shmoo: 1 KiB..1 GiB",
                    &opt_mode, "quick|range|shmoo"),
    OPT_STRING_SPEC("dir", "DIR", "copy direction", &opt_dir, "all|h2d|d2h|d2d"),
    OPT_STRING_SPEC("memory", "KIND", "host memory (pinned, pageable, write-combined)", &opt_memory,
                    "all|pinned|pageable|wc"),
    OPT_INT_SPEC("size", "BYTES", "host-transfer size in --mode=quick", &opt_size, 1, MAX_BYTES),
    OPT_INT_SPEC("d2d-size", "BYTES", "device-to-device size in --mode=quick", &opt_d2d_size, 1,
                 MAX_BYTES),
    OPT_INT_SPEC("start", "BYTES", "first size in --mode=range", &opt_start, 1, MAX_BYTES),
    OPT_INT_SPEC("end", "BYTES", "last size in --mode=range (inclusive)", &opt_end, 1, MAX_BYTES),
    OPT_INT_SPEC("increment", "BYTES", "step in --mode=range", &opt_inc, 1, MAX_BYTES),
    OPT_FLAG_SPEC("csv", "print CSV rows (a header, then one row per result) instead of RESULT lines",
                  &opt_csv),
};

static const opts_config cfg = {
    "bandwidthTest", "host<->device and device<->device copy bandwidth, verified copies",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]),
    "Results: one per direction and host memory, named variant=<dir>_<memory> (h2d_pinned\n"
    "d2h_pinned d2d h2d_pageable d2h_pageable h2d_wc d2h_wc): choose them with --dir and --memory.\n"
    "Device-to-device bytes are counted read + write; host transfers once. --reps is the\n"
    "number of timed trials (median reported). --quick: 1 MiB per direction, 3 trials.\n"
    "Every mode also checks odd sizes (3 bytes, 1 MiB + 7 bytes) of each transfer first.",
    1};

/* ---- state of one device's run ----------------------------------------- */

enum { DIR_H2D, DIR_D2H, DIR_D2D };
enum { MEM_PINNED, MEM_PAGEABLE, MEM_WC, MEM_DEVICE };
static const char *const dir_names[] = {"h2d", "d2h", "d2d"};
static const char *const mem_names[] = {"pinned", "pageable", "wc", "device"};

typedef struct {
    int device;
    device_info dev;
    cudaStream_t s;
    cudaEvent_t start, stop;
    int *h_flag, *d_flag;          /* spin flag, host-mapped: [0] release, [1] timed out */
    int use_spin;
    unsigned long long *d_res;     /* pattern_check result */
    unsigned char *flush;          /* CPU cache flush buffer */
    size_t flush_bytes;
    int trials, warmups;
    uint64_t seed, stream_ctr;
    double pcie_peak;
    char pcie_basis[32];
    int check_blocks;
} run_ctx;

static void note(const char *fmt, const char *a)
{
    if (opt_csv) {
        fprintf(stderr, "# ");
        fprintf(stderr, fmt, a);
        fputc('\n', stderr);
    } else {
        report_note(fmt, a);
    }
}

/* ---- verification ------------------------------------------------------ */

static void dev_fill(run_ctx *c, void *d, size_t bytes, uint64_t stream)
{
    pattern_fill<<<c->check_blocks, 256, 0, c->s>>>((unsigned char *)d, bytes, c->seed, stream);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaStreamSynchronize(c->s));
}

/* 1 if device buffer d holds the pattern over [0, bytes), in slots of
 * `slot` bytes whose first `len` hold it and whose rest is still poison
 * (slot == len == bytes: one buffer); a mismatch is described on stderr. */
static int dev_check_slots(run_ctx *c, const char *what, const void *d, size_t bytes,
                           size_t slot, size_t len, uint64_t stream)
{
    unsigned long long res[2];
    CUDA_CHECK(cudaMemsetAsync(c->d_res, 0, sizeof(unsigned long long), c->s));
    CUDA_CHECK(cudaMemsetAsync(c->d_res + 1, 0xFF, sizeof(unsigned long long), c->s));
    pattern_check<<<c->check_blocks, 256, 0, c->s>>>((const unsigned char *)d, bytes, slot, len,
                                                      c->seed, stream, c->d_res);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(res, c->d_res, sizeof res, cudaMemcpyDeviceToHost, c->s));
    CUDA_CHECK(cudaStreamSynchronize(c->s));
    if (res[0] == 0) return 1;
    unsigned char got = 0;
    CUDA_CHECK(cudaMemcpy(&got, (const unsigned char *)d + res[1], 1, cudaMemcpyDeviceToHost));
    size_t at = (size_t)res[1];
    unsigned char want = bw_expected_byte(at, slot, len, c->seed, stream);
    fprintf(stderr, "  %s: first wrong byte at %zu: expected 0x%02x, got 0x%02x; %llu wrong "
                    "8-byte words of %zu bytes\n", what, at, want, got, res[0], bytes);
    return 0;
}

static int dev_check(run_ctx *c, const char *what, const void *d, size_t bytes, uint64_t stream)
{
    return dev_check_slots(c, what, d, bytes, bytes, bytes, stream);
}

/* ---- one transfer ------------------------------------------------------ */

/* Every destination has CHECK_GUARD_BYTES of guard zone after its capacity:
 * device ones from guarded_malloc, host ones allocated that much larger. */
typedef struct {
    int dir, mem;
    void *src, *dst;               /* dst/src of the measured copy (d2d: pools of pairs) */
    void *d_scratch;               /* WC host destination: checked through the device */
    enum cudaMemcpyKind kind;
} xfer;

static void copy_once(run_ctx *c, const xfer *x, size_t bytes)
{
    if (x->mem == MEM_PAGEABLE) {
        CUDA_CHECK(cudaMemcpy(x->dst, x->src, bytes, x->kind));
        CUDA_CHECK(cudaDeviceSynchronize());
    } else {
        CUDA_CHECK(cudaMemcpyAsync(x->dst, x->src, bytes, x->kind, c->s));
        CUDA_CHECK(cudaStreamSynchronize(c->s));
    }
}

/* 0xFF over the destination's first `bytes` and the guard zone after them. */
static void poison_dst(run_ctx *c, const xfer *x, size_t bytes)
{
    if (x->dir == DIR_D2H) {
        memset(x->dst, 0xFF, bytes + CHECK_GUARD_BYTES);
    } else {
        CUDA_CHECK(cudaMemsetAsync(x->dst, 0xFF, bytes + CHECK_GUARD_BYTES, c->s));
        CUDA_CHECK(cudaStreamSynchronize(c->s));
    }
}

/* Write the pattern into the source. */
static void fill_src(run_ctx *c, const xfer *x, size_t bytes, uint64_t stream)
{
    if (x->dir == DIR_H2D) byte_pattern_fill(x->src, bytes, c->seed, stream);
    else dev_fill(c, x->src, bytes, stream);
}

/* 1 if the destination holds the pattern and the guard zone after it is
 * untouched (nothing was written past the end). Device destinations may be
 * checked as slots (see dev_check_slots; pass slot = len = bytes for one). */
static int check_dst_slots(run_ctx *c, const xfer *x, size_t bytes, size_t slot, size_t len,
                           uint64_t stream, const char *what)
{
    if (x->dir != DIR_D2H)
        return dev_check_slots(c, what, x->dst, bytes, slot, len, stream) &
               (check_guard(what, x->dst, bytes) == 0);
    if (x->mem != MEM_WC)
        return (byte_pattern_check(what, x->dst, bytes, c->seed, stream) == 0) &
               (check_guard_host(what, (const unsigned char *)x->dst + bytes, CHECK_GUARD_BYTES) == 0);
    /* The CPU reads write-combined memory uncached (slowly): copy it, guard
     * zone included, to the device by DMA and compare there. */
    CUDA_CHECK(cudaMemsetAsync(x->d_scratch, 0xFF, bytes + CHECK_GUARD_BYTES, c->s));
    CUDA_CHECK(cudaMemcpyAsync(x->d_scratch, x->dst, bytes + CHECK_GUARD_BYTES,
                               cudaMemcpyHostToDevice, c->s));
    CUDA_CHECK(cudaStreamSynchronize(c->s));
    return dev_check(c, what, x->d_scratch, bytes, stream) &
           (check_guard(what, x->d_scratch, bytes) == 0);
}

static int check_dst(run_ctx *c, const xfer *x, size_t bytes, uint64_t stream, const char *what)
{
    return check_dst_slots(c, x, bytes, bytes, bytes, stream, what);
}

/* Copy once into a poisoned destination and verify. */
static int checked_copy(run_ctx *c, const xfer *x, size_t bytes, uint64_t stream, const char *what)
{
    fill_src(c, x, bytes, stream);
    poison_dst(c, x, bytes);
    copy_once(c, x, bytes);
    return check_dst(c, x, bytes, stream, what);
}

static void flush_cpu_caches(run_ctx *c)
{
    volatile unsigned char *p = c->flush;
    for (size_t i = 0; i < c->flush_bytes; i += 64) p[i] = (unsigned char)(p[i] + 1);
}

/* Copies per timed trial (pageable copies are timed one at a time). */
static int batch_of(const xfer *x, size_t bytes)
{
    return x->mem == MEM_PAGEABLE ? 1 : bw_batch_for(bytes);
}

/* Median milliseconds per copy; *batch_out copies per trial. Copy number j
 * (counting warm-ups) uses pair j % pairs: source and destination at offset
 * (j % pairs) x slot. */
static double time_copies(run_ctx *c, const xfer *x, size_t bytes, int pairs, size_t slot,
                          int *batch_out, const char **method)
{
    double *ms = (double *)malloc(sizeof(double) * (size_t)c->trials);
    if (!ms) {
        fprintf(stderr, "bandwidthTest: out of host memory\n");
        exit(1);
    }
    int batch = 1;
    if (x->mem == MEM_PAGEABLE) {
        *method = "host_timer+cache_flush";
        for (int t = -c->warmups; t < c->trials; t++) {
            flush_cpu_caches(c);
            double t0 = host_seconds();
            CUDA_CHECK(cudaMemcpy(x->dst, x->src, bytes, x->kind));
            /* from pageable memory cudaMemcpy may return once the last chunk
             * is staged, before its DMA lands: wait for it inside the timer */
            CUDA_CHECK(cudaDeviceSynchronize());
            double t1 = host_seconds();
            if (t >= 0) ms[t] = (t1 - t0) * 1e3;
        }
    } else {
        batch = bw_batch_for(bytes);
        size_t j = 0;
        for (int t = -c->warmups; t < c->trials; t++) {
            /* d2d: each trial starts with none of its buffers in the L2
             * (the pattern fill and the poisoning just wrote them), and
             * within a trial the pairs rotate (pairs >= batch) */
            if (x->dir == DIR_D2D) flush_l2(c->s);
            int spin = c->use_spin;
            if (spin) {
                ((volatile int *)c->h_flag)[0] = 0;
                ((volatile int *)c->h_flag)[1] = 0;
                spin_on_host_flag<<<1, 1, 0, c->s>>>(c->d_flag, 200ULL * 1000 * 1000);
                CHECK_LAUNCH();
            }
            CUDA_CHECK(cudaEventRecord(c->start, c->s));
            for (int b = 0; b < batch; b++, j++) {
                size_t off = (j % (size_t)pairs) * slot;
                CUDA_CHECK(cudaMemcpyAsync((char *)x->dst + off, (const char *)x->src + off, bytes,
                                           x->kind, c->s));
            }
            CUDA_CHECK(cudaEventRecord(c->stop, c->s));
            if (spin) __atomic_store_n(&c->h_flag[0], 1, __ATOMIC_SEQ_CST);
            CUDA_CHECK(cudaEventSynchronize(c->stop));
            if (spin && ((volatile int *)c->h_flag)[1]) {
                c->use_spin = 0;
                note("%s", "spin kernel timed out waiting for the host (kernel launches block, "
                           "e.g. under a tool): timing with plain events from here on");
            }
            float e = 0;
            CUDA_CHECK(cudaEventElapsedTime(&e, c->start, c->stop));
            if (t >= 0) ms[t] = e / batch;
        }
        *method = c->use_spin ? "events+spin" : "events";
    }
    double med = stats_median(ms, c->trials);
    free(ms);
    *batch_out = batch;
    return med;
}

/* Source/destination pairs the timed copies of `bytes` use: the rotation
 * for d2d (bw_d2d_rotation), but no more pairs than there are copies. */
static int pairs_used(const run_ctx *c, const xfer *x, size_t bytes)
{
    if (x->dir != DIR_D2D) return 1;
    long long copies = (long long)(c->warmups + c->trials) * batch_of(x, bytes);
    int k = bw_d2d_rotation(bytes, c->dev.l2_bytes);
    return copies < k ? (int)copies : k;
}

/* Distance between the pairs: the size rounded up to 256 bytes, so every
 * copy starts as aligned as cudaMalloc's own buffers. */
static size_t pair_slot(size_t bytes, int pairs)
{
    return pairs > 1 ? (bytes + 255) / 256 * 256 : bytes;
}

/* Check, time, check again; emit one record. Returns 1 if it passed. */
static int run_one(run_ctx *c, const xfer *x, size_t bytes, int precheck_ok)
{
    char variant[32], what[96], range[64];
    if (x->dir == DIR_D2D) snprintf(variant, sizeof variant, "d2d");
    else snprintf(variant, sizeof variant, "%s_%s", dir_names[x->dir], mem_names[x->mem]);
    snprintf(what, sizeof what, "%s(%zu bytes) destination", variant, bytes);
    uint64_t stream = ++c->stream_ctr;

    bw_row row;
    memset(&row, 0, sizeof row);
    row.variant = variant;
    row.device = c->device;
    row.direction = dir_names[x->dir];
    row.memory = mem_names[x->mem];
    row.bytes = bytes;
    row.ok = precheck_ok && checked_copy(c, x, bytes, stream, what);
    if (row.ok) {
        /* The timed copies use `pairs` source/destination pairs, `slot`
         * bytes apart. The source pattern runs on over all of them (byte j
         * of the pattern at offset j) and the destinations are poisoned, so
         * afterwards each destination slot must hold the pattern in its
         * first `bytes` and poison in the rest: every timed copy is
         * checked, not only the first, and so is every gap between them. */
        const int pairs = pairs_used(c, x, bytes);
        const size_t slot = pair_slot(bytes, pairs), span = (size_t)pairs * slot;
        if (pairs > 1) fill_src(c, x, span, stream);
        poison_dst(c, x, span);   /* the timed copies must write it all again */
        snprintf(range, sizeof range, "bandwidthTest/%s", variant);
        int depth = nvtx_push_path(range);   /* nested: "bandwidthTest", then the variant */
        row.time_ms = time_copies(c, x, bytes, pairs, slot, &row.batch, &row.timing);
        nvtx_pop_n(depth);
        char after[112];
        snprintf(after, sizeof after, "%s after timing", what);
        row.ok = check_dst_slots(c, x, span, slot, bytes, stream, after);
        row.trials = c->trials;
        row.buffers = pairs;
        int d2d = x->dir == DIR_D2D;
        row.gbps = bw_gbps(bytes, 1, row.time_ms, d2d);
        row.counted = d2d ? "read+write" : "once";
        row.peak_gbps = d2d ? c->dev.peak_gbps : c->pcie_peak;
        row.peak_basis = d2d ? "hbm" : (c->pcie_peak > 0 ? c->pcie_basis : "unknown");
        if (row.ok && bw_above_peak(&row)) {
            fprintf(stderr, "bandwidthTest: %s at %zu bytes: measured %.1f GB/s, above the "
                            "theoretical peak of %.1f GB/s (%s): that is a wrong measurement "
                            "(a cache, or the timing), not a figure\n",
                    variant, bytes, row.gbps, row.peak_gbps, row.peak_basis);
            row.ok = 0;
        }
    }
    result_rec r;
    bw_fill_record(&r, &row);
    if (opt_csv) {
        char line[2048];
        if (bw_csv_format(&r, line, sizeof line) < 0) report_fail("CSV row too long");
        else printf("%s\n", line);
        fflush(stdout);
        if (!row.ok) report_fail("%s at %zu bytes: the copy or its measurement was wrong", variant, bytes);
    } else {
        rec_emit(&r);
    }
    return row.ok;
}

/* ---- phases ------------------------------------------------------------ */

#define ODD_BIG ((size_t)(1 << 20) + 7)

static int want_dir(int d)
{
    return !strcmp(opt_dir, "all") || !strcmp(opt_dir, dir_names[d]);
}
static int want_mem(int m)
{
    return !strcmp(opt_memory, "all") || !strcmp(opt_memory, mem_names[m]);
}

/* Odd sizes first (not multiples of 8 or of any block), then the plan. */
static void run_sizes(run_ctx *c, const xfer *x, const long long *sizes, int n)
{
    const size_t odd[] = {3, ODD_BIG};
    int ok = 1;
    for (int i = 0; i < 2; i++) {
        char what[96];
        snprintf(what, sizeof what, "%s_%s(odd size %zu bytes) destination", dir_names[x->dir],
                 mem_names[x->mem], odd[i]);
        if (!checked_copy(c, x, odd[i], ++c->stream_ctr, what)) {
            report_fail("%s: copy of %zu bytes was wrong", what, odd[i]);
            ok = 0;
        }
    }
    for (int i = 0; i < n; i++) run_one(c, x, (size_t)sizes[i], ok);
}

static void *host_alloc(int mem, size_t bytes)
{
    void *p = NULL;
    if (mem == MEM_PAGEABLE) {
        p = malloc(bytes);
        if (!p) {
            fprintf(stderr, "bandwidthTest: error: cannot allocate %zu bytes of pageable memory\n",
                    bytes);
            exit(1);
        }
    } else {
        CUDA_CHECK(cudaHostAlloc(&p, bytes,
                                 mem == MEM_WC ? cudaHostAllocWriteCombined : cudaHostAllocDefault));
    }
    return p;
}

static void host_free(int mem, void *p)
{
    if (mem == MEM_PAGEABLE) free(p);
    else CUDA_CHECK(cudaFreeHost(p));
}

static void run_host_phase(run_ctx *c, int mem, const long long *sizes, int n, size_t cap)
{
    if (!want_mem(mem) || !(want_dir(DIR_H2D) || want_dir(DIR_D2H))) return;
    /* destinations carry a guard zone after their capacity */
    void *h_src = host_alloc(mem, cap), *h_dst = host_alloc(mem, cap + CHECK_GUARD_BYTES);
    void *d_buf = guarded_malloc(cap), *d_scratch = NULL;
    if (mem == MEM_WC && want_dir(DIR_D2H)) d_scratch = guarded_malloc(cap);
    if (want_dir(DIR_H2D)) {
        xfer x = {DIR_H2D, mem, h_src, d_buf, NULL, cudaMemcpyHostToDevice};
        run_sizes(c, &x, sizes, n);
    }
    if (want_dir(DIR_D2H)) {
        xfer x = {DIR_D2H, mem, d_buf, h_dst, d_scratch, cudaMemcpyDeviceToHost};
        run_sizes(c, &x, sizes, n);
    }
    guarded_free(d_buf);
    guarded_free(d_scratch);
    host_free(mem, h_src);
    host_free(mem, h_dst);
}

/* Bytes of each of the two d2d pools: the largest size, or the largest
 * rotation of pairs of a smaller one (below 4 x L2 + one size). */
static size_t d2d_pool_bytes(const run_ctx *c, const long long *sizes, int n, size_t cap)
{
    xfer x = {DIR_D2D, MEM_DEVICE, NULL, NULL, NULL, cudaMemcpyDeviceToDevice};
    size_t pool = cap;
    for (int i = 0; i < n; i++) {
        int pairs = pairs_used(c, &x, (size_t)sizes[i]);
        size_t span = (size_t)pairs * pair_slot((size_t)sizes[i], pairs);
        if (span > pool) pool = span;
    }
    return pool;
}

static void run_d2d_phase(run_ctx *c, const long long *sizes, int n, size_t pool)
{
    if (!want_dir(DIR_D2D)) return;
    void *a = NULL, *b = guarded_malloc(pool);   /* the destination: guard after it */
    CUDA_CHECK(cudaMalloc(&a, pool));
    xfer x = {DIR_D2D, MEM_DEVICE, a, b, NULL, cudaMemcpyDeviceToDevice};
    run_sizes(c, &x, sizes, n);
    CUDA_CHECK(cudaFree(a));
    guarded_free(b);
}

static long long max_of(const long long *v, int n)
{
    long long m = 0;
    for (int i = 0; i < n; i++) m = v[i] > m ? v[i] : m;
    return m;
}

static const char *size_option(int d2d)
{
    if (!strcmp(opt_mode, "range")) return "--end";
    if (!strcmp(opt_mode, "shmoo")) return "--mode=shmoo";
    return d2d ? "--d2d-size" : "--size";
}

static int bad_arg(const char *msg)
{
    fprintf(stderr, "bandwidthTest: error: %s\n", msg);
    fprintf(stderr, "Run 'bandwidthTest --help' for the options.\n");
    printf("bandwidthTest: FAIL (bad argument)\n");
    return 1;
}

static void run_device(int id, const common_opts *o, const long long *hs, int nh,
                       const long long *ds, int nd, size_t flush_bytes)
{
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.device = id;
    device_setup_or_exit("bandwidthTest", id, o->json || opt_csv, &c.dev);

    int host_dirs = want_dir(DIR_H2D) || want_dir(DIR_D2H);
    c.trials = o->reps;
    c.warmups = 3;
    size_t hcap = (size_t)max_of(hs, nh), dcap = (size_t)max_of(ds, nd);
    if (hcap < ODD_BIG) hcap = ODD_BIG;
    if (dcap < ODD_BIG) dcap = ODD_BIG;
    const size_t dpool = d2d_pool_bytes(&c, ds, nd, dcap);

    /* Sizes larger than the device's free memory are bad arguments. */
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    size_t margin = (size_t)256 << 20;
    size_t need_h = host_dirs ? (hcap + CHECK_GUARD_BYTES) *
                                    ((want_mem(MEM_WC) && want_dir(DIR_D2H)) ? 2 : 1) : 0;
    size_t need_d = want_dir(DIR_D2D) ? 2 * dpool + CHECK_GUARD_BYTES : 0;
    if (need_h + margin > free_b || need_d + margin > free_b) {
        int d2d = need_d > need_h;
        fprintf(stderr, "bandwidthTest: error: %s: needs %zu bytes of device memory (+%zu spare), "
                        "but device %d has %zu bytes free\n",
                size_option(d2d), d2d ? need_d : need_h, margin, id, free_b);
        printf("bandwidthTest: FAIL (bad argument)\n");
        exit(1);
    }

    c.seed = o->seed;
    c.use_spin = 1;
    c.flush_bytes = flush_bytes;
    c.check_blocks = c.dev.sm_count * 4;
    CUDA_CHECK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&c.start));
    CUDA_CHECK(cudaEventCreate(&c.stop));
    CUDA_CHECK(cudaHostAlloc((void **)&c.h_flag, 2 * sizeof(int), cudaHostAllocMapped));
    c.h_flag[0] = c.h_flag[1] = 0;
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&c.d_flag, c.h_flag, 0));
    CUDA_CHECK(cudaMalloc(&c.d_res, 2 * sizeof(unsigned long long)));

    /* The PCIe link, for pct_peak of host transfers. */
    char bus[32] = "", uuid[48] = "", text[256];
    CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, id));
    struct cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, id));
    device_uuid_text((const unsigned char *)p.uuid.bytes, uuid, sizeof uuid);
    pcie_link link;
    pcie_query(bus, uuid, &link);
    if (link.available) {
        c.pcie_peak = pcie_peak_gbps(link.max_gen, link.max_width);
        snprintf(c.pcie_basis, sizeof c.pcie_basis, "pcie_gen%d_x%d", link.max_gen, link.max_width);
        snprintf(text, sizeof text,
                 "PCIe link at %s: max gen%d x%d = %.1f GB/s per direction (theoretical, after "
                 "line coding); now gen%d x%d (idle links may train down)",
                 bus, link.max_gen, link.max_width, c.pcie_peak, link.cur_gen, link.cur_width);
    } else {
        snprintf(text, sizeof text, "PCIe link at %s: unknown (%s): host transfers get no pct_peak",
                 bus, link.why);
    }
    note("%s", text);
    snprintf(text, sizeof text,
             "timing: events around batches of copies held behind a spin kernel (pinned, wc, d2d), "
             "host timer per copy after a %zu MiB CPU cache flush (pageable); median of %d trials "
             "after %d warm-ups; d2d bytes counted read + write",
             flush_bytes >> 20, c.trials, c.warmups);
    note("%s", text);
    if (want_dir(DIR_D2D)) {
        snprintf(text, sizeof text,
                 "d2d: the L2 is flushed before each trial, and copies under 4 x L2 (%.0f MiB) "
                 "rotate over ceil(4 x L2 / size) source/destination pairs (buffers=), so no "
                 "copy finds its data in the L2: HBM figures",
                 4.0 * (c.dev.l2_bytes > 0 ? c.dev.l2_bytes : 256 << 20) / 1048576.0);
        note("%s", text);
    }

    run_host_phase(&c, MEM_PINNED, hs, nh, hcap);
    run_d2d_phase(&c, ds, nd, dpool);
    if (want_mem(MEM_PAGEABLE) && host_dirs) {
        c.flush = (unsigned char *)calloc(1, c.flush_bytes);
        if (!c.flush) {
            report_fail("cannot allocate the %zu-byte cache flush buffer", c.flush_bytes);
        } else {
            run_host_phase(&c, MEM_PAGEABLE, hs, nh, hcap);
            free(c.flush);
            c.flush = NULL;
        }
    }
    run_host_phase(&c, MEM_WC, hs, nh, hcap);

    CUDA_CHECK(cudaFree(c.d_res));
    CUDA_CHECK(cudaFreeHost(c.h_flag));
    CUDA_CHECK(cudaEventDestroy(c.start));
    CUDA_CHECK(cudaEventDestroy(c.stop));
    CUDA_CHECK(cudaStreamDestroy(c.s));
}

int main(int argc, char **argv)
{
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);

    /* Everything about the arguments is settled before any CUDA call. */
    char err[256];
    if (opt_csv && o.json) return bad_arg("--csv and --json exclude each other");
    bw_mode mode = !strcmp(opt_mode, "range") ? BW_MODE_RANGE
                 : !strcmp(opt_mode, "shmoo") ? BW_MODE_SHMOO : BW_MODE_QUICK;
    if (mode != BW_MODE_RANGE && (opt_start != DEF_START || opt_end != DEF_END || opt_inc != DEF_INC))
    {
        snprintf(err, sizeof err, "--start, --end and --increment apply to --mode=range (got --mode=%s)",
                 opt_mode);
        return bad_arg(err);
    }
    if (mode != BW_MODE_QUICK && (opt_size != DEF_SIZE || opt_d2d_size != DEF_D2D))
    {
        snprintf(err, sizeof err, "--size and --d2d-size apply to --mode=quick (got --mode=%s)",
                 opt_mode);
        return bad_arg(err);
    }
    if (o.quick && mode == BW_MODE_QUICK) {
        if (opt_size == DEF_SIZE) opt_size = 1 << 20;
        if (opt_d2d_size == DEF_D2D) opt_d2d_size = 1 << 20;
    }
    long long shmoo_max = o.quick ? (1LL << 20) : BW_SHMOO_MAX;
    static long long hs[BW_MAX_SIZES], ds[BW_MAX_SIZES];
    int nh = bw_plan_sizes(mode, opt_size, opt_start, opt_end, opt_inc, shmoo_max, hs,
                           BW_MAX_SIZES, err, sizeof err);
    int nd = nh < 0 ? -1 : bw_plan_sizes(mode, opt_d2d_size, opt_start, opt_end, opt_inc,
                                          shmoo_max, ds, BW_MAX_SIZES, err, sizeof err);
    if (nh < 0 || nd < 0) return bad_arg(err);
    if (o.quick && o.reps == OPTS_DEFAULT_REPS) o.reps = 3;

    /* Host memory: two buffers of the largest host size, plus the flush buffer. */
    long long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    long long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    size_t flush_bytes = bw_flush_bytes(llc);
    if (o.quick && flush_bytes > ((size_t)64 << 20)) flush_bytes = (size_t)64 << 20;
    int host_dirs = want_dir(DIR_H2D) || want_dir(DIR_D2H);
    if (host_dirs && pages > 0 && page > 0) {
        double need = 2.0 * (double)max_of(hs, nh) + (double)flush_bytes;
        double have = (double)pages * (double)page;
        if (need > 0.75 * have) {
            fprintf(stderr, "bandwidthTest: error: %s: host transfers need %.0f bytes of host "
                            "memory, more than 3/4 of this machine's %.0f bytes\n",
                    size_option(0), need, have);
            printf("bandwidthTest: FAIL (bad argument)\n");
            return 1;
        }
    }

    report_init("bandwidthTest", o.json);
    int count = device_count_or_waive("bandwidthTest");   /* WAIVED (exit 2) without one */
    if (opt_csv) {
        char h[512];
        bw_csv_header(h, sizeof h);
        printf("%s\n", h);
    }
    int first = o.all_devices ? 0 : o.device, last = o.all_devices ? count - 1 : o.device;
    for (int id = first; id <= last; id++) {
        if (o.all_devices) {
            char t[64];
            snprintf(t, sizeof t, "%d of %d", id + 1, count);
            note("--device=all: testing device %s, each in turn", t);
        }
        run_device(id, &o, hs, nh, ds, nd, flush_bytes);
    }
    return report_finish();
}
