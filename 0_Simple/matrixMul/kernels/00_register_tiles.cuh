/* kernels/00_register_tiles.cuh: helpers of the steps from vec_global_loads
 * to warptile_*: a block's tile of A or B read from global memory as float4s
 * into registers (load_a_regs, load_b_regs), then stored to shared memory as
 * it is (store_a_smem_rows, store_b_smem) or with A transposed
 * (store_a_smem); the outer product of a thread's fragments; the store of an
 * 8x8 thread tile.
 */
#pragma once
#include "00_load_store.cuh"

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
