/* kernels/00_warp_tile.cuh: the warp tile of warp_layout and every step
 * after it.
 *
 * The block tile is split into WM x WN warp tiles. Inside a warp, lane
 * (ly = lane / 4, lx = lane % 4) owns a block of outputs made of 4x4
 * sub-blocks, SUB_M = WM / 32 of them down and SUB_N = WN / 16 across:
 *   rows  wm*WM + i*32 + ly*4 + (0..3),  i < SUB_M
 *   cols  wn*WN + j*16 + lx*4 + (0..3),  j < SUB_N.
 * For one k the warp then reads 8 consecutive float4s of A (128 bytes) and 4
 * of B (64 bytes, broadcast): each shared load is one conflict-free
 * wavefront, where the contiguous 8x8 layout of padded_a made a warp read
 * 16 different float4s 32 bytes apart (512 bytes) per load of B. warp_layout
 * and warptile_* use 64x32 warp tiles (8x8 per lane); cpasync_*,
 * unchecked_* and pipe_* take the warp tile as a parameter, 64x32 or 64x64
 * (8x16 per lane).
 */
#pragma once
#include "00_load_store.cuh"
#include "00_register_tiles.cuh"

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
