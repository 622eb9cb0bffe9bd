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
 *
 * The kernels: one file per step, kernels/NN_<variant>.cuh, in teaching
 * order; each opens with the one thing it changes from the step before, why,
 * and what the H200 measured (`diff kernels/07_*.cuh kernels/08_*.cuh` is
 * the lesson of step 08). This file keeps the launchers, the variant table
 * (it drives checks, timing and --help), the checks, the timing and main.
 *   cpu                    the CPU reference (common/cpu_ref.c, double sums), timed once
 *   memcpy_d2d             cudaMemcpy device-to-device of width*height*4 bytes: the reference
 *   01 direct              one thread per pixel, every tap a global load
 *   02 smem_tile           a 32x8 block loads its pixels and an r-pixel halo into shared memory
 *   03 separable           row sums into an intermediate image, then column sums and the mean
 *   04 window_1x8          3x3 only: a thread walks 8 rows of its column, row sums in registers
 *   05 window_1x8_shfl     + the neighbour columns from the neighbour lanes (shuffles)
 *   06 window_4x8_scalar   + 4 columns per thread
 *   07 window_4x8_float4   + float4 loads and stores
 *   08 window_4x8_inflight + 8 rows loaded before any is used
 *   09 window_4x8          + a multiply by 1/9 away from the ROI's edges
 *   10 window_4x32         window_4x8 with 32-row strips
 *   11 window_8x8          window_4x8 with 8 columns (two float4) per thread
 * Exercises (exercises/README.md): built with
 * -DEXERCISE='"exercises/exN_<name>.cuh"', they add the variant `exercise`.
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

/* ---- kernels: one file per step (tests/cpu_sim/run.sh runs them too) ---- */
#include "kernels/00_roi.cuh"
#include "kernels/01_direct.cuh"
#include "kernels/02_smem_tile.cuh"
#include "kernels/03_separable.cuh"
#include "kernels/04_window_1x8.cuh"
#include "kernels/05_window_1x8_shfl.cuh"
#include "kernels/06_window_4x8_scalar.cuh"
#include "kernels/07_window_4x8_float4.cuh"
#include "kernels/08_window_4x8_inflight.cuh"
#include "kernels/09_window_4x8.cuh"
#include "kernels/10_window_4x32.cuh"
#include "kernels/11_window_8x8.cuh"
#ifdef EXERCISE
#include EXERCISE
#endif

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

/* The window steps (04 on): a thread per group of COLS columns, WIN_THREADS
 * threads per block along a row, a block row per strip of ROWS rows. */
template <int COLS, int ROWS>
static dim3 window_grid(const blur_args *a)
{
    static_assert(BLUR_MAX_HEIGHT / ROWS <= 65535, "a strip grid over 65535 blocks in y");
    return dim3(ceil_div(blur_window_groups(a->x0, a->width, COLS), WIN_THREADS), ceil_div(a->height, ROWS));
}

/* Steps 04 to 06: 4-byte accesses only. */
template <void (*K)(blur_args), int COLS, int ROWS>
static void run_window(void *p, cudaStream_t s)
{
    const blur_args *a = &((const blur_ctx *)p)->a;
    const dim3 grid = window_grid<COLS, ROWS>(a);
    K<<<grid, WIN_THREADS, 0, s>>>(*a);
    CHECK_LAUNCH();
}

/* Steps 07 on: float4 accesses where the rows allow them (c->vec), the
 * 4-byte form of the same kernel where they do not. */
template <void (*KVEC)(blur_args), void (*K4)(blur_args), int COLS, int ROWS>
static void run_window_vec(void *p, cudaStream_t s)
{
    const blur_ctx *c = (const blur_ctx *)p;
    const blur_args *a = &c->a;
    const dim3 grid = window_grid<COLS, ROWS>(a);
    if (c->vec)
        KVEC<<<grid, WIN_THREADS, 0, s>>>(*a);
    else
        K4<<<grid, WIN_THREADS, 0, s>>>(*a);
    CHECK_LAUNCH();
}

#ifdef EXERCISE
/* The exercises' kernels (blur_exercise, in the exercise's file) are
 * launched as steps 01 and 02 are: 32 x 8 threads per block, one per
 * output pixel. */
static void run_exercise(void *p, cudaStream_t s)
{
    const blur_args *a = &((blur_ctx *)p)->a;
    dim3 block(DIRECT_TW, DIRECT_TH);
    dim3 grid(ceil_div(a->width, DIRECT_TW), ceil_div(a->height, DIRECT_TH));
    blur_exercise<<<grid, block, 0, s>>>(*a);
    CHECK_LAUNCH();
}
#endif

/* Grids stay within limits: at most 65535 blocks in y for the tallest ROI
 * (the window kernels assert it for their strips in window_grid). */
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

/* A float4 window step: its kernel with and without float4 accesses. */
#define WINDOW_VEC(k, cols, rows) run_window_vec<k<true>, k<false>, cols, rows>

