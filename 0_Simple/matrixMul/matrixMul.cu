/* matrixMul: C = alpha*A*B + beta*C in FP32, climbing from one thread per
 * element to a warp-tiled, pipelined kernel, every step measured against
 * cuBLAS in the same run.
 *
 * What it teaches: why the thread-to-element mapping decides coalescing; how
 * shared-memory tiling turns K global loads per output into K/TILE, and why it
 * needs two __syncthreads per tile (one after the loads, one after the
 * compute); how register blocking raises the FMAs per shared-memory load; what
 * float4 loads, a transposed and a padded tile each buy; how warp tiling,
 * double buffering (registers or cp.async) and a pipelined main loop with
 * larger per-thread tiles get close to the library. Each step changes one
 * thing from the step it names. Every kernel takes any M, N, K (row-major),
 * not only multiples of its tile: out-of-range loads read zeros, stores are
 * guarded.
 *
 * Build:  make -C 0_Simple/matrixMul            (or `make matrixMul` at the top)
 * Run:    bin/matrixMul                         M = N = K = 4096, all variants
 *         bin/matrixMul --m=2048 --n=2048 --k=2048      (bench.args: the other
 *         bin/matrixMul --m=4096 --n=1024 --k=8192       shapes make bench runs)
 *         bin/matrixMul --quick                 small shapes (each kernel on 2x2 of its tiles), for compute-sanitizer
 *         bin/matrixMul --variant=smem_tile32 --m=2048 --n=1000 --k=333
 * Variants (one table below drives dispatch, --help, checks and timing):
 *   cublas               cuBLAS SGEMM, CUBLAS_PEDANTIC_MATH (true FP32): the reference
 *   cublas_tf32          cuBLAS with TF32 tensor cores: context only, looser tolerance
 *   naive                one thread per output, threadIdx.x walks down a column (uncoalesced)
 *   coalesced            the same with threadIdx.x walking along a row
 *   smem_tile16/32       shared-memory tiles of 16x16 / 32x32, the classic kernel
 *   smem_tile32_prefetch the same with the next tile's loads in flight during the FMAs
 *   blocktile_1d         64x64x8 block tile, each thread 8 outputs of one column
 *   blocktile_2d         128x128x8 block tile, each thread an 8x8 block of outputs
 *   vec_global_loads     blocktile_2d with float4 global loads and stores
 *   transposed_a         ... with A stored transposed in shared memory
 *   padded_a             ... with its rows padded (conflict-free stores)
 *   warp_layout          ... with 64x32 warp tiles (conflict-free shared loads)
 *   warptile_*           ... with register-staged double buffering
 *   cpasync_*            the same warp tiling fed by a cp.async multi-stage pipeline
 *   pipe_*               64x64 (or 64x32) warp tiles, a pipelined main loop:
 *                        unchecked copies inside C, fragments loaded a k ahead
 * The CPU baseline (double accumulation) is reported as variant=cpu.
 *
 * FLOPs counted: 2*M*N*K per GEMM (the beta*C term is not counted).
 * Without a GPU: tests/test_mm_host.c (cmocka) and tests/cpu_sim/run.sh (the
 * kernels below run on CPU threads); ./ptxas_table.sh prints registers, shared
 * memory and spills per kernel; `make bench` fills the README's results
 * table from a real run (tools/results_table.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include "check.h"
#include "cpu_ref.h"
#include "cuda_check.h"
#include "device.h"
#include "mm_host.h"
#include "options.h"
#include "report.h"
#include "rng.h"
#include "timing.h"

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

/* ---- device helpers ---------------------------------------------------- */

/* BLAS semantics: with beta == 0, C is not read (it may hold NaN poison). */
__device__ __forceinline__ float axpby(float acc, float alpha, float beta, const float *c)
{
    return beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

/* Four consecutive elements of row `row` of a rows x cols row-major matrix,
 * starting at column col; zeros for anything out of range. One 16-byte load
 * when vec_ok (cols % 4 == 0, so the address is 16-byte aligned) and all four
 * are in range, else element by element. */
__device__ __forceinline__ float4 load4_zero(const float *__restrict__ m, int rows, int cols,
                                             int row, int col, bool vec_ok)
{
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (row >= rows) return v;
    const float *p = m + (size_t)row * cols;
    if (vec_ok && col + 3 < cols) return *reinterpret_cast<const float4 *>(p + col);
    if (col + 0 < cols) v.x = p[col + 0];
    if (col + 1 < cols) v.y = p[col + 1];
    if (col + 2 < cols) v.z = p[col + 2];
    if (col + 3 < cols) v.w = p[col + 3];
    return v;
}

/* C[row][col..col+3] = alpha*v + beta*C, for the elements in range. */
__device__ __forceinline__ void store4_axpby(float *__restrict__ C, int M, int N, int row,
                                             int col, float4 v, float alpha, float beta,
                                             bool vec_ok)
{
    if (row >= M) return;
    float *p = C + (size_t)row * N;
    if (vec_ok && col + 3 < N) {
        float4 *q = reinterpret_cast<float4 *>(p + col);
        float4 o;
        if (beta == 0.0f) {
            o = make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
        } else {
            float4 c = *q;
            o = make_float4(alpha * v.x + beta * c.x, alpha * v.y + beta * c.y,
                            alpha * v.z + beta * c.z, alpha * v.w + beta * c.w);
        }
        *q = o;
        return;
    }
    const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int c = 0; c < 4; c++)
        if (col + c < N) p[col + c] = axpby(e[c], alpha, beta, p + col + c);
}

/* ---- kernel 1: naive --------------------------------------------------- */

/* One thread per element of C. threadIdx.x runs down a column of C (row =
 * x index), so the 32 threads of a warp read 32 different rows of A (32
 * separate memory transactions per load) and write 32 different rows of C.
 * Only the load of B is shared: all lanes read the same element. */
__global__ void mm_naive(int M, int N, int K, float alpha, const float *__restrict__ A,
                         const float *__restrict__ B, float beta, float *__restrict__ C)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; k++) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        size_t i = (size_t)row * N + col;
        C[i] = axpby(acc, alpha, beta, C + i);
    }
}

/* ---- kernel 2: coalesced ----------------------------------------------- */

/* The same arithmetic; only the mapping changes: threadIdx.x walks along a
 * row of C, so a warp reads 32 consecutive floats of B (one 128-byte line),
 * broadcasts one element of A, and writes 32 consecutive floats of C. */
__global__ void mm_coalesced(int M, int N, int K, float alpha, const float *__restrict__ A,
                             const float *__restrict__ B, float beta, float *__restrict__ C)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.f;
        for (int k = 0; k < K; k++) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        size_t i = (size_t)row * N + col;
        C[i] = axpby(acc, alpha, beta, C + i);
    }
}

/* ---- kernel 3a: shared-memory tiles, the classic form ------------------ */

/* Each block computes a TILE x TILE tile of C. Per step of TILE along K, the
 * block loads one tile of A and one of B into shared memory (each thread one
 * element of each, coalesced, zero outside the matrix), and every thread then
 * reads TILE elements of each from shared memory: global loads drop by a
 * factor TILE. Two barriers per step:
 *   (1) after the stores to shared memory: a thread reads elements other
 *       threads stored, so all of them must have landed before anyone computes;
 *   (2) after the compute: the next step's stores overwrite the tiles, so
 *       everyone must have finished reading them first. Remove it and a fast
 *       warp overwrites data a slow warp still needs (racecheck reports it).
 * This is the kernel of NVIDIA's matrixMul sample and of most textbooks: the
 * loads sit at the top of the loop, so every thread waits for its two global
 * loads (hundreds of cycles) before the barrier, with nothing to overlap. */
template <int TILE>
__global__ void __launch_bounds__(TILE *TILE)
    mm_smem(int M, int N, int K, float alpha, const float *__restrict__ A,
            const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.f;
        __syncthreads(); /* (1) the tiles are complete */
#pragma unroll
        for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
        __syncthreads(); /* (2) nobody reads them any more */
    }
    if (row < M && col < N) {
        size_t i = (size_t)row * N + col;
        C[i] = axpby(acc, alpha, beta, C + i);
    }
}

/* ---- kernel 3b: shared-memory tiles with the next loads in flight ------ */

/* One change from 3a: the global loads of the next step are issued right
 * after barrier (1), into two registers, so their latency hides behind this
 * step's TILE FMAs instead of stalling every thread at the top of the loop;
 * the registers are stored to shared memory at the top of the next step.
 * Predicted: faster by the share of time 3a spends waiting on its loads.
 * Measured on the H200 (4096^3, experiments/tile32_ab.cu, 2026-11-29), in
 * results/H200/matrixMul_tile32_ab.txt, commit 10393d1: loads at the top of
 * the loop (3a) 8.48 TFLOP/s, with this prefetch 9.97; as the variants of
 * this file (results/H200/matrixMul.txt, commit d4ff6ab): 8479 -> 9967
 * GFLOP/s, +17.5% (+6.1% at 2048^3: README). */
template <int TILE>
__global__ void __launch_bounds__(TILE *TILE)
    mm_smem_prefetch(int M, int N, int K, float alpha, const float *__restrict__ A,
                     const float *__restrict__ B, float beta, float *__restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    /* This thread's element of the A tile is (row, k0+tx), of the B tile
     * (k0+ty, col); the pointers walk along K. Edge threads may point past
     * the matrices; they only dereference elements that exist. */
    const float *a = A + (size_t)row * K + tx;
    const float *b = B + (size_t)ty * N + col;
    float a_next = (row < M && tx < K) ? *a : 0.f;
    float b_next = (ty < K && col < N) ? *b : 0.f;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = a_next;
        Bs[ty][tx] = b_next;
        __syncthreads(); /* (1) the tiles are complete */
        a += TILE;
        b += (size_t)TILE * N;
        int k1 = k0 + TILE; /* prefetch the next step's elements (zero past K) */
        a_next = (row < M && k1 + tx < K) ? *a : 0.f;
        b_next = (k1 + ty < K && col < N) ? *b : 0.f;
#pragma unroll
        for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
        __syncthreads(); /* (2) nobody reads them any more */
    }
    if (row < M && col < N) {
        size_t i = (size_t)row * N + col;
        C[i] = axpby(acc, alpha, beta, C + i);
    }
}

/* ---- kernel 4a: 1D register blocking ----------------------------------- */

