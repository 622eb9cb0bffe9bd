/* kernels/00_roi.cuh: what every step's kernel shares: its arguments, the
 * rows of the region of interest (ROI) in a pitched allocation, and the
 * edge rule's divisor. The steps follow in kernels/01_*.cuh .. 11_*.cuh, in
 * teaching order; blur.cu includes them all and keeps the launchers, the
 * variant table, the checks, the timing and main. */
#ifndef BLUR_KERNELS_ROI_CUH
#define BLUR_KERNELS_ROI_CUH

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

/* The window steps (04 on, 3x3 only): a block is WIN_THREADS threads, 4
 * warps side by side along a row; a thread owns COLS adjacent columns of a
 * strip of ROWS rows (each step's file sets both). */
#define WIN_THREADS 128
#define FULL_MASK 0xffffffffu

#endif /* BLUR_KERNELS_ROI_CUH */
