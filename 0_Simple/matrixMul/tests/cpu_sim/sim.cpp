// sim.cpp: runs matrixMul's kernels on the CPU, without a GPU: one fiber per
// CUDA thread (tests/support/sim_fibers.h: all on one OS thread, round robin,
// so a block's threads run one after another between barriers), one block at
// a time, __syncthreads as a barrier over the block, dynamic shared memory
// filled with NaN before each block. The kernels are the real
// source: the files of ../../kernels/ that matrixMul.cu includes, in its order
// (run.sh writes the list to kernels.inc, and points each file's extern
// __shared__ declaration at g_dyn_smem); cp.async takes its pre-sm_80
// fallback path (synchronous copies). It checks indexing, edge
// handling, alpha/beta and barrier placement (a missing barrier makes results
// wrong here), not timing or true GPU memory-model races: compute-sanitizer
// racecheck on the GPU remains the authority. A, B and C are each followed by
// a guard zone of NaN (as on the GPU): reads past A or B poison C, writes past
// C are reported. Usage: ./run.sh --help. Built with -DEXERCISE="file", it
// also runs an exercise's kernel as the variant `exercise`.
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <functional>
#include <array>
#include <algorithm>
#include "../../../../tests/support/sim_fibers.h"
struct dim3 { unsigned x = 1, y = 1, z = 1; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
struct alignas(16) float4 { float x, y, z, w; };
static inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
SIM_FIBER_LOCAL(dim3, threadIdx);
dim3 blockIdx, blockDim, gridDim;   // one block at a time: the same for all its threads
sim_fibers::barrier *g_bar;
alignas(16) float g_dyn_smem[65536];
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
static inline void __syncthreads() { g_bar->arrive_and_wait(); }
#include "mm_host.h"  // mm_tile_of
#include "kernels.inc"
#ifdef EXERCISE
#include EXERCISE
#endif

template <class F>
static void launch(dim3 grid, dim3 block, F f)
{
    gridDim = grid; blockDim = block;
    int nt = block.x * block.y;
    for (unsigned by = 0; by < grid.y; by++)
        for (unsigned bx = 0; bx < grid.x; bx++) {
            memset(g_dyn_smem, 0xFF, sizeof g_dyn_smem);  // NaN: unwritten dynamic smem shows
            sim_fibers::barrier bar(nt);
            g_bar = &bar;
            blockIdx = dim3(bx, by);
            sim_fibers::run(nt, [&](unsigned t) {
                threadIdx = dim3(t % block.x, t / block.x);
                f();
            });
        }
}
#define CD(a, b) (((a) + (b) - 1) / (b))
typedef std::function<void(int, int, int, float, const float *, const float *, float, float *)> runner;
// One runner per variant of matrixMul.cu's table, with the launcher's grid and
// block and the variant's block tile of C (bm x bn: its tile shape, below).
struct variant_run { const char *name; int bm, bn; runner run; };
#define K(...) [=] { __VA_ARGS__(M, N, K, al, A, B, be, C); }
#define ARGS int M, int N, int K, float al, const float *A, const float *B, float be, float *C
#define GRID2(BM, BN) dim3(CD(N, BN), CD(M, BM))
#define BLOCKTILE_1D(NAME, BM, BN, BK) \
    r.push_back({NAME, BM, BN, [](ARGS) { launch(GRID2(BM, BN), dim3(BM * BN / 8), K(mm_blocktile_1d<BM, BN, BK, 8>)); }})
#define BLOCKTILE_2D(NAME, BM, BN, BK) \
    r.push_back({NAME, BM, BN, [](ARGS) { launch(GRID2(BM, BN), dim3((BM / 8) * (BN / 8)), K(mm_blocktile_2d<BM, BN, BK, 8, 8>)); }})
#define WARPTILE(NAME, BM, BN, BK, MINB) \
    r.push_back({NAME, BM, BN, [](ARGS) { launch(GRID2(BM, BN), dim3((BM / 64) * (BN / 32) * 32), K(mm_warptile<BM, BN, BK, MINB>)); }})
#define CPASYNC(NAME, BM, BN, BK, WM, WN, S, MINB) \
    r.push_back({NAME, BM, BN, [](ARGS) { launch(GRID2(BM, BN), dim3((BM / WM) * (BN / WN) * 32), K(mm_cpasync<BM, BN, BK, WM, WN, S, MINB>)); }})
#define UNCHECKED(NAME, BM, BN, BK, WM, WN, S, MINB) \
    r.push_back({NAME, BM, BN, [](ARGS) { launch(GRID2(BM, BN), dim3((BM / WM) * (BN / WN) * 32), K(mm_unchecked<BM, BN, BK, WM, WN, S, MINB>)); }})
#define PIPE(NAME, BM, BN, BK, WM, WN, S, MINB, G) \
    r.push_back({NAME, BM, BN, [](ARGS) { launch(dim3(CD(M, BM) * CD(N, BN)), dim3((BM / WM) * (BN / WN) * 32), K(mm_pipelined<BM, BN, BK, WM, WN, S, MINB, G>)); }})
#define STEADY(NAME, BM, BN, BK, WM, WN, S, MINB, PF) \
    r.push_back({NAME, BM, BN, [](ARGS) { launch(dim3(CD(M, BM) * CD(N, BN)), dim3((BM / WM) * (BN / WN) * 32), K(mm_steady<BM, BN, BK, WM, WN, S, MINB, PF>)); }})
static std::vector<variant_run> runners()
{
    std::vector<variant_run> r;
    r.push_back({"naive", 32, 32, [](ARGS) { launch(dim3(CD(M, 32), CD(N, 32)), dim3(32, 32), K(mm_naive)); }});
    r.push_back({"coalesced", 32, 32, [](ARGS) { launch(GRID2(32, 32), dim3(32, 32), K(mm_coalesced)); }});
    r.push_back({"smem_tile32", 32, 32, [](ARGS) { launch(GRID2(32, 32), dim3(32, 32), K(mm_smem<32>)); }});
    r.push_back({"smem_tile16", 16, 16, [](ARGS) { launch(GRID2(16, 16), dim3(16, 16), K(mm_smem<16>)); }});
    r.push_back({"smem_tile32_prefetch", 32, 32, [](ARGS) { launch(GRID2(32, 32), dim3(32, 32), K(mm_smem_prefetch<32>)); }});
    BLOCKTILE_1D("blocktile_1d_32x32x32", 32, 32, 32);
    BLOCKTILE_1D("blocktile_1d_64x64x32", 64, 64, 32);
    BLOCKTILE_1D("blocktile_1d", 64, 64, 8);
    BLOCKTILE_2D("blocktile_2d_64x64x8", 64, 64, 8);
    BLOCKTILE_2D("blocktile_2d", 128, 128, 8);
    r.push_back({"vec_global_loads", 128, 128, [](ARGS) { launch(GRID2(128, 128), dim3(256), K(mm_vec_global<128, 128, 8>)); }});
    r.push_back({"transposed_a", 128, 128, [](ARGS) { launch(GRID2(128, 128), dim3(256), K(mm_transposed<128, 128, 8, 0>)); }});
    r.push_back({"padded_a", 128, 128, [](ARGS) { launch(GRID2(128, 128), dim3(256), K(mm_transposed<128, 128, 8, 4>)); }});
    r.push_back({"warp_layout", 128, 128, [](ARGS) { launch(GRID2(128, 128), dim3(256), K(mm_warp_layout<128, 128, 8>)); }});
    WARPTILE("warptile_128x128x8", 128, 128, 8, 2);
    WARPTILE("warptile_128x64x8", 128, 64, 8, 3);
    WARPTILE("warptile_128x128x16", 128, 128, 16, 2);
    WARPTILE("warptile_128x128x16_1blk", 128, 128, 16, 1);
    CPASYNC("cpasync_128x128x8_s2", 128, 128, 8, 64, 32, 2, 2);
    CPASYNC("cpasync_128x128x8_s3", 128, 128, 8, 64, 32, 3, 2);
    CPASYNC("cpasync_128x128x16_s2", 128, 128, 16, 64, 32, 2, 2);
    CPASYNC("cpasync_128x128x16_s3", 128, 128, 16, 64, 32, 3, 2);
    CPASYNC("cpasync_128x128x8_w64x64_s3", 128, 128, 8, 64, 64, 3, 2);
    UNCHECKED("unchecked_128x128x8_w64x64_s3", 128, 128, 8, 64, 64, 3, 2);
    PIPE("pipe_128x128x8_w64x64_s3", 128, 128, 8, 64, 64, 3, 2, 1);
    PIPE("pipe_128x128x8_w64x32_s3", 128, 128, 8, 64, 32, 3, 2, 1);
    PIPE("pipe_128x128x8_w64x64_s4", 128, 128, 8, 64, 64, 4, 2, 1);
    PIPE("pipe_128x128x16_w64x64_s3", 128, 128, 16, 64, 64, 3, 2, 1);
    PIPE("pipe_128x128x16_w64x64_s4", 128, 128, 16, 64, 64, 4, 2, 1);
    PIPE("pipe_128x256x8_w64x64_s3", 128, 256, 8, 64, 64, 3, 1, 1);
    PIPE("pipe_128x256x16_w64x64_s3", 128, 256, 16, 64, 64, 3, 1, 1);
    PIPE("pipe_256x128x8_w64x64_s3", 256, 128, 8, 64, 64, 3, 1, 1);
    PIPE("pipe_128x128x8_w64x64_s3_g8", 128, 128, 8, 64, 64, 3, 2, 8);
    PIPE("pipe_128x128x16_w64x64_s3_g8", 128, 128, 16, 64, 64, 3, 2, 8);
    STEADY("steady_128x256x8_w64x64_s3", 128, 256, 8, 64, 64, 3, 1, false);
    STEADY("steady_128x128x8_w64x64_s3", 128, 128, 8, 64, 64, 3, 2, false);
    STEADY("steady_128x256x8_w64x64_s3_pf", 128, 256, 8, 64, 64, 3, 1, true);
#ifdef EXERCISE  // the exercise file's kernel, grid and block (exercises/README.md)
    r.push_back({"exercise", EXERCISE_BM, EXERCISE_BN, [](ARGS) { launch(exercise_grid(M, N), exercise_block(), K(mm_exercise)); }});
#endif
    return r;
}
static float urand(uint64_t &s) { s = s * 6364136223846793005ULL + 1442695040888963407ULL; return (float)((s >> 40) * (1.0 / 16777216.0)) * 2 - 1; }
// Guard zones after A, B and C, as common/check.h's (64 KiB), filled with 0xFF
// bytes (NaN): a kernel that reads past the end of A or B gets NaN into C, one
// that writes past the end of C changes the guard (checked after each run).
static const size_t GUARD = 16384;
static bool guard_intact(const std::vector<float> &v, size_t used)
{
    const unsigned char *p = (const unsigned char *)(v.data() + used);
    for (size_t i = 0; i < GUARD * sizeof(float); i++) if (p[i] != 0xFF) return false;
    return true;
}
// Usage: sim [--quick] [VARIANT...], or sim --list (the runners' names). Every variant (or those named) at the
// shapes of matrixMul's checks: the full list, or --quick's, and then the
// variant's own tile shape (bm+4) x (bn+8) x 67, as matrixMul.cu's tile_shape.
int main(int argc, char **argv)
{
    static const int full[][3] = {{1, 1, 1}, {17, 17, 17}, {33, 65, 129}, {36, 68, 20}, {128, 128, 128}, {257, 263, 271}, {260, 136, 68}, {130, 140, 9}, {260, 264, 44}};
    static const int quick[][3] = {{1, 1, 1}, {17, 17, 17}, {36, 68, 20}};
    bool is_quick = false;
    std::vector<const char *> only;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--list")) {
            for (auto &r : runners()) printf("%s\n", r.name);
            return 0;
        }
        if (!strcmp(argv[i], "--quick")) is_quick = true;
        else only.push_back(argv[i]);
    }
    int fails = 0, runs = 0;
    char first_fail[200] = "";
    for (auto &r : runners()) {
        if (!only.empty()) {
            bool named = false;
            for (auto o : only) named |= !strcmp(o, r.name);
            if (!named) continue;
        }
        std::vector<std::array<int, 3>> shapes;
        if (is_quick) for (auto &sh : quick) shapes.push_back({sh[0], sh[1], sh[2]});
        else for (auto &sh : full) shapes.push_back({sh[0], sh[1], sh[2]});
        shapes.push_back({r.bm + 4, r.bn + 8, 67});
        for (auto &sh : shapes) {
            int M = sh[0], N = sh[1], K = sh[2];
            std::vector<float> A((size_t)M * K + GUARD), B((size_t)K * N + GUARD), C0((size_t)M * N), C((size_t)M * N + GUARD);
            memset(A.data() + (size_t)M * K, 0xFF, GUARD * sizeof(float));
            memset(B.data() + (size_t)K * N, 0xFF, GUARD * sizeof(float));
            uint64_t s = 42 + M;
            for (size_t i = 0; i < (size_t)M * K; i++) A[i] = urand(s);
            for (size_t i = 0; i < (size_t)K * N; i++) B[i] = urand(s);
            for (auto &x : C0) x = urand(s);
            for (float be : {0.0f, -0.5f}) {
                float al = 1.5f;
                std::vector<double> ref((size_t)M * N);
                for (int i = 0; i < M; i++) for (int j = 0; j < N; j++) {
                    double d = 0; for (int k = 0; k < K; k++) d += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
                    ref[(size_t)i * N + j] = al * d + (be != 0 ? be * (double)C0[(size_t)i * N + j] : 0);
                }
                memset(C.data(), 0xFF, C.size() * 4);
                if (be != 0) std::copy(C0.begin(), C0.end(), C.begin());
                r.run(M, N, K, al, A.data(), B.data(), be, C.data());
                double tol = (K + 16) * std::ldexp(1.0, -22);
                int bad = 0;
                for (size_t i = 0; i < (size_t)M * N; i++) {
                    double e = std::fabs(C[i] - ref[i]);
                    if (!(e <= tol + tol * std::fabs(ref[i]))) {
                        if (bad < 3) printf("  %s %dx%dx%d beta=%g C[%zu][%zu] (idx %zu): got %g, want %g\n", r.name, M, N, K, be, i / N, i % N, i, C[i], ref[i]);
                        if (!bad && !first_fail[0]) snprintf(first_fail, sizeof first_fail, "%s %dx%dx%d beta=%g: C[%zu][%zu] is %g, want %g", r.name, M, N, K, be, i / N, i % N, C[i], ref[i]);
                        bad++;
                    }
                }
                const bool guard_ok = guard_intact(C, (size_t)M * N);
                if (!guard_ok && !first_fail[0]) snprintf(first_fail, sizeof first_fail, "%s %dx%dx%d beta=%g: a write past the end of C", r.name, M, N, K, be);
                if (bad || !guard_ok) fails++;
                runs++;
                printf("%-28s %dx%dx%d beta=%-4g %s (%d bad%s)\n", r.name, M, N, K, be, bad || !guard_ok ? "FAIL" : "ok", bad, guard_ok ? "" : ", guard zone after C written");
                fflush(stdout);
            }
        }
    }
    if (runs == 0) { printf("sim: no variant named %s\n", only.empty() ? "" : only[0]); return 2; }
    if (fails) printf("SIM FAIL: %d of %d runs wrong, the first: %s\n", fails, runs, first_fail);
    else printf("SIM PASS\n");
    return fails != 0;
}