/* Block tile BM x BN, K-step BK; each thread computes TM outputs of one
 * column, keeping them in registers. One shared load of B is reused for TM
 * FMAs, so shared-memory traffic per FMA drops by about TM/2. */
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__(BM *BN / TM)
    mm_blocktile_1d(int M, int N, int K, float alpha, const float *__restrict__ A,
                    const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = BM * BN / TM;
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int t = threadIdx.x;
    const int tcol = t % BN, trow = t / BN; /* rows trow*TM .. +TM-1 of the tile */
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = t; i < BM * BK; i += NT) {
            int r = i / BK, c = i % BK;
            As[r][c] = (row0 + r < M && k0 + c < K) ? A[(size_t)(row0 + r) * K + k0 + c] : 0.f;
        }
        for (int i = t; i < BK * BN; i += NT) {
            int r = i / BN, c = i % BN;
            Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(size_t)(k0 + r) * N + col0 + c] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float b = Bs[k][tcol];
#pragma unroll
            for (int i = 0; i < TM; i++) acc[i] += As[trow * TM + i][k] * b;
        }
        __syncthreads();
    }
    int col = col0 + tcol;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int row = row0 + trow * TM + i;
        if (row < M && col < N) {
            size_t j = (size_t)row * N + col;
            C[j] = axpby(acc[i], alpha, beta, C + j);
        }
    }
}

/* ---- kernel 4b: 2D register blocking ----------------------------------- */

/* Each thread computes a TM x TN block as outer products: per k it loads TM
 * values of A and TN of B into registers and does TM*TN FMAs (64 FMAs for 16
 * shared loads at 8x8, against 1 FMA per 2 loads in smem_tile32). */
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    mm_blocktile_2d(int M, int N, int K, float alpha, const float *__restrict__ A,
                    const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = (BM / TM) * (BN / TN);
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int t = threadIdx.x;
    const int tcol = t % (BN / TN), trow = t / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    float ra[TM], rb[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = t; i < BM * BK; i += NT) {
            int r = i / BK, c = i % BK;
            As[r][c] = (row0 + r < M && k0 + c < K) ? A[(size_t)(row0 + r) * K + k0 + c] : 0.f;
        }
        for (int i = t; i < BK * BN; i += NT) {
            int r = i / BN, c = i % BN;
            Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(size_t)(k0 + r) * N + col0 + c] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
#pragma unroll
            for (int i = 0; i < TM; i++) ra[i] = As[trow * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; j++) rb[j] = Bs[k][tcol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int row = row0 + trow * TM + i;
        if (row >= M) continue;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int col = col0 + tcol * TN + j;
            if (col < N) {
                size_t q = (size_t)row * N + col;
                C[q] = axpby(acc[i][j], alpha, beta, C + q);
            }
        }
    }
}

/* ---- tile loaders shared by kernels 5 to 6b ---------------------------- */

/* A tile: BM rows x BK columns of A as float4s, NT threads, into registers. */
template <int BM, int BK, int NT>
__device__ __forceinline__ void load_a_regs(float4 (&ra)[BM * BK / 4 / NT],
                                            const float *__restrict__ A, int M, int K,
                                            int row0, int k0, bool vec_ok)
{
#pragma unroll
    for (int i = 0; i < BM * BK / 4 / NT; i++) {
        int idx = threadIdx.x + i * NT;
        int r = idx / (BK / 4), kq = (idx % (BK / 4)) * 4;
        ra[i] = load4_zero(A, M, K, row0 + r, k0 + kq, vec_ok);
    }
}

/* ... stored as it is, As[m][k] (row length BK): one 16-byte store each. */
template <int BM, int BK, int NT>
__device__ __forceinline__ void store_a_smem_rows(const float4 (&ra)[BM * BK / 4 / NT],
                                                  float *As)
{
#pragma unroll
    for (int i = 0; i < BM * BK / 4 / NT; i++) {
        int idx = threadIdx.x + i * NT;
        int r = idx / (BK / 4), kq = (idx % (BK / 4)) * 4;
        *reinterpret_cast<float4 *>(&As[r * BK + kq]) = ra[i];
    }
}

/* ... or stored transposed, As[k][m] with row length LDA: the compute loop
 * then reads 4 consecutive m for one k as a single float4. */
template <int BM, int BK, int NT, int LDA>
__device__ __forceinline__ void store_a_smem(const float4 (&ra)[BM * BK / 4 / NT],
                                             float *As)
{
#pragma unroll
    for (int i = 0; i < BM * BK / 4 / NT; i++) {
        int idx = threadIdx.x + i * NT;
        int r = idx / (BK / 4), kq = (idx % (BK / 4)) * 4;
        As[(kq + 0) * LDA + r] = ra[i].x;
        As[(kq + 1) * LDA + r] = ra[i].y;
        As[(kq + 2) * LDA + r] = ra[i].z;
        As[(kq + 3) * LDA + r] = ra[i].w;
    }
}

/* B tile: BK rows x BN columns, as float4s, stored as they are. */
template <int BN, int BK, int NT>
__device__ __forceinline__ void load_b_regs(float4 (&rb)[BN * BK / 4 / NT],
                                            const float *__restrict__ B, int K, int N, int k0,
                                            int col0, bool vec_ok)
{
#pragma unroll
    for (int i = 0; i < BN * BK / 4 / NT; i++) {
        int idx = threadIdx.x + i * NT;
        int r = idx / (BN / 4), nq = (idx % (BN / 4)) * 4;
        rb[i] = load4_zero(B, K, N, k0 + r, col0 + nq, vec_ok);
    }
}

template <int BN, int BK, int NT, int LDB>
__device__ __forceinline__ void store_b_smem(const float4 (&rb)[BN * BK / 4 / NT], float *Bs)
{
#pragma unroll
    for (int i = 0; i < BN * BK / 4 / NT; i++) {
        int idx = threadIdx.x + i * NT;
        int r = idx / (BN / 4), nq = (idx % (BN / 4)) * 4;
        *reinterpret_cast<float4 *>(&Bs[r * LDB + nq]) = rb[i];
    }
}

/* acc += a (column) x b (row): TM*TN FMAs from TM + TN registers. */
template <int TM, int TN>
__device__ __forceinline__ void outer_product(float (&acc)[TM][TN], const float (&a)[TM],
                                              const float (&b)[TN])
{
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] += a[i] * b[j];
}

/* The 8x8 block of C at (row, col): two float4 stores per row. */
__device__ __forceinline__ void thread_tile_store(float *__restrict__ C, int M, int N, int row,
                                                  int col, const float (&acc)[8][8],
                                                  float alpha, float beta, bool vec_ok)
{
#pragma unroll
    for (int i = 0; i < 8; i++) {
        store4_axpby(C, M, N, row + i, col,
                     make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]), alpha, beta, vec_ok);
        store4_axpby(C, M, N, row + i, col + 4,
                     make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]), alpha, beta, vec_ok);
    }
}

/* ---- kernel 5a: float4 global loads ------------------------------------ */

/* blocktile_2d (128x128x8, 8x8 per thread, the same shared layouts As[m][k]
 * and Bs[k][n], the same compute loop) with one change: global memory is
 * read and written in float4s. Each thread loads its share of a tile as one
 * 16-byte load of A and one of B (blocktile_2d: four scalar loads of each,
 * every one with its own index arithmetic and bounds test) and stores it to
 * shared memory with one 16-byte store; C is written as float4s too. The
 * compute loop was already vectorized by the compiler in blocktile_2d: its
 * SASS reads shared memory with LDS.128 (the 8 k of a row of As, and 8
 * consecutive n of Bs, are contiguous and the k loop is unrolled), so what
 * blocktile_2d wastes is in the loads: its loop body is 899 instructions for
 * 512 FMAs and 32 shared loads, this one's 612 (static counts, cuobjdump
 * -sass, nvcc 13.0, sm_90). Predicted: a large gain from the instruction
 * count alone. Measured at 4096^3
 * (results/H200/matrixMul.txt, commit d4ff6ab): +37.7%, 16202 -> 22306
 * GFLOP/s. */
template <int BM, int BN, int BK>
__global__ void __launch_bounds__((BM / 8) * (BN / 8))
    mm_vec_global(int M, int N, int K, float alpha, const float *__restrict__ A,
                  const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = (BM / 8) * (BN / 8);
    static_assert(BM * BK % (4 * NT) == 0 && BN * BK % (4 * NT) == 0, "tile loads");
    __shared__ __align__(16) float As[BM * BK]; /* As[m][k], as in blocktile_2d */
    __shared__ __align__(16) float Bs[BK * BN];
    const int t = threadIdx.x;
    const int tcol = t % (BN / 8), trow = t / (BN / 8);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool a_vec = (K % 4) == 0, b_vec = (N % 4) == 0;
    float acc[8][8] = {};
    float4 ga[BM * BK / 4 / NT], gb[BN * BK / 4 / NT];
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_a_regs<BM, BK, NT>(ga, A, M, K, row0, k0, a_vec);
        load_b_regs<BN, BK, NT>(gb, B, K, N, k0, col0, b_vec);
        store_a_smem_rows<BM, BK, NT>(ga, As);
        store_b_smem<BN, BK, NT, BN>(gb, Bs);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[8], b[8];
#pragma unroll
            for (int i = 0; i < 8; i++) a[i] = As[(trow * 8 + i) * BK + k];
#pragma unroll
            for (int j = 0; j < 8; j++) b[j] = Bs[k * BN + tcol * 8 + j];
            outer_product<8, 8>(acc, a, b);
        }
        __syncthreads();
    }
    thread_tile_store(C, M, N, row0 + trow * 8, col0 + tcol * 8, acc, alpha, beta, b_vec);
}

/* ---- kernel 5b: A transposed in shared memory (then padded) ------------ */

/* vec_global_loads with A stored transposed, As[k][m], so the 8 values of A
 * a thread needs for one k are contiguous: two float4 shared loads per k.
 * The loads from global memory are unchanged; the store to shared memory
 * becomes four 4-byte stores (a float4 of 4 consecutive k lands in 4
 * different rows of As). Used twice, one change each:
 *  - transposed_a (PAD = 0): rows of BM = 128 floats. The shared loads were
 *    already 16 bytes wide (see 5a) and their count does not change; what
 *    changes is how long their values live. From As[m][k] the unrolled loop
 *    loads all 8 k of a thread's 8 rows at once (64 registers held through
 *    the K-step); from As[k][m] it needs the 8 values of one k at a time:
 *    109 registers instead of 130 (ptxas_table.sh), so two 256-thread blocks
 *    fit on an SM instead of one (16 warps instead of 8 to hide latency).
 *    The transposing stores cost 3 more instructions per thread per K-step,
 *    and two threads (the two float4s of one row of A) hit the same bank.
 *    Predicted: a gain, from the occupancy. Measured: +56.7% at 4096^3.
 *  - padded_a (PAD = 4): rows of BM + 4 floats shift each k-row by 4 banks,
 *    so those stores are conflict-free. Predicted: a few percent at most.
 *    Measured: +1.2% at 4096^3.
 * (padded_a is the kernel that was called `vectorized`.) */
