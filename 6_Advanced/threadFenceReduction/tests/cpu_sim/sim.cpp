// sim.cpp: threadFenceReduction's kernels run on the CPU, so a kernel (the
// sample's single_pass, single_pass_u8 and multi_pass, or an exercise) can be
// checked on a machine without a GPU. One fiber per CUDA thread
// (tests/support/sim_fibers.h: all on one OS thread, round robin, so a
// block's threads run one after another between barriers); the
// blocks of a launch run one after another, in a shuffled order (a GPU
// promises no order, so neither does this), which is exactly what the
// last-block pattern must survive: whoever draws the last ticket sums.
// __syncthreads is a barrier over the block, the shuffles a barrier over the
// warp, the atomics GCC builtins, __threadfence a sequentially consistent
// fence (harmless on one OS thread). A block that does not finish in 30
// seconds (one that waits for another block, say) is reported as a hang
// instead of waiting forever: a watchdog thread, beside the one that runs
// the fibers, watches.
//
// run.sh builds it around kernels.inc: the device code of
// common/reduce_device.cuh (thread_sum, block_sum, the vector types), the
// sample's kernels, and the exercise if one is given.
//
// What it checks: for float, double and int, at n = 1, 2, 31, 33, 1000, 4097
// and 2^17+3, with blocks of 256 and 64 threads, on a grid of up to 16 blocks
// and on one of 3: the result exact (the inputs are small integers, as in the
// sample), the partials, the result and the guard zones after them poisoned
// before every launch and the guard zones untouched after it, and the
// launches back to back on one counter that is zeroed once, at the start, as
// the sample zeroes it. Not the GPU's memory model: a missing fence passes
// here (blocks never overlap); compute-sanitizer and --stress on a GPU are
// where that shows, and only sometimes.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "reduce_input.h"
#include "../../../../tests/support/sim_fibers.h"

// ---- the CUDA the kernels use ----------------------------------------------
struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
SIM_FIBER_LOCAL(dim3, threadIdx);
static dim3 blockIdx, blockDim, gridDim;   // one block at a time: the same for all its threads
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) longlong2 { long long x, y; };

// Barriers: sim_fibers::barrier (std::barrier's semantics), from which a
// thread leaving the kernel drops out (as on the GPU, where a thread that
// has exited is not waited for). A block that never finishes would wait
// forever: a watchdog thread reports a hang when no block has finished for
// 30 seconds.
typedef sim_fibers::barrier sim_barrier;
static sim_barrier *g_block_bar;
static std::vector<sim_barrier *> g_warp_bar;
static std::atomic<unsigned long long> g_progress{0};
SIM_FIBER_LOCAL(unsigned, g_shuffles);   // this lane's shuffles so far: which buffer is next
static unsigned char g_lane_val[2][32][32][8];   // [shuffle parity][warp][lane]

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__ static
static inline void __syncthreads() { g_block_bar->arrive_and_wait(); }
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline unsigned atomicAdd(unsigned *p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline unsigned atomicInc(unsigned *p, unsigned limit)
{
    unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0u : old + 1u, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST)) {}
    return old;
}
template <typename T> static inline T __ldcg(const T *p) { return *(const volatile T *)p; }
// Every lane writes its value, the warp meets, every lane reads its source
// lane's. Two buffers, used in turn: a lane can write the next-but-one
// shuffle's buffer only after the whole warp has met at the next shuffle,
// that is after every lane has read this one's, so one barrier per shuffle.
template <typename T> static inline T __shfl_down_sync(unsigned, T v, unsigned delta)
{
    static_assert(sizeof(T) <= 8, "a shuffled value fits 8 bytes");
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, p = g_shuffles++ & 1;
    std::memcpy(g_lane_val[p][warp][lane], &v, sizeof v);
    g_warp_bar[warp]->arrive_and_wait();
    T r = v;
    if (lane + delta < 32) std::memcpy(&r, g_lane_val[p][warp][lane + delta], sizeof r);
    return r;
}

#define CHECK_LAUNCH() do {} while (0)
static void launch(unsigned grid, unsigned block, const std::function<void()> &f);
#define SIM_LAUNCH(grid, block, call) launch(grid, block, [&] { call; })

