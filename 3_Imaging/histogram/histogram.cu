/* histogram: count the bytes of an array into 256 or 64 bins, from one
 * global atomic per byte to the speed of HBM.
 *
 * What it teaches: privatization (each block counts into its own copy of
 * the bins in shared memory and merges once, instead of every byte
 * fighting over 256 global counters); why the cost of atomics depends on
 * the data (equal bytes collide on one counter, random bytes collide on
 * shared-memory banks); how many private copies shared memory can hold for
 * 256 and for 64 bins; and a layout that gives every lane of a warp its own
 * bank, so no input can make two lanes of an atomic instruction conflict.
 *
 * Build:  make -C 3_Imaging/histogram           (or `make histogram` at the top)
 * Run:    bin/histogram                         512 MiB of bytes, 256 bins, all three inputs
 *         bin/histogram --bins=64               the same with 64 bins
 *         bin/histogram --input=degenerate --variant=fast_r64
 *         bin/histogram --input=degenerate --variant=fast_r32_l1 --reps=50
 *         bin/histogram --n=2^32+1 --input=degenerate --reps=5   a bin over 2^32 (64-bit counts)
 *         bin/histogram --quick                 small sizes, every input, both bin counts
 * Variants (the table below drives checks, timing and --help; each step
 * changes one thing, its kernel's comment says what and why):
 *   cpu                   four sub-histograms on the host, timed once (common/cpu_ref.c)
 *   cub                   cub::DeviceHistogram::HistogramEven: the reference
 *   global_atomics        one thread per byte, one global atomicAdd per byte
 *   shared_private        a private copy of the bins per block in shared memory,
 *                         one global atomic per bin per block to merge
 *   shared_private_vec16  the same reading 16-byte vectors (uint4)
 *   warp_private          one copy per warp (32 copies per block)
 *   fast_r32              32 copies, counter of bin b for lane L at word 32 b + L:
 *                         every lane of a warp in its own bank, whatever the data
 *   fast_r64              64 copies (lanes x 2 groups of warps), 32-bit counters
 *   fast_r128p            128 copies (lanes x 4 groups of warps), 16-bit counters
 *                         packed two bins per word, flushed before they can overflow
 *   fast_r32_bmerge       5: fast_r32 merged through a shared row of totals: coalesced
 *                         global atomics, none for an empty bin
 *   fast_r32_l1           + shared-memory carveout sized to need (L1 keeps 156 KiB)
 *   fast_r32_nozero       + the output zeroed by block 0 instead of a memset
 *   fast_r32_l2pf         + an L2 prefetch of the vector 4 rounds ahead
 *   fast_r32_async        fast_r32_nozero with cp.async into a 4-slot ring per thread
 *
 * Inputs (hist_common.h): uniform random bytes; skewed (a bell curve: the
 * sum of 16 random 4-bit values, mean 120, sd 18.4); degenerate (every byte
 * equal). Bins: byte v falls in bin v * bins / 256, as HistogramEven with
 * levels 0..256 does. Counts are exact and compared exactly.
 * Bytes counted: n, read once (1e9 bytes per GB); the histogram written
 * (2 KiB) is left out, it is under 0.001% of a 512 MiB input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cub/device/device_histogram.cuh>

#include "check.h"
#include "cpu_ref.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "timing.h"

#include "hist_common.h"
#include "hist_host.h"

typedef unsigned long long u64;

/* ---- CPU reference -------------------------------------------------------
 * common/cpu_ref.c's cpu_histogram_add_u64: 64-bit counts, bin v * bins / 256
 * written as a division, independent of the kernels' shift (bin_of below).
 * The cpu variant times it over the whole input. */

/* ---- kernels ------------------------------------------------------------- */

#define ATOMIC_THREADS 256   /* block of global_atomics */
/* Block of every privatized kernel: 32 warps. Their __launch_bounds__ ask for
 * two blocks per SM (32 registers per thread), which fits where an SM holds
 * 2048 threads (sm_80, sm_90, sm_100); ptxas ignores the hint, with a
 * warning, where it holds fewer. */
#define PRIV_THREADS 1024

/* Byte v in bin v * BINS / 256: the byte itself for 256 bins, its top six
 * bits for 64. */
template <int BINS>
__device__ __forceinline__ unsigned bin_of(unsigned byte)
{
    static_assert(BINS == 256 || BINS == 64, "bins: 256 or 64");
    return BINS == 256 ? byte : byte >> 2;
}

/* ---- PTX helpers (tests/cpu_sim/sim.cpp puts C++ of the same meaning in their place) ---- */

/* One shared-memory atomic add without a return value, on a 32-bit shared
 * address. atomicAdd on a generic pointer compiles to the same instruction
 * (ATOMS), but nvcc 13.0 then rebuilds every address from the bin with
 * three instructions (shift, or-in the lane, scale and add the shared
 * window's base); from a 32-bit address kept in a register it is one
 * multiply-add: two instructions fewer per byte (read in the SASS). */
__device__ __forceinline__ void red_shared_add(unsigned addr, unsigned v)
{
    asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

/* PTX prmt.b32 (byte permute) of x and 0: result byte i is byte (SEL >> 4i)
 * & 3 of x when that nibble is 0..3, zero when it is 4, and the top bit of
 * that byte copied into all eight bits when the nibble has its 8 set
 * (sign replication, prmt's default mode). __byte_perm is the same
 * instruction but keeps only 3 bits of each nibble, so it cannot replicate. */
template <unsigned SEL>
__device__ __forceinline__ unsigned prmt(unsigned x)
{
    unsigned r;
    asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(x), "n"(SEL));
    return r;
}

/* Ask the L2 to fetch the 16 bytes at p (their 32-byte sector) from memory
 * now: no register waits for it, so a thread can have many such requests
 * out while it counts (hist_lanes, FETCH_L2). A hint: the hardware may drop
 * it, and the result never depends on it. */
__device__ __forceinline__ void prefetch_l2(const void *p)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/* cp.async (sm_80 and later): copy 16 bytes from global memory to the
 * shared address dst without passing through a register; the copy is
 * complete, and visible to this thread, once a later cp_async_wait<N> has
 * returned with at most N of this thread's newer groups pending. Each
 * cp_async_commit closes a group of the copies issued since the previous
 * one. Before sm_80 the copy is an ordinary load and store (complete at
 * once), so the same code runs, without the overlap. */
__device__ __forceinline__ void cp_async16(unsigned dst, const void *src)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
#else
    const uint4 v = *(const uint4 *)src;
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w)
                 : "memory");
#endif
}

__device__ __forceinline__ void cp_async_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

template <int N>
__device__ __forceinline__ void cp_async_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

/* A 32-bit flag in global memory written with release and read with
 * acquire semantics at GPU scope (hist_lanes, NOZERO): a block that reads
 * the value another block wrote also sees every write that block made
 * before it. */
__device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void st_release_gpu(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* ---- end of PTX helpers ---- */

/* Input i = hist_input_byte(kind, seed, i); 8 bytes per store. `words` 8-byte
 * words (the allocation is a multiple of 8 bytes, cudaMalloc aligns it). */
__global__ void fill_input(unsigned char *d, size_t words, int kind, uint64_t seed)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += stride) {
        u64 v = 0;
        for (int k = 0; k < 8; k++) v |= (u64)hist_input_byte(kind, seed, 8 * w + k) << (8 * k);
        ((u64 *)d)[w] = v;
    }
}

/* 0: global_atomics. One thread per byte, one atomicAdd on a 64-bit global
 * counter per byte. Every byte becomes a read-modify-write in L2, and all
 * of them land on BINS addresses (8 bins share a 32-byte sector), so the
 * atomic units serialize them: uniform bytes spread over 256 counters,
 * equal bytes queue on one. The naive baseline, timed on at most 2^24
 * bytes (it is hundreds of times slower than the rest). */