template <int BM, int BN, int BK, int PAD>
__global__ void __launch_bounds__((BM / 8) * (BN / 8))
    mm_transposed(int M, int N, int K, float alpha, const float *__restrict__ A,
                  const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = (BM / 8) * (BN / 8);
    constexpr int LDA = BM + PAD, LDB = BN;
    static_assert(BM * BK % (4 * NT) == 0 && BN * BK % (4 * NT) == 0, "tile loads");
    static_assert(PAD % 4 == 0, "rows stay 16-byte aligned for the float4 loads");
    __shared__ __align__(16) float As[BK * LDA];
    __shared__ __align__(16) float Bs[BK * LDB];
    const int t = threadIdx.x;
    const int tcol = t % (BN / 8), trow = t / (BN / 8);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool a_vec = (K % 4) == 0, b_vec = (N % 4) == 0;
    float acc[8][8] = {};
    float4 ra[BM * BK / 4 / NT], rb[BN * BK / 4 / NT];
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_a_regs<BM, BK, NT>(ra, A, M, K, row0, k0, a_vec);
        load_b_regs<BN, BK, NT>(rb, B, K, N, k0, col0, b_vec);
        store_a_smem<BM, BK, NT, LDA>(ra, As);
        store_b_smem<BN, BK, NT, LDB>(rb, Bs);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float4 a0 = *reinterpret_cast<const float4 *>(&As[k * LDA + trow * 8]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[k * LDA + trow * 8 + 4]);
            float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k * LDB + tcol * 8]);
            float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k * LDB + tcol * 8 + 4]);
            const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
            outer_product<8, 8>(acc, a, b);
        }
        __syncthreads();
    }
    thread_tile_store(C, M, N, row0 + trow * 8, col0 + tcol * 8, acc, alpha, beta, b_vec);
}

/* ---- kernel 6: warp tiling --------------------------------------------- */

/* The block tile is split into WM x WN warp tiles. Inside a warp, lane
 * (ly = lane / 4, lx = lane % 4) owns a block of outputs made of 4x4
 * sub-blocks, SUB_M = WM / 32 of them down and SUB_N = WN / 16 across:
 *   rows  wm*WM + i*32 + ly*4 + (0..3),  i < SUB_M
 *   cols  wn*WN + j*16 + lx*4 + (0..3),  j < SUB_N.
 * For one k the warp then reads 8 consecutive float4s of A (128 bytes) and 4
 * of B (64 bytes, broadcast): each shared load is one conflict-free
 * wavefront, where the contiguous 8x8 layout of padded_a made a warp read
 * 16 different float4s 32 bytes apart (512 bytes) per load of B. Kernels 6a
 * and 6b use 64x32 warp tiles (8x8 per lane); 6c and 7 take the warp tile
 * as a parameter, 64x32 or 64x64 (8x16 per lane). */
#define WT_M 64
#define WT_N 32

/* A lane's fragments for one k: SUB_M float4s of A, SUB_N of B. */
template <int LDA, int LDB, int SUB_M, int SUB_N>
__device__ __forceinline__ void load_fragments(const float *As, const float *Bs, int k, int am,
                                               int bn, float (&a)[SUB_M * 4],
                                               float (&b)[SUB_N * 4])
{
#pragma unroll
    for (int i = 0; i < SUB_M; i++) {
        float4 v = *reinterpret_cast<const float4 *>(&As[k * LDA + am + i * 32]);
        a[4 * i + 0] = v.x;
        a[4 * i + 1] = v.y;
        a[4 * i + 2] = v.z;
        a[4 * i + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < SUB_N; j++) {
        float4 v = *reinterpret_cast<const float4 *>(&Bs[k * LDB + bn + j * 16]);
        b[4 * j + 0] = v.x;
        b[4 * j + 1] = v.y;
        b[4 * j + 2] = v.z;
        b[4 * j + 3] = v.w;
    }
}

template <int BK, int LDA, int LDB, int SUB_M, int SUB_N>
__device__ __forceinline__ void warp_tile_compute(const float *As, const float *Bs, int am,
                                                  int bn,
                                                  float (&acc)[SUB_M * 4][SUB_N * 4])
{
#pragma unroll
    for (int k = 0; k < BK; k++) {
        float a[SUB_M * 4], b[SUB_N * 4];
        load_fragments<LDA, LDB, SUB_M, SUB_N>(As, Bs, k, am, bn, a, b);
        outer_product<SUB_M * 4, SUB_N * 4>(acc, a, b);
    }
}

template <int SUB_M, int SUB_N>
__device__ __forceinline__ void warp_tile_store(float *__restrict__ C, int M, int N, int row,
                                                int col, const float (&acc)[SUB_M * 4][SUB_N * 4],
                                                float alpha, float beta, bool vec_ok)
{
#pragma unroll
    for (int i = 0; i < SUB_M * 4; i++) {
        int r = row + (i / 4) * 32 + (i % 4);
#pragma unroll
        for (int j = 0; j < SUB_N; j++)
            store4_axpby(C, M, N, r, col + j * 16,
                         make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2],
                                     acc[i][4 * j + 3]),
                         alpha, beta, vec_ok);
    }
}

/* 6a: padded_a with one change: which outputs a lane owns (64x32 warp
 * tiles, above, instead of a contiguous 8x8 block). Same loads, same
 * single-buffered loop with two barriers. Predicted: each load of B goes
 * from 4 wavefronts to 1. In a model where an SM's shared memory serves one
 * 128-byte wavefront per cycle to its 4 schedulers, padded_a needs 10
 * wavefronts per warp per k (2 for A, 8 for B) against 64 FMA cycles, so
 * shared memory is busy ~62% of the time at full FMA rate; 6a needs 4
 * (~25%). A clear gain where that pipe was a bottleneck. Measured: +9.1%
 * at 4096^3. */
template <int BM, int BN, int BK>
__global__ void __launch_bounds__((BM / WT_M) * (BN / WT_N) * 32)
    mm_warp_layout(int M, int N, int K, float alpha, const float *__restrict__ A,
                   const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = (BM / WT_M) * (BN / WT_N) * 32;
    constexpr int LDA = BM + 4, LDB = BN;
    static_assert(BM % WT_M == 0 && BN % WT_N == 0, "block tile is whole warp tiles");
    static_assert(BM * BK % (4 * NT) == 0 && BN * BK % (4 * NT) == 0, "tile loads");
    __shared__ __align__(16) float As[BK * LDA];
    __shared__ __align__(16) float Bs[BK * LDB];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = warp / (BN / WT_N), wn = warp % (BN / WT_N);
    const int am = wm * WT_M + (lane / 4) * 4, bn = wn * WT_N + (lane % 4) * 4;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool a_vec = (K % 4) == 0, b_vec = (N % 4) == 0;
    float acc[8][8] = {};
    float4 ra[BM * BK / 4 / NT], rb[BN * BK / 4 / NT];
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_a_regs<BM, BK, NT>(ra, A, M, K, row0, k0, a_vec);
        load_b_regs<BN, BK, NT>(rb, B, K, N, k0, col0, b_vec);
        store_a_smem<BM, BK, NT, LDA>(ra, As);
        store_b_smem<BN, BK, NT, LDB>(rb, Bs);
        __syncthreads();
        warp_tile_compute<BK, LDA, LDB, 2, 2>(As, Bs, am, bn, acc);
        __syncthreads();
    }
    warp_tile_store<2, 2>(C, M, N, row0 + am, col0 + bn, acc, alpha, beta, b_vec);
}

/* 6b: warp tiling with register-staged double buffering. Two copies of each
 * shared tile: while the block computes on one, the next K-step's float4
 * global loads are already in flight into registers, and are stored to the
 * other copy after the compute. One barrier per K-step is enough: the
 * buffer written in step t was last read in step t-1, before that step's
 * closing barrier. __launch_bounds__(NT, MINB) caps registers so MINB blocks
 * fit on an SM: 128 per thread for two 256-thread blocks (or four 128-thread
 * ones). At BK=16 the prefetch registers no longer fit under 128 (ptxas
 * spills), so that configuration runs one block per SM instead. */
template <int BM, int BN, int BK, int MINB>
__global__ void __launch_bounds__((BM / WT_M) * (BN / WT_N) * 32, MINB)
    mm_warptile(int M, int N, int K, float alpha, const float *__restrict__ A,
                const float *__restrict__ B, float beta, float *__restrict__ C)
{
    constexpr int NT = (BM / WT_M) * (BN / WT_N) * 32;
    constexpr int LDA = BM + 4, LDB = BN;
    static_assert(BM % WT_M == 0 && BN % WT_N == 0, "block tile is whole warp tiles");
    static_assert(BM * BK % (4 * NT) == 0 && BN * BK % (4 * NT) == 0, "tile loads");
    __shared__ __align__(16) float As[2][BK * LDA];
    __shared__ __align__(16) float Bs[2][BK * LDB];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = warp / (BN / WT_N), wn = warp % (BN / WT_N);
    const int am = wm * WT_M + (lane / 4) * 4, bn = wn * WT_N + (lane % 4) * 4;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool a_vec = (K % 4) == 0, b_vec = (N % 4) == 0;
    const int ntiles = CEIL_DIV(K, BK);
    float acc[8][8] = {};
    float4 ra[BM * BK / 4 / NT], rb[BN * BK / 4 / NT];

    load_a_regs<BM, BK, NT>(ra, A, M, K, row0, 0, a_vec);
    load_b_regs<BN, BK, NT>(rb, B, K, N, 0, col0, b_vec);
    store_a_smem<BM, BK, NT, LDA>(ra, As[0]);
    store_b_smem<BN, BK, NT, LDB>(rb, Bs[0]);
    __syncthreads();
    for (int kt = 0; kt < ntiles; kt++) {
        const int cur = kt & 1;
        const bool more = kt + 1 < ntiles;
        if (more) { /* issue the next step's global loads before computing */
            load_a_regs<BM, BK, NT>(ra, A, M, K, row0, (kt + 1) * BK, a_vec);
            load_b_regs<BN, BK, NT>(rb, B, K, N, (kt + 1) * BK, col0, b_vec);
        }
        warp_tile_compute<BK, LDA, LDB, 2, 2>(As[cur], Bs[cur], am, bn, acc);
        if (more) {
            store_a_smem<BM, BK, NT, LDA>(ra, As[cur ^ 1]);
            store_b_smem<BN, BK, NT, LDB>(rb, Bs[cur ^ 1]);
        }
        __syncthreads();
    }
    warp_tile_store<2, 2>(C, M, N, row0 + am, col0 + bn, acc, alpha, beta, b_vec);
}

