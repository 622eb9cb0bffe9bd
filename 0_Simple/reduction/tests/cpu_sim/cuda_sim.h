// cuda_sim.h: CUDA C kernels run on CPU fibers, to check kernel code on a
// machine without a GPU. Header-only C++20 (g++ -std=c++20); written
// for the reduction's simulator, usable by any sample's (nothing in it knows
// about reductions).
//
// The model
//   - A launch runs its blocks one after another. A block runs as blockDim
//     fibers, one per CUDA thread, all on the one OS thread of the program
//     (tests/support/sim_fibers.h). threadIdx is per fiber (saved and
//     restored at each switch); blockIdx, blockDim and gridDim are set by
//     the launch.
//   - __syncthreads() is a barrier over the block. Warp-level operations
//     (__syncwarp, __shfl_sync / _up / _down / _xor, __reduce_add_sync,
//     __ballot_sync, and cooperative groups' tile.sync(), tile.shfl_*(),
//     cg::reduce) are a barrier over the lanes named by the mask, with one
//     exchange slot per lane: each lane leaves its value, the last lane to
//     arrive computes every lane's result, and all go on.
//   - One thread runs at a time and switches only at barriers, warp
//     operations and the end of the kernel; which thread runs next is chosen
//     per launch (sim::schedule):
//       FORWARD  the lowest threadIdx that may go on;
//       REVERSE  the highest;
//       FREE     one of those that may go on, drawn at random (a fixed seed:
//                the same run draws the same schedule every time).
//     FORWARD and REVERSE are deterministic: a kernel without races gives the
//     same result under both, and a missing barrier makes one of them read a
//     value too early (or too late) every time, not by luck of the OS.
//   - Shared memory: `__shared__` becomes `static` (one copy, used by the
//     block that runs; it keeps the previous block's values, zeros at
//     first). Dynamic shared memory (`extern __shared__ T name[];`, rewritten
//     by cuda_sim.sed) is a buffer of the launch's size filled with 0xFF
//     bytes before each block (NaN as float or double, -1 as an integer), so
//     a value read before it was written shows.
//   - A block that can no longer finish stops the program with a message
//     and exit 1: threads waiting at __syncthreads while others have left the
//     kernel (an early return, a barrier not every thread reaches), lanes
//     waiting at a warp operation for a lane that will never come, lanes of
//     one warp at different operations or with different masks. So do an
//     invalid launch configuration and an operation this file cannot
//     express. Messages start with "SIM FAIL: " and name sim::context.
//
// What it is not: the GPU's memory model (a racy kernel may pass here),
// its timing, its lockstep, or its limits beyond the launch configuration.
// compute-sanitizer (racecheck, synccheck) on a GPU remains the authority.
//
// How a sample's CUDA source is made to compile here (cuda_sim.sed does both
// rewrites; the sample's simulator applies it to the files it compiles):
//   kernel<<<grid, block[, smem[, stream]]>>>(args);      (on one line)
//     -> sim::launch(sim::config(grid, block[, smem[, stream]]), [&] { kernel(args); });
//   extern __shared__ [__align__(N)] T name[];
//     -> T *name = (T *)sim::dynamic_smem();
// Headers the source includes (cuda_runtime.h, cooperative_groups.h, ...)
// are given as empty files that include this one (see the sample's run.sh).
// 1-D, 2-D and 3-D blocks work; warps are 32 consecutive linear thread ids.
#ifndef CUDA_SIM_H
#define CUDA_SIM_H

#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>
#include <unistd.h>
#include <vector>

#include "../../../../tests/support/sim_fibers.h"

// ---- CUDA C spellings --------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __shared__ static
#define __constant__
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __CUDA_ARCH__ 900 /* the kernels' sm_90 paths */

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
SIM_FIBER_LOCAL(dim3, threadIdx);
inline dim3 blockIdx, blockDim, gridDim;
constexpr int warpSize = 32;