template <int BINS>
__global__ void hist_global_atomics(const unsigned char *__restrict__ data, size_t n,
                                    u64 *__restrict__ hist)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[bin_of<BINS>(data[i])], 1ull);
}

/* 1: shared_private. What changed: privatization. Each block counts into
 * its own BINS counters in shared memory (32-bit, on-chip atomics) and adds
 * them to the global histogram once at the end: BINS global atomics per
 * block instead of one per byte. The grid fills the GPU once and each
 * thread loops over the input (grid-stride), so a block counts many
 * thousands of bytes per merge. Zeroing, counting and merging are
 * separated by barriers: no thread may count before the bins are zero, or
 * merge before every thread has counted. What is left: every warp of every
 * resident block hits the same BINS words; random bytes put several lanes
 * of one atomic instruction on the same bank (a bank holds 8 of 256 bins),
 * which the hardware serializes. */
template <int BINS>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_shared_private(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    __shared__ unsigned s[BINS];
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) s[b] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&s[bin_of<BINS>(data[i])], 1u);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], (u64)s[b]);
}

/* Kernels 2-4 are one template, hist_privatized<BINS, LAYOUT, GROUPS, PACK16>:
 * the same loop of 16-byte loads, and the layouts of hist_common.h.
 */

/* Bytes of shared memory between the counters of two neighbouring bins of
 * one copy: 4 in PER_BLOCK and PER_WARP, one word per copy in PER_LANE. */
template <int LAYOUT, int GROUPS>
__device__ __forceinline__ constexpr unsigned bin_stride()
{
    return LAYOUT == HIST_PER_LANE ? 4u * 32u * GROUPS : 4u;
}

/* Count the four bytes of a 32-bit word in this thread's copy. `mine` is
 * the shared address of the copy's first counter: the block's copy
 * (PER_BLOCK), its warp's (PER_WARP), or word c = lane + 32 x (warp mod
 * GROUPS) (PER_LANE). In PER_LANE the counter of bin b in copy c is word
 * b x copies + c, and copies is a multiple of 32, so lane L always hits
 * bank L: an atomic instruction of a warp is one conflict-free
 * shared-memory access whatever bytes its 32 lanes hold.
 *
 * Each byte costs an extract (prmt: byte k to the bottom), one multiply-add
 * for its address and the atomic. The bin is applied to all four bytes at
 * once: for 64 bins the mask 0xFC keeps each byte's top six bits in place,
 * and (byte & 0xFC) = 4 x bin, so the scale is a quarter of the stride.
 *
 * PACK16: bins p and p + BINS/2 share word p x copies + c, as its low and
 * high 16-bit halves: half the shared memory, at the price of a flush
 * (below) and two instructions per byte. Bin b's half is the byte's top bit
 * at either bin count (bin >= BINS/2 exactly when byte >= 128), its pair is
 * the byte's low seven bits (256 bins) or bits 2..6 (64 bins); prmt with
 * selector 0x44 (8+k)(8+k) turns the top bit of byte k into 0xFFFF or 0,
 * and one more makes the increment, 0x10000 or 1. */
template <int BINS, int LAYOUT, int GROUPS, int PACK16>
__device__ __forceinline__ void priv_add_word(unsigned mine, unsigned w)
{
    constexpr unsigned scale = BINS == 256 ? bin_stride<LAYOUT, GROUPS>() : bin_stride<LAYOUT, GROUPS>() / 4u;
    if (!PACK16) {
        const unsigned m = BINS == 256 ? w : w & 0xFCFCFCFCu;
        red_shared_add(mine + prmt<0x4440u>(m) * scale, 1u);
        red_shared_add(mine + prmt<0x4441u>(m) * scale, 1u);
        red_shared_add(mine + prmt<0x4442u>(m) * scale, 1u);
        red_shared_add(mine + prmt<0x4443u>(m) * scale, 1u);
    } else {
        const unsigned m = w & (BINS == 256 ? 0x7F7F7F7Fu : 0x7C7C7C7Cu);
        red_shared_add(mine + prmt<0x4440u>(m) * scale, prmt<0x4488u>(w) + 1u);
        red_shared_add(mine + prmt<0x4441u>(m) * scale, prmt<0x4499u>(w) + 1u);
        red_shared_add(mine + prmt<0x4442u>(m) * scale, prmt<0x44AAu>(w) + 1u);
        red_shared_add(mine + prmt<0x4443u>(m) * scale, prmt<0x44BBu>(w) + 1u);
    }
}

/* A byte outside the 16-byte vectors (at most 15 at each end of the input).
 * PACK16 counts it straight into the 32-bit accumulators, so the flush
 * budget of the 16-bit counters only has to cover the vectors. */
template <int BINS, int LAYOUT, int GROUPS, int PACK16>
__device__ __forceinline__ void priv_add_byte(unsigned mine, unsigned *acc, unsigned byte)
{
    if (PACK16) atomicAdd(&acc[bin_of<BINS>(byte)], 1u);
    else red_shared_add(mine + bin_of<BINS>(byte) * bin_stride<LAYOUT, GROUPS>(), 1u);
}

/* The sum over the 32 lanes of a warp, in every lane: one REDUX instruction
 * on sm_80 and later, five shuffles before (sm_75). */
__device__ __forceinline__ unsigned warp_sum(unsigned v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xFFFFFFFFu, v);
#else
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
    return v;
#endif
}

/* PACK16: move the 16-bit counters into the 32-bit accumulators and zero
 * them. Called by the whole block, between barriers: the first makes every
 * count of the interval visible, the second keeps any thread from counting
 * again before its counters are zero. One warp per row of words (bins p
 * and p + BINS/2): its 32 x GROUPS copies are consecutive words (a
 * conflict-free read); each lane sums the halves of its words, warp_sum
 * adds the lanes up. */
template <int BINS, int GROUPS>
__device__ __forceinline__ void flush_packed(unsigned *copies, unsigned *acc)
{
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    __syncthreads();
    for (unsigned p = warp; p < BINS / 2; p += warps) {
        unsigned lo = 0, hi = 0;
#pragma unroll
        for (int g = 0; g < GROUPS; g++) {
            unsigned *c = &copies[p * (32u * GROUPS) + 32u * g + lane];
            const unsigned w = *c;
            *c = 0;
            lo += w & 0xFFFFu;
            hi += w >> 16;
        }
        lo = warp_sum(lo);
        hi = warp_sum(hi);
        if (lane == 0) {   /* pair p (bins p, p + BINS/2) is this warp's alone in this flush */
            acc[p] += lo;
            acc[p + BINS / 2] += hi;
        }
    }
    __syncthreads();
}

/* Merge the 32-bit copies (after a barrier) into the global histogram, one
 * 64-bit atomic per bin per block. PER_WARP sums its copies down a column
 * (consecutive threads read consecutive bins: conflict-free); PER_LANE uses
 * one warp per bin, as the flush does. A block counts under 2^31 bytes
 * (HIST_MAX_BLOCK_BYTES), so the 32-bit sums cannot wrap. */
template <int BINS, int LAYOUT, int GROUPS>
__device__ __forceinline__ void merge_copies(const unsigned *copies, u64 *hist)
{
    const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5, warps = blockDim.x >> 5;
    if (LAYOUT == HIST_PER_BLOCK) {
        for (unsigned b = tid; b < BINS; b += blockDim.x) atomicAdd(&hist[b], (u64)copies[b]);
    } else if (LAYOUT == HIST_PER_WARP) {
        for (unsigned b = tid; b < BINS; b += blockDim.x) {
            unsigned sum = 0;
            for (unsigned w = 0; w < warps; w++) sum += copies[w * BINS + b];
            atomicAdd(&hist[b], (u64)sum);
        }
    } else {
        for (unsigned b = warp; b < BINS; b += warps) {
            unsigned sum = 0;
#pragma unroll
            for (int g = 0; g < GROUPS; g++) sum += copies[b * (32u * GROUPS) + 32u * g + lane];
            sum = warp_sum(sum);
            if (lane == 0) atomicAdd(&hist[b], (u64)sum);
        }
    }
}