/* 6c: the same warp tiling fed by cp.async (sm_80+): global -> shared copies
 * that bypass registers, STAGES K-steps in flight. B goes in 16-byte copies
 * (zero-filled past the edge through the src-size operand); A is copied
 * element by element (4 bytes) into its transposed place, because cp.async
 * cannot transpose a 16-byte vector. On older architectures the helpers fall
 * back to ordinary loads, which keeps the kernel correct everywhere. */
__device__ __forceinline__ void cp_async4(float *smem, const float *gmem, bool valid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(valid ? 4 : 0));
#else
    *smem = valid ? *gmem : 0.f;
#endif
}

__device__ __forceinline__ void cp_async16(float *smem, const float *gmem, bool valid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(valid ? 16 : 0));
#else
    *reinterpret_cast<float4 *>(smem) =
        valid ? *reinterpret_cast<const float4 *>(gmem) : make_float4(0.f, 0.f, 0.f, 0.f);
#endif
}

__device__ __forceinline__ void cp_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

template <int N_PENDING>
__device__ __forceinline__ void cp_async_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N_PENDING));
#endif
}

/* Issue the copies of K-step k0 into one stage. Out-of-range elements are
 * zero-filled (src-size 0) and point at the matrix base, a valid address. */
template <int BM, int BN, int BK, int NT, int LDA, int LDB>
__device__ __forceinline__ void cp_async_tile(float *As, float *Bs, const float *__restrict__ A,
                                              const float *__restrict__ B, int M, int N, int K,
                                              int row0, int col0, int k0, bool b_vec)
{
#pragma unroll
    for (int i = 0; i < BM * BK / NT; i++) {
        int idx = threadIdx.x + i * NT;
        int r = idx / BK, k = idx % BK; /* a warp reads 32 consecutive k: coalesced */
        bool ok = row0 + r < M && k0 + k < K;
        cp_async4(&As[k * LDA + r], ok ? A + (size_t)(row0 + r) * K + k0 + k : A, ok);
    }
#pragma unroll
    for (int i = 0; i < BN * BK / 4 / NT; i++) {
        int idx = threadIdx.x + i * NT;
        int r = idx / (BN / 4), nq = (idx % (BN / 4)) * 4;
        int kr = k0 + r, n = col0 + nq;
        if (b_vec) { /* N % 4 == 0: a float4 is all in range or all out */
            bool ok = kr < K && n < N;
            cp_async16(&Bs[r * LDB + nq], ok ? B + (size_t)kr * N + n : B, ok);
        } else {
#pragma unroll
            for (int c = 0; c < 4; c++) {
                bool ok = kr < K && n + c < N;
                cp_async4(&Bs[r * LDB + nq + c], ok ? B + (size_t)kr * N + n + c : B, ok);
            }
        }
    }
}

/* Sizes of a warp-tiled kernel with a STAGES-deep shared-memory pipeline
 * (kernels 6c and 7): threads, sub-blocks per lane, stage layout. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES>
struct wt_cfg {
    static constexpr int WARPS_N = BN / WN;
    static constexpr int NT = (BM / WM) * WARPS_N * 32;
    static constexpr int SUB_M = WM / 32, SUB_N = WN / 16;
    static constexpr int LDA = BM + 4, LDB = BN;
    static constexpr int A_FLOATS = BK * LDA; /* a stage: As[BK][LDA], then Bs[BK][LDB] */
    static constexpr int STAGE_FLOATS = BK * LDA + BK * LDB;
    static constexpr size_t SMEM_BYTES = (size_t)STAGES * STAGE_FLOATS * sizeof(float);
};

/* The pipeline: STAGES-1 K-steps are requested before the loop; in step kt
 * the thread waits until at most STAGES-2 groups are pending (so step kt has
 * landed), the barrier makes every thread's copies visible and guarantees
 * that step kt-1's stage is no longer being read, then the copies of step
 * kt+STAGES-1 are issued into that stage and the block computes step kt. A
 * group is committed every iteration, even empty, so the count stays exact.
 * WM x WN is the warp tile (64x32 for the cpasync_* steps, 64x64 for
 * cpasync_*_w64x64); MINB blocks per SM bound the registers.
 * cpasync_128x128x8_w64x64_s3 changes only the warp tile: 8x16 outputs per
 * lane, 128 threads, 204 registers (two blocks per SM: 8 warps instead of
 * 16). Per k a lane does 128 FMAs for 6 shared loads instead of 64 for 4,
 * and the tile copies are shared by half as many threads, but this loop's
 * address arithmetic stays (74% of its instructions are FMAs instead of
 * 72%) and half as many warps hide the latencies. Predicted: a small gain.
 * Measured: +4.7% at 4096^3. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)
    mm_cpasync(int M, int N, int K, float alpha, const float *__restrict__ A,
               const float *__restrict__ B, float beta, float *__restrict__ C)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    constexpr int NT = cfg::NT, LDA = cfg::LDA, LDB = cfg::LDB;
    constexpr int SUB_M = cfg::SUB_M, SUB_N = cfg::SUB_N;
    static_assert(STAGES >= 2, "at least double buffering");
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 32 == 0 && WN % 16 == 0,
                  "block tile is whole warp tiles, warp tile is whole 4x4 sub-blocks");
    static_assert(BM * BK % NT == 0 && BN * BK % (4 * NT) == 0, "tile loads");
    extern __shared__ __align__(16) float smem[];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = warp / cfg::WARPS_N, wn = warp % cfg::WARPS_N;
    const int am = wm * WM + (lane / 4) * 4, bn = wn * WN + (lane % 4) * 4;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool b_vec = (N % 4) == 0;
    const int ntiles = CEIL_DIV(K, BK);
    float acc[SUB_M * 4][SUB_N * 4] = {};

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ntiles) {
            float *st = smem + s * cfg::STAGE_FLOATS;
            cp_async_tile<BM, BN, BK, NT, LDA, LDB>(st, st + cfg::A_FLOATS, A, B, M, N, K, row0,
                                                    col0, s * BK, b_vec);
        }
        cp_async_commit();
    }
    for (int kt = 0; kt < ntiles; kt++) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        int next = kt + STAGES - 1;
        if (next < ntiles) {
            float *st = smem + (next % STAGES) * cfg::STAGE_FLOATS;
            cp_async_tile<BM, BN, BK, NT, LDA, LDB>(st, st + cfg::A_FLOATS, A, B, M, N, K, row0,
                                                    col0, next * BK, b_vec);
        }
        cp_async_commit();
        const float *st = smem + (kt % STAGES) * cfg::STAGE_FLOATS;
        warp_tile_compute<BK, LDA, LDB, SUB_M, SUB_N>(st, st + cfg::A_FLOATS, am, bn, acc);
    }
    cp_async_wait<0>(); /* nothing may be in flight when the block exits */
    warp_tile_store<SUB_M, SUB_N>(C, M, N, row0 + am, col0 + bn, acc, alpha, beta, b_vec);
}

/* ---- kernel 7: a pipelined main loop ----------------------------------- */

/* What the cpasync_* loop still spends outside the FMAs, read from its SASS
 * (cpasync_128x128x16_s3: 1409 instructions per K-step for 1024 FMAs, a
 * static count: cuobjdump -sass, nvcc 13.0, sm_90), and what kernel 7 does
 * about each:
 *  - bounds: every copy tests its row, column and k against M, N and K and
 *    computes its own 64-bit address (about 15 instructions per copy). A
 *    block whose tile lies wholly inside C (all but the last row and column
 *    of blocks) and whose N % 4 == 0 needs no test at all except in the last
 *    K-step when K % BK != 0: such blocks copy through an unchecked path,
 *    the others (and that last K-step) through the checked one; the choice
 *    is uniform across the block, so it costs one branch per K-step.
 *  - the wait at the top of each K-step: the barrier comes right before the
 *    first shared loads of the step, so every warp stalls on their latency.
 *    Kernel 7 loads the fragments of k+1 while it does the FMAs of k, and
 *    puts the wait and barrier inside the last k of a step, before the FMAs
 *    of that k: the first fragments of the next step are in flight while
 *    those FMAs issue.
 *  - the copies of A: four rows by eight consecutive k per warp instruction
 *    (one 32-byte sector per row), which with rows of BM + 4 floats puts a
 *    warp's 32 transposing stores in 32 different banks at any BK (6c takes
 *    two rows by 16 k at BK=16: k and k+8 share a bank, 2-way conflicts).
 * With 64x64 warp tiles (8x16 outputs per lane, 128 threads for 128x128)
 * every k costs 6 shared loads for 128 FMAs (8x8: 4 for 64), and the block
 * tile loads are shared by half as many threads. An H200 scheduler issues
 * one instruction per cycle and does one warp-wide FMA per cycle, so every
 * other instruction takes an FMA's slot: in an interior block, kernel 7's
 * K-step (128x128x8, 64x64) is about 1140 instructions for 1024 FMAs (90%),
 * cpasync_128x128x8_w64x64_s3's 1390 (74%), static counts again. Two
 * 128-thread blocks fit per SM at up to 255 registers (ptxas_table.sh: no
 * spills). Predicted: the best pipe_* variants within ~10% of cuBLAS.
 * Measured (results/H200/matrixMul.txt, commit d4ff6ab, and the README for
 * the two other shapes): the pipelined loop +15.8% over
 * cpasync_128x128x8_w64x64_s3, and pipe_128x256x8_w64x64_s3 at 90.82% of
 * cuBLAS at 4096^3 (cuBLAS at 76.54% of the FP32 peak).
 * GROUP_M > 1 orders the blocks in bands of GROUP_M tile rows (mm_tile_of,
 * mm_host.h) so that blocks running at the same time share panels of A and
 * B in the L2; predicted: little at these sizes (a wave of 264 blocks at
 * 4096^3 already covers 8 whole tile rows), the variant is there to show it.
 * Measured: -4.5% at BK = 8, +0.5% at BK = 16 (4096^3), not explained. */

/* The copies of one K-step into one stage. A: chunk c (a warp instruction)
 * is 4 rows x 8 consecutive k, one 32-byte sector per row; thread t copies
 * chunks warp, warp + NW, ... which lie ROWS_APART rows apart in the same 8
 * k. Stores: the 32 lanes write As[k][r] for 8 k x 4 r, banks (4k + r) % 32
 * (LDA % 32 == 4): all different. B: float4s along rows, as in 6c. */
template <int BM, int BN, int BK, int NT>
struct pipe_copy_map {
    static constexpr int NW = NT / 32, KO = BK / 8;
    static constexpr int ROWS_APART = 4 * NW / KO, B_ROWS_APART = NT / (BN / 4);
    static_assert(NW % KO == 0 && NT % (BN / 4) == 0, "a thread's copies lie a fixed stride apart");
};