// The vector types with CUDA's sizes and alignments, and their make_ functions.
#define SIM_VEC2(T, N, A) struct alignas(A) N { T x, y; }; \
    inline N make_##N(T a, T b) { return N{a, b}; }
#define SIM_VEC4(T, N, A) struct alignas(A) N { T x, y, z, w; }; \
    inline N make_##N(T a, T b, T c, T d) { return N{a, b, c, d}; }
SIM_VEC2(float, float2, 8)
SIM_VEC4(float, float4, 16)
SIM_VEC2(double, double2, 16)
SIM_VEC2(int, int2, 8)
SIM_VEC4(int, int4, 16)
SIM_VEC2(unsigned, uint2, 8)
SIM_VEC4(unsigned, uint4, 16)
SIM_VEC2(long long, longlong2, 16)
SIM_VEC2(unsigned long long, ulonglong2, 16)
#undef SIM_VEC2
#undef SIM_VEC4

// ---- the little of the runtime API that launchers call -----------------------
typedef struct sim_stream *cudaStream_t;
typedef enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorNotSupported = 801 } cudaError_t;
inline const char *cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "error (simulated)"; }
inline const char *cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaError (simulated)"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }       // a bad launch stops the program instead
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }  // launches run to the end
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t = 0) { std::memset(p, v, n); return cudaSuccess; }
inline cudaError_t cudaMemset(void *p, int v, size_t n) { std::memset(p, v, n); return cudaSuccess; }

namespace sim {
// The simulated device, as the occupancy calculator and the attributes
// describe it: small, so that "a grid that fills the GPU" is a few blocks.
inline int sm_count = 4;
inline int resident_blocks_per_sm = 2;
}
template <class K>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, K, int, size_t)
{
    *n = sim::resident_blocks_per_sm;
    return cudaSuccess;
}
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16, cudaDevAttrMaxBlocksPerMultiprocessor = 106 };
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int)
{
    if (a == cudaDevAttrMultiProcessorCount) *v = sim::sm_count;
    else if (a == cudaDevAttrMaxBlocksPerMultiprocessor) *v = sim::resident_blocks_per_sm;
    else return cudaErrorInvalidValue;
    return cudaSuccess;
}

namespace sim {

// ---- failing -------------------------------------------------------------------
// What is being run, for the messages (the sample's simulator sets it).
inline char context[256] = "";

[[noreturn]] inline void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline void fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    std::printf("SIM FAIL: %s%s%s\n", context, context[0] ? ": " : "", msg);
    std::fflush(stdout);
    _exit(1);  // fibers may be waiting: leave without unwinding them
}

enum schedule_kind { FREE, FORWARD, REVERSE };
inline schedule_kind schedule = FREE;
inline const char *schedule_name(schedule_kind s) { return s == FREE ? "free" : s == FORWARD ? "forward" : "reverse"; }

// Largest dynamic shared memory a launch may ask for without opting in
// (cudaFuncSetAttribute): 48 KiB on every GPU since Kepler.
inline size_t max_dynamic_smem = 48 * 1024;

// ---- one block's threads and their barriers ----------------------------------
enum { RUN, WAIT, DONE };

struct warp_group {            // one warp operation in progress, over `want` lanes
    unsigned want = 0, have = 0;
    const void *op = nullptr;  // which operation (the address of its finish function)
    long long param = 0;       // its argument (the offset of a shuffle, ...)
    int width = 32;
    unsigned long long gen = 0;
};

struct warp_state {
    warp_group group[32];      // indexed by the lowest lane of the mask
    alignas(16) unsigned char in[32][16], out[32][16];  // exchange slots, per lane
};

struct block_state {
    unsigned n = 0;                          // threads per block
    std::vector<unsigned char> state;        // RUN, WAIT, DONE, per thread
    std::vector<const char *> where;         // what a waiting thread waits at
    std::vector<unsigned char> at_barrier;   // 1: it waits at __syncthreads
    unsigned running = 0, done = 0;
    unsigned bar_have = 0;                   // __syncthreads arrivals
    unsigned long long bar_gen = 0;
    std::vector<warp_state> warps;
};
inline block_state *blk = nullptr;
inline unsigned long long free_rng = 2026;   // FREE's draws: the same sequence every run

