/* blur: a 3x3 mean and a radius-r box mean over a region of interest (ROI) of
 * a float image in a pitched allocation, from one thread per pixel to a
 * register sliding window that runs at the speed of a copy.
 *
 * What it teaches: rows of a pitched allocation are `pitch` bytes apart, not
 * width * 4 (the 8_Debugging pitch case is this sample with that one
 * mistake); an exact edge rule and how to check it; shared-memory tiles with
 * a halo; separable filters and what their intermediate costs; and why a
 * stencil that reads every pixel from DRAM once is judged against a linear
 * cudaMemcpy of the same bytes.
 *
 * Edge rule (ROI coordinates, radius r; r = 1 is the 3x3 mean):
 *   out(x, y) = sum of in(i, j) over |i - x| <= r, |j - y| <= r,
 *               0 <= i < width, 0 <= j < height,
 *               divided by the number of those pixels,
 *               (min(x+r, width-1) - max(x-r, 0) + 1) * (min(y+r, height-1) - max(y-r, 0) + 1).
 *   Image pixels outside the ROI are never part of a mean, even where the
 *   image has them; only ROI pixels of the output are written.
 *
 * Build:  make -C 3_Imaging/blur               (or `make blur` at the top)
 * Run:    bin/blur                             16384x16384 ROI at (32, 8) of a 16448x16400 image
 *         bin/blur --quick                     small sizes, for compute-sanitizer
 *         bin/blur --radius=4                  the radius-4 box (the window variants are 3x3 only)
 *         bin/blur --x0=3 --pitch=65796        an unaligned ROI in rows that are not 16-byte aligned
 * Variants (one table below drives checks, timing and --help):
 *   cpu           the CPU reference (common/cpu_ref.c, double sums), timed once
 *   memcpy_d2d    cudaMemcpy device-to-device of width*height*4 bytes: the reference
 *   direct        one thread per pixel, every tap a global load
 *   smem_tile     a 32x8 block loads its pixels and an r-pixel halo into shared memory
 *   separable     row sums into an intermediate image, then column sums and the mean
 *   window_4x8    3x3 only: 4 columns x 8 rows per thread, float4 loads, a register window
 *   window_4x32   the same with 32-row strips
 *   window_8x8    the same with 8 columns (two float4) per thread
 *
 * Bytes counted: 8 per ROI pixel (one 4-byte read, one 4-byte write), 1e9
 * per GB, for every variant and for the copy, which moves exactly those bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "blur_host.h"
#include "check.h"
#include "cpu_ref.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "report.h"
#include "timing.h"

/* ---- device helpers ---------------------------------------------------- */

/* Everything a kernel needs, passed by value. in and out are separate
 * allocations of the same geometry: the ROI's pixel (x, y) is at byte
 * (y0 + y) * pitch + (x0 + x) * 4 of each. */
typedef struct {
    const float *in;   /* the input allocation: image row 0, column 0 */
    float *out;        /* the output allocation, same pitch */
    size_t pitch;      /* bytes from one row to the next, in both */
    int x0, y0;        /* the ROI's first column and row in the image */
    int width, height; /* the ROI's size in pixels */
    int radius;        /* half the box's side: 1 is the 3x3 mean */
    float *tmp;        /* separable only: width x height row sums */
    size_t tmp_pitch;  /* bytes per row of tmp */
} blur_args;

/* Byte offset of ROI row y (0 <= y < height) in an allocation: image row
 * y0 + y. The stride is the pitch, never width * sizeof(float): the width is
 * the ROI's, and even the image's own rows are padded to an aligned pitch
 * (README, "Pitch and the region of interest"). */
__device__ __forceinline__ size_t roi_row_offset(const blur_args *a, int y)
{
    return (size_t)(a->y0 + y) * a->pitch;
}

/* ROI row y of the input and of the output, pointing at image column 0. */
__device__ __forceinline__ const float *in_row(const blur_args *a, int y)
{
    return (const float *)((const char *)a->in + roi_row_offset(a, y));
}

__device__ __forceinline__ float *out_row(const blur_args *a, int y)
{
    return (float *)((char *)a->out + roi_row_offset(a, y));
}

__device__ __forceinline__ float *tmp_row(const blur_args *a, int y)
{
    return (float *)((char *)a->tmp + (size_t)y * a->tmp_pitch);
}

/* The edge rule's divisor: the ROI pixels in the box of radius r around ROI
 * pixel (x, y), the box clipped to the ROI, columns times rows. */
__device__ __forceinline__ int box_count(int x, int y, int w, int h, int r)
{
    int cols = min(x + r, w - 1) - max(x - r, 0) + 1;
    int rows = min(y + r, h - 1) - max(y - r, 0) + 1;
    return cols * rows;
}

/* ---- kernels ----------------------------------------------------------- */

#define DIRECT_TW 32   /* direct: a block is 32 columns (one warp) by 8 rows */
#define DIRECT_TH 8

/* 1. direct: one thread per output pixel, (2r+1)^2 loads from global memory.
 * Neighbouring threads load mostly the same pixels, so L1 absorbs most of
 * them; what is left is nine load instructions per pixel for radius 1. */
