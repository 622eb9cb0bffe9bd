// sim.cpp: the scan's kernels run on the CPU (cuda_sim.h), through the
// sample's own launchers and variant table: run.sh cuts scan.cu from its
// kernel includes to its options (the kernels/ files, the launchers, the
// table), rewrites the launches for cuda_sim.h and compiles it here.
//
// Each variant is checked as the sample checks it (scan_cpu.c's checks):
// int32 exact, float32 within scan_tol_f32; the output and the tile sums are
// poison (0xFF bytes) before each run, each followed by a guard zone that
// must stay untouched; the input past n is poison too. Every case runs in
// the three schedules of cuda_sim.h (forward, reverse, free), so a missing
// barrier shows.
//
// Usage: sim [--quick] [VARIANT...]: every variant (cub, the reference, is
// not simulated), or those named. Exit 0 with "SIM PASS: ..." last when
// every run matched; 1 with a "SIM FAIL: ..." line per wrong case.
#include "cuda_sim.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// The intrinsics the kernels use that cuda_sim.h lacks.
inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }

// CUB does not exist here; the reference variant is not simulated.
namespace cub {
struct DeviceScan {
    template <class I, class O, class N>
    static cudaError_t InclusiveSum(void *, size_t &, I, O, N, cudaStream_t = 0) { return cudaErrorNotSupported; }
    template <class I, class O, class N>
    static cudaError_t ExclusiveSum(void *, size_t &, I, O, N, cudaStream_t = 0) { return cudaErrorNotSupported; }
};
}  // namespace cub
typedef void (*timed_fn)(void *ctx, cudaStream_t stream);  // common/timing.h's

#include "cuda_check.h"
#include "scan_cpu.h"
// step 08's look-back sleeps (__nanosleep); here a sleeping thread yields (lets the schedule pick again)
inline void __nanosleep(unsigned) { sim_fibers::yield(); }
#include "scan_part.inc"  // the kernels, launchers and variant table of scan.cu

static const uint64_t SEED = 2026;  // the sample's default --seed
static const size_t GUARD = 4096;   // poisoned elements after each buffer: a tile of steps 04-06

struct buffer {
    unsigned char *p = nullptr;
    size_t bytes = 0;
    buffer(size_t b) : bytes(b)
    {
        p = (unsigned char *)std::aligned_alloc(256, (b + 255) / 256 * 256);
        if (!p) { std::printf("SIM FAIL: out of host memory\n"); std::exit(1); }
        std::memset(p, 0xFF, bytes);
    }
    ~buffer() { std::free(p); }
};

static bool guard_intact(const unsigned char *p, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != 0xFF) return false;
    return true;
}

// Run variant v once; 1 if every output matched and nothing was written out of place.
static int run_case(const variant &v, int type, int kind, size_t n)
{
    buffer in((n + GUARD) * 4), out((n + GUARD) * 4);
    for (size_t i = 0; i < n; i++) {
        if (type == 0) ((int *)in.p)[i] = scan_input_i32(SEED, i);
        else ((float *)in.p)[i] = scan_input_f32(SEED, i);
    }
    const size_t sums_cap = tiles_of(n, HS_BLOCK), status_cap = tiles_of(n, WS_TILE) + 1;
    buffer sums((sums_cap + GUARD) * 4), status(status_cap * 8);
    scan_ctx x;
    std::memset(&x, 0, sizeof x);
    x.in = in.p;
    x.out = out.p;
    x.n = n;
    x.sums = sums.p;
    x.sums_cap = sums_cap;
    x.status = (unsigned long long *)status.p;
    x.status_cap = status_cap;
    v.run[type][kind](&x, 0);
    size_t bad = type == 0 ? scan_check_i32(sim::context, (const int *)in.p, (const int *)out.p, n, kind)
                           : scan_check_f32(sim::context, (const float *)in.p, (const float *)out.p, n, kind);
    if (bad) return 0;
    const char *where = !guard_intact(out.p + n * 4, GUARD * 4) ? "after the output"
                      : !guard_intact(sums.p + sums_cap * 4, GUARD * 4) ? "after the tile sums"
                      : nullptr;
    if (where) {
        std::printf("%s: the scan is right, but something was written %s (past its end)\n", sim::context, where);
        return 0;
    }
    return 1;
}

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
    std::vector<size_t> sizes = {1, 2, 1000, 4097, 12289};
    if (quick) sizes = {1, 1000, 12289};
    const int ntypes = quick ? 1 : 2;
    const sim::schedule_kind schedules[] = {sim::FORWARD, sim::REVERSE, sim::FREE};
    int runs = 0, failed = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        if (variants[v].is_reference) continue;
        bool picked = only.empty();
        for (const char *name : only) picked |= !std::strcmp(name, variants[v].name);
        if (!picked) continue;
        for (int type = 0; type < ntypes; type++)
            for (int kind = 0; kind < 2; kind++)
                for (size_t n : sizes)
                    for (sim::schedule_kind s : schedules) {
                        sim::schedule = s;
                        std::snprintf(sim::context, sizeof sim::context, "%s (%s %s, n=%zu, %s schedule)",
                                      variants[v].name, type ? "float" : "int", kind ? "exclusive" : "inclusive",
                                      n, sim::schedule_name(s));
                        runs++;
                        if (!run_case(variants[v], type, kind, n)) {
                            std::printf("SIM FAIL: %s\n", sim::context);
                            failed++;
                            goto next_variant;  // one failure per variant is enough
                        }
                    }
    next_variant:;
    }
    g_finished = true;
    if (failed) return 1;
    std::printf("SIM PASS: %d runs\n", runs);
    return 0;
}