/* 2: shared_private_vec16 (LAYOUT = PER_BLOCK). What changed from 1: the
 * loads. The input is split into a head (the bytes before the first 16-byte
 * boundary: the pointer may have any alignment), a body of 16-byte vectors
 * and a tail (the last (n - head) mod 16 bytes); head and tail bytes are
 * counted one by one by the first threads of the grid. A warp reads 512
 * contiguous bytes per load instruction, and each thread issues the load of
 * its next vector before counting the current one, so a load is in flight
 * while the atomics run. Thread t counts the vectors t, t + stride, ... of
 * the grid (my_rounds of them, a 32-bit count); with PACK16 the whole block
 * runs the rounds of its thread 0 (the most any of its threads has), so
 * every thread reaches every barrier of the flush.
 *
 * 3: warp_private (PER_WARP). What changed: one copy of the bins per warp
 * (32 KiB per block at 256 bins). Warps no longer hit the same counters:
 * equal bytes from 32 warps go to 32 words instead of one.
 *
 * 4: fast (PER_LANE): copies x 32 lanes, lane L in bank L (see priv_add_word):
 *   fast_r32    GROUPS 1: 32 copies, 32-bit: 32 KiB per block at 256 bins
 *   fast_r64    GROUPS 2: 64 copies (warps alternate between two sets), 64 KiB
 *   fast_r128p  GROUPS 4, PACK16: 128 copies of 16-bit counters, 64 KiB + 1 KiB
 *               of accumulators; flushed every hist_flush_rounds() rounds
 * Two 1024-thread blocks fit on an SM with each (2 x 65 KiB of its 228). */
template <int BINS, int LAYOUT, int GROUPS, int PACK16>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_privatized(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist)
{
    extern __shared__ unsigned smem[];
    const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5, warps = blockDim.x >> 5;
    unsigned *copies = smem;
    unsigned *acc = smem + hist_copy_words(LAYOUT, BINS, GROUPS, PACK16, warps);   /* PACK16 */
    const unsigned mine = (unsigned)__cvta_generic_to_shared(
        copies + (LAYOUT == HIST_PER_LANE   ? lane + 32u * (warp % GROUPS)
                  : LAYOUT == HIST_PER_WARP ? warp * BINS
                                            : 0u));
    const unsigned words = hist_smem_words(LAYOUT, BINS, GROUPS, PACK16, warps);
    for (unsigned i = tid; i < words; i += blockDim.x) smem[i] = 0;   /* zero the copies */
    __syncthreads();

    const size_t head_max = (16u - ((uintptr_t)data & 15u)) & 15u;
    const size_t head = n < head_max ? n : head_max;
    const size_t nv = (n - head) / 16;            /* whole 16-byte vectors */
    const size_t tail_at = head + nv * 16;
    const uint4 *__restrict__ vec = (const uint4 *)(data + head);
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + tid;
    if (gtid < head) priv_add_byte<BINS, LAYOUT, GROUPS, PACK16>(mine, acc, data[gtid]);
    if (gtid < n - tail_at)
        priv_add_byte<BINS, LAYOUT, GROUPS, PACK16>(mine, acc, data[tail_at + gtid]);

    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x;   /* thread 0's first vector */
    const unsigned my_rounds = gtid < nv ? (unsigned)((nv - 1 - gtid) / stride + 1) : 0u;
    const unsigned block_rounds =
        !PACK16 ? my_rounds : first < nv ? (unsigned)((nv - 1 - first) / stride + 1) : 0u;
    /* The rounds in intervals: PACK16 flushes between two intervals, before
     * a 16-bit counter can pass 65535; 32-bit copies have one interval.
     * Within an interval there is no barrier, so each thread stops at its
     * own last round (r_end), and the inner loop has no test but the
     * prefetch's: the compiler unrolls it. */
    const unsigned interval = PACK16 ? hist_flush_rounds(blockDim.x, GROUPS) : 0xFFFFFFFFu;
    const uint4 *p = vec + gtid;
    uint4 cur = make_uint4(0u, 0u, 0u, 0u), next = cur;
    if (my_rounds > 0) cur = __ldg(p);
    for (unsigned r0 = 0; r0 < block_rounds; r0 += interval) {
        const unsigned r1 = block_rounds - r0 > interval ? r0 + interval : block_rounds;
        const unsigned r_end = r1 < my_rounds ? r1 : my_rounds;
        for (unsigned r = r0; r < r_end; r++) {
            if (r + 1 < my_rounds) next = __ldg(p + stride);   /* in flight while cur is counted */
            priv_add_word<BINS, LAYOUT, GROUPS, PACK16>(mine, cur.x);
            priv_add_word<BINS, LAYOUT, GROUPS, PACK16>(mine, cur.y);
            priv_add_word<BINS, LAYOUT, GROUPS, PACK16>(mine, cur.z);
            priv_add_word<BINS, LAYOUT, GROUPS, PACK16>(mine, cur.w);
            cur = next;
            p += stride;
        }
        if (PACK16 && r1 < block_rounds) flush_packed<BINS, GROUPS>(copies, acc);
    }

    if (PACK16) {
        flush_packed<BINS, GROUPS>(copies, acc);
        for (unsigned b = tid; b < BINS; b += blockDim.x) atomicAdd(&hist[b], (u64)acc[b]);
    } else {
        __syncthreads();   /* every count is in before the merge reads the copies */
        merge_copies<BINS, LAYOUT, GROUPS>(copies, hist);
    }
}