__global__ void __launch_bounds__(DIRECT_TW * DIRECT_TH) blur_direct(blur_args a)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   /* ROI column */
    int y = blockIdx.y * blockDim.y + threadIdx.y;   /* ROI row */
    if (x >= a.width || y >= a.height) return;   /* the last blocks hang past the ROI */
    const int r = a.radius;
    const int xlo = max(x - r, 0), xhi = min(x + r, a.width - 1);
    const int ylo = max(y - r, 0), yhi = min(y + r, a.height - 1);
    float s = 0.0f;
    for (int yy = ylo; yy <= yhi; yy++) {
        const float *row = in_row(&a, yy) + a.x0;
        for (int xx = xlo; xx <= xhi; xx++) s += row[xx];
    }
    out_row(&a, y)[a.x0 + x] = s / (float)box_count(x, y, a.width, a.height, r);
}

#define TILE_W 32   /* smem_tile: outputs per block, 32 x 8, one per thread */
#define TILE_H 8

/* 2. smem_tile: the block first copies its 32x8 pixels and the r-pixel halo
 * around them into shared memory, once, with consecutive threads on
 * consecutive columns; then each thread sums its box from shared memory.
 * Each input pixel is loaded (32+2r)(8+2r)/256 times instead of (2r+1)^2
 * (1.33 against 9 for radius 1), at the price of a barrier. Pixels outside
 * the ROI go into the tile as 0, so every thread sums a full (2r+1)^2 box
 * and only the divisor follows the edge rule. */
__global__ void __launch_bounds__(TILE_W * TILE_H) blur_smem_tile(blur_args a)
{
    __shared__ float tile[TILE_H + 2 * BLUR_MAX_RADIUS][TILE_W + 2 * BLUR_MAX_RADIUS];
    const int r = a.radius;
    const int bx = blockIdx.x * TILE_W, by = blockIdx.y * TILE_H;   /* first output */
    const int tile_w = TILE_W + 2 * r, tile_h = TILE_H + 2 * r;   /* outputs plus halo */
    for (int i = threadIdx.y * TILE_W + threadIdx.x; i < tile_w * tile_h; i += TILE_W * TILE_H) {
        const int ty = i / tile_w, tx = i - ty * tile_w;
        const int gx = bx - r + tx, gy = by - r + ty;   /* ROI coordinates */
        float v = 0.0f;
        if (gx >= 0 && gx < a.width && gy >= 0 && gy < a.height) v = in_row(&a, gy)[a.x0 + gx];
        tile[ty][tx] = v;
    }
    __syncthreads();   /* the tile is complete before anyone reads a neighbour's pixel */
    const int x = bx + threadIdx.x, y = by + threadIdx.y;
    if (x < a.width && y < a.height) {   /* after the barrier: every thread reached it */
        float s = 0.0f;
        for (int dy = 0; dy <= 2 * r; dy++)
            for (int dx = 0; dx <= 2 * r; dx++) s += tile[threadIdx.y + dy][threadIdx.x + dx];
        out_row(&a, y)[a.x0 + x] = s / (float)box_count(x, y, a.width, a.height, r);
    }
}

#define ROWPASS_TW 128   /* separable row pass: a block is 128 columns by 4 rows */
#define ROWPASS_TH 4
#define COLPASS_TW 32    /* separable column pass: 32 columns by 8 rows */
#define COLPASS_TH 8

/* 3a. separable, row pass: tmp(x, y) = the sum of the ROI pixels of row y
 * in columns x-r .. x+r (a sum, not a mean: the column pass divides once).
 * The block's 128 columns and the r on each side sit in shared memory. */
__global__ void __launch_bounds__(ROWPASS_TW * ROWPASS_TH) box_row_sums(blur_args a)
{
    __shared__ float seg[ROWPASS_TH][ROWPASS_TW + 2 * BLUR_MAX_RADIUS];
    const int r = a.radius;
    const int bx = blockIdx.x * ROWPASS_TW;
    const int y = blockIdx.y * ROWPASS_TH + threadIdx.y;
    const bool row_ok = y < a.height;   /* the last block may hang past the last row */
    for (int tx = threadIdx.x; tx < ROWPASS_TW + 2 * r; tx += ROWPASS_TW) {
        const int gx = bx - r + tx;
        float v = 0.0f;
        if (row_ok && gx >= 0 && gx < a.width) v = in_row(&a, y)[a.x0 + gx];
        seg[threadIdx.y][tx] = v;
    }
    __syncthreads();   /* the row segments are complete */
    const int x = bx + threadIdx.x;
    if (row_ok && x < a.width) {
        float s = 0.0f;
        for (int d = 0; d <= 2 * r; d++) s += seg[threadIdx.y][threadIdx.x + d];
        tmp_row(&a, y)[x] = s;
    }
}

/* 3b. separable, column pass: out(x, y) = the sum of tmp(x, y-r .. y+r)
 * over ROI rows, divided by the edge rule's count. 2(2r+1) additions per
 * pixel instead of (2r+1)^2, but tmp costs a write and a read of 4 bytes
 * per pixel: 16 bytes per pixel move instead of 8. */
