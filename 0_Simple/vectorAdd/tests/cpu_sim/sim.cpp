// sim.cpp: vectorAdd's kernels run on the CPU, so a kernel (the sample's, or
// an exercise) can be checked on a machine without a GPU. The grid is walked
// block by block and, inside a block, thread by thread: exact for kernels
// whose threads do not talk to each other (no __syncthreads, no shared
// memory), which is every kernel of this sample. run.sh builds it around
// kernels.inc: the sample's kernels and launchers, and the exercise if one is
// given, with each <<<...>>> launch rewritten to SIM_LAUNCH.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
static dim3 gridDim, blockDim, blockIdx, threadIdx;
struct alignas(16) float4 { float x, y, z, w; };
static inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
typedef void *cudaStream_t;
enum cudaMemcpyKind { cudaMemcpyDeviceToDevice };
static int cudaMemcpyAsync(void *d, const void *s, size_t bytes, cudaMemcpyKind, cudaStream_t)
{
    std::memcpy(d, s, bytes);
    return 0;
}

template <class F> static void sim_launch(dim3 g, dim3 b, F body)
{
    if (g.x * g.y * g.z == 0 || b.x * b.y * b.z == 0 || b.x * b.y * b.z > 1024) {
        std::printf("SIM FAIL: launch with grid %ux%ux%u, block %ux%ux%u: invalid configuration argument "
                    "(a real GPU refuses it)\n", g.x, g.y, g.z, b.x, b.y, b.z);
        std::exit(1);
    }
    gridDim = g;
    blockDim = b;
    for (unsigned bz = 0; bz < g.z; bz++) for (unsigned by = 0; by < g.y; by++) for (unsigned bx = 0; bx < g.x; bx++)
        for (unsigned tz = 0; tz < b.z; tz++) for (unsigned ty = 0; ty < b.y; ty++) for (unsigned tx = 0; tx < b.x; tx++) {
            blockIdx = dim3(bx, by, bz);
            threadIdx = dim3(tx, ty, tz);
            body();
        }
}
#define __global__
#define __device__
#define __restrict__ __restrict
#define SIM_LAUNCH(grid, block, call) sim_launch(dim3(grid), dim3(block), [&] { call; })
#define CHECK_LAUNCH() do {} while (0)
#define CUDA_CHECK(call) (void)(call)

#include "kernels.inc"

typedef void (*run_fn)(void *, cudaStream_t);
static const struct { const char *name; run_fn run; } kernels[] = {
#ifdef EXERCISE_FILE
    {"exercise", exercise_run},
#else
    {"naive", run_naive},
    {"grid_stride_float4", run_grid_stride},
#endif
};

int main()
{
    // the sample's check sizes (--quick), and one more past a single sweep of the full grid
    const size_t sizes[] = {1, 3, 1000, 4097, (1u << 17) + 3, (1u << 20) + 5}, GUARD = 1024;
    const int full_grid = 132 * 8, block = 256, tiny_grid = 3;
    const size_t max_n = (1u << 20) + 5, count = max_n + GUARD;
    void *pa = nullptr, *pb = nullptr, *pc = nullptr;  // 256-byte aligned, as cudaMalloc's
    if (posix_memalign(&pa, 256, count * sizeof(float)) || posix_memalign(&pb, 256, count * sizeof(float)) ||
        posix_memalign(&pc, 256, count * sizeof(float))) {
        std::printf("sim: out of memory\n");
        return 2;
    }
    float *a = (float *)pa, *b = (float *)pb, *c = (float *)pc;
    uint32_t r = 2026;
    for (size_t i = 0; i < count; i++) {  // seeded values in [-1, 1): the sum is exact in float
        r = r * 1664525u + 1013904223u; a[i] = (float)(r >> 8) / (1 << 23) - 1.0f;
        r = r * 1664525u + 1013904223u; b[i] = (float)(r >> 8) / (1 << 23) - 1.0f;
    }
    for (const auto &k : kernels)
        for (size_t n : sizes)
            for (int grid : {full_grid, tiny_grid}) {
                if (grid == tiny_grid && n > (1u << 17) + 3) continue;  // as the sample checks
                std::memset(c, 0xFF, (n + GUARD) * sizeof(float));       // NaN: an unwritten element fails
                add_ctx ctx = {a, b, c, n, block, grid};  // the sample's launch context
                k.run(&ctx, nullptr);
                for (size_t i = 0; i < n + GUARD; i++) {
                    float want = a[i] + b[i];
                    bool ok = i < n ? c[i] == want : std::isnan(c[i]);
                    if (!ok) {
                        if (i < n)
                            std::printf("SIM FAIL: %s, n = %zu (grid_stride_blocks = %d): c[%zu] = %g, want %g%s\n",
                                        k.name, n, grid, i, c[i], want, std::isnan(c[i]) ? " (never written)" : "");
                        else
                            std::printf("SIM FAIL: %s, n = %zu (grid_stride_blocks = %d): c[%zu] was written "
                                        "(past the end: nobody may write there)\n", k.name, n, grid, i);
                        return 1;
                    }
                }
            }
    std::printf("SIM PASS: %s at n = 1, 3, 1000, 4097, 2^17+3 (grid-stride grids of %d and %d blocks) "
                "and 2^20+5\n", sizeof kernels / sizeof kernels[0] == 1 ? kernels[0].name : "naive, grid_stride_float4",
                full_grid, tiny_grid);
    std::free(a), std::free(b), std::free(c);
    return 0;
}
