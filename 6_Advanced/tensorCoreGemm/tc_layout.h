/* tc_layout.h: the address arithmetic that the kernels and the CPU tests share.
 *
 * Everything here is a pure function of integers, compiled twice: by nvcc into
 * the kernels (TC_HD = __host__ __device__ __forceinline__) and by gcc into the
 * cmocka tests (tests/test_tc_host.c), so the swizzle, the wgmma shared-memory
 * descriptor and the tile order the GPU uses are the ones the tests check.
 *
 *   tc_swz128(row, chunk)       the 128-byte XOR swizzle of 16-byte chunks: the
 *                               layout mma_ldmatrix/mma_cpasync write by hand and
 *                               TMA's CU_TENSOR_MAP_SWIZZLE_128B writes in hardware
 *   tc_wgmma_desc(addr, lbo, sbo)  the 64-bit shared-memory matrix descriptor of
 *                               wgmma.mma_async with the 128-byte swizzle
 *   tc_tile_of(t, ...)          block tile t -> (tile row, tile column), grouped
 *                               so that consecutive blocks share panels of A and B in L2
 *   tc_tail_split, tc_unit_of   step 17: the last round's tiles cut along K, and
 *                               which tile and K-steps each block multiplies
 */
#ifndef TC_LAYOUT_H
#define TC_LAYOUT_H

#include <stdint.h>

#ifdef __CUDACC__
#define TC_HD __host__ __device__ __forceinline__
#else
#define TC_HD static inline
#endif

/* ---- the 128-byte swizzle ------------------------------------------------
 * A shared-memory row of 128 bytes holds eight 16-byte chunks. Storing chunk c
 * of row r at chunk position c ^ (r % 8) puts the same logical chunk of eight
 * consecutive rows into eight different 16-byte bank groups, so an ldmatrix
 * (8 lanes reading chunk c of rows r..r+7) or a wgmma operand fetch is free of
 * bank conflicts. Rows longer than 128 bytes (B tiles of 256 bytes) swizzle
 * each 128-byte half the same way: only the low three bits of the chunk index
 * change. This is exactly the address transformation of TMA's
 * CU_TENSOR_MAP_SWIZZLE_128B and of wgmma's 128B swizzle mode: byte-address
 * bits [4:6] ^= bits [7:9], for a tile whose base is 1024-byte aligned. */
TC_HD uint32_t tc_swz128(uint32_t row, uint32_t chunk)
{
    return chunk ^ (row & 7u);
}

/* Byte offset of element (row, col) of a bf16 tile with rows of row_bytes
 * (a multiple of 128) under the 128-byte swizzle. */
TC_HD uint32_t tc_swz128_offset(uint32_t row, uint32_t col, uint32_t row_bytes)
{
    uint32_t chunk = col / 8u; /* 8 bf16 per 16-byte chunk */
    return row * row_bytes + tc_swz128(row, chunk) * 16u + (col % 8u) * 2u;
}

/* ---- the wgmma shared-memory matrix descriptor ---------------------------
 * PTX ISA, "Matrix Descriptor Format" (wgmma.mma_async), 64 bits:
 *   bits  0-13  start address >> 4          (shared-memory byte address)
 *   bits 16-29  leading dimension byte offset >> 4   (LBO)
 *   bits 32-45  stride dimension byte offset >> 4    (SBO)
 *   bits 49-51  base offset (0: every swizzle pattern starts 1024-aligned)
 *   bits 62-63  swizzle mode: 0 none, 1 128B, 2 64B, 3 32B
 * each field holding (x & 0x3FFFF) >> 4. What LBO and SBO mean depends on the
 * operand's major-ness (PTX ISA, "Strides"), for the 128B swizzle in bf16:
 *   K-major (A here: rows of K):   SBO = bytes from one 8-row group to the next
 *                                  (1024 with 128-byte rows); LBO unused (1).
 *   MN-major (B here: rows of N):  LBO = bytes from one 64-column (128-byte)
 *                                  block of N to the next; SBO = bytes from one
 *                                  8-row group of K to the next (1024).
 * The canonical layouts behind this (CuTe notation, T = 8 bf16 per 16 bytes):
 *   K-major  ((8,m),(T,2k)):((8T,SBO),(1,T))     MN-major ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))
 * tests/test_tc_host.c evaluates both and checks them against the layout a TMA
 * box with CU_TENSOR_MAP_SWIZZLE_128B writes. */
#define TC_DESC_SWIZZLE_128B 1u