__global__ void __launch_bounds__(COLPASS_TW * COLPASS_TH) box_col_means(blur_args a)
{
    __shared__ float seg[COLPASS_TH + 2 * BLUR_MAX_RADIUS][COLPASS_TW];
    const int r = a.radius;
    const int x = blockIdx.x * COLPASS_TW + threadIdx.x;
    const int by = blockIdx.y * COLPASS_TH;
    const bool col_ok = x < a.width;
    for (int ty = threadIdx.y; ty < COLPASS_TH + 2 * r; ty += COLPASS_TH) {
        const int gy = by - r + ty;
        float v = 0.0f;
        if (col_ok && gy >= 0 && gy < a.height) v = tmp_row(&a, gy)[x];
        seg[ty][threadIdx.x] = v;
    }
    __syncthreads();   /* the column segments are complete */
    const int y = by + threadIdx.y;
    if (col_ok && y < a.height) {
        float s = 0.0f;
        for (int d = 0; d <= 2 * r; d++) s += seg[threadIdx.y + d][threadIdx.x];
        out_row(&a, y)[a.x0 + x] = s / (float)box_count(x, y, a.width, a.height, r);
    }
}

/* 4. window: the 3x3 mean at the speed of a copy. What changes from
 * smem_tile, and why:
 *   - a thread owns COLS adjacent columns (a column group aligned to COLS in
 *     image columns, so its float4 loads are 16-byte aligned whatever x0 is)
 *     and walks down a strip of ROWS rows: each input row is loaded once per
 *     strip, plus the two rows above and below it;
 *   - the row's horizontal 3-sums need the columns just left and right of
 *     the group: the lanes beside it hold them (two shuffles); only lanes 0
 *     and 31 load them, as one scalar each;
 *   - down the columns, the 3-sums of the rows above and below stay in
 *     registers (the sliding window); the mean is their sum over the rows;
 *   - WIN_CHUNK rows are loaded before any is used, so each thread keeps
 *     WIN_CHUNK 16-byte loads in flight: HBM needs many bytes in flight per
 *     SM, and a loop that waits for each row before loading the next has one;
 *   - no shared memory, no barriers, one division per pixel only at the ROI's
 *     edges (elsewhere the divisor is 9: a multiply by 1/9).
 * Values outside the ROI are zeroed after loading; a float4 is loaded only
 * when it holds a ROI column, so it never leaves its row of the allocation
 * (rows hold whole float4s when the pitch is a multiple of 16; otherwise
 * VEC is false and every access is 4 bytes wide). */
#define WIN_THREADS 128   /* threads per block: 4 warps side by side along a row */
#define WIN_CHUNK 8       /* rows loaded together: loads in flight per thread */
#define FULL_MASK 0xffffffffu

/* The raw pixels of ROI row y that a thread needs: its COLS columns from
 * c0 (image columns), and the columns just left and right of them when the
 * thread is at a warp's edge. Rows and columns outside the ROI read as 0.
 * The COLS-wide loads are issued unconditionally, so that no branch stands
 * between the loads of a chunk: one that would hold no ROI pixel (a row
 * past the ROI, a group past its end) reads a valid address instead (ROI
 * row 0, the float4 or pixel holding column lo) and its values are zeroed. */
template <int COLS, bool VEC>
__device__ __forceinline__ void window_load_row(const blur_args *a, int y, int c0, int lane,
                                                float v[COLS], float *left, float *right)
{
    const int lo = a->x0, hi = a->x0 + a->width;   /* the ROI's image columns [lo, hi) */
    const bool row_ok = y >= 0 && y < a->height;
    const float *row = in_row(a, row_ok ? y : 0);
#pragma unroll
    for (int k = 0; k < COLS; k += 4) {
        if (VEC) {
            const int c = c0 + k;
            const int safe = (c < hi && c + 3 >= lo) ? c : (lo & ~3);   /* an aligned float4 of the row */
            const float4 q = __ldg((const float4 *)(row + safe));
            v[k] = q.x;
            v[k + 1] = q.y;
            v[k + 2] = q.z;
            v[k + 3] = q.w;
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++) v[k + j] = __ldg(row + min(max(c0 + k + j, lo), hi - 1));
        }
    }
#pragma unroll
    for (int k = 0; k < COLS; k++)
        if (!row_ok || c0 + k < lo || c0 + k >= hi) v[k] = 0.0f;   /* not part of any mean */
    *left = 0.0f;
    *right = 0.0f;
    if (lane == 0 && row_ok && c0 - 1 >= lo && c0 - 1 < hi) *left = __ldg(row + c0 - 1);
    if (lane == 31 && row_ok && c0 + COLS >= lo && c0 + COLS < hi) *right = __ldg(row + c0 + COLS);
}

/* Horizontal 3-sums of a thread's COLS pixels. Every lane of the warp must
 * call this (the shuffles read the neighbours' registers). */
