// sim.cpp: the reduction's kernels run on the CPU (cuda_sim.h: one fiber per
// CUDA thread, barriers and warp operations), through the sample's own
// launchers and variant table: run.sh cuts reduction.cu from its kernel
// includes to its options (the kernels/ files, the launchers, the table),
// rewrites the launches for cuda_sim.h and compiles it here. So every row of
// the table is simulated, the exercise's too when it is built in.
//
// Each variant is checked as the sample checks it: the sum of the seeded
// nonzero integer inputs (common/reduce_input.h) must be exact, so one lost,
// doubled or extra element fails; elements past n are poison (NaN, or a
// large integer), and so are the partial-sum buffers and the result before
// each run, each followed by a guard zone that must stay untouched. Sizes
// are not multiples of the block; grid-stride variants also run on a grid
// of 3 blocks; every case runs in the three schedules of cuda_sim.h
// (forward, reverse, free), so a missing barrier shows.
//
// Usage: sim [--quick] [VARIANT...]: every variant (the reference, cub, is
// not simulated), or those named. Exit 0 with "SIM PASS: ..." last when every
// run was exact; 1 with a "SIM FAIL: ..." line per wrong variant.
#include "cuda_sim.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// CUB does not exist here; the reference variant is not simulated.
namespace cub {
struct DeviceReduce {
    template <class I, class O>
    static cudaError_t Sum(void *, size_t &, I, O, int64_t, cudaStream_t = 0) { return cudaErrorNotSupported; }
};
}  // namespace cub
typedef void (*timed_fn)(void *ctx, cudaStream_t stream);  // common/timing.h's

#include "reduce_device.cuh"
#include "reduction_part.inc"  // the kernels, launchers and variant table of reduction.cu

// common/reduce_ref.c's, which is not linked here (it needs the CUDA runtime)
static size_t type_size(red_type t) { return t == RED_DOUBLE ? 8 : 4; }
static size_t acc_size(red_type t) { return t == RED_FLOAT ? 4 : 8; }
static const char *type_name(red_type t) { return t == RED_FLOAT ? "float" : t == RED_DOUBLE ? "double" : "int"; }

static const uint64_t SEED = 2026;  // the sample's default --seed
static const size_t GUARD = 64;     // poisoned elements after each buffer

// The exact sum of elements [0, n) of type t, as the sample's reference.
static long long exact_sum(red_type t, size_t n)
{
    const int k = t == RED_FLOAT ? RED_K_F32 : t == RED_DOUBLE ? RED_K_F64 : RED_K_I32;
    long long s = 0;
    for (size_t i = 0; i < n; i++) s += red_input_exact(k, SEED, i);
    return s;
}

// A buffer of `count` elements plus the guard, 256-byte aligned (as cudaMalloc).
struct buffer {
    unsigned char *p = nullptr;
    size_t bytes = 0;
    buffer(size_t b) : bytes(b)
    {
        p = (unsigned char *)std::aligned_alloc(256, (b + 255) / 256 * 256);
        if (!p) { std::printf("SIM FAIL: out of host memory\n"); std::exit(1); }
    }
    ~buffer() { std::free(p); }
};

static bool guard_intact(const unsigned char *p, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != 0xFF) return false;
    return true;
}

struct sim_case {
    size_t n;
    int block;
    size_t grid_cap;  // 0: the launcher's own grid
};

// Run variant v once; 1 if the sum is exact and nothing was written out of place.
static int run_case(const variant &v, red_type t, const sim_case &c, char *msg, size_t msglen)
{
    const size_t esize = type_size(t), asize = acc_size(t);
    buffer in((c.n + GUARD) * esize);
    for (size_t i = 0; i < c.n + GUARD; i++) {
        const bool past = i >= c.n;  // poison past n: any read of it changes the sum
        if (t == RED_FLOAT) ((float *)in.p)[i] = past ? NAN : red_input_f32(SEED, i);
        else if (t == RED_DOUBLE) ((double *)in.p)[i] = past ? NAN : red_input_f64(SEED, i);
        else ((int *)in.p)[i] = past ? (1 << 29) : red_input_i32(SEED, i);
    }
    // partial-sum buffers sized as the sample sizes them (main)
    size_t part_n[2];
    part_n[0] = (c.n + c.block - 1) / c.block;
    const size_t resident = (size_t)sim::resident_blocks_per_sm * sim::sm_count;
    if (part_n[0] < resident) part_n[0] = resident;
    part_n[1] = (part_n[0] + c.block - 1) / c.block + 1;
    buffer p0((part_n[0] + GUARD) * asize), p1((part_n[1] + GUARD) * asize), res((1 + GUARD) * asize);
    std::memset(p0.p, 0xFF, p0.bytes);
    std::memset(p1.p, 0xFF, p1.bytes);
    std::memset(res.p, 0xFF, res.bytes);

    red_ctx x;
    std::memset(&x, 0, sizeof x);
    x.in = in.p;
    x.n = c.n;
    x.block = c.block;
    x.sm_count = sim::sm_count;
    x.part[0] = p0.p;
    x.part[1] = p1.p;
    x.part_cap[0] = part_n[0];
    x.part_cap[1] = part_n[1];
    x.result = res.p;
    x.grid_cap = c.grid_cap;
    v.run[t](&x, 0);

    const long long want = exact_sum(t, c.n);
    bool exact;
    double got_fp = 0;
    long long got_i = 0;
    if (t == RED_FLOAT) { float f; std::memcpy(&f, res.p, 4); got_fp = f; exact = got_fp == (double)want; }
    else if (t == RED_DOUBLE) { std::memcpy(&got_fp, res.p, 8); exact = got_fp == (double)want; }
    else { std::memcpy(&got_i, res.p, 8); exact = got_i == want; }
    if (!exact) {
        if (t == RED_INT)
            std::snprintf(msg, msglen, "sum %lld, want %lld (off by %lld)", got_i, want, got_i - want);
        else
            std::snprintf(msg, msglen, "sum %.17g, want %lld (off by %.17g)", got_fp, want, got_fp - (double)want);
        return 0;
    }
    const char *where = !guard_intact(res.p + asize, GUARD * asize) ? "after the result"
                      : !guard_intact(p0.p + part_n[0] * asize, GUARD * asize) ? "after partial-sum buffer 0"
                      : !guard_intact(p1.p + part_n[1] * asize, GUARD * asize) ? "after partial-sum buffer 1"
                      : nullptr;
    if (where) {
        std::snprintf(msg, msglen, "the sum is right, but something was written %s (past its end)", where);
        return 0;
    }
    return 1;
}