static const variant variants[] = {
    {"memcpy_d2d", run_memcpy, KIND_REFERENCE, 0,
     "cudaMemcpy device-to-device of width*height*4 bytes (reference)"},
    {"direct", run_direct, KIND_BOX, 0, "01: one thread per pixel, global loads"},
    {"smem_tile", run_smem_tile, KIND_BOX, 0, "02: 32x8 tile plus halo in shared memory"},
    {"separable", run_separable, KIND_BOX, 1, "03: row sums to an intermediate, then columns"},
    {"window_1x8", run_window<blur_window_1x8, 1, 8>, KIND_3X3, 0,
     "04: 3x3 only: a thread walks 8 rows of its column, row sums in registers"},
    {"window_1x8_shfl", run_window<blur_window_1x8_shfl, 1, 8>, KIND_3X3, 0,
     "05: 3x3 only: + neighbour columns by shuffle"},
    {"window_4x8_scalar", run_window<blur_window_4x8_scalar, 4, 8>, KIND_3X3, 0,
     "06: 3x3 only: + 4 columns per thread"},
    {"window_4x8_float4", WINDOW_VEC(blur_window_4x8_float4, 4, 8), KIND_3X3, 0,
     "07: 3x3 only: + float4 loads and stores"},
    {"window_4x8_inflight", WINDOW_VEC(blur_window_4x8_inflight, 4, 8), KIND_3X3, 0,
     "08: 3x3 only: + 8 rows loaded before use"},
    {"window_4x8", WINDOW_VEC(blur_window_4x8, 4, 8), KIND_3X3, 0,
     "09: 3x3 only: + multiply by 1/9 inside the ROI"},
    {"window_4x32", WINDOW_VEC(blur_window_4x32, 4, 32), KIND_3X3, 0,
     "10: 3x3 only: window_4x8 with 32-row strips"},
    {"window_8x8", WINDOW_VEC(blur_window_8x8, 8, 8), KIND_3X3, 0,
     "11: 3x3 only: window_4x8 with 8 columns per thread"},
#ifdef EXERCISE
    /* The exercise's file defines blur_exercise and EXERCISE_BASE (the step it modifies). */
    {"exercise", run_exercise, KIND_BOX, 0, "your exercise: " EXERCISE},
#endif
};
#define N_VARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- options ----------------------------------------------------------- */

static long long opt_width = 16384, opt_height = 16384;
static long long opt_x0 = 32, opt_y0 = 8;
static long long opt_image_width = 0, opt_image_height = 0;
static long long opt_pitch = 0;
static long long opt_radius = 1;
static const char *opt_variant = "all";
static char variant_choices[512];   /* "all|cpu|memcpy_d2d|...", from the table */
static char help_notes[4096];       /* the variant list of --help, from the table */

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
    size_t h = (size_t)snprintf(help_notes, sizeof help_notes, "Variants:\n  %-20s %s\n", "cpu",
                                "the CPU reference (double sums), timed once");
    for (int v = 0; v < N_VARIANTS; v++)
        h += (size_t)snprintf(help_notes + h, sizeof help_notes - h, "  %-20s %s\n",
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

    /* Time the chosen variants that passed and the reference round robin
     * (common/timing.h): every pct_ref is from this run, at the same clocks. */
    timed_variant group[N_VARIANTS];
    timing_stats times[N_VARIANTS];
    char ranges[N_VARIANTS][64];
    int slot[N_VARIANTS], n_timed = 0;
    double ref_gbps = 0;
    for (int v = 0; v < N_VARIANTS; v++) {
        const variant *var = &variants[v];
        slot[v] = -1;
        if (var->kind != KIND_REFERENCE && (!selected(var) || !applies(var, radius))) continue;
        if (!ok[v]) continue;
        snprintf(ranges[v], sizeof ranges[v], "blur/%s", var->name);
        group[n_timed] = (timed_variant){var->run, &ctx, ranges[v], flush};
        slot[v] = n_timed++;
    }
    if (n_timed > 0) {
        timing_cfg tc = timing_defaults(reps);
        time_gpu_group(group, n_timed, &tc, times);
    }
    for (int v = 0; v < N_VARIANTS; v++)
        if (variants[v].kind == KIND_REFERENCE && slot[v] >= 0)
            ref_gbps = blur_gbps(g->width, g->height, times[slot[v]].median_ms);
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
        const timing_stats *t = &times[slot[v]];
        const double gbps = blur_gbps(g->width, g->height, t->median_ms);
        rec_str(&r, "status", "PASS");
        rec_perf(&r, t->median_ms, "gbps", gbps, dev.peak_gbps, "memcpy_d2d", ref_gbps);
        rec_num(&r, "min_ms", t->min_ms);
        timing_rec_clocks(&r, t);
        rec_emit(&r);
    }

    free(ref);
    images_free(&im);
    return report_finish();
}
