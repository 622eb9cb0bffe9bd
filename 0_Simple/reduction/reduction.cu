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
 * Variants (the table below drives checks, timing and --help), in teaching
 * order; each is a step that changes one thing from the step before, and
 * its kernel is kernels/NN_<variant>.cuh, whose comment says what changed:
 *   cpu                        Neumaier sum on the host, timed once (2^25 elements at most)
 *   cub                        cub::DeviceReduce::Sum: the reference
 *   interleaved_divergent      01: interleaved addressing, tid % (2s) == 0 (divergent warps)
 *   interleaved_bank_conflicts 02: index = 2 s tid: no divergence, bank conflicts
 *   sequential                 03: sequential addressing (conflict-free, half idle from the start)
 *   sum_in_register            04: the running sum in a register, one shared load per step
 *   first_add_load             05: two elements per thread, first add during the load
 *   unroll_last_warp           06: last warp without __syncthreads (with __syncwarp)
 *   complete_unroll            07: block size as a template parameter, tree fully unrolled
 *   grid_stride                08: the loads as a grid-stride loop (grid still covers the array)
 *   multi_element              09: step 08's kernel on a grid that fills the GPU once
 *   shuffle_block_sum          10: block sum by __shfl_down_sync instead of the shared-memory tree
 *   warp_shuffle               11: 16-byte loads
 *   warp_shuffle_u4            12: 4 independent 16-byte loads in flight per thread
 *   warp_shuffle_u8            13: 8 loads in flight
 *   warp_shuffle_u8_b512       14: 512 threads per block
 *   cg_reduce                  15: step 12 with cooperative groups' cg::reduce for the warp sums
 * Every variant computes the whole sum (it loops its own kernel over the
 * partial sums until one value is left), so all times are comparable.
 * Exercises: exercises/README.md; `make try SAMPLE=reduction EX=1` builds one
 * into this program as the variant "exercise" (the hook after the kernels).
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

/* ---- kernels: one file per step, in teaching order ----------------------
 * Each file opens with the one thing it changes from the step before, why
 * that should help, and what it measured on the H200; `diff` two
 * consecutive files to see a step's lesson. Steps 01-08 reduce one tile per
 * block to one partial sum and are launched again over the partials until
 * one value is left (tile_passes); steps 09-15 launch a grid that fills the
 * GPU once, then one block over its partials (grid_passes). Block sizes are
 * powers of two (the trees halve them). Threads whose element is past n
 * contribute 0 and still take part in every barrier.
 * Steps 10-15 use the block sum of common/reduce_device.cuh, steps 11-15 its
 * per-thread loop of 16-byte loads (both shared with threadFenceReduction). */
#include "kernels/00_smem_as.cuh"
#include "kernels/00_warp_reduce_smem.cuh"
#include "kernels/01_interleaved_divergent.cuh"
#include "kernels/02_interleaved_bank_conflicts.cuh"
#include "kernels/03_sequential.cuh"
#include "kernels/04_sum_in_register.cuh"
#include "kernels/05_first_add_load.cuh"
#include "kernels/06_unroll_last_warp.cuh"
#include "kernels/07_complete_unroll.cuh"
#include "kernels/08_grid_stride.cuh"
#include "kernels/09_multi_element.cuh"
#include "kernels/10_shuffle_block_sum.cuh"
#include "kernels/11_warp_shuffle.cuh"
#include "kernels/12_warp_shuffle_u4.cuh"
#include "kernels/13_warp_shuffle_u8.cuh"
#include "kernels/14_warp_shuffle_u8_b512.cuh"
#include "kernels/15_cg_reduce.cuh"
#ifdef EXERCISE
/* make try SAMPLE=reduction EX=N: the exercise's exercise_kernel, a tile
 * kernel like steps 01-06, run as the variant "exercise" (exercises/). */
#include EXERCISE
#endif

/* ---- launchers ----------------------------------------------------------
 * Every launch is one line `kernel<<<...>>>(...);` (tests/cpu_sim/run.sh
 * rewrites them to run the kernels on the CPU). */

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