template <int COLS>
__device__ __forceinline__ void window_row_sums(const float v[COLS], float left, float right,
                                                int lane, float h[COLS])
{
    const float from_left = __shfl_up_sync(FULL_MASK, v[COLS - 1], 1);
    const float from_right = __shfl_down_sync(FULL_MASK, v[0], 1);
    if (lane != 0) left = from_left;
    if (lane != 31) right = from_right;
    h[0] = left + v[0] + v[1];
#pragma unroll
    for (int k = 1; k < COLS - 1; k++) h[k] = v[k - 1] + v[k] + v[k + 1];
    h[COLS - 1] = v[COLS - 2] + v[COLS - 1] + right;
}

/* Output row y from the 3-sums of rows y-1, y, y+1 (zeros outside the ROI). */
template <int COLS, bool VEC>
__device__ __forceinline__ void window_store_row(const blur_args *a, int y, int c0,
                                                 const float up[COLS], const float mid[COLS],
                                                 const float down[COLS])
{
    const int lo = a->x0, hi = a->x0 + a->width;
    float o[COLS];
#pragma unroll
    for (int k = 0; k < COLS; k++) o[k] = up[k] + mid[k] + down[k];
    if (c0 - 1 >= lo && c0 + COLS < hi && y > 0 && y < a->height - 1) {
#pragma unroll
        for (int k = 0; k < COLS; k++) o[k] *= 1.0f / 9.0f;   /* all 9 neighbours in the ROI */
    } else {
#pragma unroll
        for (int k = 0; k < COLS; k++)   /* at the ROI's edges: count them */
            o[k] /= (float)box_count(c0 + k - lo, y, a->width, a->height, 1);
    }
    float *row = out_row(a, y);
    if (VEC && c0 >= lo && c0 + COLS <= hi) {   /* the whole group is in the ROI */
#pragma unroll
        for (int k = 0; k < COLS; k += 4)
            *(float4 *)(row + c0 + k) = make_float4(o[k], o[k + 1], o[k + 2], o[k + 3]);
    } else {
#pragma unroll
        for (int k = 0; k < COLS; k++)
            if (c0 + k >= lo && c0 + k < hi) row[c0 + k] = o[k];
    }
}

template <int COLS, int ROWS, bool VEC>
__global__ void __launch_bounds__(WIN_THREADS) blur3x3_window(blur_args a)
{
    static_assert(COLS % 4 == 0, "a thread's columns are whole float4s");
    static_assert(ROWS % WIN_CHUNK == 0, "a strip is whole chunks of rows");
    static_assert(WIN_THREADS % 32 == 0, "the shuffles need whole warps");
    const int lane = threadIdx.x & 31;
    /* my column group: the groups from the one holding x0, one per thread */
    const int c0 = (a.x0 / COLS + (int)(blockIdx.x * WIN_THREADS + threadIdx.x)) * COLS;
    const int y_first = blockIdx.y * ROWS;   /* my strip's first output row */
    float v[COLS], l, r, up[COLS], mid[COLS];
    window_load_row<COLS, VEC>(&a, y_first - 1, c0, lane, v, &l, &r);
    window_row_sums<COLS>(v, l, r, lane, up);
    window_load_row<COLS, VEC>(&a, y_first, c0, lane, v, &l, &r);
    window_row_sums<COLS>(v, l, r, lane, mid);
#pragma unroll
    for (int chunk = 0; chunk < ROWS; chunk += WIN_CHUNK) {
        if (y_first + chunk >= a.height) break;   /* the same for the whole block */
        float cv[WIN_CHUNK][COLS], cl[WIN_CHUNK], cr[WIN_CHUNK];
#pragma unroll
        for (int j = 0; j < WIN_CHUNK; j++)   /* all loads first: WIN_CHUNK in flight */
            window_load_row<COLS, VEC>(&a, y_first + chunk + j + 1, c0, lane, cv[j], &cl[j], &cr[j]);
#pragma unroll
        for (int j = 0; j < WIN_CHUNK; j++) {
            const int y = y_first + chunk + j;   /* the output row; y + 1 is cv[j] */
            float down[COLS];
            window_row_sums<COLS>(cv[j], cl[j], cr[j], lane, down);
            if (y < a.height) window_store_row<COLS, VEC>(&a, y, c0, up, mid, down);
#pragma unroll
            for (int k = 0; k < COLS; k++) {
                up[k] = mid[k];
                mid[k] = down[k];
            }
        }
    }
}

/* ---- launchers --------------------------------------------------------- */

typedef struct {
    blur_args a;
    int vec;   /* rows and bases 16-byte aligned: the window kernels may use float4 */
} blur_ctx;

static unsigned ceil_div(long long n, int d)
{
    return (unsigned)((n + d - 1) / d);
}

static void run_memcpy(void *p, cudaStream_t s)
{
    const blur_args *a = &((blur_ctx *)p)->a;
    /* the same bytes as the blur moves: one read and one write of the ROI's
     * pixels, as one linear copy (a 2D copy of the pitched ROI is slower,
     * so it would flatter every kernel) */
    CUDA_CHECK(cudaMemcpyAsync(a->out, a->in, (size_t)a->width * a->height * sizeof(float),
                               cudaMemcpyDeviceToDevice, s));
}

