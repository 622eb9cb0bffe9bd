// sim.cpp: runs the histogram's kernels on the CPU, without a GPU: one
// fiber per CUDA thread (tests/support/sim_fibers.h: all on one OS thread,
// round robin, so a block's threads run one after another between
// barriers), one block at a time, __syncthreads as a barrier over the
// block, __reduce_add_sync as a barrier over the 32 threads of a warp,
// atomics as GCC __atomic builtins (harmless on one OS thread). The kernels are the
// real source (the files ../../kernels/NN_*.cuh, which run.sh copies with
// their dynamic shared memory pointed at g_dyn_smem); only the inline-PTX
// helpers of kernels/00_ptx.cuh are replaced, by C++ of the same meaning
// (red.shared.add.u32 -> an atomic add at that shared offset; prmt.b32 ->
// the byte permute of the PTX ISA, sign replication included; cp.async -> a
// copy; the acquire/release flag -> atomics with that ordering). Dynamic
// shared memory is filled with 0xA5 bytes before each block, so a copy the
// kernel forgot to zero shows; static __shared__ arrays are C++ statics, which
// keep what the block before left in them.
//
// What it checks: indexing, head/tail/alignment handling, the packed 16-bit
// layout and its flush, the merges, barrier placement (a missing barrier
// makes results wrong here too, most of the time), for every kernel at
// 256 and 64 bins on the three inputs. Not timing, and not the GPU's memory
// model: compute-sanitizer on the GPU remains the authority on races.
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <functional>

