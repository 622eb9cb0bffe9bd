/* reduction: sum an array, from the textbook tree to the speed of HBM.
 *
 * What it teaches: the classic progression of parallel reduction kernels
 * (Harris, "Optimizing Parallel Reduction in CUDA"), rewritten for today's
 * GPUs: what each step changes and why it is faster, why the old
 * warp-synchronous "volatile" idiom is a data race since Volta, and what it
 * takes to read memory at the speed of CUB's DeviceReduce: a grid that fills
 * the GPU once, 16-byte loads, several loads in flight per thread, warp
 * shuffles, one partial per block and a tiny second pass.
 *
 * Build:  make -C 0_Simple/reduction            (or `make reduction` at the top)
 * Run:    bin/reduction                         2^28 floats, every variant
 *         bin/reduction --type=int --block=1024 --variant=warp_shuffle_u4
 *         bin/reduction --check-sizes           n = 1 2 31 33 1000 2^20+1 2^28
 *         bin/reduction --n=2^31+1              64-bit indexing (8.6 GB of floats)
 *         bin/reduction --quick                 small sizes, for compute-sanitizer
 * Variants (the table below drives checks, timing and --help; numbers are the
 * steps of the progression, each kernel's comment says what changed):
 *   cpu                        Neumaier sum on the host, timed once (2^25 elements at most)
 *   cub                        cub::DeviceReduce::Sum: the reference
 *   interleaved_divergent      0: interleaved addressing, tid % (2s) == 0 (divergent warps)
 *   interleaved_bank_conflicts 1: interleaved addressing, index = 2 s tid (bank conflicts)
 *   sequential                 2: sequential addressing (conflict-free, idle half after step 1)
 *   first_add_load             3: two elements per thread, first add during the load
 *   unroll_last_warp           4: last warp without __syncthreads (with __syncwarp)
 *   complete_unroll            5: block size as a template parameter, loop fully unrolled
 *   multi_element              6: grid-stride: each thread sums many elements first
 *   warp_shuffle               7: 16-byte loads, __shfl_down_sync instead of shared memory
 *   warp_shuffle_u4            7: the same with 4 independent loads in flight per thread
 *   warp_shuffle_u8_b512       7: 8 loads in flight, 512 threads per block
 *   cg_reduce                  8: cooperative groups cg::reduce over warp tiles, 4 loads in flight
 * Every variant computes the whole sum (it loops its own kernel over the
 * partial sums until one value is left), so all times are comparable.
 *
 * Types: --type=float (default), double, int. float and double accumulate in
 * their own type; int accumulates in long long. The inputs are small nonzero
 * integers (reduce_input.h), so every type's sum is exact and the check
 * demands equality (reduce_ref.h): one lost element fails, at any n.
 * Bytes counted: n * sizeof(element), read once; 1e9 bytes per GB.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "check.h"
#include "cpu_ref.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "timing.h"

#include "reduce_device.cuh"
#include "reduce_ref.h"

namespace cg = cooperative_groups;

/* ---- CPU reference ------------------------------------------------------
 * reduce_ref.c: red_ref_prefixes() streams over the generated values with a
 * Neumaier-compensated double sum (int: exact long long), without storing
 * the array; the cpu variant times common/cpu_ref.c's cpu_sum_* on a host
 * array. */

/* ---- kernels ------------------------------------------------------------
 * Kernels 0-5 reduce one tile (blockDim or 2 blockDim elements) per block to
 * one partial sum; the launcher repeats them over the partials until one
 * value remains. Block sizes are powers of two (the trees halve them).
 * Threads whose element is past n contribute 0 and still take part in every
 * barrier: a thread that returned early would leave __syncthreads waiting
 * for it (undefined behaviour, and synccheck's complaint).
 * Each kernel's comment ends with what it measured on the H200 (2^28 floats,
 * block 256; results/H200/reduction.txt, commit d4ff6ab, 2026-11-30: CUB
 * did 4501 GB/s, the HBM peak is 4814). These figures are copied by hand and
 * dated; `make bench` measures again and regenerates the README's table,
 * not these comments. */

/* Dynamic shared memory, typed. One raw declaration serves every A. */
template <typename A>
__device__ __forceinline__ A *smem_as()
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    return (A *)smem_raw;
}

/* 0: interleaved addressing with divergence. In step s, threads whose index
 * is a multiple of 2s add the element s to their right. Correct, but the
 * active threads are scattered over every warp: each warp stays busy (and
 * divergent) for every step while doing almost no work, and `%` is slow.
 * Measured (H200, 2^28 floats): 416 GB/s, 9.2% of CUB. */