/* 5: hist_lanes<BINS, FETCH, NOZERO, FIT>: fast_r32's layout again (32
 * copies, counter of bin b for lane L at word 32 b + L, 32-bit counters) in
 * a kernel of its own, for what the first H200 run showed to cost once the
 * counting keeps up with memory (README, "Step 5", fits time = fixed + n /
 * rate to the 512 MiB and 4 GiB + 1 runs): fast_r32 streams as fast as
 * shared_private_vec16 does on equal bytes, on every input, so its atomics
 * are not the limit, but it pays about twice shared_private_vec16's fixed
 * cost per launch, and every privatized kernel stops at the same rate, a
 * little below what the reduction sample streams at. The steps, one
 * variant each:
 *
 *   fast_r32_bmerge  the merge. fast_r32 adds each bin with a 64-bit atomic
 *       from one lane (a warp per bin): 256 single-counter requests per
 *       block, 67,584 from 264 blocks, all in the last microseconds and all
 *       on the same 2 KiB of L2, where they queue. Here a warp still sums a
 *       bin's 32 copies with one REDUX, but lane 0 writes the sum into a row
 *       of totals in shared memory; after a barrier thread b adds bin b: a
 *       warp's 32 atomics go to 32 consecutive counters (one request per
 *       32-byte sector, as in shared_private_vec16's merge), and an empty
 *       bin adds nothing (CUB skips them too; equal bytes: one atomic per
 *       block instead of 256).
 *   fast_r32_l1      + the carveout. Every kernel above asks for all of the
 *       SM's 256 KiB that can be shared memory (228 KiB), which leaves 28 KiB
 *       of L1, while an SM of them has 32-64 KiB of 16-byte loads in flight
 *       (one or two per thread): a load that misses takes L1 lines until its
 *       data arrives, so the L1 may be what caps the bytes in flight, and
 *       by Little's law the rate (28 KiB on each of 132 SMs is 3.8 MB: at
 *       the first run's 4.36 TB/s that is 0.87 us of latency, about what a
 *       read from HBM under load takes). Here the kernel asks for the shared
 *       memory its two blocks need (hist_carveout_percent: 30%, which the
 *       H200 rounds up to 100 KiB) and keeps 156 KiB of L1.
 *   fast_r32_nozero  + no memset before the kernel. Block 0 zeroes the
 *       output at its start and then publishes this launch's number (the
 *       epoch, new for every launch) in a flag, with release semantics;
 *       every block reads the flag with acquire semantics before its merge
 *       and adds only once it holds the epoch. Waiting for another block is
 *       safe only if that block is sure to run: the kernel is launched
 *       cooperatively, which guarantees that every block of the grid is
 *       resident at once (the grid is at most the resident blocks anyway).
 *       Block 0 sets the flag within microseconds of the start, the others
 *       look at it after counting, so in practice nobody waits. Saves the
 *       2 KiB memset and the gap between it and the kernel.
 *   fast_r32_l2pf    + requests further ahead. Each thread also asks the L2
 *       for the vector LANES_PREFETCH rounds ahead (prefetch.global.L2: it
 *       holds no register and no L1 line), so the load one round ahead
 *       finds its data in L2, at a fraction of the latency: memory sees
 *       about LANES_PREFETCH times the requests in flight.
 *   fast_r32_async   the same aim by another road: fast_r32_nozero with
 *       cp.async (sm_80+) into a ring of LANES_STAGES 16-byte slots per
 *       thread in shared memory (64 KiB per block: 97 KiB in all at 256
 *       bins, two blocks still fit in 228 KiB): LANES_STAGES - 1 vectors
 *       always in flight, in neither registers nor L1 (.cg: L2 only). The
 *       price: each vector crosses shared memory twice more (the copy's
 *       write and one LDS.128), 8 more shared-memory passes per warp to the
 *       16 of its atomics, and 71 instructions per vector instead of 60.
 *
 * What the H200 run showed (the README's "Step 5" has the figures): the
 * merge, the carveout and the memset each paid off as predicted (the
 * carveout at the low end of its range), and fast_r32_nozero is the fastest
 * variant; the L2 prefetch made the stream slower, not faster, and the
 * cp.async ring gained nothing and varied most from run to run.
 *
 * Each thread only ever reads its own ring slots, after its own
 * cp.async.wait_group: no barrier is needed for them. A slot is refilled
 * in the round after it was read, when the counts that used its bytes have
 * been issued. FIT changes only the launcher's carveout; it is a template
 * parameter so that each variant's kernel is a function of its own, with
 * attributes of its own.
 */
enum { FETCH_REG = 0, FETCH_L2 = 1, FETCH_ASYNC = 2 };
#define LANES_PREFETCH 4   /* FETCH_L2: the vector this many rounds ahead is prefetched */
#define LANES_STAGES 4     /* FETCH_ASYNC: ring slots per thread, one fewer copies in flight */

template <int BINS>
__device__ __forceinline__ void lanes_add_vector(unsigned mine, uint4 v)
{
    priv_add_word<BINS, HIST_PER_LANE, 1, 0>(mine, v.x);
    priv_add_word<BINS, HIST_PER_LANE, 1, 0>(mine, v.y);
    priv_add_word<BINS, HIST_PER_LANE, 1, 0>(mine, v.z);
    priv_add_word<BINS, HIST_PER_LANE, 1, 0>(mine, v.w);
}

template <int BINS, int FETCH, int NOZERO, int FIT>
__global__ void __launch_bounds__(PRIV_THREADS, 2)
hist_lanes(const unsigned char *__restrict__ data, size_t n, u64 *__restrict__ hist,
           unsigned epoch, unsigned *__restrict__ zeroed)
{
    extern __shared__ unsigned smem[];
    const unsigned tid = threadIdx.x, lane = tid & 31u, warp = tid >> 5, warps = blockDim.x >> 5;
    unsigned *copies = smem;                       /* BINS x 32 words */
    unsigned *totals = smem + BINS * 32u;          /* BINS words: the block's count of each bin */
    uint4 *ring = (uint4 *)(totals + BINS);        /* FETCH_ASYNC: LANES_STAGES x blockDim slots */
    const unsigned mine = (unsigned)__cvta_generic_to_shared(copies + lane);
    for (unsigned i = tid; i < BINS * 32u; i += blockDim.x) copies[i] = 0;   /* zero the lane copies */
    if (NOZERO && blockIdx.x == 0) {
        for (unsigned b = tid; b < BINS; b += blockDim.x) hist[b] = 0;   /* zero the output */
        __threadfence();   /* this thread's zeros are in L2 before the flag can be */
    }
    __syncthreads();
    if (NOZERO && blockIdx.x == 0 && tid == 0) st_release_gpu(zeroed, epoch);

    /* Head, vectors and tail as in hist_privatized (priv_add_byte uses its
     * accumulator argument only for packed counters). */
    const size_t head_max = (16u - ((uintptr_t)data & 15u)) & 15u;
    const size_t head = n < head_max ? n : head_max;
    const size_t nv = (n - head) / 16;
    const size_t tail_at = head + nv * 16;
    const uint4 *__restrict__ vec = (const uint4 *)(data + head);
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + tid;
    if (gtid < head) priv_add_byte<BINS, HIST_PER_LANE, 1, 0>(mine, totals, data[gtid]);
    if (gtid < n - tail_at) priv_add_byte<BINS, HIST_PER_LANE, 1, 0>(mine, totals, data[tail_at + gtid]);

    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const unsigned my_rounds = gtid < nv ? (unsigned)((nv - 1 - gtid) / stride + 1) : 0u;
    const uint4 *p = vec + gtid;
    if (FETCH == FETCH_ASYNC) {
        /* Slot s of this thread: ring[s x blockDim + tid] (consecutive
         * threads, consecutive 16 bytes: conflict-free). The prologue
         * starts vectors 0 .. LANES_STAGES - 2; round r waits for vector r,
         * reads it, starts vector r + LANES_STAGES - 1 into the slot read
         * in round r - 1, and counts. A group is committed every time, empty
         * or not, so "all but the newest LANES_STAGES - 2 groups" is always
         * "up to vector r". */
        uint4 *my_slots = ring + tid;
        const unsigned slot_step = blockDim.x;
        const uint4 *ahead = p;
        for (unsigned s = 0; s + 1 < LANES_STAGES; s++) {
            if (s < my_rounds)
                cp_async16((unsigned)__cvta_generic_to_shared(my_slots + s * slot_step), ahead);
            cp_async_commit();
            ahead += stride;
        }
        for (unsigned r = 0; r < my_rounds; r++) {
            cp_async_wait<LANES_STAGES - 2>();   /* vector r has landed */
            const uint4 v = my_slots[(r % LANES_STAGES) * slot_step];
            const unsigned refill = r + LANES_STAGES - 1;
            if (refill < my_rounds)
                cp_async16((unsigned)__cvta_generic_to_shared(my_slots + (refill % LANES_STAGES) * slot_step),
                           ahead);
            cp_async_commit();
            ahead += stride;
            lanes_add_vector<BINS>(mine, v);
        }
        cp_async_wait<0>();   /* nothing of this thread's left in flight (all empty by now) */
    } else {
        /* The loop of hist_privatized: the next vector is loaded while the
         * current one is counted; FETCH_L2 adds a prefetch LANES_PREFETCH
         * vectors ahead (the first ones before the loop). */
        uint4 cur = make_uint4(0u, 0u, 0u, 0u), next = cur;
        if (my_rounds > 0) cur = __ldg(p);
        if (FETCH == FETCH_L2)
            for (unsigned d = 1; d < LANES_PREFETCH; d++)
                if (d < my_rounds) prefetch_l2(p + d * stride);
        for (unsigned r = 0; r < my_rounds; r++) {
            if (r + 1 < my_rounds) next = __ldg(p + stride);
            if (FETCH == FETCH_L2 && r + LANES_PREFETCH < my_rounds) prefetch_l2(p + LANES_PREFETCH * stride);
            lanes_add_vector<BINS>(mine, cur);
            cur = next;
            p += stride;
        }
    }

    /* The merge. NOZERO: thread 0 first makes sure block 0 has zeroed the
     * output for this launch (while other warps may still be counting). */
    if (NOZERO && tid == 0)
        while (ld_acquire_gpu(zeroed) != epoch) {
        }
    __syncthreads();   /* every count is in before the copies are summed */
    for (unsigned b = warp; b < BINS; b += warps) {
        const unsigned sum = warp_sum(copies[32u * b + lane]);   /* one conflict-free row */
        if (lane == 0) totals[b] = sum;
    }
    __syncthreads();   /* every total is in before thread b adds bin b */
    for (unsigned b = tid; b < BINS; b += blockDim.x) {
        const unsigned v = totals[b];
        if (v != 0) atomicAdd(&hist[b], (u64)v);
    }
}