#include "cpu_ref.h"
#include "hist_common.h"
#include "hist_host.h"
#include "../../../../tests/support/sim_fibers.h"

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct alignas(16) uint4 { unsigned x, y, z, w; };
static inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return {a, b, c, d}; }
SIM_FIBER_LOCAL(dim3, threadIdx);
dim3 blockIdx, blockDim, gridDim;   // one block at a time: the same for all its threads
typedef unsigned long long u64;
static sim_fibers::barrier *g_bar;
static std::vector<sim_fibers::barrier *> g_warp_bar;
static unsigned g_warp_val[32][32];
alignas(16) unsigned g_dyn_smem[65536];   /* 256 KiB */

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__
#define __shared__ static
#define __launch_bounds__(...)
static inline void __syncthreads() { g_bar->arrive_and_wait(); }
static inline unsigned atomicAdd(unsigned *p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static inline u64 atomicAdd(u64 *p, u64 v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static inline uint4 __ldg(const uint4 *p) { return *p; }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline size_t __cvta_generic_to_shared(const void *p)
{
    return (size_t)((const char *)p - (const char *)g_dyn_smem);
}
static inline unsigned __reduce_add_sync(unsigned, unsigned v)
{
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    g_warp_val[warp][lane] = v;
    g_warp_bar[warp]->arrive_and_wait();
    unsigned s = 0;
    for (int l = 0; l < 32; l++) s += g_warp_val[warp][l];
    g_warp_bar[warp]->arrive_and_wait();
    return s;
}
/* kernels/00_ptx.cuh's helpers, in C++ (the file itself is skipped) */
#define HIST_PTX_CUH
static inline void red_shared_add(unsigned addr, unsigned v)
{
    if (addr % 4 != 0 || addr >= sizeof g_dyn_smem) {
        fprintf(stderr, "sim: red.shared at byte %u: outside the dynamic shared memory\n", addr);
        abort();
    }
    __atomic_fetch_add(&g_dyn_smem[addr / 4], v, __ATOMIC_RELAXED);
}
/* Steps 14 to 16's helpers: the prefetch is only a hint (nothing to do); a
 * cp.async copy completes at once, so commit and wait have nothing to do;
 * the flag is an atomic with the same ordering. */
static inline void prefetch_l2(const void *) {}
static inline void cp_async16(unsigned dst, const void *src)
{
    if (dst % 16 != 0 || dst + 16 > sizeof g_dyn_smem) {
        fprintf(stderr, "sim: cp.async to byte %u: outside the dynamic shared memory or unaligned\n", dst);
        abort();
    }
    if ((uintptr_t)src % 16 != 0) {
        fprintf(stderr, "sim: cp.async from an address that is not 16-byte aligned\n");
        abort();
    }
    memcpy((char *)g_dyn_smem + dst, src, 16);
}
static inline void cp_async_commit() {}
template <int N>
static inline void cp_async_wait() {}
/* Read in a spin loop (thread 0 waits for block 0's flag): the other fibers
 * get their turn first, as the other threads would run meanwhile. */
static inline unsigned ld_acquire_gpu(const unsigned *p)
{
    sim_fibers::yield();
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline void st_release_gpu(unsigned *p, unsigned v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
template <unsigned SEL>
static inline unsigned prmt(unsigned x)
{
    const unsigned long long src = x;   /* bytes 4..7 (the second operand) are 0 */
    unsigned r = 0;
    for (int i = 0; i < 4; i++) {
        const unsigned ctl = (SEL >> (4 * i)) & 0xF;
        unsigned byte = (unsigned)(src >> (8 * (ctl & 7))) & 0xFF;
        if (ctl & 8) byte = (byte & 0x80) ? 0xFF : 0;
        r |= byte << (8 * i);
    }
    return r;
}

#define __CUDA_ARCH__ 900   /* the kernels' sm_80+ paths (__reduce_add_sync) */
#include "kernels.inc"

/* Run f as a grid of grid x block threads, block after block. */
static void launch(unsigned grid, unsigned block, const std::function<void()> &f)
{
    gridDim = dim3(grid);
    blockDim = dim3(block);
    for (unsigned b = 0; b < grid; b++) {
        memset(g_dyn_smem, 0xA5, sizeof g_dyn_smem);
        sim_fibers::barrier bar(block);
        g_bar = &bar;
        std::vector<sim_fibers::barrier *> warps;
        for (unsigned w = 0; w < (block + 31) / 32; w++) warps.push_back(new sim_fibers::barrier(32));
        g_warp_bar = warps;
        blockIdx = dim3(b);
        sim_fibers::run(block, [&](unsigned t) {
            threadIdx = dim3(t);
            f();
        });
        for (auto *w : warps) delete w;
    }
}

typedef void (*kernel_fn)(const unsigned char *, size_t, u64 *);
typedef void (*lanes_fn)(const unsigned char *, size_t, u64 *, unsigned, unsigned *);

/* Steps 12 to 16 take two more arguments (the launch's epoch and the flag);
 * the simulated launch passes a new epoch every time, as run_lanes does. */
static unsigned g_flag, g_epoch;
static lanes_fn g_lanes;
static void call_lanes(const unsigned char *d, size_t n, u64 *hist) { g_lanes(d, n, hist, g_epoch, &g_flag); }

struct sim_variant {
    const char *name;
    kernel_fn k256, k64;
    int per_thread;   /* bytes a thread counts per round: 1, 16; 0 = one byte per thread, no loop */
    int pack16;
    lanes_fn l256, l64;   /* steps 12 to 16 (k256, k64 unused) */
    int nozero;           /* the kernel zeroes the output itself */
};

#define K(k) k<256>, k<64>
/* The variants of histogram.cu's table, in its order (run.sh compares the names). */
static const sim_variant variants[] = {
    {"global_atomics", K(hist_global_atomics), 0, 0},
    {"shared_private", K(hist_shared_private), 1, 0},
    {"shared_private_load16", K(hist_shared_private_load16), 16, 0},
    {"shared_private_prefetch", K(hist_shared_private_prefetch), 16, 0},
    {"shared_private_ptx", K(hist_shared_private_ptx), 16, 0},
    {"shared_private_vec16", K(hist_shared_private_vec16), 16, 0},
    {"warp_private", K(hist_warp_private), 16, 0},
    {"fast_r32", K(hist_fast_r32), 16, 0},
    {"fast_r64", K(hist_fast_r64), 16, 0},
    {"fast_r64p", K(hist_fast_r64p), 16, 1},
    {"fast_r128p", K(hist_fast_r128p), 16, 1},
    {"fast_r32_bmerge", nullptr, nullptr, 16, 0, K(hist_fast_r32_bmerge), 0},
    {"fast_r32_l1", nullptr, nullptr, 16, 0, K(hist_fast_r32_l1), 0},
    {"fast_r32_nozero", nullptr, nullptr, 16, 0, K(hist_fast_r32_nozero), 1},
    {"fast_r32_l2pf", nullptr, nullptr, 16, 0, K(hist_fast_r32_l2pf), 1},
    {"fast_r32_async", nullptr, nullptr, 16, 0, K(hist_fast_r32_async), 1},
#ifdef EXERCISE
    /* an exercise kernel: grid-stride, launched here with 16 bytes per
     * thread's worth of grid (a one-byte kernel then does more rounds) */
    {"exercise", K(hist_exercise), 16, 0},
#endif
};

/* The output of a simulated launch: 256 bins and a guard zone after them;
 * the bins past the launch's BINS and the guard must keep their pattern (as
 * the real checks' check_guard requires of the zone after the output). */
#define SIM_GUARD_WORDS 8
static char g_first_failure[256];   /* the first mismatch, repeated on the last line */
static const u64 SIM_GUARD = 0x5A5A5A5A5A5A5A5AULL;

static int run_one(const sim_variant &v, int bins, int kind, const unsigned char *data, size_t n,
                   size_t offset, unsigned grid, unsigned block)
{
    u64 hist[256 + SIM_GUARD_WORDS], ref[256];
    /* The launchers zero the output; a kernel that does it itself starts
     * from the poison of the real checks (every bit set). */
    for (int b = 0; b < 256 + SIM_GUARD_WORDS; b++) hist[b] = b >= bins ? SIM_GUARD : v.nozero ? ~0ULL : 0;
    memset(ref, 0, sizeof ref);
    cpu_histogram_add_u64(data + offset, n, bins, ref);
    kernel_fn k = bins == 256 ? v.k256 : v.k64;
    if (v.l256) {
        g_lanes = bins == 256 ? v.l256 : v.l64;
        if (++g_epoch == 0) ++g_epoch;
        k = call_lanes;
    }
    const unsigned char *d = data + offset;
    launch(grid, block, [&] { k(d, n, hist); });
    for (int b = 0; b < 256 + SIM_GUARD_WORDS; b++) {
        const u64 want = b < bins ? ref[b] : SIM_GUARD;
        if (hist[b] != want) {
            char msg[sizeof g_first_failure];
            snprintf(msg, sizeof msg, "%s %s %d bins n=%zu offset %zu grid %u x %u: %s %d expected %llu got %llu",
                     v.name, hist_input_name(kind), bins, n, offset, grid, block,
                     b < bins ? "bin" : "word past the output, at", b, want, hist[b]);
            printf("FAIL %s\n", msg);
            if (!g_first_failure[0]) snprintf(g_first_failure, sizeof g_first_failure, "%s", msg);
            return 0;
        }
    }
    return 1;
}

/* Every launch of one variant; stops at the first mismatch. */
static int check_variant(const sim_variant &v, unsigned char *const data[], int *runs)
{
    const size_t sizes[] = {1, 3, 15, 16, 17, 1000, 4097};
    const size_t offsets[] = {0, 1, 7, 15};
    for (int bins : {256, 64})
        for (int kind = 0; kind < HIST_N_INPUTS; kind++) {
            const unsigned char *d = data[kind];
            /* the launcher's grid at small sizes: one round or none per thread */
            for (size_t n : sizes)
                for (size_t off : offsets) {
                    unsigned block = v.per_thread == 0 ? ATOMIC_THREADS : PRIV_THREADS;
                    unsigned per = v.per_thread == 0 ? 1 : v.per_thread;
                    unsigned grid = (unsigned)((n + (size_t)per * block - 1) / ((size_t)per * block));
                    ++*runs;
                    if (!run_one(v, bins, kind, d, n, off, grid, block)) return 0;
                }
            if (v.per_thread == 0) continue;
            /* full blocks, several of them: 3 x 1024 threads over 40037 bytes */
            ++*runs;
            if (!run_one(v, bins, kind, d, 40037, 5, 3, 1024)) return 0;
            /* a small grid: 20+ rounds per thread, uneven between threads */
            ++*runs;
            if (!run_one(v, bins, kind, d, (1u << 16) + 5, 3, 3, 64)) return 0;
            /* the packed counters' overflow check: one warp, degenerate bytes */
            if (v.pack16 && kind == HIST_DEGENERATE) {
                ++*runs;
                if (!run_one(v, bins, kind, d, HIST_STRESS_N, 0, 1, 32)) return 0;
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
    const size_t cap = HIST_STRESS_N + 64;
    unsigned char *data[HIST_N_INPUTS];
    for (int kind = 0; kind < HIST_N_INPUTS; kind++) {
        data[kind] = (unsigned char *)aligned_alloc(256, cap);
        for (size_t i = 0; i < cap; i++) data[kind][i] = (unsigned char)hist_input_byte(kind, 2026, i);
    }
    int failed = 0, runs = 0;
    for (const sim_variant &v : variants) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], v.name) == 0;
        if (!wanted) continue;
        const int ok = check_variant(v, data, &runs);
        printf("%-24s %s\n", v.name, ok ? "PASS" : "FAIL");
        fflush(stdout);
        failed += !ok;
    }
    printf("%d launches simulated\n", runs);
    if (failed) printf("SIM FAIL: %s\n", g_first_failure);
    else printf("SIM PASS\n");
    return failed ? 1 : 0;
}