/* The instance of a kernel template<unsigned BLOCK, In, A> for a block size
 * (a power of two, 32..1024, checked in main). */
#define BY_BLOCK(kernel, In, A, block)                                              \
    ((block) == 32 ? kernel<32, In, A> : (block) == 64 ? kernel<64, In, A>          \
     : (block) == 128 ? kernel<128, In, A> : (block) == 256 ? kernel<256, In, A>    \
     : (block) == 512 ? kernel<512, In, A> : kernel<1024, In, A>)

/* Tile kernels: `per_block` elements per block; launch over the input, then
 * over the partials, until a single block writes the result. A grid-stride
 * kernel (strided = 1) is also checked on a grid of at most x->grid_cap
 * blocks per pass, so that each of its threads goes round its loop. */
template <typename T>
static void tile_passes(const red_ctx *x, cudaStream_t s, red_kernel<T, typename acc_of<T>::type> first,
                        red_kernel<typename acc_of<T>::type, typename acc_of<T>::type> next,
                        unsigned per_block, size_t smem, int strided)
{
    typedef typename acc_of<T>::type A;
    const void *src = x->in;
    size_t m = x->n;
    for (int pass = 0;; pass++) {
        size_t blocks = (m + per_block - 1) / per_block;
        if (strided && x->grid_cap > 0 && blocks > x->grid_cap) blocks = x->grid_cap;
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

enum {
    K_INTERLEAVED_DIVERGENT, K_INTERLEAVED_BANK_CONFLICTS, K_SEQUENTIAL, K_SUM_IN_REGISTER,
    K_FIRST_ADD_LOAD, K_UNROLL_LAST_WARP, K_COMPLETE_UNROLL, K_GRID_STRIDE
};

/* Steps 01-08. */
template <int KIND, typename T>
static void run_tile(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const red_ctx *x = (const red_ctx *)p;
    const size_t smem = (size_t)x->block * sizeof(A);
    const unsigned b = (unsigned)x->block;
    switch (KIND) {
    case K_INTERLEAVED_DIVERGENT: tile_passes<T>(x, s, reduce_interleaved_divergent<T, A>, reduce_interleaved_divergent<A, A>, b, smem, 0); break;
    case K_INTERLEAVED_BANK_CONFLICTS: tile_passes<T>(x, s, reduce_interleaved_bank_conflicts<T, A>, reduce_interleaved_bank_conflicts<A, A>, b, smem, 0); break;
    case K_SEQUENTIAL: tile_passes<T>(x, s, reduce_sequential<T, A>, reduce_sequential<A, A>, b, smem, 0); break;
    case K_SUM_IN_REGISTER: tile_passes<T>(x, s, reduce_sum_in_register<T, A>, reduce_sum_in_register<A, A>, b, smem, 0); break;
    case K_FIRST_ADD_LOAD: tile_passes<T>(x, s, reduce_first_add_load<T, A>, reduce_first_add_load<A, A>, 2 * b, smem, 0); break;
    case K_UNROLL_LAST_WARP: tile_passes<T>(x, s, reduce_unroll_last_warp<T, A>, reduce_unroll_last_warp<A, A>, 2 * b, smem, 0); break;
    case K_COMPLETE_UNROLL: tile_passes<T>(x, s, BY_BLOCK(reduce_complete_unroll, T, A, b), BY_BLOCK(reduce_complete_unroll, A, A, b), 2 * b, 0, 0); break;
    default: tile_passes<T>(x, s, BY_BLOCK(reduce_grid_stride, T, A, b), BY_BLOCK(reduce_grid_stride, A, A, b), 2 * b, 0, 1); break;
    }
}

/* Steps 09-15: pass 1 with a grid that fills the GPU once (resident blocks
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

/* Steps 09 (the kernel of step 08) and 10: two elements per thread and round. */
template <int SHUFFLE, typename T>
static void run_grid(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const red_ctx *x = (const red_ctx *)p;
    static int cb = 0, c = 0;
    red_kernel<T, A> k1 = SHUFFLE ? BY_BLOCK(reduce_shuffle_block_sum, T, A, x->block)
                                  : BY_BLOCK(reduce_grid_stride, T, A, x->block);
    red_kernel<A, A> k2 = SHUFFLE ? BY_BLOCK(reduce_shuffle_block_sum, A, A, x->block)
                                  : BY_BLOCK(reduce_grid_stride, A, A, x->block);
    int r = red_resident_per_sm(k1, x->block, &cb, &c);
    grid_passes<T>(x, s, k1, k2, x->block, r, 2);
}

/* Steps 11-14: LOADS 16-byte loads in flight per thread (1: step 11's
 * kernel); BLOCK = 0: --block. The second pass is step 11's kernel. */
template <int LOADS, int BLOCK, typename T>
static void run_warp_shuffle(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const red_ctx *x = (const red_ctx *)p;
    const int block = BLOCK ? BLOCK : x->block;
    static int cb = 0, c = 0;
    red_kernel<T, A> k1 = LOADS == 1 ? reduce_warp_shuffle<T, A> : reduce_loads_in_flight<T, A, LOADS>;
    int r = red_resident_per_sm(k1, block, &cb, &c);
    grid_passes<T>(x, s, k1, reduce_warp_shuffle<A, A>, block, r, (size_t)vec16<T>::N * LOADS);
}

template <int LOADS, int BLOCK, typename T>
static void run_cg(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const red_ctx *x = (const red_ctx *)p;
    const int block = BLOCK ? BLOCK : x->block;
    static int cb = 0, c = 0;
    int r = red_resident_per_sm(reduce_cg<T, A, LOADS>, block, &cb, &c);
    grid_passes<T>(x, s, reduce_cg<T, A, LOADS>, reduce_cg<A, A, 1>, block, r,
                   (size_t)vec16<T>::N * LOADS);
}

/* The reference: CUB, temporary storage allocated once outside the timing. */
template <int DUMMY, typename T>
static void run_cub(void *p, cudaStream_t s)
{
    const red_ctx *x = (const red_ctx *)p;
    red_cub_sum<T>(x->cub_temp, x->cub_bytes, x->in, x->result, x->n, s);
}

#ifdef EXERCISE
/* The exercise: a tile kernel covering EXERCISE_ELEMENTS_PER_THREAD x
 * blockDim elements per block, with blockDim accumulators of dynamic shared
 * memory, launched like steps 01-06. */
template <int DUMMY, typename T>
static void run_exercise(void *p, cudaStream_t s)
{
    typedef typename acc_of<T>::type A;
    const red_ctx *x = (const red_ctx *)p;
    tile_passes<T>(x, s, exercise_kernel<T, A>, exercise_kernel<A, A>,
                   (unsigned)(EXERCISE_ELEMENTS_PER_THREAD * x->block), (size_t)x->block * sizeof(A), 0);
}
#define EXERCISE_ROW {"exercise", BY_TYPE(run_exercise, 0), 0, 0, 0, "your exercise (make try), a change to " EXERCISE_BASE},
#else
#define EXERCISE_ROW
#endif

/* ---- variant table ------------------------------------------------------
 * The single source of truth: names, order (the steps of the lesson),
 * --help, checks and timing. */

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
    {"interleaved_divergent", BY_TYPE(run_tile, K_INTERLEAVED_DIVERGENT), 0, 0, 0, "01: interleaved addressing, divergent branch"},
    {"interleaved_bank_conflicts", BY_TYPE(run_tile, K_INTERLEAVED_BANK_CONFLICTS), 0, 0, 0, "02: strided index, no divergence (bank conflicts)"},
    {"sequential", BY_TYPE(run_tile, K_SEQUENTIAL), 0, 0, 0, "03: sequential addressing"},
    {"sum_in_register", BY_TYPE(run_tile, K_SUM_IN_REGISTER), 0, 0, 0, "04: running sum in a register"},
    {"first_add_load", BY_TYPE(run_tile, K_FIRST_ADD_LOAD), 0, 0, 0, "05: two elements per thread, first add during load"},
    {"unroll_last_warp", BY_TYPE(run_tile, K_UNROLL_LAST_WARP), 0, 0, 0, "06: last warp with __syncwarp only"},
    {"complete_unroll", BY_TYPE(run_tile, K_COMPLETE_UNROLL), 0, 0, 0, "07: template block size, fully unrolled tree"},
    {"grid_stride", BY_TYPE(run_tile, K_GRID_STRIDE), 0, 0, 1, "08: grid-stride loop, grid still covers the array"},
    {"multi_element", BY_TYPE(run_grid, 0), 0, 0, 1, "09: grid fills the GPU once, many elements per thread"},
    {"shuffle_block_sum", BY_TYPE(run_grid, 1), 0, 0, 1, "10: block sum by warp shuffles"},
    {"warp_shuffle", BY_TYPE(run_warp_shuffle, 1, 0), 0, 0, 1, "11: 16-byte loads"},
    {"warp_shuffle_u4", BY_TYPE(run_warp_shuffle, WARP_SHUFFLE_U4_LOADS, 0), 0, 0, 1, "12: 4 loads in flight per thread"},
    {"warp_shuffle_u8", BY_TYPE(run_warp_shuffle, WARP_SHUFFLE_U8_LOADS, 0), 0, 0, 1, "13: 8 loads in flight per thread"},
    {"warp_shuffle_u8_b512", BY_TYPE(run_warp_shuffle, WARP_SHUFFLE_U8_LOADS, WARP_SHUFFLE_U8_B512_BLOCK), 0, WARP_SHUFFLE_U8_B512_BLOCK, 1, "14: 512 threads per block"},
    {"cg_reduce", BY_TYPE(run_cg, WARP_SHUFFLE_U4_LOADS, 0), 0, 0, 1, "15: cg::reduce warp sums (from step 12)"},
    EXERCISE_ROW
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
static const size_t check_sizes[] = {1, 2, 31, 33, 1000, (1u << 20) + 1, 1u << 28};
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
    const size_t *list = opt_check_sizes ? check_sizes : quick_sizes;
    int nlist = opt_check_sizes ? (int)(sizeof check_sizes / sizeof check_sizes[0])
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
        /* The chosen variants that passed and the reference, timed round
         * robin (common/timing.h): pct_ref is from this run, at the same clocks. */
        ctx.n = n;
        timed_variant group[N_VARIANTS];
        timing_stats times[N_VARIANTS];
        char ranges[N_VARIANTS][80];
        int slot[N_VARIANTS], n_timed = 0, ref = -1;
        for (int v = 0; v < N_VARIANTS; v++) {
            const variant *var = &variants[v];
            slot[v] = -1;
            if (var->is_reference) ref = v;
            if (!var->is_reference && selected != v && selected >= 0) continue;
            if (!var->is_reference && selected < 0 && !strcmp(opt_variant, "cpu")) continue;
            if (!ok[v]) continue;
            snprintf(ranges[v], sizeof ranges[v], "reduction/%s", var->name);
            group[n_timed] = (timed_variant){var->run[type], &ctx, ranges[v]};
            slot[v] = n_timed++;
        }
        if (n_timed > 0) {
            timing_cfg tc = timing_defaults(reps);
            tc.flush_l2 = flush;
            time_gpu_group(group, n_timed, &tc, times);
        }
        const double ref_gbps = ref >= 0 && slot[ref] >= 0
                                    ? (double)n * esize / (times[slot[ref]].median_ms * 1e6)
                                    : 0;
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
            const timing_stats *ts = &times[slot[v]];
            double gbps = (double)n * esize / (ts->median_ms * 1e6);
            rec_str(&r, "status", "PASS");
            rec_perf(&r, ts->median_ms, "gbps", gbps, dev.peak_gbps, "cub", ref_gbps);
            rec_str(&r, "type", red_type_name(type));
            rec_int(&r, "block", var->block ? var->block : ctx.block);
            rec_num(&r, "min_ms", ts->min_ms);
            timing_rec_clocks(&r, ts);
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