/* CUB inputs over HIST_CUB_ONE_CALL bytes are counted in chunks into 32-bit
 * bins; each chunk's bins are added into the 64-bit histogram (the first
 * chunk's replace it, so no separate zeroing is needed). */
__global__ void hist_widen_add(const unsigned *__restrict__ h32, u64 *__restrict__ h64, int bins,
                               int first)
{
    const int b = threadIdx.x;
    if (b < bins) h64[b] = (first ? 0ull : h64[b]) + h32[b];
}

/* ---- launchers ----------------------------------------------------------- */

typedef struct {
    const unsigned char *data;   /* the bytes to count: any alignment */
    size_t n;
    u64 *hist;                   /* 64-bit bins: every variant's output (cub's beyond one call) */
    unsigned *hist32;            /* cub's 32-bit bins */
    void *cub_temp;
    size_t cub_bytes;
    int sm_count;
    int smem_per_sm, smem_reserved, blocks_per_sm;   /* hist_lanes FIT: the carveout's inputs */
    unsigned force_grid, force_block;   /* a checked launch's own grid and block; 0 = the launcher's */
    int one_per_sm;              /* the waves check: so much shared memory that one block fills an SM */
    int smem_optin;              /* the most shared memory one block may have (static + dynamic) */
    unsigned *zeroed;            /* hist_lanes NOZERO: the flag block 0 sets once the output is zero */
} hist_ctx;

/* Every variant but cub adds into its output, so the output starts at zero
 * (in the timed region: the zeroing is part of computing a histogram). */
static void zero_output(const hist_ctx *x, int bins, cudaStream_t s)
{
    CUDA_CHECK(cudaMemsetAsync(x->hist, 0, (size_t)bins * sizeof(u64), s));
}

/* The waves check (check_variant): dynamic shared memory for one launch of
 * `kernel` that leaves no room for a second block on an SM: the most a
 * block may have (smem_optin, 227 KiB on an H200) less the kernel's static
 * shared memory, and never less than the `need` of the kernel itself. The
 * kernel uses its first `need` bytes as always; the rest only keeps other
 * blocks off the SM. Raises the kernel's dynamic shared-memory limit to it. */
template <typename K>
static size_t one_per_sm_smem(K kernel, const hist_ctx *x, size_t need)
{
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
    size_t dyn = (size_t)x->smem_optin > fa.sharedSizeBytes ? (size_t)x->smem_optin - fa.sharedSizeBytes : 0;
    if (dyn < need) dyn = need;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
    return dyn;
}

/* Blocks of `kernel` that fit on the whole GPU at once, asked once per kernel. */
template <typename K>
static unsigned long long resident_blocks(K kernel, int threads, size_t smem, int sm_count,
                                          int *cache)
{
    if (*cache == 0) {
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
        *cache = per_sm > 0 ? per_sm : 1;
    }
    return (unsigned long long)*cache * (unsigned long long)sm_count;
}

template <int BINS>
static void run_global_atomics(void *p, cudaStream_t s)
{
    const hist_ctx *x = (const hist_ctx *)p;
    const unsigned long long blocks = (x->n + ATOMIC_THREADS - 1) / ATOMIC_THREADS;
    zero_output(x, BINS, s);
    hist_global_atomics<BINS><<<(unsigned)blocks, ATOMIC_THREADS, 0, s>>>(x->data, x->n, x->hist);
    CHECK_LAUNCH();
}

template <int BINS>
static void run_shared_private(void *p, cudaStream_t s)
{
    const hist_ctx *x = (const hist_ctx *)p;
    static int per_sm = 0;
    const unsigned long long max_blocks =
        resident_blocks(hist_shared_private<BINS>, PRIV_THREADS, 0, x->sm_count, &per_sm);
    const unsigned block = x->force_block ? x->force_block : PRIV_THREADS;
    const unsigned long long grid =
        x->force_grid ? x->force_grid : hist_grid_blocks(x->n, 1, block, max_blocks);
    const size_t smem = x->one_per_sm ? one_per_sm_smem(hist_shared_private<BINS>, x, 0) : 0;
    zero_output(x, BINS, s);
    hist_shared_private<BINS><<<(unsigned)grid, block, smem, s>>>(x->data, x->n, x->hist);
    CHECK_LAUNCH();
}

/* The grid fills the GPU once (2 blocks of 1024 per SM when registers and
 * shared memory allow), fewer blocks when n is small. Shared memory is
 * dynamic, sized by hist_smem_words for the block actually launched; the
 * kernel may use all of an SM's shared memory (carveout) and more than the
 * default 48 KiB per block. */
template <int BINS, int LAYOUT, int GROUPS, int PACK16>
static void run_privatized(void *p, cudaStream_t s)
{
    const hist_ctx *x = (const hist_ctx *)p;
    void (*kernel)(const unsigned char *, size_t, u64 *) =
        hist_privatized<BINS, LAYOUT, GROUPS, PACK16>;
    static int per_sm = 0;
    const size_t smem_full =
        hist_smem_words(LAYOUT, BINS, GROUPS, PACK16, PRIV_THREADS / 32) * sizeof(unsigned);
    if (per_sm == 0) {
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)smem_full));
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        (int)cudaSharedmemCarveoutMaxShared));
    }
    const unsigned long long max_blocks =
        resident_blocks(kernel, PRIV_THREADS, smem_full, x->sm_count, &per_sm);
    const unsigned block = x->force_block ? x->force_block : PRIV_THREADS;
    size_t smem = hist_smem_words(LAYOUT, BINS, GROUPS, PACK16, block / 32) * sizeof(unsigned);
    if (x->one_per_sm) smem = one_per_sm_smem(kernel, x, smem);
    const unsigned long long grid =
        x->force_grid ? x->force_grid : hist_grid_blocks(x->n, 16, block, max_blocks);
    zero_output(x, BINS, s);
    kernel<<<(unsigned)grid, block, smem, s>>>(x->data, x->n, x->hist);
    CHECK_LAUNCH();
}

/* Every NOZERO launch gets a number no launch before it had (0 is the
 * flag's value at the start), so a flag left by an earlier launch is never
 * taken for this one's. One counter for all of them: they share the flag. */
static unsigned nozero_epoch = 0;

/* hist_lanes: the grid and block of run_privatized, shared memory from
 * hist_lanes_smem_bytes. The carveout (how much of the SM's 256 KiB of
 * L1 + shared memory is shared): all of it (228 KiB, leaving 28 KiB of L1),
 * as run_privatized asks, or with FIT just what blocks_per_sm blocks need
 * (hist_carveout_percent), the rest staying L1. NOZERO: no memset, and a
 * cooperative launch (every block resident at once, or the launch fails:
 * the kernel's blocks wait for block 0). */