template <typename In, typename A>
__global__ void reduce0_interleaved_divergent(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? (A)in[i] : (A)0;
    __syncthreads();
    for (unsigned k = 1; k < blockDim.x; k *= 2) {
        if (tid % (2 * k) == 0) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

/* 1: interleaved addressing without divergence. What changed: thread t works
 * on index 2 s t, so the active threads are the first ones and whole warps
 * retire early. What it costs: the strided index makes threads of a warp
 * hit the same shared-memory bank (2-way, 4-way, ... conflicts), so each
 * access is replayed.
 * Measured (H200, 2^28 floats): 677 GB/s, 15.0% of CUB. */
template <typename In, typename A>
__global__ void reduce1_interleaved_bank_conflicts(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? (A)in[i] : (A)0;
    __syncthreads();
    for (unsigned k = 1; k < blockDim.x; k *= 2) {
        unsigned index = 2 * k * tid;
        if (index < blockDim.x) s[index] += s[index + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

/* 2: sequential addressing. What changed: in step s, thread t < s adds
 * element t + s: consecutive threads touch consecutive words, so there are
 * no bank conflicts and no divergence inside active warps. What is left:
 * half the threads are idle from the very first step.
 * Measured (H200, 2^28 floats): 874 GB/s, 19.4% of CUB. */
template <typename In, typename A>
__global__ void reduce2_sequential(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? (A)in[i] : (A)0;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

/* 3: first add during load. What changed: each block covers 2 blockDim
 * elements and every thread adds its two before the tree, so no thread is
 * idle in the first step and half as many blocks are launched.
 * Measured (H200, 2^28 floats): 1797 GB/s, 39.9% of CUB. */
template <typename In, typename A>
__global__ void reduce3_first_add_load(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    A v = i < n ? (A)in[i] : (A)0;
    if (i + blockDim.x < n) v += (A)in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] = v = v + s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = v;
}

/* The last 64 -> 1 steps inside warp 0 (all 32 lanes call it; block >= 32;
 * s[0..min(block,64)) holds the values). Only one warp is left, so block-wide
 * barriers are not needed, but ordering between the lanes still is: since
 * Volta, lanes of a warp are scheduled independently and are not guaranteed
 * to run in lockstep, so the classic code (a `volatile` pointer and no
 * barrier) reads values another lane may not have written yet. That is a
 * real data race, and compute-sanitizer's racecheck reports it. __syncwarp()
 * between the writes and the reads of each step orders them at the cost of
 * almost nothing. (Kernel 7 drops shared memory here altogether and uses
 * register shuffles.) */
template <typename A>
__device__ __forceinline__ A warp_reduce_smem(A *s, unsigned tid, unsigned block)
{
    A v = s[tid];
    if (block >= 64) v += s[tid + 32];
#pragma unroll
    for (unsigned k = 16; k > 0; k >>= 1) {
        __syncwarp();          /* every lane has read the previous step */
        s[tid] = v;
        __syncwarp();          /* every lane has written this step */
        if (tid < k) v += s[tid + k];
    }
    return v;
}

/* 4: unroll the last warp. What changed: the tree stops its __syncthreads
 * loop at 64 and the last six steps run inside warp 0 with only __syncwarp,
 * saving six block-wide barriers and the loop overhead per block.
 * Measured (H200, 2^28 floats): 2267 GB/s, 50.4% of CUB. */
template <typename In, typename A>
__global__ void reduce4_unroll_last_warp(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A *s = smem_as<A>();
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    A v = i < n ? (A)in[i] : (A)0;
    if (i + blockDim.x < n) v += (A)in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 32; k >>= 1) {
        if (tid < k) s[tid] = v = v + s[tid + k];
        __syncthreads();
    }
    if (tid < 32) {
        v = warp_reduce_smem(s, tid, blockDim.x);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

/* 5: complete unroll. What changed: the block size is a template parameter,
 * so every `if (BLOCK >= ...)` is resolved by the compiler and the tree is
 * straight-line code without loop counters or comparisons against blockDim.
 * Measured (H200, 2^28 floats): 2440 GB/s, 54.2% of CUB. */
template <unsigned BLOCK, typename In, typename A>
__global__ void __launch_bounds__(BLOCK) reduce5_complete_unroll(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0,
                  "BLOCK must be a power of two in 32..1024");
    __shared__ A s[BLOCK];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * BLOCK) + tid;
    A v = i < n ? (A)in[i] : (A)0;
    if (i + BLOCK < n) v += (A)in[i + BLOCK];
    s[tid] = v;
    __syncthreads();
    if (BLOCK >= 1024) { if (tid < 512) s[tid] = v = v + s[tid + 512]; __syncthreads(); }
    if (BLOCK >= 512) { if (tid < 256) s[tid] = v = v + s[tid + 256]; __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) s[tid] = v = v + s[tid + 128]; __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) s[tid] = v = v + s[tid + 64]; __syncthreads(); }
    if (tid < 32) {
        v = warp_reduce_smem(s, tid, BLOCK);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

/* 6: multiple elements per thread. What changed: the grid no longer covers
 * the array; it is sized to fill the GPU once, and each thread first sums
 * many elements in a grid-stride loop (two per iteration, BLOCK apart) in a
 * register. The shared-memory tree, the barriers and the partial-sum store
 * now happen once per ~thousand elements instead of once per two, and the
 * second pass has only a few thousand partials. From here on the kernel is
 * limited by how many loads are in flight, not by the tree.
 * Measured (H200, 2^28 floats): 3743 GB/s, 83.2% of CUB. */
template <unsigned BLOCK, typename In, typename A>
__global__ void __launch_bounds__(BLOCK) reduce6_multi_element(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0,
                  "BLOCK must be a power of two in 32..1024");
    __shared__ A s[BLOCK];
    const unsigned tid = threadIdx.x;
    const size_t grid_size = (size_t)2 * BLOCK * gridDim.x;
    A v = (A)0;
    for (size_t i = (size_t)blockIdx.x * (2 * BLOCK) + tid; i < n; i += grid_size) {
        v += (A)in[i];
        if (i + BLOCK < n) v += (A)in[i + BLOCK];
    }
    s[tid] = v;
    __syncthreads();
    if (BLOCK >= 1024) { if (tid < 512) s[tid] = v = v + s[tid + 512]; __syncthreads(); }
    if (BLOCK >= 512) { if (tid < 256) s[tid] = v = v + s[tid + 256]; __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) s[tid] = v = v + s[tid + 128]; __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) s[tid] = v = v + s[tid + 64]; __syncthreads(); }
    if (tid < 32) {
        v = warp_reduce_smem(s, tid, BLOCK);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

/* 7: warp shuffles and wide loads. What changed: (a) each load is a 16-byte
 * vector (float4, double2, int4): a quarter of the load instructions; (b)
 * UNROLL independent loads are issued before any add, each into its own
 * accumulator, so a thread has UNROLL x 16 bytes in flight instead of
 * waiting on one load at a time (thread_sum in reduce_device.cuh); (c) the
 * block sum uses __shfl_down_sync inside each warp and shared memory only
 * for the 32 warp sums: one barrier per block instead of log2(block).
 * Measured (H200, 2^28 floats): 4368 GB/s, 97.1% of CUB; with 4 loads in
 * flight 4478 GB/s (99.5%), with 8 loads and 512 threads 4478 GB/s (99.5%). */
template <typename In, typename A, int UNROLL>
__global__ void reduce7_warp_shuffle(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    A v = thread_sum<In, A, UNROLL>(in, n);
    v = block_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/* 8: cooperative groups. The same kernel as 7 written with cg::reduce over
 * 32-thread tiles: the library picks the shuffle sequence (and uses the
 * hardware redux instruction for 32-bit integers where it exists).
 * Measured (H200, 2^28 floats): 4472 GB/s, 99.4% of CUB. */
template <typename In, typename A, int UNROLL>
__global__ void reduce8_cg(const In *__restrict__ in, size_t n, A *__restrict__ out)
{
    __shared__ A warp_part[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    A v = thread_sum<In, A, UNROLL>(in, n);
    v = cg::reduce(warp, v, cg::plus<A>());
    if (warp.thread_rank() == 0) warp_part[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? warp_part[warp.thread_rank()] : (A)0;
        v = cg::reduce(warp, v, cg::plus<A>());
        if (warp.thread_rank() == 0) out[blockIdx.x] = v;
    }
}

/* ---- launchers ---------------------------------------------------------- */

typedef struct {
    const void *in;     /* n elements of the --type */
    size_t n;
    int block;          /* --block */
    int sm_count;
    void *part[2];      /* partial sums (accumulator type), ping-pong */
    size_t part_cap[2]; /* how many partial sums each holds (the size guard) */
    void *result;       /* one accumulator: the sum */
    void *cub_temp;
    size_t cub_bytes;
    size_t grid_cap;    /* 0, or at most this many blocks in a grid-stride
                           pass (checks: makes every thread loop) */
} red_ctx;

template <typename In, typename A>
using red_kernel = void (*)(const In *, size_t, A *);

template <typename In, typename A>
static red_kernel<In, A> pick_complete_unroll(int block)
{
    switch (block) {
    case 32: return reduce5_complete_unroll<32, In, A>;
    case 64: return reduce5_complete_unroll<64, In, A>;
    case 128: return reduce5_complete_unroll<128, In, A>;
    case 256: return reduce5_complete_unroll<256, In, A>;
    case 512: return reduce5_complete_unroll<512, In, A>;
    default: return reduce5_complete_unroll<1024, In, A>;
    }
}

template <typename In, typename A>
static red_kernel<In, A> pick_multi_element(int block)
{
    switch (block) {
    case 32: return reduce6_multi_element<32, In, A>;
    case 64: return reduce6_multi_element<64, In, A>;
    case 128: return reduce6_multi_element<128, In, A>;
    case 256: return reduce6_multi_element<256, In, A>;
    case 512: return reduce6_multi_element<512, In, A>;
    default: return reduce6_multi_element<1024, In, A>;
    }
}

/* Kernels 0-5: one tile of `per_block` elements per block; launch over the
 * input, then over the partials, until a single block writes the result. */
template <typename T>
static void tile_passes(const red_ctx *x, cudaStream_t s, red_kernel<T, typename acc_of<T>::type> first,
                        red_kernel<typename acc_of<T>::type, typename acc_of<T>::type> next,
                        unsigned per_block, size_t smem)
{
    typedef typename acc_of<T>::type A;
    const void *src = x->in;
    size_t m = x->n;
    for (int pass = 0;; pass++) {
        size_t blocks = (m + per_block - 1) / per_block;
        if (blocks > 1) red_partials_fit("reduction", blocks, x->part_cap[pass & 1]);
        A *dst = blocks == 1 ? (A *)x->result : (A *)x->part[pass & 1];
        if (pass == 0) first<<<(unsigned)blocks, x->block, smem, s>>>((const T *)src, m, dst);
        else next<<<(unsigned)blocks, x->block, smem, s>>>((const A *)src, m, dst);
        CHECK_LAUNCH();
        if (blocks == 1) return;
        src = dst;
        m = blocks;
    }
}

template <int KIND, typename T>
static void run_tile(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const red_ctx *x = (const red_ctx *)p;
    const size_t smem = (size_t)x->block * sizeof(A);
    const unsigned b = (unsigned)x->block;
    switch (KIND) {
    case 0: tile_passes<T>(x, s, reduce0_interleaved_divergent<T, A>, reduce0_interleaved_divergent<A, A>, b, smem); break;
    case 1: tile_passes<T>(x, s, reduce1_interleaved_bank_conflicts<T, A>, reduce1_interleaved_bank_conflicts<A, A>, b, smem); break;
    case 2: tile_passes<T>(x, s, reduce2_sequential<T, A>, reduce2_sequential<A, A>, b, smem); break;
    case 3: tile_passes<T>(x, s, reduce3_first_add_load<T, A>, reduce3_first_add_load<A, A>, 2 * b, smem); break;
    case 4: tile_passes<T>(x, s, reduce4_unroll_last_warp<T, A>, reduce4_unroll_last_warp<A, A>, 2 * b, smem); break;
    default: tile_passes<T>(x, s, pick_complete_unroll<T, A>(x->block), pick_complete_unroll<A, A>(x->block), 2 * b, 0); break;
    }
}

/* Kernels 6-8: pass 1 with a grid that fills the GPU once (resident blocks
 * per SM x SMs, fewer when n is small), pass 2 one block over its partials.
 * The checks also run them on a grid of x->grid_cap blocks, so that at small
 * n every thread goes round its grid-stride loop many times. */
template <typename T>
static void grid_passes(const red_ctx *x, cudaStream_t s, red_kernel<T, typename acc_of<T>::type> first,
                        red_kernel<typename acc_of<T>::type, typename acc_of<T>::type> next,
                        int block, int resident_per_sm, size_t per_thread)
{
    typedef typename acc_of<T>::type A;
    size_t want = (x->n + (size_t)block * per_thread - 1) / ((size_t)block * per_thread);
    size_t grid = (size_t)resident_per_sm * x->sm_count;
    if (want < grid) grid = want;
    if (x->grid_cap > 0 && grid > x->grid_cap) grid = x->grid_cap;
    if (grid < 1) grid = 1;
    if (grid > 1) red_partials_fit("reduction", grid, x->part_cap[0]);
    A *dst = grid == 1 ? (A *)x->result : (A *)x->part[0];
    first<<<(unsigned)grid, block, 0, s>>>((const T *)x->in, x->n, dst);
    CHECK_LAUNCH();
    if (grid == 1) return;
    next<<<1, block, 0, s>>>((const A *)x->part[0], grid, (A *)x->result);
    CHECK_LAUNCH();
}

template <int DUMMY, typename T>
static void run_multi_element(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const red_ctx *x = (const red_ctx *)p;
    static int cb = 0, c = 0;
    red_kernel<T, A> k1 = pick_multi_element<T, A>(x->block);
    int r = red_resident_per_sm(k1, x->block, &cb, &c);
    grid_passes<T>(x, s, k1, pick_multi_element<A, A>(x->block), x->block, r, 2);
}

/* BLOCK = 0: use --block. */
template <int UNROLL, int BLOCK, typename T>
static void run_warp_shuffle(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const red_ctx *x = (const red_ctx *)p;
    const int block = BLOCK ? BLOCK : x->block;
    static int cb = 0, c = 0;
    int r = red_resident_per_sm(reduce7_warp_shuffle<T, A, UNROLL>, block, &cb, &c);
    grid_passes<T>(x, s, reduce7_warp_shuffle<T, A, UNROLL>, reduce7_warp_shuffle<A, A, 1>, block, r,
                   (size_t)vec16<T>::N * UNROLL);
}

template <int UNROLL, int BLOCK, typename T>
static void run_cg(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const red_ctx *x = (const red_ctx *)p;
    const int block = BLOCK ? BLOCK : x->block;
    static int cb = 0, c = 0;
    int r = red_resident_per_sm(reduce8_cg<T, A, UNROLL>, block, &cb, &c);
    grid_passes<T>(x, s, reduce8_cg<T, A, UNROLL>, reduce8_cg<A, A, 1>, block, r,
                   (size_t)vec16<T>::N * UNROLL);
}

/* The reference: CUB, temporary storage allocated once outside the timing. */
template <int DUMMY, typename T>
static void run_cub(void *p, cudaStream_t s)
{
    const red_ctx *x = (const red_ctx *)p;
    red_cub_sum<T>(x->cub_temp, x->cub_bytes, x->in, x->result, x->n, s);
}

/* ---- variant table ------------------------------------------------------ */

#define BY_TYPE(f, ...) {f<__VA_ARGS__, float>, f<__VA_ARGS__, double>, f<__VA_ARGS__, int>}

typedef struct {
    const char *name;
    timed_fn run[3];    /* by red_type: float, double, int */
    int is_reference;
    int block;          /* fixed block size, or 0 for --block */
    int grid_stride;    /* 1: a grid-stride kernel (also checked on a tiny grid) */
    const char *what;
} variant;

static const variant variants[] = {
    {"cub", BY_TYPE(run_cub, 0), 1, 0, 0, "cub::DeviceReduce::Sum (reference)"},
    {"interleaved_divergent", BY_TYPE(run_tile, 0), 0, 0, 0, "0: interleaved addressing, divergent branch"},
    {"interleaved_bank_conflicts", BY_TYPE(run_tile, 1), 0, 0, 0, "1: interleaved addressing, strided index (bank conflicts)"},
    {"sequential", BY_TYPE(run_tile, 2), 0, 0, 0, "2: sequential addressing"},
    {"first_add_load", BY_TYPE(run_tile, 3), 0, 0, 0, "3: two elements per thread, first add during load"},
    {"unroll_last_warp", BY_TYPE(run_tile, 4), 0, 0, 0, "4: last warp with __syncwarp only"},
    {"complete_unroll", BY_TYPE(run_tile, 5), 0, 0, 0, "5: template block size, fully unrolled tree"},
    {"multi_element", BY_TYPE(run_multi_element, 0), 0, 0, 1, "6: grid-stride, many elements per thread"},
    {"warp_shuffle", BY_TYPE(run_warp_shuffle, 1, 0), 0, 0, 1, "7: 16-byte loads, warp shuffles"},
    {"warp_shuffle_u4", BY_TYPE(run_warp_shuffle, 4, 0), 0, 0, 1, "7: + 4 independent loads in flight"},
    {"warp_shuffle_u8_b512", BY_TYPE(run_warp_shuffle, 8, 512), 0, 512, 1, "7: 8 loads in flight, 512 threads"},
    {"cg_reduce", BY_TYPE(run_cg, 4, 0), 0, 0, 1, "8: cooperative groups cg::reduce, 4 loads in flight"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ------------------------------------------------------------ */

static long long opt_n = 1LL << 28;
static long long opt_block = 256;
static const char *opt_type = "float";
static const char *opt_variant = "all";
static char variant_choices[512];   /* "all|cpu|cub|...", from the table */
static int opt_check_sizes = 0;

static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("n", "N", "elements to sum (up to 2^34; 2^31+1 needs 8.6 GB as float)", &opt_n, 1,
                 1LL << 34),
    OPT_INT_SPEC("block", "THREADS", "threads per block: a power of two, 32..1024", &opt_block, 32,
                 1024),
    OPT_STRING_SPEC("type", "TYPE", "element type", &opt_type, "float|double|int"),
    OPT_STRING_SPEC("variant", "NAME", "run one variant (and cub, the reference), or all",
                    &opt_variant, variant_choices),
    OPT_FLAG_SPEC("check-sizes", "check every variant at n = 1 2 31 33 1000 2^20+1 2^28, no timing",
                  &opt_check_sizes),
};

/* The sizes of --check-sizes (the ones that matter), and the smaller ones every
 * run checks before timing (each <= n; then n itself). */
static const size_t issue_sizes[] = {1, 2, 31, 33, 1000, (1u << 20) + 1, 1u << 28};
static const size_t quick_sizes[] = {1, 2, 31, 33, 1000, 4097, (1u << 20) + 1};

/* ---- checking ----------------------------------------------------------- */

/* Grid-stride variants are checked a second time on a grid of this many
 * blocks at sizes up to SMALL_GRID_MAX_N: with a grid that covers small n
 * in one sweep, a wrong stride or a broken unrolled loop would never run. */
#define SMALL_GRID 3
#define SMALL_GRID_MAX_N ((size_t)1 << 22)

/* Run variant v once on the first ref->n elements and compare with the CPU.
 * The partial-sum buffers, the result and the guard zones after each are
 * poisoned first (NaN / -1), so a partial that was never written, or read
 * before it was, fails the check, and so does a write past the end of any
 * of them (check_guard). */
static int check_once(const variant *v, red_type t, const red_ctx *ctx, const red_ref *ref,
                      size_t grid_cap)
{
    red_ctx x = *ctx;
    x.n = ref->n;
    x.grid_cap = grid_cap;
    const size_t asize = red_acc_size(t);
    poison_guarded(x.part[0], x.part_cap[0] * asize);
    poison_guarded(x.part[1], x.part_cap[1] * asize);
    poison_guarded(x.result, asize);
    v->run[t](&x, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    union { float f; double d; long long i; } got;
    memset(&got, 0, sizeof got);
    CUDA_CHECK(cudaMemcpy(&got, x.result, asize, cudaMemcpyDeviceToHost));
    double gfp = t == RED_FLOAT ? (double)got.f : got.d;
    char msg[512], what[160], cap[48] = "";
    if (grid_cap) snprintf(cap, sizeof cap, ", grid of %zu blocks", grid_cap);
    snprintf(what, sizeof what, "reduction: %s (%s, block %d%s, n=%zu)", v->name,
             red_type_name(t), v->block ? v->block : x.block, cap, ref->n);
    size_t bad = check_guard(what, x.result, asize);
    bad += check_guard(what, x.part[0], x.part_cap[0] * asize);
    bad += check_guard(what, x.part[1], x.part_cap[1] * asize);
    if (red_check(t, ref, gfp, got.i, msg, sizeof msg)) return bad == 0;
    fprintf(stderr, "%s: %s\n", what, msg);
    return 0;
}

static int check_variant(const variant *v, red_type t, const red_ctx *ctx, const red_ref *ref)
{
    int ok = check_once(v, t, ctx, ref, 0);
    if (v->grid_stride && ref->n <= SMALL_GRID_MAX_N) ok &= check_once(v, t, ctx, ref, SMALL_GRID);
    return ok;
}

static void fail_arg(const char *msg)
{
    fprintf(stderr, "reduction: error: %s\n", msg);
    printf("reduction: FAIL (bad argument)\n");
    exit(1);
}



int main(int argc, char **argv)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    /* --help lists the variants from the table. */
    static char notes[2048];
    size_t used = (size_t)snprintf(notes, sizeof notes, "Variants:\n");
    for (int v = 0; v < N_VARIANTS && used < sizeof notes; v++)
        used += (size_t)snprintf(notes + used, sizeof notes - used, "  %-27s %s\n",
                                 variants[v].name, variants[v].what);
    if (used < sizeof notes)
        snprintf(notes + used, sizeof notes - used,
                 "  cpu                         the CPU baseline (timed once)\n"
                 "--quick: n = 2^17+3, checks at 1 2 31 33 1000 4097 as well.");
    const opts_config cfg = {"reduction", "sum an array: the classic progression of kernels vs CUB",
                             sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]),
                             notes, 0};
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);

    /* Validate everything before the first CUDA call. */
    char err[256];
    if (opt_block & (opt_block - 1)) {
        snprintf(err, sizeof err, "--block=%lld: must be a power of two (32, 64, ..., 1024): the "
                 "tree kernels halve the block at every step", opt_block);
        fail_arg(err);
    }
    red_type type;
    if (red_type_parse(opt_type, &type)) fail_arg("--type: must be float, double or int");
    int selected = -1;
    if (strcmp(opt_variant, "all")) {
        for (int v = 0; v < N_VARIANTS; v++)
            if (!strcmp(opt_variant, variants[v].name)) selected = v;
    }
    const size_t n = o.quick ? (1u << 17) + 3 : (size_t)opt_n;
    const size_t esize = red_type_size(type), asize = red_acc_size(type);

    /* The sizes to check: a list of odd sizes (<= n), then n. */
    size_t sizes[16];
    int nsizes = 0;
    const size_t *list = opt_check_sizes ? issue_sizes : quick_sizes;
    int nlist = opt_check_sizes ? (int)(sizeof issue_sizes / sizeof issue_sizes[0])
                                : (int)(sizeof quick_sizes / sizeof quick_sizes[0]);
    for (int k = 0; k < nlist; k++)
        if (opt_check_sizes || list[k] < n) sizes[nsizes++] = list[k];
    if (!opt_check_sizes || n != (1u << 28)) sizes[nsizes++] = n;
    size_t max_n = 0;
    for (int k = 0; k < nsizes; k++) max_n = sizes[k] > max_n ? sizes[k] : max_n;
    const size_t cpu_n = max_n < (1u << 25) ? max_n : (1u << 25);
    size_t in_bytes;
    if (opts_checked_bytes("--n", (long long)max_n, esize, 1, 1ULL << 40, &in_bytes, err, sizeof err))
        fail_arg(err);
    const int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    report_init("reduction", o.json);
    device_info dev;
    device_setup_or_exit("reduction", o.device, o.json, &dev);

    /* Partials: pass 1 of the tile kernels writes ceil(n / block) of them,
     * the next pass ceil(that / block) into the other buffer; the
     * grid-stride kernels one per resident block at most. Every launch
     * checks its grid against these capacities (red_partials_fit). */
    size_t part_n[2];
    part_n[0] = (max_n + opt_block - 1) / opt_block;
    const size_t resident = red_max_resident_blocks(o.device, dev.sm_count);
    if (part_n[0] < resident) part_n[0] = resident;
    part_n[1] = (part_n[0] + opt_block - 1) / opt_block + 1;
    const size_t part_bytes[2] = {part_n[0] * asize, part_n[1] * asize};

    size_t cub_bytes = 0;
    for (int k = 0; k < nsizes; k++) {
        size_t b = red_cub_temp_bytes(type, sizes[k]);
        if (b > cub_bytes) cub_bytes = b;
    }
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    double need = (double)in_bytes + part_bytes[0] + part_bytes[1] + 3.0 * CHECK_GUARD_BYTES +
                  cub_bytes + (64 << 20);
    if (need > (double)free_b) {
        report_fail("--n=%zu (%s): needs %.2f GB of device memory, the device has %.2f GB free",
                    max_n, red_type_name(type), need / 1e9, free_b / 1e9);
        return report_finish();
    }

    void *d_in;
    red_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    CUDA_CHECK(cudaMalloc(&d_in, in_bytes));
    /* Outputs with a guard zone after each (check.h). */
    ctx.part[0] = guarded_malloc(part_bytes[0]);
    ctx.part[1] = guarded_malloc(part_bytes[1]);
    ctx.part_cap[0] = part_n[0];
    ctx.part_cap[1] = part_n[1];
    ctx.result = guarded_malloc(asize);
    CUDA_CHECK(cudaMalloc(&ctx.cub_temp, cub_bytes > 0 ? cub_bytes : 1));
    ctx.in = d_in;
    ctx.n = n;
    ctx.block = (int)opt_block;
    ctx.sm_count = dev.sm_count;
    ctx.cub_bytes = cub_bytes;

    /* Inputs generated on the device; element i does not depend on n, so
     * every checked size is a prefix of the same array. */
    if (type == RED_FLOAT) red_fill_device((float *)d_in, max_n, o.seed, dev.sm_count);
    else if (type == RED_DOUBLE) red_fill_device((double *)d_in, max_n, o.seed, dev.sm_count);
    else red_fill_device((int *)d_in, max_n, o.seed, dev.sm_count);
    CUDA_CHECK(cudaDeviceSynchronize());

    /* CPU references for every checked size (and the cpu variant's) in one pass. */
    size_t stops[17];
    red_ref refs[17];
    memcpy(stops, sizes, (size_t)nsizes * sizeof sizes[0]);
    stops[nsizes] = cpu_n;
    double t_ref = host_seconds();
    red_ref_prefixes(type, o.seed, stops, nsizes + 1, refs);
    report_note("type=%s n=%zu (%.1f MiB) block=%d; checked at %d sizes up to %zu; CPU reference "
                "%.1f s", red_type_name(type), n, n * esize / 1048576.0, ctx.block, nsizes, max_n,
                host_seconds() - t_ref);

    /* Check every selected variant (and the reference) at every size. */
    int ok[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) {
        ok[v] = 1;
        if (selected >= 0 && v != selected && !variants[v].is_reference) continue;
        if (selected < 0 && !strcmp(opt_variant, "cpu") && !variants[v].is_reference) continue;
        for (int k = 0; k < nsizes; k++) {
            int pass = check_variant(&variants[v], type, &ctx, &refs[k]);
            ok[v] &= pass;
            if (opt_check_sizes) {
                result_rec r;
                rec_begin(&r, variants[v].name);
                rec_int(&r, "n", (long long)sizes[k]);
                rec_str(&r, "status", pass ? "PASS" : "FAIL");
                rec_str(&r, "type", red_type_name(type));
                rec_int(&r, "block", variants[v].block ? variants[v].block : ctx.block);
                rec_emit(&r);
            }
        }
    }

    if (!opt_check_sizes) {
        result_rec r;
        /* The CPU baseline, timed once. */
        if (selected < 0) {
            double cpu_ms = 0;
            double got = red_cpu_baseline(type, cpu_n, o.seed, &cpu_ms);
            rec_begin(&r, "cpu");
            rec_int(&r, "n", (long long)cpu_n);
            char msg[256];
            int pass = got == got && red_check(type, &refs[nsizes], got, (long long)got, msg, sizeof msg);
            if (!pass) fprintf(stderr, "reduction: cpu: %s\n", got != got ? "out of host memory" : msg);
            rec_str(&r, "status", pass ? "PASS" : "FAIL");
            rec_perf(&r, cpu_ms, "gbps", (double)cpu_n * esize / (cpu_ms * 1e6), 0, NULL, 0);
            rec_str(&r, "type", red_type_name(type));
            rec_emit(&r);
        }

        /* L2: flushed before each timed run only when the data could live in it. */
        const int flush = (double)n * esize < 4.0 * dev.l2_bytes;
        report_note("timing at n=%zu, median of %d runs after 3 warm-ups; L2 %s", n, reps,
                    flush ? "flushed before each run" : "not flushed (data is over 4x L2)");
        double ref_gbps = 0;
        for (int v = 0; v < N_VARIANTS; v++) {   /* the reference is first in the table */
            const variant *var = &variants[v];
            if (!var->is_reference && selected != v && selected >= 0) continue;
            if (!var->is_reference && selected < 0 && !strcmp(opt_variant, "cpu")) continue;
            rec_begin(&r, var->name);
            rec_int(&r, "n", (long long)n);
            if (!ok[v]) {
                rec_str(&r, "status", "FAIL");
                rec_str(&r, "type", red_type_name(type));
                rec_emit(&r);
                continue;
            }
            char range[80];
            snprintf(range, sizeof range, "reduction/%s", var->name);
            timing_cfg tc = timing_defaults(reps);
            tc.flush_l2 = flush;
            tc.nvtx_name = range;
            timing_stats ts;
            ctx.n = n;
            time_gpu(var->run[type], &ctx, &tc, &ts);
            double gbps = (double)n * esize / (ts.median_ms * 1e6);
            if (var->is_reference) ref_gbps = gbps;
            rec_str(&r, "status", "PASS");
            rec_perf(&r, ts.median_ms, "gbps", gbps, dev.peak_gbps, "cub", ref_gbps);
            rec_str(&r, "type", red_type_name(type));
            rec_int(&r, "block", var->block ? var->block : ctx.block);
            rec_num(&r, "min_ms", ts.min_ms);
            rec_emit(&r);
        }
    }

    CUDA_CHECK(cudaFree(d_in));
    guarded_free(ctx.part[0]);
    guarded_free(ctx.part[1]);
    guarded_free(ctx.result);
    CUDA_CHECK(cudaFree(ctx.cub_temp));
    return report_finish();
}