#include "kernels.inc"

// ---- launches ----------------------------------------------------------------
enum { CAP = 48, GUARD = 256 };   // partial sums the buffer holds (the largest grid), guard elements after it
static uint32_t g_rng = 2026;
static uint32_t next_rand() { return g_rng = g_rng * 1664525u + 1013904223u; }

// The largest block the simulation launches.
enum { MAX_BLOCK = 64 };

// Run f as a grid of `grid` blocks of `block` threads, one block after
// another in a shuffled order.
static void launch(unsigned grid, unsigned block, const std::function<void()> &f)
{
    if (grid == 0 || block == 0 || block > MAX_BLOCK || block % 32 != 0) {
        std::printf("SIM FAIL: launch of %u blocks of %u threads: the simulation runs 1 to %u blocks of a "
                    "multiple of 32 threads up to %u\n", grid, block, CAP, (unsigned)MAX_BLOCK);
        std::exit(1);
    }
    gridDim = dim3(grid);
    blockDim = dim3(block);
    std::vector<unsigned> order(grid);
    for (unsigned b = 0; b < grid; b++) order[b] = b;
    for (unsigned b = grid; b > 1; b--) std::swap(order[b - 1], order[next_rand() % b]);
    for (unsigned b : order) {
        sim_barrier bar(block);
        g_block_bar = &bar;
        std::vector<sim_barrier *> warps;
        for (unsigned w = 0; w < block / 32; w++) warps.push_back(new sim_barrier(32));
        g_warp_bar = warps;
        blockIdx = dim3(b);
        sim_fibers::run(block, [&](unsigned t) {
            threadIdx = dim3(t);
            g_shuffles = 0;
            f();
            g_warp_bar[t / 32]->arrive_and_drop();   // a thread that has left is not waited for
            g_block_bar->arrive_and_drop();
        });
        for (auto *w : warps) delete w;
        g_progress++;
    }
}

#ifdef EXERCISE_FILE
#define SINGLE_PASS exercise_kernel
#else
#define SINGLE_PASS reduce_single_pass
#endif


template <typename A> static void poison(A *p, size_t count) { std::memset(p, 0xFF, count * sizeof(A)); }
template <typename A> static bool poisoned(const A *p)
{
    A x;
    std::memset(&x, 0xFF, sizeof x);
    return std::memcmp(p, &x, sizeof x) == 0;
}
static double as_double(float v) { return v; }
static double as_double(double v) { return v; }
static double as_double(long long v) { return (double)v; }

template <typename T> struct type_info;
template <> struct type_info<float> { static constexpr const char *name = "float"; static constexpr int k = RED_K_F32; static float at(uint64_t s, size_t i) { return red_input_f32(s, i); } };
template <> struct type_info<double> { static constexpr const char *name = "double"; static constexpr int k = RED_K_F64; static double at(uint64_t s, size_t i) { return red_input_f64(s, i); } };
template <> struct type_info<int> { static constexpr const char *name = "int"; static constexpr int k = RED_K_I32; static int at(uint64_t s, size_t i) { return red_input_i32(s, i); } };

static unsigned g_counter;   // the retirement counter: zeroed once, as the sample does
static int g_launches;