template <int BINS, int FETCH, int NOZERO, int FIT>
static void run_lanes(void *p, cudaStream_t s)
{
    const hist_ctx *x = (const hist_ctx *)p;
    void (*kernel)(const unsigned char *, size_t, u64 *, unsigned, unsigned *) =
        hist_lanes<BINS, FETCH, NOZERO, FIT>;
    const unsigned stages = FETCH == FETCH_ASYNC ? LANES_STAGES : 0u;
    static int per_sm = 0;
    const size_t smem_full = hist_lanes_smem_bytes(BINS, PRIV_THREADS, stages);
    const int first = per_sm == 0;
    const int carveout = FIT ? hist_carveout_percent(smem_full, (size_t)x->smem_reserved,
                                                     (unsigned)x->blocks_per_sm, (size_t)x->smem_per_sm)
                             : (int)cudaSharedmemCarveoutMaxShared;
    if (first) {
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)smem_full));
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        carveout));
    }
    const unsigned long long max_blocks =
        resident_blocks(kernel, PRIV_THREADS, smem_full, x->sm_count, &per_sm);
    if (first)   /* what the step-5 comparisons rest on: two blocks per SM in every variant */
        report_note("hist_lanes<%d bins, fetch %s, nozero %d>: %d blocks of %zu bytes of shared "
                    "memory per SM, carveout %d%%%s",
                    BINS, FETCH == FETCH_REG ? "reg" : FETCH == FETCH_L2 ? "l2" : "async", NOZERO,
                    per_sm, smem_full, carveout, FIT ? " (fit to need)" : " (all)");
    const unsigned block = x->force_block ? x->force_block : PRIV_THREADS;
    size_t smem = hist_lanes_smem_bytes(BINS, block, stages);
    /* (never with NOZERO: its cooperative launch needs every block resident) */
    if (x->one_per_sm && !NOZERO) smem = one_per_sm_smem(kernel, x, smem);
    const unsigned long long grid =
        x->force_grid ? x->force_grid : hist_grid_blocks(x->n, 16, block, max_blocks);
    if (!NOZERO) {
        zero_output(x, BINS, s);
        kernel<<<(unsigned)grid, block, smem, s>>>(x->data, x->n, x->hist, 0u, x->zeroed);
        CHECK_LAUNCH();
        return;
    }
    if (++nozero_epoch == 0) ++nozero_epoch;
    const unsigned char *data = x->data;
    size_t n = x->n;
    u64 *hist = x->hist;
    unsigned epoch = nozero_epoch;
    unsigned *zeroed = x->zeroed;
    void *args[] = {&data, &n, &hist, &epoch, &zeroed};
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)kernel, dim3((unsigned)grid), dim3(block),
                                           args, smem, s));
}

/* The reference. HistogramEven with BINS + 1 levels 0, 256/BINS, ..., 256
 * counts into 32-bit bins (CUB zeroes them itself). Up to HIST_CUB_ONE_CALL
 * bytes: one call into hist32, nothing else timed. Beyond: chunks, each
 * followed by hist_widen_add into the 64-bit hist. The temporary storage is
 * allocated once, outside the timing, for the largest call. */
template <int BINS>
static void cub_call(const hist_ctx *x, const unsigned char *d, size_t len, cudaStream_t s)
{
    size_t bytes = x->cub_bytes;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(x->cub_temp, bytes, d, x->hist32, BINS + 1, 0,
                                                   256, (int)len, s));
}

template <int BINS>
static void run_cub(void *p, cudaStream_t s)
{
    const hist_ctx *x = (const hist_ctx *)p;
    if (x->n <= HIST_CUB_ONE_CALL) {
        cub_call<BINS>(x, x->data, x->n, s);
        return;
    }
    for (size_t at = 0; at < x->n; at += HIST_CUB_CHUNK) {
        const size_t len = x->n - at < HIST_CUB_CHUNK ? x->n - at : HIST_CUB_CHUNK;
        cub_call<BINS>(x, x->data + at, len, s);
        hist_widen_add<<<1, 256, 0, s>>>(x->hist32, x->hist, BINS, at == 0);
        CHECK_LAUNCH();
    }
}

template <int BINS>
static size_t cub_temp_bytes(size_t len)
{
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(NULL, bytes, (const unsigned char *)NULL,
                                                   (unsigned *)NULL, BINS + 1, 0, 256, (int)len));
    return bytes;
}

/* ---- variant table ------------------------------------------------------- */

#define GA_MAX_N ((size_t)1 << 24)   /* global_atomics: checked and timed on at most 16 MiB */

#define BY_BINS(f, ...) {f<256, ##__VA_ARGS__>, f<64, ##__VA_ARGS__>}

typedef struct {
    const char *name;
    timed_fn run[2];    /* [0] 256 bins, [1] 64 bins */
    int is_reference;   /* cub: timed first, every pct_ref is against it */
    int grid_stride;    /* takes a forced grid: the small-grid check applies */
    int pack16;         /* 16-bit counters: the overflow check applies */
    int waves;          /* may have more blocks than fit at once: the waves check applies */
    size_t max_n;       /* checked and timed on min(n, max_n) bytes; 0 = n */
    int block;          /* threads per block, for the RESULT line (0: the library's) */
    const char *what;
} variant;

static const variant variants[] = {
    {"cub", BY_BINS(run_cub), 1, 0, 0, 0, 0, 0, "cub::DeviceHistogram::HistogramEven (reference)"},
    {"global_atomics", BY_BINS(run_global_atomics), 0, 0, 0, 0, GA_MAX_N, ATOMIC_THREADS,
     "one global atomicAdd per byte (at most 2^24 bytes)"},
    {"shared_private", BY_BINS(run_shared_private), 0, 1, 0, 1, 0, PRIV_THREADS,
     "per-block shared-memory bins, 1-byte loads"},
    {"shared_private_vec16", BY_BINS(run_privatized, HIST_PER_BLOCK, 1, 0), 0, 1, 0, 1, 0,
     PRIV_THREADS, "per-block shared-memory bins, 16-byte loads"},
    {"warp_private", BY_BINS(run_privatized, HIST_PER_WARP, 1, 0), 0, 1, 0, 1, 0, PRIV_THREADS,
     "one copy of the bins per warp"},
    {"fast_r32", BY_BINS(run_privatized, HIST_PER_LANE, 1, 0), 0, 1, 0, 1, 0, PRIV_THREADS,
     "32 copies, lane L in bank L, 32-bit counters"},
    {"fast_r64", BY_BINS(run_privatized, HIST_PER_LANE, 2, 0), 0, 1, 0, 1, 0, PRIV_THREADS,
     "64 copies (2 warp groups), 32-bit counters"},
    {"fast_r128p", BY_BINS(run_privatized, HIST_PER_LANE, 4, 1), 0, 1, 1, 1, 0, PRIV_THREADS,
     "128 copies (4 warp groups), packed 16-bit counters"},
    {"fast_r32_bmerge", BY_BINS(run_lanes, FETCH_REG, 0, 0), 0, 1, 0, 1, 0, PRIV_THREADS,
     "fast_r32, merged through a shared row (coalesced atomics)"},
    {"fast_r32_l1", BY_BINS(run_lanes, FETCH_REG, 0, 1), 0, 1, 0, 1, 0, PRIV_THREADS,
     "fast_r32_bmerge, carveout sized to need: L1 stays large"},
    {"fast_r32_nozero", BY_BINS(run_lanes, FETCH_REG, 1, 1), 0, 1, 0, 0, 0, PRIV_THREADS,
     "fast_r32_l1, output zeroed by block 0 (no memset)"},
    {"fast_r32_l2pf", BY_BINS(run_lanes, FETCH_L2, 1, 1), 0, 1, 0, 0, 0, PRIV_THREADS,
     "fast_r32_nozero + L2 prefetch 4 vectors ahead"},
    {"fast_r32_async", BY_BINS(run_lanes, FETCH_ASYNC, 1, 1), 0, 1, 0, 0, 0, PRIV_THREADS,
     "fast_r32_nozero, cp.async into a 4-slot ring"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ------------------------------------------------------------- */

#define QUICK_N (((size_t)1 << 16) + 5)
#define STRESS_N ((size_t)HIST_STRESS_N)
#define SMALL_GRID_N (((size_t)1 << 20) + 5)   /* the small-grid check's most bytes */

static long long opt_n = 512LL << 20;
static const char *opt_input = "all";
static const char default_bins[] = "256";
static const char *opt_bins = default_bins;   /* compared by address: was --bins given? */
static const char *opt_variant = "all";
static char variant_choices[256];   /* "all|cpu|cub|...", from the table */
static char help_notes[2048];       /* the variant list of --help, from the table */

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("n", "BYTES", "bytes to count (4 GiB + 1 is --n=2^32+1)", &opt_n, 1, 1LL << 35),
    OPT_STRING_SPEC("input", "KIND", "the bytes: uniform random, a bell curve, all equal",
                    &opt_input, "all|uniform|skewed|degenerate"),
    OPT_STRING_SPEC("bins", "B", "bins over [0, 256)", &opt_bins, "256|64|both"),
    OPT_STRING_SPEC("variant", "NAME", "check and time one variant (cub, the reference, always runs)",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "histogram", "a histogram of bytes: global atomics, privatized copies, CUB",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

static void build_help_from_table(void)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-22s %s\n", "cpu",
                                "the CPU baseline (four sub-histograms), timed once");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-22s %s\n",
                              variants[v].name, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "Every variant is checked exactly against the CPU before it is timed, at n = 1 3 15 "
             "16 17 1000 4097 2^20+5\n(those below --n), at input offsets 1..15, at --n, on a "
             "grid of 3 x 64 threads, on a\ngrid of more blocks than fit at once (one block per "
             "SM: later blocks start where others\nfinished), and (packed counters) for 16-bit "
             "overflow.\n"
             "--quick: n = 2^16+5, every input and both bin counts (unless --input/--bins say "
             "otherwise).");
}