static void run_direct(void *p, cudaStream_t s)
{
    const blur_args *a = &((blur_ctx *)p)->a;
    dim3 block(DIRECT_TW, DIRECT_TH);
    dim3 grid(ceil_div(a->width, DIRECT_TW), ceil_div(a->height, DIRECT_TH));
    blur_direct<<<grid, block, 0, s>>>(*a);
    CHECK_LAUNCH();
}

static void run_smem_tile(void *p, cudaStream_t s)
{
    const blur_args *a = &((blur_ctx *)p)->a;
    dim3 block(TILE_W, TILE_H);
    dim3 grid(ceil_div(a->width, TILE_W), ceil_div(a->height, TILE_H));
    blur_smem_tile<<<grid, block, 0, s>>>(*a);
    CHECK_LAUNCH();
}

static void run_separable(void *p, cudaStream_t s)
{
    const blur_args *a = &((blur_ctx *)p)->a;
    dim3 rblock(ROWPASS_TW, ROWPASS_TH);
    dim3 rgrid(ceil_div(a->width, ROWPASS_TW), ceil_div(a->height, ROWPASS_TH));
    box_row_sums<<<rgrid, rblock, 0, s>>>(*a);
    CHECK_LAUNCH();
    dim3 cblock(COLPASS_TW, COLPASS_TH);
    dim3 cgrid(ceil_div(a->width, COLPASS_TW), ceil_div(a->height, COLPASS_TH));
    box_col_means<<<cgrid, cblock, 0, s>>>(*a);
    CHECK_LAUNCH();
}

template <int COLS, int ROWS>
static void run_window(void *p, cudaStream_t s)
{
    static_assert(BLUR_MAX_HEIGHT / ROWS <= 65535, "a strip grid over 65535 blocks in y");
    const blur_ctx *c = (const blur_ctx *)p;
    const blur_args *a = &c->a;
    dim3 grid(ceil_div(blur_window_groups(a->x0, a->width, COLS), WIN_THREADS),
              ceil_div(a->height, ROWS));
    if (c->vec)
        blur3x3_window<COLS, ROWS, true><<<grid, WIN_THREADS, 0, s>>>(*a);
    else
        blur3x3_window<COLS, ROWS, false><<<grid, WIN_THREADS, 0, s>>>(*a);
    CHECK_LAUNCH();
}

/* Grids stay within limits: at most 65535 blocks in y for the tallest ROI
 * (the window kernels assert it for their strips in run_window). */
static_assert(BLUR_MAX_HEIGHT / ROWPASS_TH <= 65535 && BLUR_MAX_HEIGHT / DIRECT_TH <= 65535 &&
                  BLUR_MAX_HEIGHT / TILE_H <= 65535 && BLUR_MAX_HEIGHT / COLPASS_TH <= 65535,
              "a grid would need more than 65535 blocks in y");

/* ---- variant table ----------------------------------------------------- */

enum { KIND_REFERENCE, KIND_BOX, KIND_3X3 };

typedef struct {
    const char *name;
    timed_fn run;
    int kind;   /* KIND_REFERENCE: the copy, timed only; KIND_BOX: any radius;
                   KIND_3X3: radius 1 only */
    int needs_tmp;   /* uses the width x height intermediate */
    const char *what;
} variant;

