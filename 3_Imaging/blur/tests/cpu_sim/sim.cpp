// sim.cpp: runs blur's kernels on the CPU, without a GPU, and checks them
// exactly as bin/blur does. The kernels, launchers and variant table are the
// real source (the kernel files ../../kernels/NN_*.cuh, and blur.cu's
// launchers and table, which run.sh cuts out with their launches rewritten
// as sim_launch calls). One fiber per CUDA thread of a block
// (tests/support/sim_fibers.h: all on one OS thread, round robin, so a
// block's threads run one after another between barriers), the blocks
// of a grid one after another; __syncthreads is a barrier of the block, a
// warp shuffle an exchange between two barriers of the warp; __shared__
// arrays are statics (one block at a time). Built with AddressSanitizer, so
// a read or write outside an allocation stops the run (the output's guard
// zone is part of its allocation, as on the GPU).
//
// What it checks: indexing, the edge rule, the ROI and pitch arithmetic, the
// shuffles' neighbours, masking and partial groups, the poison around the
// ROI, barrier placement in the sense that a barrier every thread must reach
// is reached. Not timing, not the GPU memory model: racecheck on the GPU
// remains the authority on races. Usage: ./run.sh [--full] [VARIANT...]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "blur_host.h"
#include "check.h"
#include "cpu_ref.h"
#include "../../../../tests/support/sim_fibers.h"

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct alignas(16) float4 { float x, y, z, w; };
static inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
SIM_FIBER_LOCAL(dim3, threadIdx);
dim3 blockIdx, blockDim, gridDim;   // one block at a time: the same for all its threads
using std::max;
using std::min;

#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __shared__ static
#define __launch_bounds__(...)

static sim_fibers::barrier *g_block_bar;
static std::vector<std::unique_ptr<sim_fibers::barrier>> g_warp_bar;
static float g_exchange[1024];
SIM_FIBER_LOCAL(int, t_lin);   // linear thread index in the block

static inline void __syncthreads() { g_block_bar->arrive_and_wait(); }
static inline float __ldg(const float *p) { return *p; }
static inline float4 __ldg(const float4 *p)
{
    if ((uintptr_t)p % 16) {
        fprintf(stderr, "sim: misaligned float4 load at %p\n", (const void *)p);
        abort();
    }
    return *p;
}
static float shuffle(float v, int src_lane_delta)
{
    int lane = t_lin & 31, w = t_lin >> 5;
    g_exchange[t_lin] = v;
    g_warp_bar[w]->arrive_and_wait();
    int src = lane + src_lane_delta;
    float r = (src >= 0 && src < 32) ? g_exchange[t_lin + src_lane_delta] : v;
    g_warp_bar[w]->arrive_and_wait();
    return r;
}
static inline float __shfl_up_sync(unsigned, float v, int d) { return shuffle(v, -d); }
static inline float __shfl_down_sync(unsigned, float v, int d) { return shuffle(v, d); }

// the runtime calls the launchers make
typedef void *cudaStream_t;
typedef void (*timed_fn)(void *ctx, cudaStream_t stream);
enum { cudaMemcpyDeviceToDevice = 3 };
static int cudaMemcpyAsync(void *d, const void *s, size_t n, int, cudaStream_t)
{
    memcpy(d, s, n);
    return 0;
}
#define CUDA_CHECK(call) (void)(call)
#define CHECK_LAUNCH() \
    do {               \
    } while (0)

template <class F>
static void sim_launch(dim3 grid, dim3 block, F kernel)
{
    gridDim = grid;
    blockDim = block;
    int nt = (int)(block.x * block.y);
    if (nt % 32 != 0 || nt > 1024) {
        fprintf(stderr, "sim: block of %d threads\n", nt);
        abort();
    }
    sim_fibers::barrier bar(nt);
    g_block_bar = &bar;
    g_warp_bar.clear();
    for (int w = 0; w < nt / 32; w++) g_warp_bar.emplace_back(new sim_fibers::barrier(32));
    // each block starts once the one before has ended: it reuses the statics
    for (unsigned by = 0; by < grid.y; by++)
        for (unsigned bx = 0; bx < grid.x; bx++) {
            blockIdx = dim3(bx, by);
            sim_fibers::run(nt, [&](unsigned t) {
                t_lin = t;
                threadIdx = dim3(t % block.x, t / block.x);
                kernel();
                // as before the fibers: the end of a block is an arrival at the block's
                // barrier, which a thread that returned early has others pass with
                bar.arrive_and_wait();
            });
        }
}

#include "kernels.inc"

// ---- the checks, as bin/blur's check_variant does them --------------------

struct sim_images {
    blur_geom g;
    std::vector<unsigned char> in_store;
    float *in, *out, *tmp;
    size_t tmp_pitch;
    unsigned char *out_alloc;   // pitch * rows + the guard
};

static void *sim_alloc(size_t bytes)
{
    void *p = nullptr;
    if (posix_memalign(&p, 256, bytes)) {
        fprintf(stderr, "sim: out of memory\n");
        exit(2);
    }
    return p;
}