static int selected(const variant *v)
{
    return opts_variant_runs(opt_variant, v->name, v->is_reference);
}

/* ---- checking ------------------------------------------------------------ */

/* Count `size` bytes starting `offset` bytes into the input with variant v
 * and compare every bin exactly with the CPU. The output (and the guard
 * zone after it) is poisoned first: a bin left unwritten reads 2^64 - 1, a
 * write past the last bin fails check_guard. */
static int check_at(const variant *v, const hist_case *c, const hist_ctx *ctx, size_t size,
                    size_t offset, const unsigned char *h_data, const u64 *full_ref,
                    size_t full_n, unsigned force_grid, unsigned force_block, int one_per_sm)
{
    const int bins = c->bins;
    u64 ref[256], got[256];
    if (full_ref && size == full_n && offset == 0) {
        memcpy(ref, full_ref, bins * sizeof(u64));
    } else {
        memset(ref, 0, sizeof ref);
        cpu_histogram_add_u64(h_data + offset, size, bins, ref);
    }
    hist_ctx x = *ctx;
    x.data = ctx->data + offset;
    x.n = size;
    x.force_grid = force_grid;
    x.force_block = force_block;
    x.one_per_sm = one_per_sm;
    const int into32 = v->is_reference && size <= HIST_CUB_ONE_CALL;
    poison_guarded(x.hist, bins * sizeof(u64));
    poison_guarded(x.hist32, bins * sizeof(unsigned));
    v->run[bins == 64](&x, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    if (into32) {
        unsigned g32[256];
        CUDA_CHECK(cudaMemcpy(g32, x.hist32, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
        for (int b = 0; b < bins; b++) got[b] = g32[b] == 0xFFFFFFFFu ? ~0ull : g32[b];
    } else {
        CUDA_CHECK(cudaMemcpy(got, x.hist, bins * sizeof(u64), cudaMemcpyDeviceToHost));
    }
    char what[160];
    char launch[64] = "";
    if (force_grid)
        snprintf(launch, sizeof launch, ", %u x %u threads%s", force_grid, force_block,
                 one_per_sm ? ", one block per SM" : "");
    snprintf(what, sizeof what, "%s(%s, %d bins, n=%zu, offset %zu%s) bin", v->name,
             hist_input_name(c->kind), bins, size, offset, launch);
    size_t bad = check_exact_i64(what, (const long long *)got, (const long long *)ref, bins);
    if (into32) bad += check_guard(what, x.hist32, bins * sizeof(unsigned));
    else bad += check_guard(what, x.hist, bins * sizeof(u64));
    return bad == 0;
}

/* The waves check's launch: blocks of WAVES_BLOCK threads, each given all
 * the shared memory a block may have, so one block fills an SM; a grid of
 * the SMs and a quarter more (hist_waves_grid), so a quarter of the blocks
 * start on an SM where a block of the same launch has just finished; and
 * hist_waves_n bytes, so every block counts 64 vectors (1 KiB), and the 5
 * bytes of the tail are counted too. */
#define WAVES_BLOCK 64u

/* Every check of variant v for this case:
 *  - the plan of hist_check_plan (on at most v->max_n bytes), launched as
 *    in the timing: at these sizes every thread does one round or none;
 *  - grid-stride kernels on a grid of 3 blocks of 64 threads, over
 *    min(n, 2^20+5) bytes at offset 3: 20 or more rounds per thread, and
 *    not the same number for every thread (a wrong stride, a prefetch of
 *    the wrong vector, or PACK16's block-wide round count shows here);
 *  - `waves` (the first input of each bin count): a grid with more blocks
 *    than fit at once. Shared memory is not cleared between the blocks of
 *    a launch by anything CUDA promises: a block that starts where another
 *    finished may find its counts. Every check above launches no more
 *    blocks than fit at once, and on the H200 every block of them found its
 *    shared memory zero (a kernel that forgot to zero its copies passed
 *    them all, run of 2026-11-30); here the later blocks start on memory a
 *    block of the same launch has just counted into, so a copy that is not
 *    zeroed adds those counts again. Not for the NOZERO variants: their
 *    cooperative launch must have every block resident;
 *  - packed counters on degenerate bytes: the one-warp overflow check
 *    (HIST_STRESS_N, hist_common.h). */
static int check_variant(const variant *v, const hist_case *c, const hist_ctx *ctx, size_t n,
                         const unsigned char *h_data, const u64 *full_ref, int waves)
{
    const size_t nv = v->max_n && n > v->max_n ? v->max_n : n;
    hist_check plan[HIST_MAX_CHECKS];
    const int np = hist_check_plan(nv, plan);
    int ok = 1;
    for (int k = 0; k < np; k++)
        ok &= check_at(v, c, ctx, plan[k].n, plan[k].offset, h_data, full_ref, n, 0, 0, 0);
    if (v->grid_stride)
        ok &= check_at(v, c, ctx, nv < SMALL_GRID_N ? nv : SMALL_GRID_N, 3, h_data, full_ref, n,
                       3, 64, 0);
    if (v->waves && waves)
        ok &= check_at(v, c, ctx, hist_waves_n(ctx->sm_count, WAVES_BLOCK), 0, h_data, full_ref,
                       n, hist_waves_grid(ctx->sm_count), WAVES_BLOCK, 1);
    if (v->pack16 && c->kind == HIST_DEGENERATE)
        ok &= check_at(v, c, ctx, STRESS_N, 0, h_data, full_ref, n, 1, 32, 0);
    return ok;
}

static void fail_arg(const char *msg)
{
    fprintf(stderr, "histogram: error: %s\n", msg);
    printf("histogram: FAIL (bad argument)\n");
    exit(1);
}

int main(int argc, char **argv)
{
    common_opts o;
    build_help_from_table();
    opts_parse_or_exit(&cfg, argc, argv, &o);

    /* Validate everything before the first CUDA call. */
    char err[256];
    const int bins_given = opt_bins != default_bins;
    hist_case cases[HIST_MAX_CASES];
    const int ncases = hist_cases(opt_input, o.quick && !bins_given ? "both" : opt_bins, cases,
                                  err, sizeof err);
    if (ncases < 0) fail_arg(err);
    const size_t n = o.quick ? QUICK_N : (size_t)opt_n;
    /* The input buffer: n bytes, the 15 an offset check may reach past them,
     * and at least STRESS_N; a multiple of 8 for the fill kernel. */
    const size_t want = (n > STRESS_N ? n : STRESS_N) + 16;
    size_t alloc;
    if (opts_checked_bytes("--n", (long long)want, 1, 1, 1ULL << 36, &alloc, err, sizeof err))
        fail_arg(err);
    alloc = (alloc + 7) & ~(size_t)7;
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    report_init("histogram", o.json);
    device_info dev;
    device_setup_or_exit("histogram", o.device, o.json, &dev);
    /* The waves check counts hist_waves_n bytes (about 1.3 KiB per SM): more
     * than the buffer only on a GPU of over a thousand SMs. */
    const size_t wn = hist_waves_n(dev.sm_count, WAVES_BLOCK);
    if (wn + 16 > alloc) alloc = (wn + 16 + 7) & ~(size_t)7;

    /* CUB's temporary storage: the most any checked or timed call needs. */
    size_t cub_bytes = 0;
    {
        hist_check plan[HIST_MAX_CHECKS];
        const int np = hist_check_plan(n, plan);
        for (int k = 0; k <= np; k++) {
            size_t len = k < np ? plan[k].n : STRESS_N;
            if (len > HIST_CUB_ONE_CALL) len = HIST_CUB_CHUNK;
            size_t b256 = cub_temp_bytes<256>(len), b64 = cub_temp_bytes<64>(len);
            if (b256 > cub_bytes) cub_bytes = b256;
            if (b64 > cub_bytes) cub_bytes = b64;
        }
    }
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const double need = (double)alloc + (double)cub_bytes + (64 << 20);
    if (need > (double)free_b) {
        report_fail("--n=%zu: needs %.2f GB of device memory, the device has %.2f GB free", n,
                    need / 1e9, free_b / 1e9);
        return report_finish();
    }
    unsigned char *h_data = (unsigned char *)malloc(alloc);
    if (!h_data) {
        report_fail("--n=%zu: cannot allocate %zu bytes of host memory for the CPU reference", n,
                    alloc);
        return report_finish();
    }

    hist_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    unsigned char *d_data;
    CUDA_CHECK(cudaMalloc(&d_data, alloc));
    ctx.data = d_data;
    ctx.n = n;
    ctx.hist = (u64 *)guarded_malloc(256 * sizeof(u64));        /* outputs: a guard zone follows */
    ctx.hist32 = (unsigned *)guarded_malloc(256 * sizeof(unsigned));
    CUDA_CHECK(cudaMalloc(&ctx.cub_temp, cub_bytes > 0 ? cub_bytes : 1));
    ctx.cub_bytes = cub_bytes;
    ctx.sm_count = dev.sm_count;
    {
        int threads_per_sm = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&ctx.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                          dev.id));
        CUDA_CHECK(cudaDeviceGetAttribute(&ctx.smem_reserved, cudaDevAttrReservedSharedMemoryPerBlock,
                                          dev.id));
        CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev.id));
        CUDA_CHECK(cudaDeviceGetAttribute(&ctx.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                          dev.id));
        ctx.blocks_per_sm = threads_per_sm / PRIV_THREADS > 0 ? threads_per_sm / PRIV_THREADS : 1;
    }
    CUDA_CHECK(cudaMalloc(&ctx.zeroed, sizeof(unsigned)));   /* 0: no launch has set it yet */
    CUDA_CHECK(cudaMemset(ctx.zeroed, 0, sizeof(unsigned)));

    /* L2: flushed before each timed run only when the input could live in it. */
    const int flush = (double)n < 4.0 * dev.l2_bytes;
    report_note("n=%zu bytes (%.1f MiB), median of %d runs after 3 warm-ups, L2 %s; "
                "global_atomics on min(n, 2^24) bytes", n, n / 1048576.0, reps,
                flush ? "flushed before each run" : "not flushed (input is over 4x L2)");

    for (int ci = 0; ci < ncases; ci++) {
        const hist_case *c = &cases[ci];
        const char *input = hist_input_name(c->kind);
        fill_input<<<dev.sm_count * 8, 256>>>(d_data, alloc / 8, c->kind, o.seed);
        CHECK_LAUNCH();
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(h_data, d_data, alloc, cudaMemcpyDeviceToHost));

        /* The CPU reference of the whole input, which the cpu variant times. */
        u64 full_ref[256];
        host_prefault(full_ref, sizeof full_ref);
        memset(full_ref, 0, sizeof full_ref);
        double t0 = host_seconds();
        cpu_histogram_add_u64(h_data, n, c->bins, full_ref);
        const double cpu_ms = (host_seconds() - t0) * 1e3;
        u64 top = 0;
        int top_bin = 0;
        for (int b = 0; b < c->bins; b++)
            if (full_ref[b] > top) top = full_ref[b], top_bin = b;
        report_note("input=%s bins=%d: busiest bin %d holds %llu bytes (%.2f%%)%s", input,
                    c->bins, top_bin, top, 100.0 * top / n,
                    top > 0xFFFFFFFFull ? ": more than 2^32 - 1, a 32-bit counter would wrap" : "");

        int ok[N_VARIANTS];
        for (int v = 0; v < N_VARIANTS; v++)
            ok[v] = selected(&variants[v])
                        ? check_variant(&variants[v], c, &ctx, n, h_data, full_ref,
                                        ci == 0 || c->bins != cases[ci - 1].bins)
                        : 0;

        result_rec r;
        if (opts_variant_runs_cpu(opt_variant)) {
            rec_begin(&r, "cpu");
            rec_int(&r, "n", (long long)n);
            rec_str(&r, "input", input);
            rec_int(&r, "bins", c->bins);
            rec_str(&r, "status", "PASS");
            rec_perf(&r, cpu_ms, "gbps", n / (cpu_ms * 1e6), 0, NULL, 0);
            rec_emit(&r);
        }

        double ref_gbps = 0;
        for (int v = 0; v < N_VARIANTS; v++) {   /* the reference is first in the table */
            const variant *var = &variants[v];
            if (!selected(var)) continue;
            const size_t nv = var->max_n && n > var->max_n ? var->max_n : n;
            rec_begin(&r, var->name);
            rec_int(&r, "n", (long long)nv);
            rec_str(&r, "input", input);
            rec_int(&r, "bins", c->bins);
            if (!ok[v]) {
                rec_str(&r, "status", "FAIL");
                rec_emit(&r);
                continue;
            }
            char range[64];
            snprintf(range, sizeof range, "histogram/%s", var->name);
            timing_cfg tc = timing_defaults(reps);
            tc.flush_l2 = (double)nv < 4.0 * dev.l2_bytes;
            tc.nvtx_name = range;
            hist_ctx x = ctx;
            x.n = nv;
            timing_stats t;
            time_gpu(var->run[c->bins == 64], &x, &tc, &t);
            const double gbps = nv / (t.median_ms * 1e6);
            if (var->is_reference) ref_gbps = gbps;
            rec_str(&r, "status", "PASS");
            rec_perf(&r, t.median_ms, "gbps", gbps, dev.peak_gbps, "cub", ref_gbps);
            if (var->block) rec_int(&r, "block", var->block);
            rec_num(&r, "min_ms", t.min_ms);
            rec_emit(&r);
        }
    }

    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFree(ctx.cub_temp));
    CUDA_CHECK(cudaFree(ctx.zeroed));
    guarded_free(ctx.hist);
    guarded_free(ctx.hist32);
    free(h_data);
    return report_finish();
}