// One checked launch of `kernel` ("single_pass", "single_pass_u8", "multi_pass"
// or "exercise") of n elements of T on `grid` blocks of `block` threads.
template <typename T>
static bool check(const char *kernel, const T *in, size_t n, unsigned grid, unsigned block, long long want)
{
    typedef typename acc_of<T>::type A;
    static A part[CAP + GUARD], out[1 + GUARD];
    poison(part, CAP + GUARD);
    poison(out, 1 + GUARD);
    const unsigned count_before = g_counter;
    if (!std::strcmp(kernel, "multi_pass")) {
#ifndef EXERCISE_FILE
        launch(grid, block, [&] { reduce_partials<T, A, 4>(in, n, grid == 1 ? out : part); });
        if (grid > 1) launch(1, block, [&] { reduce_partials<A, A, 1>(part, grid, out); });
#endif
    } else if (!std::strcmp(kernel, "single_pass_u8")) {
#ifndef EXERCISE_FILE
        launch(grid, block, [&] { reduce_single_pass<T, A, 8>(in, n, part, &g_counter, out); });
#endif
    } else {
        launch(grid, block, [&] { SINGLE_PASS<T, A, 4>(in, n, part, &g_counter, out); });
    }
    g_launches++;
    char where[200];
    std::snprintf(where, sizeof where, "%s, %s, n = %zu, %u blocks of %u threads (launch %d of this run, "
                  "counter %u before it)", kernel, type_info<T>::name, n, grid, block, g_launches, count_before);
    for (int i = 1; i <= GUARD; i++)
        if (!poisoned(&out[i])) {
            std::printf("SIM FAIL: %s: out[%d] was written (past the result: nobody may write there)\n", where, i);
            return false;
        }
    for (int i = CAP; i < CAP + GUARD; i++)
        if (!poisoned(&part[i])) {
            std::printf("SIM FAIL: %s: partials[%d] was written (past the partial-sum buffer of %d)\n", where, i, CAP);
            return false;
        }
    if (poisoned(&out[0])) {
        std::printf("SIM FAIL: %s: the result is still the poison: never written (did no block think it was "
                    "the last?), or summed from partials read before their blocks wrote them\n", where);
        return false;
    }
    double got = as_double(out[0]);
    if (got != (double)want) {
        std::printf("SIM FAIL: %s: sum = %.17g, want %lld (exact: the inputs are small integers)\n", where, got, want);
        return false;
    }
    return true;
}

template <typename T>
static bool check_type(const char *kernel)
{
    const size_t sizes[] = {1, 2, 31, 33, 1000, 4097, (1u << 17) + 3};
    const size_t max_n = (1u << 17) + 3;
    const uint64_t seed = 2026;
    std::vector<T> in(max_n);
    for (size_t i = 0; i < max_n; i++) in[i] = type_info<T>::at(seed, i);
    const int vec = 16 / sizeof(T), unroll = !std::strcmp(kernel, "single_pass_u8") ? 8 : 4;
    for (unsigned block : {64u, 32u})
        for (size_t n : sizes) {
            long long want = 0;
            for (size_t i = 0; i < n; i++) want += red_input_exact(type_info<T>::k, seed, i);
            size_t per_block = (size_t)block * vec * unroll;
            unsigned full = (unsigned)std::min<size_t>(CAP, (n + per_block - 1) / per_block);
            for (unsigned grid : {full, 3u})
                if (!check<T>(kernel, in.data(), n, grid, block, want)) return false;
        }
    return true;
}

int main()
{
    std::thread([] {   // the watchdog: a block that never finishes is a hang
        for (unsigned long long last = ~0ull, still = 0;; std::this_thread::sleep_for(std::chrono::seconds(1))) {
            unsigned long long now = g_progress.load();
            still = now == last ? still + 1 : 0;
            last = now;
            if (still >= 30) {
                std::printf("SIM FAIL: the kernel hangs: a block has not finished in 30 seconds (does it wait "
                            "for another block? Blocks are not promised to run at the same time, and here they "
                            "run one after another)\n");
                std::fflush(stdout);
                std::_Exit(1);
            }
        }
    }).detach();
#ifdef EXERCISE_FILE
    const char *kernels[] = {"exercise"};
#else
    const char *kernels[] = {"single_pass", "single_pass_u8", "multi_pass"};
#endif
    for (const char *k : kernels)
        if (!check_type<float>(k) || !check_type<double>(k) || !check_type<int>(k)) return 1;
    if (g_counter != 0) {
        std::printf("SIM FAIL: the retirement counter is %u after the last launch, want 0 (the next launch would "
                    "start from it)\n", g_counter);
        return 1;
    }
    std::printf("SIM PASS: %s at n = 1, 2, 31, 33, 1000, 4097, 2^17+3 (float, double, int; blocks of 64 and 32 "
                "threads; grids of up to %d blocks and of 3, blocks in a shuffled order; %d launches on one "
                "counter)\n",
#ifdef EXERCISE_FILE
                "exercise",
#else
                "single_pass, single_pass_u8, multi_pass",
#endif
                CAP, g_launches);
    return 0;
}
