// sim.cpp: firstKernel's kernels run on the CPU, so a kernel (saxpy, or an
// exercise) can be checked on a machine without a GPU. The grid is walked
// block by block and, inside a block, thread by thread: exact for kernels
// whose threads do not talk to each other (no __syncthreads, no shared
// memory), which is every kernel of this sample. run.sh builds it around
// kernels.inc: the sample's kernel and launcher, and the exercise if one is
// given, with each <<<grid, block>>> launch rewritten to SIM_LAUNCH.
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
static dim3 gridDim, blockDim, blockIdx, threadIdx;

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

#include "kernels.inc"

#ifdef EXERCISE_FILE
#define LAUNCH exercise_launch
#define NAME "exercise"
#else
#define LAUNCH launch_saxpy
#define NAME "saxpy"
#endif

int main()
{
    // the sample's --quick size and sizes around the exercises' fixed grid (65,536 threads)
    const int sizes[] = {1, 1000, 65537, 100003, 300007}, GUARD = 1024;
    for (int n : sizes) {
        size_t count = (size_t)n + GUARD;
        float *x = (float *)std::malloc(count * sizeof(float)), *y = (float *)std::malloc(count * sizeof(float));
        float *y0 = (float *)std::malloc(count * sizeof(float));
        std::srand(2026);
        for (size_t i = 0; i < count; i++) { x[i] = std::rand() % 17 - 8; y[i] = y0[i] = std::rand() % 17 - 8; }
        LAUNCH(n, 2.0f, x, y);
        for (size_t i = 0; i < count; i++) {
            float want = (int)i < n ? 2.0f * x[i] + y0[i] : y0[i];
            if (y[i] != want) {
                std::printf("SIM FAIL: %s, n = %d: y[%zu] = %g, want %g%s\n", NAME, n, i, y[i], want,
                            (int)i < n ? "" : " (past the end: nobody may write there)");
                return 1;
            }
        }
        std::free(x), std::free(y), std::free(y0);
    }
    std::printf("SIM PASS: %s at n = 1, 1000, 65537, 100003, 300007\n", NAME);
    return 0;
}