inline unsigned linear_tid()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

inline void describe_and_fail(const char *why)
{
    // under blk->m: count who waits where, for the message
    char list[512] = "";
    size_t used = 0;
    const char *seen[8];
    int nseen = 0;
    for (unsigned t = 0; t < blk->n; t++) {
        if (blk->state[t] != WAIT) continue;
        int k = 0;
        while (k < nseen && seen[k] != blk->where[t]) k++;
        if (k == nseen && nseen < 8) seen[nseen++] = blk->where[t];
    }
    for (int k = 0; k < nseen; k++) {
        unsigned c = 0, first = ~0u;
        for (unsigned t = 0; t < blk->n; t++)
            if (blk->state[t] == WAIT && blk->where[t] == seen[k]) { c++; if (first == ~0u) first = t; }
        used += (size_t)std::snprintf(list + used, used < sizeof list ? sizeof list - used : 0,
                                      "%s%u thread(s) wait at %s (the first: thread %u)", k ? ", " : "", c,
                                      seen[k], first);
    }
    fail("block %u (%u,%u): %s: %s; %u thread(s) have left the kernel", blockIdx.x, blockIdx.y, blockIdx.z,
         why, list, blk->done);
}

// The thread to run next, by the schedule: -1 when none may go on.
inline int pick_next()
{
    if (schedule == FORWARD) {
        for (unsigned t = 0; t < blk->n; t++) if (blk->state[t] == RUN) return (int)t;
    } else if (schedule == REVERSE) {
        for (unsigned t = blk->n; t-- > 0;) if (blk->state[t] == RUN) return (int)t;
    } else if (blk->running > 0) {
        free_rng = free_rng * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned k = (unsigned)((free_rng >> 33) % blk->running);
        for (unsigned t = 0; t < blk->n; t++)
            if (blk->state[t] == RUN && k-- == 0) return (int)t;
    }
    return -1;
}

// Thread u's wait is over.
inline void release(unsigned u)
{
    blk->state[u] = RUN;
    blk->running++;
}

inline void syncthreads_impl()
{
    const unsigned t = linear_tid();
    blk->state[t] = WAIT;
    blk->where[t] = "__syncthreads";
    blk->at_barrier[t] = 1;
    blk->running--;
    if (++blk->bar_have == blk->n) {
        blk->bar_have = 0;
        blk->bar_gen++;
        for (unsigned u = 0; u < blk->n; u++)
            if (blk->at_barrier[u]) {
                blk->at_barrier[u] = 0;
                release(u);
            }
    }
    sim_fibers::yield();  // the schedule picks who goes on (this thread, too, once it may)
}