/* Every element exists and N % 4 == 0: one address is computed, the others
 * are a fixed stride away (no tests, no multiplies). */
template <int BM, int BN, int BK, int NT, int LDA, int LDB>
__device__ __forceinline__ void pipe_copy_fast(float *As, float *Bs, const float *__restrict__ A,
                                               const float *__restrict__ B, int N, int K,
                                               int row0, int col0, int k0)
{
    typedef pipe_copy_map<BM, BN, BK, NT> map;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int ra = (warp / map::KO) * 4 + lane / 8, ka = (warp % map::KO) * 8 + lane % 8;
    const int rb = threadIdx.x / (BN / 4), nq = (threadIdx.x % (BN / 4)) * 4;
    const float *a = A + (size_t)(row0 + ra) * K + (k0 + ka);
    const size_t a_step = (size_t)map::ROWS_APART * K;
#pragma unroll
    for (int i = 0; i < BM * BK / NT; i++, a += a_step)
        cp_async4(&As[ka * LDA + ra + i * map::ROWS_APART], a, true);
    const float *b = B + (size_t)(k0 + rb) * N + (col0 + nq);
    const size_t b_step = (size_t)map::B_ROWS_APART * N;
#pragma unroll
    for (int i = 0; i < BN * BK / 4 / NT; i++, b += b_step)
        cp_async16(&Bs[(rb + i * map::B_ROWS_APART) * LDB + nq], b, true);
}

/* The same copies with each element tested and zero-filled when outside. */
template <int BM, int BN, int BK, int NT, int LDA, int LDB>
__device__ __forceinline__ void pipe_copy_checked(float *As, float *Bs,
                                                  const float *__restrict__ A,
                                                  const float *__restrict__ B, int M, int N,
                                                  int K, int row0, int col0, int k0, bool b_vec)
{
    typedef pipe_copy_map<BM, BN, BK, NT> map;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int ra = (warp / map::KO) * 4 + lane / 8, ka = (warp % map::KO) * 8 + lane % 8;
    const int rb = threadIdx.x / (BN / 4), nq = (threadIdx.x % (BN / 4)) * 4;
#pragma unroll
    for (int i = 0; i < BM * BK / NT; i++) {
        const int r = ra + i * map::ROWS_APART;
        const bool ok = row0 + r < M && k0 + ka < K;
        cp_async4(&As[ka * LDA + r], ok ? A + (size_t)(row0 + r) * K + k0 + ka : A, ok);
    }
#pragma unroll
    for (int i = 0; i < BN * BK / 4 / NT; i++) {
        const int r = rb + i * map::B_ROWS_APART;
        const int kr = k0 + r, n = col0 + nq;
        if (b_vec) { /* N % 4 == 0: a float4 is all in range or all out */
            const bool ok = kr < K && n < N;
            cp_async16(&Bs[r * LDB + nq], ok ? B + (size_t)kr * N + n : B, ok);
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const bool ok = kr < K && n + e < N;
                cp_async4(&Bs[r * LDB + nq + e], ok ? B + (size_t)kr * N + n + e : B, ok);
            }
        }
    }
}

/* K-step `tile` into one stage, through the unchecked path where it may. */
template <int BM, int BN, int BK, int NT, int LDA, int LDB>
__device__ __forceinline__ void pipe_issue(float *stage, const float *__restrict__ A,
                                           const float *__restrict__ B, int M, int N, int K,
                                           int row0, int col0, int tile, int nfull,
                                           bool interior, bool b_vec)
{
    float *As = stage, *Bs = stage + BK * LDA;
    if (interior && tile < nfull)
        pipe_copy_fast<BM, BN, BK, NT, LDA, LDB>(As, Bs, A, B, N, K, row0, col0, tile * BK);
    else
        pipe_copy_checked<BM, BN, BK, NT, LDA, LDB>(As, Bs, A, B, M, N, K, row0, col0,
                                                    tile * BK, b_vec);
}

/* The loop, for K-step kt (stage kt % STAGES):
 *   issue the copies of step kt+STAGES-1 into the stage step kt-1 used
 *     (every thread finished reading it before the barrier that ended kt-1);
 *   for k < BK: load the fragments of k+1 (two register sets, fa/fb[k & 1]
 *     and [(k+1) & 1]), then the FMAs of k; at k = BK-1, first wait for
 *     step kt+1's copies (at most STAGES-2 groups pending: groups are
 *     committed once per step, even empty) and the barrier, then load the
 *     fragments of step kt+1, k = 0, then the FMAs of k = BK-1.
 * One barrier per K-step. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB, int GROUP_M>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)
    mm_pipelined(int M, int N, int K, float alpha, const float *__restrict__ A,
                 const float *__restrict__ B, float beta, float *__restrict__ C)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    constexpr int NT = cfg::NT, LDA = cfg::LDA, LDB = cfg::LDB;
    constexpr int SUB_M = cfg::SUB_M, SUB_N = cfg::SUB_N, TM = SUB_M * 4, TN = SUB_N * 4;
    static_assert(STAGES >= 2, "at least double buffering");
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 32 == 0 && WN % 16 == 0,
                  "block tile is whole warp tiles, warp tile is whole 4x4 sub-blocks");
    static_assert(BK % 8 == 0 && BM % 32 == 0 && BM * BK % NT == 0 && BN * BK % (4 * NT) == 0,
                  "A copies in chunks of 4 rows x 8 k, B copies in float4s; LDA % 32 == 4");
    extern __shared__ __align__(16) float smem[];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = warp / cfg::WARPS_N, wn = warp % cfg::WARPS_N;
    const int am = wm * WM + (lane / 4) * 4, bn = wn * WN + (lane % 4) * 4;
    int tile_m, tile_n;
    mm_tile_of(blockIdx.x, CEIL_DIV(M, BM), CEIL_DIV(N, BN), GROUP_M, &tile_m, &tile_n);
    const int row0 = tile_m * BM, col0 = tile_n * BN;
    const bool b_vec = (N % 4) == 0;
    const bool interior = b_vec && row0 + BM <= M && col0 + BN <= N;
    const int ntiles = CEIL_DIV(K, BK), nfull = K / BK;
    float acc[TM][TN] = {};
    float fa[2][TM], fb[2][TN];

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ntiles)
            pipe_issue<BM, BN, BK, NT, LDA, LDB>(smem + s * cfg::STAGE_FLOATS, A, B, M, N, K,
                                                 row0, col0, s, nfull, interior, b_vec);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    load_fragments<LDA, LDB, SUB_M, SUB_N>(smem, smem + cfg::A_FLOATS, 0, am, bn, fa[0], fb[0]);
    int rd = 0, wr = STAGES - 1; /* stage being read, stage being written */
    for (int kt = 0; kt < ntiles; kt++) {
        if (kt + STAGES - 1 < ntiles)
            pipe_issue<BM, BN, BK, NT, LDA, LDB>(smem + wr * cfg::STAGE_FLOATS, A, B, M, N, K,
                                                 row0, col0, kt + STAGES - 1, nfull, interior,
                                                 b_vec);
        cp_async_commit();
        const float *st = smem + rd * cfg::STAGE_FLOATS;
        rd = rd + 1 == STAGES ? 0 : rd + 1;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
        const float *st_next = smem + rd * cfg::STAGE_FLOATS;
#pragma unroll
        for (int k = 0; k < BK; k++) {
            if (k < BK - 1) {
                load_fragments<LDA, LDB, SUB_M, SUB_N>(st, st + cfg::A_FLOATS, k + 1, am, bn,
                                                       fa[(k + 1) & 1], fb[(k + 1) & 1]);
            } else {
                cp_async_wait<STAGES - 2>(); /* step kt+1 has landed (this thread's copies) */
                __syncthreads();             /* ... everyone's, and stage kt is read out */
                if (kt + 1 < ntiles)
                    load_fragments<LDA, LDB, SUB_M, SUB_N>(st_next, st_next + cfg::A_FLOATS, 0,
                                                           am, bn, fa[(k + 1) & 1],
                                                           fb[(k + 1) & 1]);
            }
            outer_product<TM, TN>(acc, fa[k & 1], fb[k & 1]);
        }
    }
    cp_async_wait<0>(); /* only empty groups can be pending here, but leave none */
    warp_tile_store<SUB_M, SUB_N>(C, M, N, row0 + am, col0 + bn, acc, alpha, beta, b_vec);
}

/* ---- launchers --------------------------------------------------------- */

typedef struct {
    int M, N, K;
    float alpha, beta;
    const float *A, *B;
    float *C;
    cublasHandle_t h_fp32, h_tf32;
} mm_ctx;

/* Row-major C = A*B is column-major C^T = B^T * A^T: cuBLAS gets (N, M, K)
 * with B first, and every leading dimension is a row length. */
static void run_cublas_with(cublasHandle_t h, mm_ctx *x, cudaStream_t s)
{
    CUBLAS_CHECK(cublasSetStream(h, s));
    CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, x->N, x->M, x->K, &x->alpha, x->B,
                             x->N, x->A, x->K, &x->beta, x->C, x->N));
}
static void run_cublas(void *p, cudaStream_t s) { run_cublas_with(((mm_ctx *)p)->h_fp32, (mm_ctx *)p, s); }
static void run_cublas_tf32(void *p, cudaStream_t s) { run_cublas_with(((mm_ctx *)p)->h_tf32, (mm_ctx *)p, s); }