static void images_make(sim_images &im, const blur_geom &g0, uint64_t seed)
{
    im.g = g0;
    if (im.g.pitch == 0)   // what cudaMallocPitch does on the GPUs the suite targets
        im.g.pitch = ((size_t)im.g.image_width * 4 + 511) / 512 * 512;
    size_t bytes = im.g.pitch * im.g.image_height;
    // exact sizes, 256-byte aligned like cudaMalloc: AddressSanitizer sees
    // any access past an allocation
    im.in = (float *)sim_alloc(bytes);
    blur_fill_input(im.in, &im.g, seed);
    im.out_alloc = (unsigned char *)sim_alloc(bytes + CHECK_GUARD_BYTES);
    im.out = (float *)im.out_alloc;
    im.tmp_pitch = ((size_t)im.g.width * 4 + 511) / 512 * 512;
    im.tmp = (float *)sim_alloc(im.tmp_pitch * im.g.height);
}

static void images_free(sim_images &im)
{
    free(im.in);
    free(im.out_alloc);
    free(im.tmp);
}

static int check_one(const variant *v, sim_images &im, int radius, const double *ref,
                     const char *label)
{
    blur_ctx c;
    c.a.in = im.in;
    c.a.out = im.out;
    c.a.pitch = im.g.pitch;
    c.a.x0 = im.g.x0;
    c.a.y0 = im.g.y0;
    c.a.width = im.g.width;
    c.a.height = im.g.height;
    c.a.radius = radius;
    c.a.tmp = im.tmp;
    c.a.tmp_pitch = im.tmp_pitch;
    c.vec = im.g.pitch % 16 == 0;
    size_t bytes = im.g.pitch * im.g.image_height;
    memset(im.out_alloc, 0xFF, bytes + CHECK_GUARD_BYTES);
    memset(im.tmp, 0xFF, im.tmp_pitch * im.g.height);
    v->run(&c, nullptr);
    char what[192];
    snprintf(what, sizeof what, "%s radius %d, %s (ROI %dx%d at (%d, %d), pitch %zu)", v->name,
             radius, label, im.g.width, im.g.height, im.g.x0, im.g.y0, im.g.pitch);
    size_t bad = blur_check_output(what, im.out_alloc, &im.g, ref, blur_tolerance(radius, 1.0));
    bad += check_guard_host(what, im.out_alloc + bytes, CHECK_GUARD_BYTES);
    return bad == 0;
}

/* SIM_VARIANT: the variants to run, separated by spaces (empty: all). */
static int wanted(const char *only, const char *name)
{
    if (!only) return 1;
    const size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)) != nullptr; p += n)
        if ((p == only || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ')) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int full = argc > 1 && !strcmp(argv[1], "--full");
    const char *only = getenv("SIM_VARIANT");
    if (only && !*only) only = nullptr;   /* empty: every variant */
    if (only) {   /* every name must be a variant of the table */
        char names[512];
        snprintf(names, sizeof names, "%s", only);
        for (char *t = strtok(names, " "); t; t = strtok(nullptr, " ")) {
            int known = 0;
            for (int v = 0; v < N_VARIANTS; v++) known |= !strcmp(t, variants[v].name);
            if (!known) {
                printf("sim: no variant named '%s'\nSIM ERROR\n", t);
                return 2;
            }
        }
    }
    blur_case cases[40];
    int n = blur_check_cases(!full, cases, 36);
    // the sample's --quick run geometry, and an x0 that is odd for every group width
    cases[n++] = {"the --quick run size", {527, 139, 0, 5, 3, 517, 133}};
    cases[n++] = {"x0 = 9, 2 rows", {300, 2, 0, 9, 0, 270, 2}};
    int failed = 0, runs = 0;
    char first_failure[256] = "";
    for (int i = 0; i < n; i++) {
        sim_images im;
        images_make(im, cases[i].g, 2026);
        std::vector<double> ref((size_t)im.g.width * im.g.height);
        const int radii[3] = {1, 2, BLUR_MAX_RADIUS};
        for (int r : radii) {
            const float *roi = im.in + (size_t)im.g.y0 * (im.g.pitch / 4) + im.g.x0;
            cpu_box_mean_f64(roi, im.g.pitch / 4, ref.data(), im.g.width, im.g.width,
                             im.g.height, r);
            for (int v = 0; v < N_VARIANTS; v++) {
                const variant *var = &variants[v];
                if (var->kind == KIND_REFERENCE || (var->kind == KIND_3X3 && r != 1)) continue;
                if (!wanted(only, var->name)) continue;
                int ok = check_one(var, im, r, ref.data(), cases[i].label);
                runs++;
                failed += !ok;
                if (!ok) {
                    printf("sim: FAIL %s radius %d at %s\n", var->name, r, cases[i].label);
                    if (!first_failure[0])
                        snprintf(first_failure, sizeof first_failure, "%s radius %d at %s (the mismatches above)",
                                 var->name, r, cases[i].label);
                }
            }
        }
        printf("sim: %-28s ROI %dx%d at (%d, %d) of %dx%d, pitch %zu: done\n", cases[i].label,
               im.g.width, im.g.height, im.g.x0, im.g.y0, im.g.image_width, im.g.image_height,
               im.g.pitch);
        fflush(stdout);
        images_free(im);
    }
    printf("sim: %d checked runs, %d failed\n", runs, failed);
    if (runs == 0) {
        printf("sim: no variant to run\nSIM ERROR\n");
        return 2;
    }
    if (failed) printf("SIM FAIL: %s\n", first_failure);
    else printf("SIM PASS\n");
    return failed ? 1 : 0;
}