// A warp operation: lane `lane` of warp `w` arrives with `size` bytes of
// `value`; when every lane of the mask has arrived, `finish` computes every
// lane's result from the slots. Returns this lane's result slot.
typedef void (*finish_fn)(warp_state &, const warp_group &);
inline const unsigned char *warp_op(const char *name, finish_fn finish, unsigned mask, const void *value,
                                    size_t size, long long param, int width)
{
    const unsigned t = linear_tid(), w = t / 32, lane = t % 32;
    const unsigned last = blk->n - w * 32 < 32 ? blk->n - w * 32 : 32;
    const unsigned exist = last == 32 ? 0xffffffffu : (1u << last) - 1;
    const unsigned want = mask & exist;
    if (!(want >> lane & 1))
        fail("thread %u (lane %u) calls %s with mask 0x%08x, which does not name its own lane", t, lane, name, mask);
    if (width < 1 || width > 32 || (width & (width - 1)))
        fail("%s with width %d: must be a power of two, 1..32", name, width);
    warp_state &W = blk->warps[w];
    const unsigned slot = (unsigned)__builtin_ctz(want);
    for (unsigned g = 0; g < 32; g++) {
        const warp_group &o = W.group[g];
        if (o.have && (o.want & want) && (g != slot || o.want != want))
            fail("warp %u: lane %u calls %s with mask 0x%08x while lanes 0x%08x are in an operation over 0x%08x",
                 w, lane, name, mask, o.have, o.want);
    }
    warp_group &G = W.group[slot];
    if (G.have == 0) {
        G.want = want; G.op = (const void *)finish; G.param = param; G.width = width;
    } else if (G.op != (const void *)finish || G.param != param || G.width != width) {
        fail("warp %u: lane %u calls %s (argument %lld, width %d) while other lanes of its mask wait at a different "
             "warp operation or argument", w, lane, name, param, width);
    }
    if (size) std::memcpy(W.in[lane], value, size);
    G.have |= 1u << lane;
    blk->state[t] = WAIT;
    blk->where[t] = name;
    blk->running--;
    if (G.have == G.want) {
        finish(W, G);
        G.have = 0;
        G.gen++;
        for (unsigned l = 0; l < 32; l++)
            if (G.want >> l & 1) release(w * 32 + l);
    }
    sim_fibers::yield();
    return W.out[lane];  // stays put until this lane arrives at its next operation
}

// The source lane of each shuffle kind, for lane l in segments of `width` lanes.
enum { SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR };
template <int KIND>
inline unsigned shfl_source(unsigned l, long long p, int width)
{
    const unsigned base = l & ~(unsigned)(width - 1);
    if (KIND == SHFL_IDX) return base + ((unsigned)p & (unsigned)(width - 1));
    if (KIND == SHFL_UP) return (long long)(l - base) >= p ? l - (unsigned)p : l;
    if (KIND == SHFL_DOWN) return (l - base) + p < (unsigned)width ? l + (unsigned)p : l;
    const unsigned s = l ^ (unsigned)p;  // XOR: stays within 32 lanes
    return s < base + (unsigned)width && s >= base ? s : l;
}
template <int KIND>
inline void shfl_finish(warp_state &W, const warp_group &G)
{
    for (unsigned l = 0; l < 32; l++) {
        if (!(G.want >> l & 1)) continue;
        unsigned s = shfl_source<KIND>(l, G.param, G.width);
        if (!(G.want >> s & 1))  // reading a lane outside the mask: undefined on the GPU
            fail("warp operation: lane %u reads lane %u, which is not in the mask 0x%08x", l, s, G.want);
        std::memcpy(W.out[l], W.in[s], 16);
    }
}
template <int KIND, class T>
inline T shfl(const char *name, unsigned mask, T v, long long p, int width)
{
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 16, "shuffles move up to 16 bytes");
    T r;
    std::memcpy(&r, warp_op(name, shfl_finish<KIND>, mask, &v, sizeof v, p, width), sizeof r);
    return r;
}

inline void sync_finish(warp_state &, const warp_group &) {}

template <class T, class Op>
inline void fold_finish(warp_state &W, const warp_group &G)
{
    // every lane gets op over the lanes of the group, taken in lane order
    T acc{};
    bool first = true;
    for (unsigned l = 0; l < 32; l++) {
        if (!(G.want >> l & 1)) continue;
        T x;
        std::memcpy(&x, W.in[l], sizeof x);
        acc = first ? x : Op()(acc, x);
        first = false;
    }
    for (unsigned l = 0; l < 32; l++)
        if (G.want >> l & 1) std::memcpy(W.out[l], &acc, sizeof acc);
}
template <class T, class Op>
inline T fold(const char *name, unsigned mask, T v)
{
    T r;
    std::memcpy(&r, warp_op(name, fold_finish<T, Op>, mask, &v, sizeof v, 0, 32), sizeof r);
    return r;
}

