// sim.cpp: programmaticDependentLaunch's kernels (kernels/*.cuh, included
// as they are) run on the CPU, one fiber per GPU thread (all on one OS
// thread: tests/support/sim_fibers.h), under the rules of programmatic
// dependent launch, and checked exactly against pdl_chain_cpu. The chain's
// controller (run_chain, in main's context, not a fiber) starts kernels and
// lets the fibers run until what it waits for holds.
//
// The rules: a plain launch (stream) starts kernel k after kernel k-1 has
// exited. A PDL launch (pdl_sync, pdl_trigger) may start kernel k as soon
// as every thread of kernel k-1 has called
// cudaTriggerProgrammaticLaunchCompletion() or exited; in kernel k,
// cudaGridDependencySynchronize() returns once kernel k-1 has exited.
// Within those rules the simulation picks the schedule that exposes a
// missing or misplaced wait every time (the GPU shows it only when the
// timing goes that way): every kernel but the last stops right after its
// trigger, the next kernel is started and runs as far as it can (to its
// wait, or to its end), and only then, from the last kernel back to the
// first, does each kernel go on to its own wait. So every kernel's work
// before its wait happens before the kernel ahead of it writes x: a read of
// x there sees the value from before that kernel, a kernel that never waits
// computes from it too, and the chain's values are wrong. Then the waits
// return in order, as each kernel exits.
// Without a trigger (pdl_sync) kernel k starts only once kernel k-1 has
// exited, as on the GPU.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../../../tests/support/sim_fibers.h"

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
SIM_FIBER_LOCAL(dim3, threadIdx);
SIM_FIBER_LOCAL(dim3, blockIdx);
static dim3 blockDim, gridDim;   // one launch shape for the whole chain

// One kernel in flight: its threads' progress.
struct Kernel {
    int threads = 0;
    int triggered_or_exited = 0;   // the next kernel may start when == threads
    int parked = 0;                // threads stopped (after the trigger, in the wait) or exited
    int held = 0;                  // threads stopped after the trigger
    int exited = 0;
    bool hold = false;             // stop each thread right after its trigger
    bool released = false;         // the kernel before this one has exited: the wait returns
};
SIM_FIBER_LOCAL(Kernel *, self);
SIM_FIBER_LOCAL(bool, did_trigger);

// The waits' conditions are tested by the scheduler, outside the fiber,
// where `self` is not this fiber's: they name the kernel itself.
static void cudaTriggerProgrammaticLaunchCompletion()
{
    Kernel *K = self;
    if (!did_trigger) { did_trigger = true; K->triggered_or_exited++; }
    K->parked++;
    K->held++;
    sim_fibers::wait_until([K] { return !K->hold; });
    K->held--;
    K->parked--;
}

static void cudaGridDependencySynchronize()
{
    Kernel *K = self;
    K->parked++;
    sim_fibers::wait_until([K] { return K->released; });
    K->parked--;
}

#define __global__
#define __device__
#define __forceinline__ inline
#include "kernels/00_step.cuh"
#include "kernels/01_plain.cuh"
#include "kernels/02_pdl_sync.cuh"
#include "kernels/03_pdl_trigger.cuh"

extern "C" {
#include "pdl_chain.h"
}

typedef void (*step_kernel)(unsigned int *, int, const unsigned int *, const unsigned int *, int, int,
                            int);

// The chain's fibers: every thread of every kernel of one chain.
static sim_fibers::pool *fibers;

// Start every thread of one launch; each runs the kernel, then says it exited.
static void start(Kernel *K, step_kernel f, unsigned int *x, int n, const unsigned int *a,
                  const unsigned int *b, int k, int iters, int body)
{
    K->threads = (int)(gridDim.x * blockDim.x);
    for (unsigned bx = 0; bx < gridDim.x; bx++)
        for (unsigned tx = 0; tx < blockDim.x; tx++)
            fibers->spawn([=] {
                self = K;
                did_trigger = false;
                blockIdx.x = bx;
                threadIdx.x = tx;
                f(x, n, a, b, k, iters, body);
                if (!did_trigger) K->triggered_or_exited++;
                K->parked++;
                K->exited++;
            });
}

// Let the fibers run until pred() holds (the controller's wait). Fibers that
// can go on run in creation order, each to its next wait.
template <typename P> static void wait_until(P pred)
{
    while (!pred())
        if (!fibers->step()) sim_fibers::on_stuck();
}

static void finish(Kernel *K)
{
    wait_until([K] { return K->exited == K->threads; });
}

