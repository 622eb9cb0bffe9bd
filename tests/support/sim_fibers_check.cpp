// sim_fibers_check.cpp: what the CPU simulators rely on in sim_fibers.h,
// checked directly (tests/test_sim_fibers.sh builds and runs it, with and
// without AddressSanitizer). Each check prints "ok NAME" or "FAIL NAME: why";
// `stuck` (its own run: the process must end) is asked for by name.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sim_fibers.h"

static int failures = 0;
static void check(bool ok, const char *name, const std::string &why)
{
    if (ok) std::printf("ok %s\n", name);
    else { std::printf("FAIL %s: %s\n", name, why.c_str()); failures++; }
}

SIM_FIBER_LOCAL(int, my_id);

// Between two barriers the fibers run one after another in creation order,
// and every fiber sees every other's write of the phase before.
static void barrier_phases()
{
    const unsigned n = 64;
    std::vector<int> slot(n, -1), seen(n, 0);
    std::string order;
    sim_fibers::barrier bar(n);
    sim_fibers::run(n, [&](unsigned t) {
        slot[t] = (int)t;
        if (t < 4) order += (char)('0' + t);
        bar.arrive_and_wait();
        int sum = 0;
        for (unsigned i = 0; i < n; i++) sum += slot[i];
        seen[t] = sum;
    });
    int bad = 0;
    for (unsigned t = 0; t < n; t++) bad += seen[t] != (int)(n * (n - 1) / 2);
    check(bad == 0, "barrier_phases", std::to_string(bad) + " fibers read before every write");
    check(order == "0123", "round_robin_order", "the first four ran as " + order);
}

// A fiber's local keeps its value across switches; a new fiber starts with
// the variable's initial value.
static void fiber_locals()
{
    const unsigned n = 8;
    std::vector<int> after(n, -1), initial(n, -2);
    sim_fibers::barrier bar(n);
    sim_fibers::run(n, [&](unsigned t) {
        initial[t] = my_id;
        my_id = 100 + (int)t;
        bar.arrive_and_wait();
        bar.arrive_and_wait();
        after[t] = my_id;
    });
    int bad = 0, bad0 = 0;
    for (unsigned t = 0; t < n; t++) {
        bad += after[t] != 100 + (int)t;
        bad0 += initial[t] != 0;
    }
    check(bad == 0, "fiber_locals_kept", std::to_string(bad) + " fibers lost their value across a switch");
    check(bad0 == 0, "fiber_locals_initial", std::to_string(bad0) + " fibers started with another's value");
    check(my_id == 0, "scheduler_local_restored", "the scheduler's own value is now " + std::to_string(my_id));
}

// arrive_and_drop: the leaving fiber counts in this phase, and later phases
// no longer wait for it (a thread that exits early).
static void barrier_drop()
{
    const unsigned n = 8;
    int rounds_done = 0;
    sim_fibers::barrier bar(n);
    sim_fibers::run(n, [&](unsigned t) {
        if (t == n - 1) { bar.arrive_and_drop(); return; }
        for (int r = 0; r < 3; r++) bar.arrive_and_wait();
        if (t == 0) rounds_done = 3;
    });
    check(rounds_done == 3 && bar.phase() == 3, "barrier_drop",
          "phase " + std::to_string(bar.phase()) + " after 3 rounds");
}

// wait_until: a fiber that waits for a flag another fiber sets later goes on
// once it is set, not before.
static void wait_for_flag()
{
    int flag = 0, read = -1;
    sim_fibers::run(2, [&](unsigned t) {
        if (t == 0) {
            sim_fibers::wait_until([&] { return flag != 0; });
            read = flag;
        } else {
            for (int i = 0; i < 5; i++) sim_fibers::yield();
            flag = 7;
        }
    });
    check(read == 7, "wait_until", "read " + std::to_string(read));
}

// LOWEST_FIRST: after a wait the lowest-numbered fiber that may go on runs,
// so fiber 0 reaches its second barrier of the pair before fiber 2 starts.
static void lowest_first()
{
    std::string order;
    sim_fibers::barrier pair01(2);
    sim_fibers::run(3, [&](unsigned t) {
        order += (char)('a' + t);
        if (t < 2) {
            pair01.arrive_and_wait();
            order += (char)('A' + t);
        }
    }, sim_fibers::LOWEST_FIRST);
    check(order == "abABc", "lowest_first", "ran as " + order);
}

// Deep stacks: a fiber may use tens of KiB of locals (a kernel's arrays).
static void deep_stack()
{
    long total = 0;
    sim_fibers::run(4, [&](unsigned t) {
        volatile char big[96 * 1024];
        for (size_t i = 0; i < sizeof big; i += 512) big[i] = (char)t;
        sim_fibers::yield();
        long s = 0;
        for (size_t i = 0; i < sizeof big; i += 512) s += big[i];
        total += s;
    });
    const long want = (long)(96 * 1024 / 512) * (0 + 1 + 2 + 3);
    check(total == want, "deep_stack", std::to_string(total) + " against " + std::to_string(want));
}

// A barrier that a fiber which has returned would have to reach: the
// simulation says so and exits 2 (std::barrier would wait forever).
static void stuck()
{
    sim_fibers::barrier bar(2);
    sim_fibers::run(2, [&](unsigned t) {
        if (t == 0) bar.arrive_and_wait();
    });
    std::printf("FAIL stuck: the run returned\n");
}

int main(int argc, char **argv)
{
    if (argc > 1 && !std::strcmp(argv[1], "stuck")) {
        stuck();
        return 1;
    }
    barrier_phases();
    fiber_locals();
    barrier_drop();
    wait_for_flag();
    lowest_first();
    deep_stack();
    std::printf("%s\n", failures ? "checks FAILED" : "checks passed");
    return failures ? 1 : 0;
}