TC_HD uint64_t tc_desc_encode(uint32_t x)
{
    return (uint64_t)((x & 0x3FFFFu) >> 4);
}

TC_HD uint64_t tc_wgmma_desc(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes)
{
    return tc_desc_encode(smem_addr) | (tc_desc_encode(lbo_bytes) << 16) |
           (tc_desc_encode(sbo_bytes) << 32) | ((uint64_t)TC_DESC_SWIZZLE_128B << 62);
}

/* ---- block tile order ------------------------------------------------------
 * Tiles are numbered t = 0 .. tiles_m * tiles_n - 1 (blockIdx.x, or the loop
 * of a persistent block). Row-major numbering would give the ~132 blocks in
 * flight one or two rows of tiles: every block needs a different panel of B,
 * and all of B streams through L2 once per wave. Grouping `group` tile rows
 * together (walking down a group's rows first, then across) makes the blocks
 * in flight cover a squarer patch of C, so each panel of A and of B is read
 * by several blocks while it is still in L2. */
TC_HD void tc_tile_of(int t, int tiles_m, int tiles_n, int group, int *tm, int *tn)
{
    int per_group = group * tiles_n;
    int g = t / per_group;
    int first_m = g * group;
    int rows = tiles_m - first_m < group ? tiles_m - first_m : group;
    int in_group = t % per_group;
    *tm = first_m + in_group % rows;
    *tn = in_group / rows;
}

/* ---- the last wave split along K (step 17) ---------------------------------
 * A persistent grid of `grid` blocks over `ntiles` tiles runs ntiles / grid
 * full rounds and then a last round of R = ntiles % grid tiles, with
 * grid - R blocks idle (6000x5000x4000 in 128x256 tiles: 940 tiles on 132
 * SMs, a last round of 16 tiles: 116 SMs idle for a whole tile's time).
 * The split: the first ntiles - R tiles stay whole ("data-parallel": block b
 * takes tiles b, b + grid, ...); each of the R tail tiles is cut along K into
 * S = grid / R pieces (at most one per K-step), so R * S <= grid blocks each
 * multiply one piece. A piece's sums go to the workspace, slot = the block
 * that made it; a second kernel adds a tail tile's S partial tiles in the
 * fixed order piece 0, 1, ..., S-1 and stores the tile: the result is the
 * same on every run. When S would be 1 (R > grid / 2, or R = 0) nothing is
 * split and every tile stays whole. */
typedef struct {
    int dp_tiles;    /* tiles 0 .. dp_tiles-1: whole, stored straight to C */
    int split_tiles; /* tiles dp_tiles .. ntiles-1: cut into `pieces` along K */
    int pieces;      /* 1 when nothing is split */
} tc_tail_plan;

TC_HD tc_tail_plan tc_tail_split(int ntiles, int grid, int nk)
{
    tc_tail_plan p;
    int r = ntiles % grid; /* ntiles < grid: every tile is in the last round */
    int s = r > 0 ? grid / r : 1;
    if (s > nk) s = nk; /* a piece is at least one K-step */
    if (s < 2) {
        p.dp_tiles = ntiles;
        p.split_tiles = 0;
        p.pieces = 1;
    } else {
        p.dp_tiles = ntiles - r;
        p.split_tiles = r;
        p.pieces = s;
    }
    return p;
}

/* One unit of work: K-steps [k0, k1) of tile `tile`; slot < 0: the whole K,
 * stored to C; slot >= 0: a piece, its sums stored to workspace slot `slot`. */
typedef struct {
    int tile, k0, k1, slot;
} tc_unit;

/* Block b's unit number u (0, 1, ...) of the plan: its whole tiles first,
 * then its piece of a tail tile, if it has one. Returns 0 past its last. */
TC_HD int tc_unit_of(const tc_tail_plan *p, int b, int u, int grid, int nk, tc_unit *w)
{
    int n_whole = p->dp_tiles > b ? (p->dp_tiles - 1 - b) / grid + 1 : 0;
    if (u < n_whole) {
        w->tile = b + u * grid;
        w->k0 = 0;
        w->k1 = nk;
        w->slot = -1;
        return 1;
    }
    if (u == n_whole && b < p->split_tiles * p->pieces) {
        int s = b % p->pieces;
        w->tile = p->dp_tiles + b / p->pieces;
        w->k0 = s * nk / p->pieces;
        w->k1 = (s + 1) * nk / p->pieces;
        w->slot = b;
        return 1;
    }
    return 0;
}

#endif /* TC_LAYOUT_H */