static const variant variants[] = {
    {"memcpy_d2d", run_memcpy, KIND_REFERENCE, 0,
     "cudaMemcpy device-to-device of width*height*4 bytes (reference)"},
    {"direct", run_direct, KIND_BOX, 0, "one thread per pixel, global loads"},
    {"smem_tile", run_smem_tile, KIND_BOX, 0, "32x8 tile plus halo in shared memory"},
    {"separable", run_separable, KIND_BOX, 1, "row sums to an intermediate, then columns"},
    {"window_4x8", run_window<4, 8>, KIND_3X3, 0,
     "3x3 only: 4 columns x 8 rows per thread, register window"},
    {"window_4x32", run_window<4, 32>, KIND_3X3, 0, "3x3 only: the same, 32-row strips"},
    {"window_8x8", run_window<8, 8>, KIND_3X3, 0, "3x3 only: the same, 8 columns per thread"},
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ----------------------------------------------------------- */

static long long opt_width = 16384, opt_height = 16384;
static long long opt_x0 = 32, opt_y0 = 8;
static long long opt_image_width = 0, opt_image_height = 0;
static long long opt_pitch = 0;
static long long opt_radius = 1;
static const char *opt_variant = "all";
static char variant_choices[256];   /* "all|cpu|memcpy_d2d|...", from the table */
static char help_notes[2048];       /* the variant list of --help, from the table */

/* The table's bounds are blur_host.h's limits; blur_resolve checks them
 * again with their reasons, and the relations between options (the ROI
 * inside the image, the pitch against the image's row, the bytes). */
static const opt_spec sample_opts[] = {
    OPT_INT_SPEC("width", "W", "ROI width in pixels", &opt_width, 1, BLUR_MAX_WIDTH),
    OPT_INT_SPEC("height", "H", "ROI height in pixels", &opt_height, 1, BLUR_MAX_HEIGHT),
    OPT_INT_SPEC("x0", "X", "the ROI's first column in the image", &opt_x0, 0, BLUR_MAX_WIDTH),
    OPT_INT_SPEC("y0", "Y", "the ROI's first row in the image", &opt_y0, 0, BLUR_MAX_HEIGHT),
    OPT_INT_SPEC("image-width", "IW", "image width; 0: x0 + W + x0", &opt_image_width, 0,
                 BLUR_MAX_WIDTH),
    OPT_INT_SPEC("image-height", "IH", "image height; 0: y0 + H + y0", &opt_image_height, 0,
                 BLUR_MAX_HEIGHT),
    OPT_INT_SPEC("pitch", "BYTES", "bytes per image row; 0: cudaMallocPitch's", &opt_pitch, 0,
                 (long long)BLUR_MAX_IMAGE_BYTES),
    OPT_INT_SPEC("radius", "R", "box radius: 1 is the 3x3 mean", &opt_radius, 1, BLUR_MAX_RADIUS),
    OPT_STRING_SPEC("variant", "NAME", "run one variant (the reference always runs)",
                    &opt_variant, variant_choices),
};

static const opts_config cfg = {
    "blur", "3x3 mean and radius-r box mean over a region of interest of a pitched image",
    sample_opts, (int)(sizeof sample_opts / sizeof sample_opts[0]), help_notes, 0};

/* --variant's choices and the --help notes come from the variant table. */
static void build_help_from_table(void)
{
    opts_join_choices(variant_choices, sizeof variant_choices, "all|cpu", &variants[0].name,
                      sizeof variants[0], N_VARIANTS);
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-14s %s\n", "cpu",
                                "the CPU reference (double sums), timed once");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-14s %s\n",
                              variants[v].name, variants[v].what);
    snprintf(help_notes + h, sizeof help_notes - h,
             "Edge rule: a pixel averages the ROI pixels in its (2r+1)x(2r+1) box, and only\n"
             "those; pixels outside the ROI are never read into a mean, nor written.\n"
             "Checked first, every variant: 1x1, 1x1080, 1080x1, 1920x1080, 4097x3001, ROIs\n"
             "touching each border and corner, rows not 16-byte aligned, radius 1, 2, %d and\n"
             "--radius, then the run's own size (--quick: the small ones, 517x133).",
             BLUR_MAX_RADIUS);
}

static int bad_argument(const char *msg)
{
    fprintf(stderr, "blur: error: %s\n", msg);
    fprintf(stderr, "Run 'blur --help' for the options.\n");
    printf("blur: FAIL (bad argument)\n");
    return 1;
}

/* ---- checking ---------------------------------------------------------- */

/* One geometry's device and host images. */
typedef struct {
    blur_geom g;               /* pitch filled in by the allocation */
    float *d_in, *d_out, *d_tmp;
    size_t tmp_pitch;
    float *h_in;               /* the input allocation's bytes, pitch * image_height */
    unsigned char *h_out;      /* an output copied back */
} images;

/* cudaMallocPitch for the input (unless the pitch is given: then a plain
 * allocation of pitch * rows), the output with the same pitch and a guard
 * zone after it, the separable intermediate when asked for. The input is
 * filled on the host and copied whole, padding included, so that every byte
 * a kernel may read is initialized. */
static int images_alloc(images *im, const blur_geom *g, int with_tmp, unsigned long long seed)
{
    memset(im, 0, sizeof *im);
    im->g = *g;
    if (im->g.pitch == 0)
        CUDA_CHECK(cudaMallocPitch((void **)&im->d_in, &im->g.pitch,
                                   (size_t)g->image_width * sizeof(float), g->image_height));
    else
        CUDA_CHECK(cudaMalloc((void **)&im->d_in, im->g.pitch * g->image_height));
    const size_t bytes = im->g.pitch * im->g.image_height;
    im->d_out = (float *)guarded_malloc(bytes);
    if (with_tmp)
        CUDA_CHECK(cudaMallocPitch((void **)&im->d_tmp, &im->tmp_pitch,
                                   (size_t)g->width * sizeof(float), g->height));
    im->h_in = (float *)malloc(bytes);
    im->h_out = (unsigned char *)malloc(bytes);
    if (!im->h_in || !im->h_out) {
        report_fail("cannot allocate 2 x %zu bytes of host memory", bytes);
        return -1;
    }
    blur_fill_input(im->h_in, &im->g, seed);
    CUDA_CHECK(cudaMemcpy(im->d_in, im->h_in, bytes, cudaMemcpyHostToDevice));
    return 0;
}

static void images_free(images *im)
{
    if (im->d_in) CUDA_CHECK(cudaFree(im->d_in));
    guarded_free(im->d_out);
    if (im->d_tmp) CUDA_CHECK(cudaFree(im->d_tmp));
    free(im->h_in);
    free(im->h_out);
    memset(im, 0, sizeof *im);
}