// One chain of `kernels` launches, plain or PDL, on x.
static void run_chain(step_kernel f, int pdl, unsigned int *x, int n, const unsigned int *a,
                      const unsigned int *b, int kernels, int iters, int body)
{
    std::vector<Kernel> K(kernels);
    sim_fibers::pool chain_fibers;
    fibers = &chain_fibers;
    int done = 0;   // kernels 0..done-1 have exited and been joined
    // Kernels done..upto in order: each released once the one before has exited.
    auto complete_through = [&](int upto) {
        for (; done <= upto; done++) {
            K[done].hold = false;
            K[done].released = true;
            finish(&K[done]);
        }
    };
    for (int k = 0; k < kernels; k++) {
        if (k > 0 && !pdl) complete_through(k - 1);   // a plain launch: k-1 has exited
        if (k > 0 && pdl) {   // every thread of k-1 has triggered (or exited)
            Kernel *prev = &K[k - 1];
            wait_until([&] { return prev->triggered_or_exited == prev->threads ||
                                    prev->parked == prev->threads; });
            const bool all_triggered = prev->triggered_or_exited == prev->threads;
            if (!all_triggered) complete_through(k - 1);   // no trigger: only its exit lets k start
        }
        K[k].hold = pdl && k + 1 < kernels;
        K[k].released = k == 0;   // the first follows the copy that reset x
        start(&K[k], f, x, n, a, b, k, iters, body);
        wait_until([&] { return K[k].parked == K[k].threads; });
    }
    // From the last kernel back: each goes on to its wait (or its end).
    for (int k = kernels - 2; k >= done; k--) {
        K[k].hold = false;
        wait_until([&] { return K[k].held == 0 && K[k].parked == K[k].threads; });
    }
    complete_through(kernels - 1);
    fibers = nullptr;   // chain_fibers: every fiber has returned
}

int main(int argc, char **argv)
{
    struct { const char *name; step_kernel f; int pdl; } variants[] = {
        {"stream", step_plain, 0}, {"pdl_sync", step_pdl_sync, 1}, {"pdl_trigger", step_pdl_trigger, 1},
    };
    const int ns[] = {1, 100};   // 1 block of 32 with 31 idle threads; 4 blocks, the last partial
    const int kernels = 10, block = 32, prologues[] = {0, 64}, bodies[] = {1, 3};
    int runs = 0, failed = 0, matched = 0;
    for (auto &v : variants) {
        int selected = argc < 2;
        for (int i = 1; i < argc; i++) selected |= strcmp(argv[i], v.name) == 0;
        if (!selected) continue;
        matched++;
        for (int n : ns)
            for (int iters : prologues)
                for (int body : bodies) {
                    std::vector<unsigned int> a(kernels), b(kernels), want(n);
                    pdl_params(2026, kernels, a.data(), b.data());
                    pdl_input(2026, want.data(), (size_t)n);
                    // exactly n elements: AddressSanitizer sees one more
                    unsigned int *x = (unsigned int *)malloc((size_t)n * sizeof *x);
                    memcpy(x, want.data(), (size_t)n * sizeof *x);
                    pdl_chain_cpu(want.data(), (size_t)n, a.data(), b.data(), kernels, iters, body);
                    blockDim.x = block;
                    gridDim.x = (unsigned)((n + block - 1) / block);
                    run_chain(v.f, v.pdl, x, n, a.data(), b.data(), kernels, iters, body);
                    int bad = 0;
                    for (int i = 0; i < n; i++)
                        if (x[i] != want[i]) {
                            if (!bad)
                                printf("SIM FAIL: %s (N=%d, n=%d, prologue=%d, body=%d): x[%d] = %u, "
                                       "the CPU says %u\n", v.name, kernels, n, iters, body, i, x[i],
                                       want[i]);
                            bad++;
                        }
                    if (bad) printf("  %s: %d of %d elements differ\n", v.name, bad, n);
                    failed += bad > 0;
                    runs++;
                    free(x);
                }
    }
    if (!matched) {
        printf("sim: no variant named (stream, pdl_sync, pdl_trigger)\n");
        return 2;
    }
    if (failed) {
        printf("SIM FAIL: %d of %d chains wrong\n", failed, runs);
        return 1;
    }
    printf("SIM PASS: %d chains of %d kernels (n = 1 and 100, prologue 0 and 64, body 1 and 3) "
           "match the CPU, in the schedule that exposes a misplaced wait\n", runs, kernels);
    return 0;
}