inline void ballot_finish(warp_state &W, const warp_group &G)
{
    unsigned bits = 0;
    for (unsigned l = 0; l < 32; l++)
        if ((G.want >> l & 1) && W.in[l][0]) bits |= 1u << l;
    for (unsigned l = 0; l < 32; l++)
        if (G.want >> l & 1) std::memcpy(W.out[l], &bits, sizeof bits);
}

// ---- launching ------------------------------------------------------------------
struct config {
    dim3 grid, block;
    size_t smem;
    config(dim3 g, dim3 b, size_t s = 0, cudaStream_t = 0) : grid(g), block(b), smem(s) {}
};

inline unsigned char *g_dynamic_smem = nullptr;
inline unsigned char *dynamic_smem() { return g_dynamic_smem; }

// Run `body` (the kernel call) as a grid of threads, block after block.
template <class F>
inline void launch(const config &c, F body)
{
    const dim3 g = c.grid, b = c.block;
    const unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    if (threads == 0 || threads > 1024 || b.x > 1024 || b.y > 1024 || b.z > 64 || g.x == 0 || g.y == 0 ||
        g.z == 0 || g.x > 2147483647u || g.y > 65535 || g.z > 65535)
        fail("launch with grid (%u,%u,%u) and block (%u,%u,%u): invalid configuration argument (a GPU refuses it)",
             g.x, g.y, g.z, b.x, b.y, b.z);
    if (c.smem > max_dynamic_smem)
        fail("launch asks for %zu bytes of dynamic shared memory, more than %zu (a GPU refuses it)", c.smem,
             max_dynamic_smem);
    const unsigned n = (unsigned)threads;
    std::vector<unsigned char> smem(c.smem + 16);
    g_dynamic_smem = smem.data() + (16 - (uintptr_t)smem.data() % 16) % 16;
    gridDim = g;
    blockDim = b;
    block_state st;
    st.n = n;
    st.where.assign(n, "");
    st.warps.resize((n + 31) / 32);
    blk = &st;
    for (unsigned bz = 0; bz < g.z; bz++)
        for (unsigned by = 0; by < g.y; by++)
            for (unsigned bx = 0; bx < g.x; bx++) {
                blockIdx = dim3(bx, by, bz);
                std::memset(g_dynamic_smem, 0xFF, c.smem);
                st.state.assign(n, RUN);
                st.at_barrier.assign(n, 0);
                st.running = n;
                st.done = 0;
                st.bar_have = 0;
                for (auto &w : st.warps)
                    for (auto &gr : w.group) gr.have = 0;
                sim_fibers::pool fibers;   // fiber t is thread t
                for (unsigned t = 0; t < n; t++)
                    fibers.spawn([&, t] {
                        threadIdx = dim3(t % b.x, t / b.x % b.y, t / (b.x * b.y));
                        body();
                        st.state[t] = DONE;
                        st.running--;
                        st.done++;
                    });
                for (;;) {
                    const int next = pick_next();
                    if (next < 0) break;
                    fibers.resume_at((unsigned)next);
                }
                if (st.done < n) describe_and_fail("no thread can go on (a deadlock)");
            }
    blk = nullptr;
}

}  // namespace sim

