/* blur_host.h: the host-only logic of the blur sample (C11, gcc-built,
 * unit-tested on the CPU in tests/test_blur_host.c): the region-of-interest
 * arguments and their validation, the geometries every variant is checked
 * at, the input image, the tolerance, and the check of an output image: the
 * ROI against the reference, and every byte around the ROI still poisoned.
 *
 * Coordinates: an image of image_width x image_height float pixels lives in
 * an allocation whose rows are `pitch` bytes apart (pitch >= 4 * image_width;
 * the bytes after a row's last pixel are padding). The region of interest
 * (ROI) is the width x height rectangle whose top-left pixel is column x0,
 * row y0 of the image. ROI coordinates (x, y) run over 0 <= x < width,
 * 0 <= y < height; pixel (x, y) of the ROI is image pixel (x0 + x, y0 + y),
 * at byte (y0 + y) * pitch + (x0 + x) * 4 of the allocation.
 */
#ifndef BLUR_HOST_H
#define BLUR_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest radius: the shared-memory tiles of smem_tile and separable
 * are sized for this halo at compile time. */
#define BLUR_MAX_RADIUS 8
/* Columns of an image (or ROI): pixel offsets in a row stay far below 2^31. */
#define BLUR_MAX_WIDTH (1 << 28)
/* Rows: the kernels' grids have at most 65535 blocks in y, and the fewest
 * rows a block covers is 4 (the separable row pass): 65535 * 4 >= 2^17. */
#define BLUR_MAX_HEIGHT (1 << 17)
/* One image allocation at most (the device has to hold two, the host three). */
#define BLUR_MAX_IMAGE_BYTES (1ULL << 40)
/* Before any CUDA call the pitch cudaMallocPitch will choose is unknown;
 * sizes are bounded with the row rounded up to this many bytes (above the
 * row alignment of the GPUs this suite targets). */
#define BLUR_PITCH_ESTIMATE_ROUND 512

/* The command line's values, unchecked (long long, as the options parse them). */
typedef struct {
    long long x0, y0;                  /* --x0 --y0: the ROI's first column and row */
    long long width, height;           /* --width --height: the ROI's size */
    long long image_width;             /* --image-width: 0 = x0 + width + x0 (ROI centred) */
    long long image_height;            /* --image-height: 0 = y0 + height + y0 */
    long long pitch;                   /* --pitch: bytes per row; 0 = cudaMallocPitch chooses */
    long long radius;                  /* --radius: 1 = the 3x3 mean */
} blur_request;

typedef struct {
    int image_width, image_height;     /* pixels of the image */
    size_t pitch;                      /* bytes from one row to the next; 0 until allocated
                                          when cudaMallocPitch chooses it */
    int x0, y0, width, height;         /* the ROI */
} blur_geom;

/* Validate a request and fill *g (pitch = req->pitch, 0 meaning "ask
 * cudaMallocPitch"). Returns 0, or -1 with a message naming the option and
 * its value in err: zero or negative sizes, sizes past the limits above, a
 * ROI that does not fit in the image, a pitch that is not a multiple of 4 or
 * is smaller than 4 * image width, a radius outside 1..BLUR_MAX_RADIUS, an
 * image over BLUR_MAX_IMAGE_BYTES. */
int blur_resolve(const blur_request *req, blur_geom *g, char *err, size_t errlen);

/* Bytes of one image allocation: pitch * image_height, with a pitch of 0
 * replaced by the estimate (4 * image_width rounded up to
 * BLUR_PITCH_ESTIMATE_ROUND). */
unsigned long long blur_image_bytes(const blur_geom *g);

/* The geometries every variant is checked at before anything is timed (the
 * run's own geometry is checked too, by the caller):
 *   1x1, 1x1080, 1080x1, 1920x1080, 4097x3001 (the last two not with quick),
 *   ROIs touching each border and corner of their image (nine placements),
 *   a ROI that is the whole image, and one in rows whose pitch is not a
 *   multiple of 16 bytes (the window variants' 4-byte path).
 * Every ROI is narrower than its allocation's rows (4 * width < pitch),
 * none is a multiple of the block or tile sizes, and every image has padding
 * after its rows. Returns the number of cases (at most max). */
typedef struct {
    const char *label;
    blur_geom g;                       /* pitch 0: cudaMallocPitch chooses */
} blur_case;
int blur_check_cases(int quick, blur_case *cases, int max);

/* The inputs: image pixel (x, y) = rng_uniform(seed, RNG_STREAM_A,
 * y * image_width + x, -1, 1), every pixel of the image, inside the ROI or
 * not; the padding after each row is 0xFF bytes (NaN). img holds pitch *
 * image_height bytes (g->pitch must be known). */
void blur_fill_input(float *img, const blur_geom *g, uint64_t seed);

/* The tolerance of a GPU mean against the exact mean, for inputs with
 * |x| <= max_abs: a mean of c <= k = (2r + 1)^2 floats, summed in float in
 * any order (at most k - 1 roundings on any path of the sum), then divided by
 * c (one rounding) or multiplied by a rounded 1/c (two), is within
 * gamma(k + 1) * sum|x_i| / c <= gamma(k + 1) * max_abs of the exact mean,
 * where gamma(n) = n u / (1 - n u), u = 2^-24 (Higham, Accuracy and
 * Stability of Numerical Algorithms, 3.1 and 4.2). The double reference adds
 * its own gamma(k + 1) with u = 2^-53. Radius 1: about 5.96e-7 * max_abs. */
double blur_tolerance(int radius, double max_abs);

/* Check an output image copied back whole (pitch * image_height bytes):
 *   - every ROI pixel within abs_tol of ref (width x height doubles, row-major;
 *     NaN never passes);
 *   - every other byte of the allocation, the image's pixels outside the ROI
 *     and the padding after every row, still 0xFF (poison): a kernel that
 *     strides rows by the ROI's width, or writes outside the ROI, fails here.
 * Prints the first few of each kind of error to stderr, in ROI coordinates
 * or as (row, byte), and returns the number of bad pixels plus bad bytes. */
size_t blur_check_output(const char *what, const unsigned char *img, const blur_geom *g,
                         const double *ref, double abs_tol);

/* Column groups the window kernels cover: the aligned groups of cols
 * columns (group k = columns k*cols .. k*cols+cols-1 of the image) that hold
 * a ROI column. */
int blur_window_groups(int x0, int width, int cols);

/* GB/s of a blur of a width x height ROI that took ms: one 4-byte read and
 * one 4-byte write per pixel (1e9 bytes per GB); 0 when ms <= 0. */
double blur_gbps(long long width, long long height, double ms);

#ifdef __cplusplus
}
#endif
#endif /* BLUR_HOST_H */