static void run_naive(void *p, cudaStream_t s)
{
    mm_ctx *x = (mm_ctx *)p;
    dim3 block(32, 32), grid(CEIL_DIV(x->M, 32), CEIL_DIV(x->N, 32));
    mm_naive<<<grid, block, 0, s>>>(x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

static void run_coalesced(void *p, cudaStream_t s)
{
    mm_ctx *x = (mm_ctx *)p;
    dim3 block(32, 32), grid(CEIL_DIV(x->N, 32), CEIL_DIV(x->M, 32));
    mm_coalesced<<<grid, block, 0, s>>>(x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

template <int TILE>
static void run_smem(void *p, cudaStream_t s)
{
    mm_ctx *x = (mm_ctx *)p;
    dim3 block(TILE, TILE), grid(CEIL_DIV(x->N, TILE), CEIL_DIV(x->M, TILE));
    mm_smem<TILE><<<grid, block, 0, s>>>(x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

template <int TILE>
static void run_smem_prefetch(void *p, cudaStream_t s)
{
    mm_ctx *x = (mm_ctx *)p;
    dim3 block(TILE, TILE), grid(CEIL_DIV(x->N, TILE), CEIL_DIV(x->M, TILE));
    mm_smem_prefetch<TILE><<<grid, block, 0, s>>>(x->M, x->N, x->K, x->alpha, x->A, x->B,
                                                  x->beta, x->C);
    CHECK_LAUNCH();
}

static void run_blocktile_1d(void *p, cudaStream_t s)
{
    constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
    static_assert(BM % TM == 0, "each thread owns TM whole rows");
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_blocktile_1d<BM, BN, BK, TM><<<grid, BM * BN / TM, 0, s>>>(x->M, x->N, x->K, x->alpha,
                                                                  x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

static void run_blocktile_2d(void *p, cudaStream_t s)
{
    constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles cover the block tile");
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_blocktile_2d<BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN), 0, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

static void run_vec_global(void *p, cudaStream_t s)
{
    constexpr int BM = 128, BN = 128, BK = 8;
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_vec_global<BM, BN, BK><<<grid, (BM / 8) * (BN / 8), 0, s>>>(x->M, x->N, x->K, x->alpha,
                                                                   x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

template <int PAD>
static void run_transposed(void *p, cudaStream_t s)
{
    constexpr int BM = 128, BN = 128, BK = 8;
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_transposed<BM, BN, BK, PAD><<<grid, (BM / 8) * (BN / 8), 0, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

static void run_warp_layout(void *p, cudaStream_t s)
{
    constexpr int BM = 128, BN = 128, BK = 8;
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_warp_layout<BM, BN, BK><<<grid, (BM / WT_M) * (BN / WT_N) * 32, 0, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

template <int BM, int BN, int BK, int MINB>
static void run_warptile(void *p, cudaStream_t s)
{
    constexpr int NT = (BM / WT_M) * (BN / WT_N) * 32;
    static_assert(NT * MINB <= 512, "MINB blocks of NT threads: at most 512 threads per SM at 128 registers");
    mm_ctx *x = (mm_ctx *)p;
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_warptile<BM, BN, BK, MINB><<<grid, NT, 0, s>>>(x->M, x->N, x->K, x->alpha, x->A, x->B,
                                                x->beta, x->C);
    CHECK_LAUNCH();
}

/* MINB blocks of NT threads per SM leave 65536 / (NT * MINB) registers per
 * thread, of which ptxas may use at most 255. */
template <int NT, int MINB>
static constexpr bool fits_registers()
{
    return NT % 32 == 0 && NT * MINB <= 2048 && 65536 / (NT * MINB) >= 64;
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB>
static void run_cpasync(void *p, cudaStream_t s)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    static_assert(fits_registers<cfg::NT, MINB>(), "launch bounds");
    mm_ctx *x = (mm_ctx *)p;
    /* Over 48 KiB of dynamic shared memory needs an explicit opt-in (once). */
    static int opted_in = 0;
    if (!opted_in) {
        CUDA_CHECK(cudaFuncSetAttribute(mm_cpasync<BM, BN, BK, WM, WN, STAGES, MINB>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)cfg::SMEM_BYTES));
        opted_in = 1;
    }
    dim3 grid(CEIL_DIV(x->N, BN), CEIL_DIV(x->M, BM));
    mm_cpasync<BM, BN, BK, WM, WN, STAGES, MINB><<<grid, cfg::NT, cfg::SMEM_BYTES, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

/* Kernel 7 runs on a 1D grid: mm_tile_of maps the block index to its tile. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MINB, int GROUP_M>
static void run_pipe(void *p, cudaStream_t s)
{
    typedef wt_cfg<BM, BN, BK, WM, WN, STAGES> cfg;
    static_assert(fits_registers<cfg::NT, MINB>(), "launch bounds");
    static_assert(cfg::SMEM_BYTES * MINB <= 227 * 1024, "MINB blocks' stages fit in shared memory");
    mm_ctx *x = (mm_ctx *)p;
    static int opted_in = 0;
    if (!opted_in) {
        CUDA_CHECK(cudaFuncSetAttribute(mm_pipelined<BM, BN, BK, WM, WN, STAGES, MINB, GROUP_M>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)cfg::SMEM_BYTES));
        opted_in = 1;
    }
    const int blocks = CEIL_DIV(x->M, BM) * CEIL_DIV(x->N, BN); /* <= 256 * 256 */
    mm_pipelined<BM, BN, BK, WM, WN, STAGES, MINB, GROUP_M><<<blocks, cfg::NT, cfg::SMEM_BYTES, s>>>(
        x->M, x->N, x->K, x->alpha, x->A, x->B, x->beta, x->C);
    CHECK_LAUNCH();
}

/* ---- variant table ----------------------------------------------------- */

typedef enum { VK_REF, VK_TF32, VK_KERNEL } variant_kind;

/* One row per step, in teaching order; `what` says what changed from the
 * step it names (or the one above). */
typedef struct {
    const char *name;
    timed_fn run;
    variant_kind kind;
    int bm, bn;         /* the block's tile of C (rows x columns); 0 for the library */
    const char *tile;   /* block tile / threads, for --help and the notes */
    const char *what;
} variant;

static const variant variants[] = {
    {"cublas", run_cublas, VK_REF, 0, 0, "library", "cuBLAS SGEMM, CUBLAS_PEDANTIC_MATH (true FP32): the reference"},
    {"cublas_tf32", run_cublas_tf32, VK_TF32, 0, 0, "library", "cuBLAS SGEMM on TF32 tensor cores (context only)"},
    {"naive", run_naive, VK_KERNEL, 32, 32, "32x32 threads, 1 output each", "one thread per output, lanes walk down a column of C"},
    {"coalesced", run_coalesced, VK_KERNEL, 32, 32, "32x32 threads, 1 output each", "one thread per output, lanes walk along a row of C"},
    {"smem_tile16", run_smem<16>, VK_KERNEL, 16, 16, "16x16 tile, 256 threads", "shared-memory tiles, loads at the top of the loop, two barriers per K-step"},
    {"smem_tile32", run_smem<32>, VK_KERNEL, 32, 32, "32x32 tile, 1024 threads", "the same with 32x32 tiles: the classic kernel (NVIDIA's sample)"},
    {"smem_tile32_prefetch", run_smem_prefetch<32>, VK_KERNEL, 32, 32, "32x32 tile, 1024 threads", "smem_tile32 with the next K-step's loads in flight during the FMAs"},
    {"blocktile_1d", run_blocktile_1d, VK_KERNEL, 64, 64, "64x64x8, 512 threads, 8x1 each", "1D register blocking: 8 outputs of a column per thread"},
    {"blocktile_2d", run_blocktile_2d, VK_KERNEL, 128, 128, "128x128x8, 256 threads, 8x8 each", "2D register blocking: outer products from registers"},
    {"vec_global_loads", run_vec_global, VK_KERNEL, 128, 128, "128x128x8, 256 threads, 8x8 each", "blocktile_2d reading and writing global memory in float4s"},
    {"transposed_a", run_transposed<0>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, 8x8 each", "vec_global_loads with A transposed in shared memory (float4 fragments)"},
    {"padded_a", run_transposed<4>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, 8x8 each", "transposed_a with rows padded to BM+4: conflict-free stores"},
    {"warp_layout", run_warp_layout, VK_KERNEL, 128, 128, "128x128x8, 256 threads, warp 64x32", "padded_a with 64x32 warp tiles: conflict-free shared loads"},
    {"warptile_128x128x8", run_warptile<128, 128, 8, 2>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, warp 64x32, 2 blocks/SM", "warp_layout + register-staged double buffering, one barrier"},
    {"warptile_128x64x8", run_warptile<128, 64, 8, 3>, VK_KERNEL, 128, 64, "128x64x8, 128 threads, warp 64x32, 3 blocks/SM", "the same, smaller block tile"},
    {"warptile_128x128x16_1blk", run_warptile<128, 128, 16, 1>, VK_KERNEL, 128, 128, "128x128x16, 256 threads, warp 64x32, 1 block/SM", "warptile_128x128x8 with BK=16: no register cap, one block per SM"},
    {"cpasync_128x128x8_s3", run_cpasync<128, 128, 8, 64, 32, 3, 2>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, warp 64x32, 3 stages", "warptile_128x128x8 fed by a 3-stage cp.async pipeline"},
    {"cpasync_128x128x16_s2", run_cpasync<128, 128, 16, 64, 32, 2, 2>, VK_KERNEL, 128, 128, "128x128x16, 256 threads, warp 64x32, 2 stages", "cp.async double buffering, BK=16"},
    {"cpasync_128x128x16_s3", run_cpasync<128, 128, 16, 64, 32, 3, 2>, VK_KERNEL, 128, 128, "128x128x16, 256 threads, warp 64x32, 3 stages", "3-stage cp.async, BK=16"},
    {"cpasync_128x128x8_w64x64_s3", run_cpasync<128, 128, 8, 64, 64, 3, 2>, VK_KERNEL, 128, 128, "128x128x8, 128 threads, warp 64x64 (8x16 each), 3 stages", "cpasync_128x128x8_s3 with 64x64 warp tiles"},
    {"pipe_128x128x8_w64x32_s3", run_pipe<128, 128, 8, 64, 32, 3, 2, 1>, VK_KERNEL, 128, 128, "128x128x8, 256 threads, warp 64x32, 3 stages", "cpasync_128x128x8_s3 with the pipelined loop"},
    {"pipe_128x128x8_w64x64_s3", run_pipe<128, 128, 8, 64, 64, 3, 2, 1>, VK_KERNEL, 128, 128, "128x128x8, 128 threads, warp 64x64 (8x16 each), 3 stages", "cpasync_128x128x8_w64x64_s3 with the pipelined loop"},
    {"pipe_128x128x8_w64x64_s4", run_pipe<128, 128, 8, 64, 64, 4, 2, 1>, VK_KERNEL, 128, 128, "128x128x8, 128 threads, warp 64x64, 4 stages", "pipe_128x128x8_w64x64_s3 with 4 stages"},
    {"pipe_128x128x16_w64x64_s3", run_pipe<128, 128, 16, 64, 64, 3, 2, 1>, VK_KERNEL, 128, 128, "128x128x16, 128 threads, warp 64x64, 3 stages", "pipe_128x128x8_w64x64_s3 with BK=16"},
    {"pipe_128x128x16_w64x64_s4", run_pipe<128, 128, 16, 64, 64, 4, 2, 1>, VK_KERNEL, 128, 128, "128x128x16, 128 threads, warp 64x64, 4 stages", "pipe_128x128x16_w64x64_s3 with 4 stages"},
    {"pipe_128x256x8_w64x64_s3", run_pipe<128, 256, 8, 64, 64, 3, 1, 1>, VK_KERNEL, 128, 256, "128x256x8, 256 threads, warp 64x64, 3 stages, 1 block/SM", "pipe_128x128x8_w64x64_s3 with a 128x256 block tile"},
    {"pipe_128x256x16_w64x64_s3", run_pipe<128, 256, 16, 64, 64, 3, 1, 1>, VK_KERNEL, 128, 256, "128x256x16, 256 threads, warp 64x64, 3 stages, 1 block/SM", "pipe_128x256x8_w64x64_s3 with BK=16"},
    {"pipe_256x128x8_w64x64_s3", run_pipe<256, 128, 8, 64, 64, 3, 1, 1>, VK_KERNEL, 256, 128, "256x128x8, 256 threads, warp 64x64, 3 stages, 1 block/SM", "pipe_128x128x8_w64x64_s3 with a 256x128 block tile"},
    {"pipe_128x128x8_w64x64_s3_g8", run_pipe<128, 128, 8, 64, 64, 3, 2, 8>, VK_KERNEL, 128, 128, "128x128x8, 128 threads, warp 64x64, 3 stages, bands of 8", "pipe_128x128x8_w64x64_s3 with blocks in bands of 8 tile rows"},
    {"pipe_128x128x16_w64x64_s3_g8", run_pipe<128, 128, 16, 64, 64, 3, 2, 8>, VK_KERNEL, 128, 128, "128x128x16, 128 threads, warp 64x64, 3 stages, bands of 8", "pipe_128x128x16_w64x64_s3 with blocks in bands of 8 tile rows"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ----------------------------------------------------------- */

static long long opt_m = 4096, opt_n = 4096, opt_k = 4096;
static const char *opt_variant = "all";
static char variant_choices[2048];
static char help_notes[8192];

static opt_spec sample_opts[] = {
    OPT_INT_SPEC("m", "M", "rows of A and C", &opt_m, 1, MM_MAX_DIM),
    OPT_INT_SPEC("n", "N", "columns of B and C", &opt_n, 1, MM_MAX_DIM),
    OPT_INT_SPEC("k", "K", "columns of A, rows of B", &opt_k, 1, MM_MAX_DIM),
    OPT_STRING_SPEC("variant", "NAME", "run one variant (cublas is always run: it is the reference)",
                    &opt_variant, variant_choices),
};

/* The --variant choices and the --help notes come from the variant table. */
static void build_help_from_table(void)
{
    const char *names[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) names[v] = variants[v].name;
    if (mm_join_names("all|cpu", names, N_VARIANTS, variant_choices, sizeof variant_choices) < 0) {
        fprintf(stderr, "matrixMul: internal error: variant names do not fit\n");
        exit(1);
    }
    size_t used = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-25s %s\n", "cpu",
                                   "the CPU baseline (double accumulation), timed once");
    for (int v = 0; v < N_VARIANTS && used < sizeof help_notes; v++)
        used += (size_t)snprintf(help_notes + used, sizeof help_notes - used,
                                 "  %-29s %s [%s]\n", variants[v].name, variants[v].what,
                                 variants[v].tile);
    if (used < sizeof help_notes)
        snprintf(help_notes + used, sizeof help_notes - used,
                 "Checks: CPU (double) reference at 1^3, 17^3, 33x65x129, 36x68x20, 260x136x68,\n"
                 "260x264x44, 128^3, 257x263x271 and each kernel's tile shape (BM+4)x(BN+8)x67;\n"
                 "cuBLAS (pedantic FP32) at 1000x1003x997, 1024x1028x1020 and MxNxK; each with\n"
                 "beta=0 (C poisoned) and beta=-0.5, poisoned guard zones after A, B and C.\n"
                 "--quick checks 1^3, 17^3, 36x68x20 and the tile shapes, and times 36x68x20.\n");
}

/* ---- checking ---------------------------------------------------------- */

typedef struct {
    int M, N, K;
} shape;

/* A kernel's own check shape: one whole block tile and a partial one in each
 * direction, (BM+4) x (BN+8), so a dropped last row or column of tiles shows
 * and kernel 7's interior tile takes its unchecked copies next to partial
 * ones; K = 67, a tail at every BK (8, 16, 32), A's rows not a multiple of 4
 * (element-wise loads of A on a grid of several blocks: the float4 path of A
 * is 36x68x20's), and 5 K-steps at BK = 16 or more, so every ring of stages
 * (4 at most) wraps. The library's is the 128x128 kernels'. */
static shape tile_shape(const variant *v)
{
    const int bm = v->bm > 0 ? v->bm : 128, bn = v->bn > 0 ? v->bn : 128;
    const shape t = {bm + 4, bn + 8, 67};
    return t;
}

static int same_shape(const shape *a, const shape *b)
{
    return a->M == b->M && a->N == b->N && a->K == b->K;
}

/* Device buffers sized for the largest shape (A, B and C each followed by a
 * guard zone, common/check.h), and host scratch. */
typedef struct {
    float *d_A, *d_B, *d_C, *d_C0;
    float *h_A, *h_B, *h_C0, *h_out;
    double *h_ref;
    cublasHandle_t h_fp32, h_tf32;
    unsigned long long seed;
} mm_bufs;

static const float CHECK_ALPHA = 1.5f, CHECK_BETA = -0.5f;

/* Put C in its pre-run state: poison for beta == 0 (an unwritten element is
 * NaN and fails), the saved random C for beta != 0. Either way the guard
 * zone right after the M x N elements is poisoned too, so a store to a row
 * past M (or a column past N wrapping beyond the last row) fails check_guard. */
static void prepare_c(const mm_bufs *b, const shape *s, float beta)
{
    size_t bytes = (size_t)s->M * s->N * sizeof(float);
    poison_guarded(b->d_C, bytes);
    if (beta != 0.0f)
        CUDA_CHECK(cudaMemcpy(b->d_C, b->d_C0, bytes, cudaMemcpyDeviceToDevice));
}

static void run_one(const variant *v, const mm_bufs *b, const shape *s, float alpha, float beta)
{
    mm_ctx x = {s->M, s->N, s->K, alpha, beta, b->d_A, b->d_B, b->d_C, b->h_fp32, b->h_tf32};
    prepare_c(b, s, beta);
    v->run(&x, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* Check every wanted variant at one shape, twice (beta = 0 and beta != 0),
 * against the CPU in double (cpu_ref) or against cuBLAS pedantic FP32.
 * A and B are followed by their poisoned guard zones (NaN): a kernel that
 * reads past the end of either (B's rows past K in a K tail copied without
 * its checks) gets NaN into C, whatever an earlier shape left there. */
static void check_shape(const shape *s, int cpu_ref, const int *wanted, int *ok, mm_bufs *b)
{
    size_t na = (size_t)s->M * s->K, nb = (size_t)s->K * s->N, nc = (size_t)s->M * s->N;
    rng_fill_uniform(b->h_A, na, b->seed, RNG_STREAM_A, -1.0f, 1.0f);
    rng_fill_uniform(b->h_B, nb, b->seed, RNG_STREAM_B, -1.0f, 1.0f);
    rng_fill_uniform(b->h_C0, nc, b->seed, RNG_STREAM_C, -1.0f, 1.0f);
    poison_guarded(b->d_A, na * sizeof(float));
    poison_guarded(b->d_B, nb * sizeof(float));
    CUDA_CHECK(cudaMemcpy(b->d_A, b->h_A, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b->d_B, b->h_B, nb * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b->d_C0, b->h_C0, nc * sizeof(float), cudaMemcpyHostToDevice));
    const float betas[2] = {0.0f, CHECK_BETA};
    for (int c = 0; c < 2; c++) {
        float beta = betas[c];
        if (cpu_ref) {
            cpu_sgemm_f64(s->M, s->N, s->K, CHECK_ALPHA, b->h_A, s->K, b->h_B, s->N, beta,
                          b->h_C0, b->h_ref, s->N);
        } else {
            run_one(&variants[0], b, s, CHECK_ALPHA, beta); /* cuBLAS pedantic */
            CUDA_CHECK(cudaMemcpy(b->h_out, b->d_C, nc * sizeof(float), cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < nc; i++) b->h_ref[i] = b->h_out[i];
            if (check_guard("cublas (reference) C", b->d_C, nc * sizeof(float)) != 0) ok[0] = 0;
        }
        for (int v = 0; v < N_VARIANTS; v++) {
            if (!wanted[v] || (!cpu_ref && variants[v].kind == VK_REF)) continue;
            run_one(&variants[v], b, s, CHECK_ALPHA, beta);
            CUDA_CHECK(cudaMemcpy(b->h_out, b->d_C, nc * sizeof(float), cudaMemcpyDeviceToHost));
            int tf32 = variants[v].kind == VK_TF32;
            double abs_tol = tf32 ? mm_tol_tf32_abs(s->K) : mm_tol_fp32(s->K);
            double rel_tol = tf32 ? mm_tol_tf32_rel() : mm_tol_fp32(s->K);
            char what[128];
            snprintf(what, sizeof what, "%s(%dx%dx%d, beta=%g, ref=%s) C", variants[v].name,
                     s->M, s->N, s->K, beta, cpu_ref ? "cpu" : "cublas");
            if (check_close_f32_f64(what, b->h_out, b->h_ref, nc, abs_tol, rel_tol) != 0)
                ok[v] = 0;
            if (check_guard(what, b->d_C, nc * sizeof(float)) != 0) ok[v] = 0;
        }
    }
}

int main(int argc, char **argv)
{
    if (variants[0].kind != VK_REF) { /* check_shape() uses variants[0] as the reference */
        fprintf(stderr, "matrixMul: internal error: variants[0] must be cublas\n");
        return 1;
    }
    build_help_from_table();
    const opts_config cfg = {
        "matrixMul", "C = alpha*A*B + beta*C in FP32: naive to warp tiling, against cuBLAS",
        sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};
    common_opts o;
    opts_parse_or_exit(&cfg, argc, argv, &o);

    shape main_s = {(int)opt_m, (int)opt_n, (int)opt_k};
    if (o.quick) {
        main_s.M = 36;
        main_s.N = 68;
        main_s.K = 20;
    }
    /* Every variant at every shape of cpu_shapes, then at its own tile
     * shape (tile_shape). 260x136x68 is the smallest that spans more than
     * one 128x128 block tile in both M and N (a dropped last tile row or
     * column shows), with the tail of a 16-deep K step; 260x264x44 gives
     * every block tile (up to 256x128 and 128x256) whole tiles inside C,
     * which take the unchecked copies of kernel 7, next to partial ones, and
     * a K tail for BK = 8 and 16. --quick checks quick_shapes and the tile
     * shapes: each variant then runs on a grid of 2x2 of its own block tiles
     * (the big kernels on 2x2 instead of up to 4x3 of them, the small ones
     * on 4 blocks instead of dozens), which is what makes it fit under
     * compute-sanitizer: memcheck's time grows with the accesses, and at the
     * six shapes of earlier versions one --quick run took over 280 s. */
    static const shape cpu_shapes[] = {{1, 1, 1},      {17, 17, 17},    {33, 65, 129},
                                       {36, 68, 20},   {260, 136, 68},  {260, 264, 44},
                                       {128, 128, 128}, {257, 263, 271}};
    static const shape quick_shapes[] = {{1, 1, 1}, {17, 17, 17}, {36, 68, 20}};
    static const shape gpu_shapes[] = {{1000, 1003, 997}, {1024, 1028, 1020}};
    const shape *fixed = o.quick ? quick_shapes : cpu_shapes;
    const int n_cpu = o.quick ? (int)(sizeof quick_shapes / sizeof quick_shapes[0])
                              : (int)(sizeof cpu_shapes / sizeof cpu_shapes[0]);
    const int n_gpu = o.quick ? 0 : (int)(sizeof gpu_shapes / sizeof gpu_shapes[0]);

    /* Buffers hold the largest of every shape used. */
    long long maxA = (long long)main_s.M * main_s.K, maxB = (long long)main_s.K * main_s.N,
              maxC = (long long)main_s.M * main_s.N;
    for (int i = 0; i < n_cpu + n_gpu + N_VARIANTS; i++) {
        const shape s = i < n_cpu           ? fixed[i]
                        : i < n_cpu + n_gpu ? gpu_shapes[i - n_cpu]
                                            : tile_shape(&variants[i - n_cpu - n_gpu]);
        if ((long long)s.M * s.K > maxA) maxA = (long long)s.M * s.K;
        if ((long long)s.K * s.N > maxB) maxB = (long long)s.K * s.N;
        if ((long long)s.M * s.N > maxC) maxC = (long long)s.M * s.N;
    }
    char err[200];
    if (mm_device_bytes(main_s.M, main_s.N, main_s.K, 1ULL << 40, err, sizeof err) == 0) {
        fprintf(stderr, "matrixMul: error: %s\n", err);
        printf("matrixMul: FAIL (bad argument)\n");
        return 1;
    }
    int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;
    int wanted[N_VARIANTS], ok[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) {
        wanted[v] = variants[v].kind == VK_REF || !strcmp(opt_variant, "all") ||
                    !strcmp(opt_variant, variants[v].name);
        ok[v] = 1;
    }

    report_init("matrixMul", o.json);
    device_info dev;
    device_setup_or_exit("matrixMul", o.device, o.json, &dev);

    mm_bufs b;
    memset(&b, 0, sizeof b);
    b.seed = o.seed;
    b.h_A = (float *)malloc((size_t)maxA * sizeof(float));
    b.h_B = (float *)malloc((size_t)maxB * sizeof(float));
    b.h_C0 = (float *)malloc((size_t)maxC * sizeof(float));
    b.h_out = (float *)malloc((size_t)maxC * sizeof(float));
    b.h_ref = (double *)malloc((size_t)maxC * sizeof(double));
    if (!b.h_A || !b.h_B || !b.h_C0 || !b.h_out || !b.h_ref) {
        report_fail("cannot allocate host memory for %lldx%lldx%lld", (long long)main_s.M,
                    (long long)main_s.N, (long long)main_s.K);
        return report_finish();
    }
    b.d_A = (float *)guarded_malloc((size_t)maxA * sizeof(float));   /* inputs: NaN after them */
    b.d_B = (float *)guarded_malloc((size_t)maxB * sizeof(float));
    b.d_C = (float *)guarded_malloc((size_t)maxC * sizeof(float));   /* the output: guard after it */
    CUDA_CHECK(cudaMalloc(&b.d_C0, (size_t)maxC * sizeof(float)));
    CUBLAS_CHECK(cublasCreate(&b.h_fp32));
    CUBLAS_CHECK(cublasCreate(&b.h_tf32));
    CUBLAS_CHECK(cublasSetMathMode(b.h_fp32, CUBLAS_PEDANTIC_MATH));
    CUBLAS_CHECK(cublasSetMathMode(b.h_tf32, CUBLAS_TF32_TENSOR_OP_MATH));

    report_note("M=%d N=%d K=%d, inputs uniform in [-1,1) (seed %llu); timed with alpha=1, "
                "beta=0; L2 not flushed (compute-bound)",
                main_s.M, main_s.N, main_s.K, (unsigned long long)o.seed);
    report_note("FP32 tolerance abs = rel = (K+16)*2^-22 (%.3g at K=%d); TF32 abs = "
                "sqrt(K)*2^-8, rel = 2^-8", mm_tol_fp32(main_s.K), main_s.K);

    /* 1. Every wanted variant, cuBLAS included, against the CPU at small
     * shapes that are not multiples of any tile (and a few that are), then
     * each at its own tile shape (the variants that share one, together;
     * none again at a shape already checked). */
    for (int i = 0; i < n_cpu; i++) check_shape(&fixed[i], 1, wanted, ok, &b);
    for (int v = 0; v < N_VARIANTS; v++) {
        const shape ts = tile_shape(&variants[v]);
        int seen = 0, these[N_VARIANTS];
        for (int i = 0; i < n_cpu; i++) seen |= same_shape(&fixed[i], &ts);
        for (int u = 0; u < v; u++) {
            const shape tu = tile_shape(&variants[u]);
            seen |= wanted[u] && same_shape(&tu, &ts);
        }
        if (!wanted[v] || seen) continue;
        for (int u = 0; u < N_VARIANTS; u++) {
            const shape tu = tile_shape(&variants[u]);
            these[u] = wanted[u] && same_shape(&tu, &ts);
        }
        check_shape(&ts, 1, these, ok, &b);
    }
    /* 2. Large shapes against cuBLAS pedantic, once it has passed the CPU. */
    int main_is_cpu_checked = 0;
    for (int i = 0; i < n_cpu; i++)
        if (same_shape(&fixed[i], &main_s)) main_is_cpu_checked = 1;
    if (!ok[0]) {
        report_fail("cublas (the reference) failed its CPU checks: large shapes not checked");
        for (int v = 0; v < N_VARIANTS; v++) ok[v] = 0;
    } else {
        for (int i = 0; i < n_gpu; i++) check_shape(&gpu_shapes[i], 0, wanted, ok, &b);
        if (!main_is_cpu_checked) check_shape(&main_s, 0, wanted, ok, &b);
    }

    /* 3. The CPU baseline, timed once at the largest CPU-checked shape. */
    result_rec r;
    if (opts_variant_runs_cpu(opt_variant)) {
        const shape *s = &fixed[0];
        for (int i = 1; i < n_cpu; i++)
            if ((double)fixed[i].M * fixed[i].N * fixed[i].K > (double)s->M * s->N * s->K)
                s = &fixed[i];
        /* the output's pages are touched first: the loop is timed, not page faults */
        host_prefault(b.h_ref, (size_t)s->M * s->N * sizeof(double));
        double t0 = host_seconds();
        cpu_sgemm_f64(s->M, s->N, s->K, 1.0, b.h_A, s->K, b.h_B, s->N, 0.0, b.h_C0, b.h_ref,
                      s->N);
        double ms = (host_seconds() - t0) * 1e3;
        rec_begin(&r, "cpu");
        rec_int(&r, "m", s->M);
        rec_int(&r, "n", s->N);
        rec_int(&r, "k", s->K);
        rec_str(&r, "status", "PASS");
        rec_perf(&r, ms, "gflops", mm_gflops(s->M, s->N, s->K, ms), 0, NULL, 0);
        rec_emit(&r);
    }

    /* 4. Time at the main shape, the reference first so pct_ref is from
     * this run. Inputs are the main shape's (regenerated: checks reused the
     * buffers). */
    {
        size_t na = (size_t)main_s.M * main_s.K, nb = (size_t)main_s.K * main_s.N;
        rng_fill_uniform(b.h_A, na, b.seed, RNG_STREAM_A, -1.0f, 1.0f);
        rng_fill_uniform(b.h_B, nb, b.seed, RNG_STREAM_B, -1.0f, 1.0f);
        CUDA_CHECK(cudaMemcpy(b.d_A, b.h_A, na * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(b.d_B, b.h_B, nb * sizeof(float), cudaMemcpyHostToDevice));
    }
    mm_ctx ctx = {main_s.M, main_s.N, main_s.K, 1.0f, 0.0f, b.d_A, b.d_B, b.d_C, b.h_fp32,
                  b.h_tf32};
    double ref_gflops = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        if (!wanted[v]) continue;
        rec_begin(&r, var->name);
        rec_int(&r, "m", main_s.M);
        rec_int(&r, "n", main_s.N);
        rec_int(&r, "k", main_s.K);
        if (!ok[v]) {
            rec_str(&r, "status", "FAIL");
            rec_emit(&r);
            continue;
        }
        char range[64];
        snprintf(range, sizeof range, "matrixMul/%s", var->name);
        timing_cfg tc = timing_defaults(reps);
        tc.nvtx_name = range;
        timing_stats t;
        time_gpu(var->run, &ctx, &tc, &t);
        double gflops = mm_gflops(main_s.M, main_s.N, main_s.K, t.median_ms);
        if (var->kind == VK_REF) ref_gflops = gflops;
        rec_str(&r, "status", "PASS");
        /* pct_peak against the units that did the work: the TF32 tensor
         * cores for cublas_tf32 (against the FP32 peak it read 608%), the
         * FP32 lanes for everything else; no pct_peak where that is unknown */
        double peak = var->kind == VK_TF32 ? dev.peak_tf32_gflops : dev.peak_gflops;
        rec_perf(&r, t.median_ms, "gflops", gflops, peak, "cublas", ref_gflops);
        if (var->kind == VK_TF32) rec_str(&r, "peak", "tf32_tensor");
        /* TF32 is another precision: context, never a headline or a target */
        if (var->kind == VK_TF32) rec_str(&r, "role", "context");
        rec_num(&r, "min_ms", t.min_ms);
        rec_emit(&r);
    }

    CUBLAS_CHECK(cublasDestroy(b.h_fp32));
    CUBLAS_CHECK(cublasDestroy(b.h_tf32));
    guarded_free(b.d_A);
    guarded_free(b.d_B);
    guarded_free(b.d_C);
    CUDA_CHECK(cudaFree(b.d_C0));
    free(b.h_A);
    free(b.h_B);
    free(b.h_C0);
    free(b.h_out);
    free(b.h_ref);
    return report_finish();
}