// ---- the device functions ----------------------------------------------------------
inline void __syncthreads() { sim::syncthreads_impl(); }
inline void __syncwarp(unsigned mask = 0xffffffffu)
{
    sim::warp_op("__syncwarp", sim::sync_finish, mask, nullptr, 0, 0, 32);
}
template <class T> inline T __shfl_sync(unsigned m, T v, int src, int width = 32)
{ return sim::shfl<sim::SHFL_IDX>("__shfl_sync", m, v, src, width); }
template <class T> inline T __shfl_up_sync(unsigned m, T v, unsigned d, int width = 32)
{ return sim::shfl<sim::SHFL_UP>("__shfl_up_sync", m, v, d, width); }
template <class T> inline T __shfl_down_sync(unsigned m, T v, unsigned d, int width = 32)
{ return sim::shfl<sim::SHFL_DOWN>("__shfl_down_sync", m, v, d, width); }
template <class T> inline T __shfl_xor_sync(unsigned m, T v, int lane_mask, int width = 32)
{ return sim::shfl<sim::SHFL_XOR>("__shfl_xor_sync", m, v, lane_mask, width); }
namespace sim { struct add { template <class T> T operator()(T a, T b) const { return a + b; } }; }
inline unsigned __reduce_add_sync(unsigned m, unsigned v) { return sim::fold<unsigned, sim::add>("__reduce_add_sync", m, v); }
inline int __reduce_add_sync(unsigned m, int v) { return sim::fold<int, sim::add>("__reduce_add_sync", m, v); }
inline unsigned __ballot_sync(unsigned m, int pred)
{
    unsigned char p = pred != 0;
    unsigned r;
    std::memcpy(&r, sim::warp_op("__ballot_sync", sim::ballot_finish, m, &p, 1, 0, 32), sizeof r);
    return r;
}
inline int __any_sync(unsigned m, int pred) { return __ballot_sync(m, pred) != 0; }
inline int __all_sync(unsigned m, int pred) { return __ballot_sync(m, pred) == (m & __ballot_sync(m, 1)); }
template <class T> inline T __ldg(const T *p) { return *p; }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
template <class T> inline T atomicAdd(T *p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
template <class T> inline T atomicCAS(T *p, T cmp, T v)
{
    std::atomic_ref<T>(*p).compare_exchange_strong(cmp, v);
    return cmp;
}

// ---- cooperative groups: thread_block, tiled_partition<N>, reduce -------------------
namespace cooperative_groups {
struct thread_block {
    void sync() const { __syncthreads(); }
    unsigned thread_rank() const { return sim::linear_tid(); }
    unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
    unsigned num_threads() const { return size(); }
    dim3 group_index() const { return blockIdx; }
    dim3 thread_index() const { return threadIdx; }
    dim3 group_dim() const { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }

// A tile of N consecutive threads (N a power of two, 1..32): the lanes of a
// warp, or a slice of one.
template <unsigned N>
struct thread_block_tile {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tiles of 1, 2, 4, 8, 16 or 32 threads");
    unsigned mask() const
    {
        unsigned lane = sim::linear_tid() % 32, first = lane & ~(N - 1);
        return (N == 32 ? 0xffffffffu : (1u << N) - 1) << first;
    }
    unsigned thread_rank() const { return sim::linear_tid() % N; }
    unsigned size() const { return N; }
    unsigned num_threads() const { return N; }
    unsigned meta_group_rank() const { return sim::linear_tid() / N; }
    unsigned meta_group_size() const { return (blockDim.x * blockDim.y * blockDim.z + N - 1) / N; }
    void sync() const { sim::warp_op("tile.sync", sim::sync_finish, mask(), nullptr, 0, 0, 32); }
    template <class T> T shfl(T v, int src) const { return sim::shfl<sim::SHFL_IDX>("tile.shfl", mask(), v, src, N); }
    template <class T> T shfl_down(T v, unsigned d) const { return sim::shfl<sim::SHFL_DOWN>("tile.shfl_down", mask(), v, d, N); }
    template <class T> T shfl_up(T v, unsigned d) const { return sim::shfl<sim::SHFL_UP>("tile.shfl_up", mask(), v, d, N); }
    template <class T> T shfl_xor(T v, int m) const { return sim::shfl<sim::SHFL_XOR>("tile.shfl_xor", mask(), v, m, N); }
};
template <unsigned N> inline thread_block_tile<N> tiled_partition(const thread_block &) { return thread_block_tile<N>(); }

template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };

// cg::reduce: op over the tile's values, the result in every thread of the
// tile (as documented; the library's own shuffle sequence is not modelled).
template <unsigned N, class T, class Op>
inline T reduce(const thread_block_tile<N> &tile, T v, Op)
{
    return sim::fold<T, Op>("cg::reduce", tile.mask(), v);
}
}  // namespace cooperative_groups
namespace cg = cooperative_groups;

#endif  // CUDA_SIM_H