static blur_ctx make_ctx(const images *im, int radius)
{
    blur_ctx c;
    c.a.in = im->d_in;
    c.a.out = im->d_out;
    c.a.pitch = im->g.pitch;
    c.a.x0 = im->g.x0;
    c.a.y0 = im->g.y0;
    c.a.width = im->g.width;
    c.a.height = im->g.height;
    c.a.radius = radius;
    c.a.tmp = im->d_tmp;
    c.a.tmp_pitch = im->tmp_pitch;
    c.vec = im->g.pitch % 16 == 0 && (uintptr_t)im->d_in % 16 == 0 &&
            (uintptr_t)im->d_out % 16 == 0;
    return c;
}

/* The reference for one radius: cpu_box_mean_f64 over the ROI of the input. */
static int reference(const images *im, int radius, double *ref)
{
    const blur_geom *g = &im->g;
    const float *roi = im->h_in + (size_t)g->y0 * (g->pitch / sizeof(float)) + g->x0;
    return cpu_box_mean_f64(roi, g->pitch / sizeof(float), ref, (size_t)g->width, g->width,
                            g->height, radius);
}

/* Run one variant on one geometry and radius, and check all of the output
 * allocation against the reference: the ROI within blur_tolerance (the
 * inputs are in [-1, 1), so max_abs = 1), every other byte still poison, the
 * guard zone after the allocation untouched. The output (and the
 * intermediate) is poisoned first: an unwritten pixel is NaN and fails. */
static int check_variant(const variant *v, const images *im, int radius, const double *ref,
                         const char *label)
{
    blur_ctx c = make_ctx(im, radius);
    const size_t bytes = im->g.pitch * im->g.image_height;
    poison_guarded(im->d_out, bytes);
    if (im->d_tmp) poison_device(im->d_tmp, im->tmp_pitch * im->g.height);
    v->run(&c, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(im->h_out, im->d_out, bytes, cudaMemcpyDeviceToHost));
    char what[192];
    snprintf(what, sizeof what, "%s radius %d, %s (ROI %dx%d at (%d, %d), pitch %zu)", v->name,
             radius, label, im->g.width, im->g.height, im->g.x0, im->g.y0, im->g.pitch);
    size_t bad = blur_check_output(what, im->h_out, &im->g, ref, blur_tolerance(radius, 1.0));
    bad += check_guard(what, im->d_out, bytes);
    return bad == 0;
}

/* Checked and timed (the reference is timed whatever --variant says). */
static int selected(const variant *v)
{
    return opts_variant_runs(opt_variant, v->name, 0);
}

static int applies(const variant *v, int radius)
{
    return v->kind == KIND_BOX || (v->kind == KIND_3X3 && radius == 1);
}

/* Every selected variant at one of the check geometries, at radius 1, 2,
 * BLUR_MAX_RADIUS and the run's radius. */
static void check_case(const blur_case *bc, int run_radius, unsigned long long seed,
                       int ok[N_VARIANTS])
{
    images im;
    if (images_alloc(&im, &bc->g, 1, seed)) return;
    if (im.g.pitch <= (size_t)im.g.width * sizeof(float))
        report_fail("check case %s: the pitch (%zu bytes) is not larger than the ROI's row",
                    bc->label, im.g.pitch);
    double *ref = (double *)malloc((size_t)im.g.width * im.g.height * sizeof(double));
    if (!ref) {
        report_fail("cannot allocate the reference of check case %s", bc->label);
        images_free(&im);
        return;
    }
    const int radii[4] = {1, 2, BLUR_MAX_RADIUS, run_radius};
    int passed = 1;
    char radii_text[64] = "";
    for (int i = 0; i < 4; i++) {
        int r = radii[i], seen = 0;
        for (int j = 0; j < i; j++) seen |= radii[j] == r;
        if (seen) continue;
        snprintf(radii_text + strlen(radii_text), sizeof radii_text - strlen(radii_text), " %d", r);
        if (reference(&im, r, ref)) {
            report_fail("cpu_box_mean_f64 failed (out of memory?) on check case %s", bc->label);
            passed = 0;
            continue;
        }
        for (int v = 0; v < N_VARIANTS; v++) {
            if (!selected(&variants[v]) || !applies(&variants[v], r)) continue;
            int good = check_variant(&variants[v], &im, r, ref, bc->label);
            ok[v] &= good;
            passed &= good;
        }
    }
    report_note("checked %-27s ROI %dx%d at (%d, %d) of %dx%d, pitch %zu, radius%s: %s",
                bc->label, im.g.width, im.g.height, im.g.x0, im.g.y0, im.g.image_width,
                im.g.image_height, im.g.pitch, radii_text, passed ? "PASS" : "FAIL");
    free(ref);
    images_free(&im);
}