// red_partials_fit and CUDA_CHECK stop the program with exit(1): say it as a FAIL.
static bool g_finished = false;
static void on_exit_()
{
    if (!g_finished) std::printf("SIM FAIL: %s: the program stopped itself (the lines above say why)\n", sim::context);
}

int main(int argc, char **argv)
{
    std::atexit(on_exit_);
    bool quick = false;
    std::vector<const char *> only;
    for (int a = 1; a < argc; a++) {
        if (!std::strcmp(argv[a], "--quick")) quick = true;
        else only.push_back(argv[a]);
    }
    for (const char *name : only) {
        bool known = false;
        for (int v = 0; v < N_VARIANTS; v++) known |= !std::strcmp(variants[v].name, name);
        if (!known) {
            std::printf("sim: no variant named '%s'\n", name);
            g_finished = true;
            return 2;
        }
    }
    // the cases: n not a multiple of the block, from under a warp to three
    // passes (5001 with 32 threads: 157, 5 and 1 blocks); block 256 (the
    // sample's default), and 32, 64 and 1024
    std::vector<sim_case> cases = {{1, 256, 0},    {2, 256, 0},    {31, 256, 0},  {33, 256, 0},
                                   {1000, 256, 0}, {4097, 256, 0}, {5001, 32, 0}, {1000, 64, 0},
                                   {3001, 1024, 0}};
    if (quick) cases = {{1, 256, 0}, {33, 256, 0}, {4097, 256, 0}, {5001, 32, 0}};
    // grid-stride variants read up to 32 elements per thread and round (8
    // loads of 4): 40001 makes even 512 threads x 32 need several blocks,
    // and so a second pass
    cases.push_back({40001, 256, 0});
    const sim::schedule_kind schedules[] = {sim::FORWARD, sim::REVERSE, sim::FREE};
    int failed = 0, passed = 0, runs = 0;
    for (int vi = 0; vi < N_VARIANTS; vi++) {
        const variant &v = variants[vi];
        if (v.is_reference) continue;
        bool wanted = only.empty();
        for (const char *name : only) wanted |= !std::strcmp(name, v.name);
        if (!wanted) continue;
        int ok = 1, n_runs = 0;
        for (red_type t : {RED_FLOAT, RED_INT, RED_DOUBLE}) {
            for (const sim_case &c0 : cases) {
                if (c0.n == 40001 && !v.grid_stride) continue;
                // double and int: one block, and three passes
                if (t != RED_FLOAT && c0.n != 33 && c0.n != 5001) continue;
                for (int capped = 0; capped <= v.grid_stride && ok; capped++) {
                    sim_case c = c0;
                    c.grid_cap = capped ? 3 : 0;
                    for (sim::schedule_kind s : schedules) {
                        sim::schedule = s;
                        std::snprintf(sim::context, sizeof sim::context, "%s (%s, block %d%s, n=%zu, %s schedule)",
                                      v.name, type_name(t), v.block ? v.block : c.block,
                                      c.grid_cap ? ", grid of 3 blocks" : "", c.n, sim::schedule_name(s));
                        char msg[256];
                        n_runs++;
                        if (!run_case(v, t, c, msg, sizeof msg)) {
                            std::printf("SIM FAIL: %s: %s\n", sim::context, msg);
                            ok = 0;
                            break;
                        }
                    }
                }
                if (!ok) break;
            }
            if (!ok) break;
        }
        std::printf("%-27s %s (%d runs)\n", v.name, ok ? "PASS" : "FAIL", n_runs);
        std::fflush(stdout);
        runs += n_runs;
        if (ok) passed++;
        else failed++;
    }
    g_finished = true;
    if (failed) {
        std::printf("SIM FAIL: %d of %d variants wrong\n", failed, failed + passed);
        return 1;
    }
    std::printf("SIM PASS: %d variants, %d runs, each exact\n", passed, runs);
    return 0;
}