int main(int argc, char **argv)
{
    common_opts o;
    build_help_from_table();
    opts_parse_or_exit(&cfg, argc, argv, &o);

    blur_request req = {opt_x0, opt_y0, opt_width, opt_height, opt_image_width,
                        opt_image_height, opt_pitch, opt_radius};
    if (o.quick) {   /* small: a few milliseconds of GPU work, fine under the sanitizers */
        req.x0 = 5;
        req.y0 = 3;
        req.width = 517;
        req.height = 133;
        req.image_width = 0;
        req.image_height = 0;
    }
    blur_geom run_geom;
    char err[256];
    if (blur_resolve(&req, &run_geom, err, sizeof err)) return bad_argument(err);
    const int radius = (int)req.radius;
    for (int v = 0; v < N_VARIANTS; v++)
        if (!strcmp(opt_variant, variants[v].name) && variants[v].kind == KIND_3X3 &&
            radius != 1) {
            snprintf(err, sizeof err,
                     "--variant=%s computes the 3x3 mean only: it needs --radius=1 (got "
                     "--radius=%d)", variants[v].name, radius);
            return bad_argument(err);
        }
    int reps = (o.quick && o.reps == OPTS_DEFAULT_REPS) ? 3 : o.reps;

    report_init("blur", o.json);
    device_info dev;
    device_setup_or_exit("blur", o.device, o.json, &dev);

    /* Check every selected variant at the check geometries first. */
    int ok[N_VARIANTS];
    for (int v = 0; v < N_VARIANTS; v++) ok[v] = 1;
    blur_case cases[32];
    int n_cases = blur_check_cases(o.quick, cases, 32);
    for (int i = 0; i < n_cases; i++) check_case(&cases[i], radius, o.seed, ok);

    /* The run's own geometry: checked, then timed. */
    int need_tmp = 0;
    for (int v = 0; v < N_VARIANTS; v++)
        need_tmp |= variants[v].needs_tmp && selected(&variants[v]) && applies(&variants[v], radius);
    images im;
    if (images_alloc(&im, &run_geom, need_tmp, o.seed)) return report_finish();
    const blur_geom *g = &im.g;
    const size_t npix = (size_t)g->width * g->height;
    double *ref = (double *)malloc(npix * sizeof(double));
    if (!ref) {
        report_fail("cannot allocate %zu bytes for the reference", npix * sizeof(double));
        return report_finish();
    }
    /* The CPU reference is the cpu variant: timed once, its output's pages
     * touched first so the loop is timed, not the page faults. */
    host_prefault(ref, npix * sizeof(double));
    double t0 = host_seconds();
    if (reference(&im, radius, ref)) {
        report_fail("cpu_box_mean_f64 failed (out of memory?)");
        return report_finish();
    }
    const double cpu_ms = (host_seconds() - t0) * 1e3;

    blur_ctx ctx = make_ctx(&im, radius);
    /* L2: flush before each timed run only when the ROI's bytes could live in it. */
    const int flush = 8.0 * (double)npix < 4.0 * dev.l2_bytes;
    report_note("ROI %dx%d at (%d, %d) of a %dx%d image, rows %zu bytes apart (%zu of padding), "
                "radius %d; L2 %s", g->width, g->height, g->x0, g->y0, g->image_width,
                g->image_height, g->pitch, g->pitch - (size_t)g->image_width * sizeof(float),
                radius, flush ? "flushed before each run" : "not flushed (data is over 4x L2)");
    report_note("window variants: %s", radius != 1 ? "3x3 only, not run at this radius"
                                       : ctx.vec ? "rows are 16-byte aligned: float4 loads and stores"
                                                 : "rows are not 16-byte aligned: 4-byte loads and stores");
    for (int v = 0; v < N_VARIANTS; v++)
        if (variants[v].kind != KIND_REFERENCE && selected(&variants[v]) &&
            applies(&variants[v], radius))
            ok[v] &= check_variant(&variants[v], &im, radius, ref, "the run's size");

    result_rec r;
    if (opts_variant_runs_cpu(opt_variant)) {
        rec_begin(&r, "cpu");
        rec_int(&r, "width", g->width);
        rec_int(&r, "height", g->height);
        rec_int(&r, "radius", radius);
        rec_str(&r, "status", "PASS");
        rec_perf(&r, cpu_ms, "gbps", blur_gbps(g->width, g->height, cpu_ms), 0, NULL, 0);
        rec_emit(&r);
    }

    /* Time the reference first so every variant's pct_ref is from this run. */
    double ref_gbps = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        if (var->kind != KIND_REFERENCE && (!selected(var) || !applies(var, radius))) continue;
        rec_begin(&r, var->name);
        rec_int(&r, "width", g->width);
        rec_int(&r, "height", g->height);
        rec_int(&r, "radius", radius);
        if (!ok[v]) {
            rec_str(&r, "status", "FAIL");
            rec_emit(&r);
            continue;
        }
        char range[64];
        snprintf(range, sizeof range, "blur/%s", var->name);
        timing_cfg tc = timing_defaults(reps);
        tc.flush_l2 = flush;
        tc.nvtx_name = range;
        timing_stats t;
        time_gpu(var->run, &ctx, &tc, &t);
        const double gbps = blur_gbps(g->width, g->height, t.median_ms);
        if (var->kind == KIND_REFERENCE) ref_gbps = gbps;
        rec_str(&r, "status", "PASS");
        rec_perf(&r, t.median_ms, "gbps", gbps, dev.peak_gbps, "memcpy_d2d", ref_gbps);
        rec_num(&r, "min_ms", t.min_ms);
        rec_emit(&r);
    }

    free(ref);
    images_free(&im);
    return report_finish();
}
