// tests/support/sim_fibers.h: cooperative fibers for the CPU simulators of
// the samples' kernels (<sample>/tests/cpu_sim/sim.cpp), which include it by
// its relative path. A CUDA thread is a fiber, not an OS thread: every fiber
// runs on the one OS thread of the simulator, so a block of 1024 threads
// costs 1024 small stacks and a few switches per barrier, not 1024 thread
// creations and the futex traffic of std::barrier on two cores.
//
// The schedule, deterministic: a fiber runs until it waits (a barrier, a
// warp operation, wait_until) or yields, then the next fiber in creation
// order gets its turn, round robin. A fiber that arrives at a barrier always
// gives up its turn, even when it is the last to arrive, so between two
// barriers the fibers run one after another in creation order (thread 0's
// whole phase, then thread 1's, ...). Without a barrier, thread 0 runs its
// whole kernel before thread 1 starts: a missing barrier reads a value that
// is not written yet, or overwrites one not yet read, every time.
// LOWEST_FIRST, the other order a simulator may ask for: after every wait
// or yield the lowest-numbered fiber that may go on runs, so a warp whose
// warp barriers complete goes on to its next block-wide wait before the
// next warp starts (round robin would move every warp through its warp
// operations in step: a missing block or cluster barrier between a send
// and a drain shows only this way). There, a fiber that yields (a spin
// loop) lets the fibers after it run before the search starts from 0 again.
//
// What a sim uses:
//   run(n, body)        n fibers, fiber i runs body(i); returns when all have
//                       returned. pool: the same, built up fiber by fiber
//                       and run in steps, or fiber by fiber in an order
//                       of the simulator's (resume_at: cuda_sim.h's
//                       schedules).
//   self()              the index of the running fiber (in its pool).
//   yield()             let the other fibers run (a spin loop must call it).
//   wait_until(pred)    give up the turn until pred() holds; the scheduler
//                       tests pred without switching to the fiber.
//   barrier             std::barrier's arrive / wait / arrive_and_wait /
//                       arrive_and_drop over fibers, same phase semantics.
//   SIM_FIBER_LOCAL(T, name)  a variable with a value per fiber (what the
//                       OS-thread simulators had as thread_local): saved and
//                       restored at every switch; each fiber starts with the
//                       variable's initial value. T must be trivially copyable.
//   on_stuck            called when fibers are left and none can go on (a
//                       barrier that a fiber which has returned would have
//                       to reach: std::barrier would wait forever there).
//                       The default prints why and exits 2; a simulator may
//                       set its own (one that fails the kernel).
//
// Each fiber has a stack of STACK_SIZE bytes (mmap'd, a guard page below
// it, kept and reused by the next fibers): enough for the kernels' local
// arrays (matrixMul's register tiles, histogram's) even without
// optimisation and with AddressSanitizer's redzones. Built with
// -fsanitize=address, every switch is announced to AddressSanitizer
// (__sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber), which
// otherwise takes the other stacks for stack overflows or garbage.
// The switch itself is a few instructions of x86-64 assembly (callee-saved
// registers and the stack pointer; no system call, unlike swapcontext's
// signal mask); other machines use ucontext.
// tests/test_sim_fibers.sh checks all of the above directly
// (tests/support/sim_fibers_check.cpp), with and without AddressSanitizer.
#ifndef SIM_FIBERS_H
#define SIM_FIBERS_H

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>
#include <sys/mman.h>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define SIM_FIBERS_ASAN 1
#else
#define SIM_FIBERS_ASAN 0
#endif

#if defined(__x86_64__)
// sim_fibers_switch(&save_sp, new_sp): push the callee-saved registers, keep
// the stack pointer in *save_sp, take new_sp, pop the registers it saved.
// Weak: a program of several files that include this header has one copy.
extern "C" void sim_fibers_switch(void **save_sp, void *new_sp);
asm(R"(
    .text
    .weak sim_fibers_switch
    .type sim_fibers_switch, @function
sim_fibers_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size sim_fibers_switch, .-sim_fibers_switch
)");
#endif

namespace sim_fibers {

inline constexpr size_t STACK_SIZE = 256 * 1024;

// ---- per-fiber variables ---------------------------------------------------------
struct local_var { void *addr; size_t size, offset; };
inline std::vector<local_var> &locals()
{
    static std::vector<local_var> v;
    return v;
}
inline std::vector<unsigned char> &locals_initial()   // every variable's initial value, in order
{
    static std::vector<unsigned char> v;
    return v;
}
inline int register_local(void *addr, size_t size)
{
    auto &init = locals_initial();
    locals().push_back({addr, size, init.size()});
    init.insert(init.end(), (unsigned char *)addr, (unsigned char *)addr + size);
    return 0;
}
inline void save_locals(unsigned char *to)
{
    for (const local_var &l : locals()) std::memcpy(to + l.offset, l.addr, l.size);
}
inline void load_locals(const unsigned char *from)
{
    for (const local_var &l : locals()) std::memcpy(l.addr, from + l.offset, l.size);
}
#define SIM_FIBER_LOCAL_CAT2(a, b) a##b
#define SIM_FIBER_LOCAL_CAT(a, b) SIM_FIBER_LOCAL_CAT2(a, b)
// At namespace scope: `SIM_FIBER_LOCAL(dim3, threadIdx);` (an initialiser may follow the name in T's place: no).
#define SIM_FIBER_LOCAL(T, name)                                                                      \
    static_assert(std::is_trivially_copyable<T>::value, "a fiber-local variable is copied at switches"); \
    inline T name;                                                                                    \
    inline const int SIM_FIBER_LOCAL_CAT(sim_fiber_local_, name) = sim_fibers::register_local(&name, sizeof(T))

// ---- stacks ------------------------------------------------------------------------
inline std::vector<void *> &free_stacks()   // kept for the next fibers: mapped once
{
    static std::vector<void *> v;
    return v;
}
inline void *take_stack()   // the lowest usable byte; a guard page below it
{
    auto &fs = free_stacks();
    if (!fs.empty()) {
        void *s = fs.back();
        fs.pop_back();
        return s;
    }
    const size_t page = 4096;
    char *p = (char *)mmap(nullptr, STACK_SIZE + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                           -1, 0);
    if (p == MAP_FAILED) {
        std::printf("sim: out of memory for the fibers' stacks\n");
        std::fflush(stdout);
        std::_Exit(2);
    }
    mprotect(p, page, PROT_NONE);   // an overflow faults instead of writing into the next stack
    return p + page;
}

// ---- fibers and their scheduler -----------------------------------------------------
struct fiber {
    std::function<void()> body;
    void *stack = nullptr;
    bool started = false, done = false;
    bool (*cond)(const void *) = nullptr;   // waiting until cond(cond_arg)
    const void *cond_arg = nullptr;
    std::vector<unsigned char> locals;
#if defined(__x86_64__)
    void *sp = nullptr;
#else
    ucontext_t ctx;
#endif
    void *fake_stack = nullptr;   // AddressSanitizer's, while switched out
};

class pool;
inline pool *g_pool = nullptr;   // the pool whose fiber runs (or that runs its fibers)
inline fiber *g_cur = nullptr;   // the running fiber; null in the scheduler
inline unsigned g_cur_index = 0;

[[noreturn]] inline void default_stuck()
{
    std::printf("sim: the simulation is stuck: every thread still in the kernel waits at a barrier or a warp "
                "operation that cannot complete (a thread that has left the kernel never arrives there)\n");
    std::fflush(stdout);
    std::_Exit(2);
}
inline void (*on_stuck)() = default_stuck;

enum order { ROUND_ROBIN, LOWEST_FIRST };

class pool {
public:
    explicit pool(order o = ROUND_ROBIN) : order_(o) {}
    pool(const pool &) = delete;
    pool &operator=(const pool &) = delete;
    ~pool() { clear(); }

    // A new fiber, run after those made before it.
    void spawn(std::function<void()> body)
    {
        auto f = std::make_unique<fiber>();
        f->body = std::move(body);
        f->locals = locals_initial();
        fibers_.push_back(std::move(f));
        live_++;
    }
    size_t size() const { return fibers_.size(); }
    size_t live() const { return live_; }

    // One round-robin pass: every fiber that may go on runs to its next wait
    // or yield. Returns whether any fiber ran.
    bool step()
    {
        bool ran = false;
        for (size_t i = 0; i < fibers_.size(); i++) {
            fiber &f = *fibers_[i];
            if (f.done) continue;
            if (f.cond) {
                if (!f.cond(f.cond_arg)) continue;
                f.cond = nullptr;
            }
            resume(f, (unsigned)i);
            ran = true;
        }
        return ran;
    }
    // Run fiber i (not returned yet) to its next wait or yield, whatever it
    // waits for: for a simulator that keeps its own account of who may go on
    // and picks the order itself.
    void resume_at(size_t i)
    {
        fiber &f = *fibers_[i];
        if (f.done) return;
        f.cond = nullptr;
        resume(f, (unsigned)i);
    }
    // Passes until every fiber has returned (true) or none can go on (false).
    bool run_until_stuck()
    {
        if (order_ == LOWEST_FIRST) {
            // a fiber that yielded (a spin loop) lets the fibers after it go
            // first, once: the search starts after it, and wraps round
            size_t start = 0;
            while (live_ > 0) {
                const size_t n = fibers_.size();
                size_t i = n;
                for (size_t k = 0; k < n; k++) {
                    const size_t j = (start + k) % n;
                    fiber &f = *fibers_[j];
                    if (!f.done && (!f.cond || f.cond(f.cond_arg))) { i = j; break; }
                }
                if (i == n) return false;
                resume_at(i);
                start = !fibers_[i]->done && !fibers_[i]->cond ? i + 1 : 0;
            }
            return true;
        }
        while (live_ > 0)
            if (!step()) return false;
        return true;
    }
    void run()
    {
        if (!run_until_stuck()) on_stuck();
        clear();
    }
    // Forget the fibers (all returned, or stuck ones abandoned); keep their stacks.
    void clear()
    {
        for (auto &f : fibers_)
            if (f->stack) free_stacks().push_back(f->stack);
        fibers_.clear();
        live_ = 0;
    }

    // ---- from inside a fiber ----
    // Back to the scheduler; the fiber goes on when its turn comes round.
    void yield_current()
    {
        fiber &f = *g_cur;
#if SIM_FIBERS_ASAN
        __sanitizer_start_switch_fiber(&f.fake_stack, main_bottom_, main_size_);
#endif
#if defined(__x86_64__)
        sim_fibers_switch(&f.sp, main_sp_);
#else
        swapcontext(&f.ctx, &main_ctx_);
#endif
#if SIM_FIBERS_ASAN
        __sanitizer_finish_switch_fiber(f.fake_stack, &main_bottom_, &main_size_);
#endif
    }

private:
    std::vector<std::unique_ptr<fiber>> fibers_;
    size_t live_ = 0;
    order order_;
    std::vector<unsigned char> main_locals_;
#if defined(__x86_64__)
    void *main_sp_ = nullptr;
#else
    ucontext_t main_ctx_;
#endif
    const void *main_bottom_ = nullptr;   // the scheduler's stack, for AddressSanitizer
    size_t main_size_ = 0;
    void *main_fake_ = nullptr;

    static void entry()
    {
        pool *p = g_pool;
        fiber &f = *g_cur;
#if SIM_FIBERS_ASAN
        __sanitizer_finish_switch_fiber(nullptr, &p->main_bottom_, &p->main_size_);
#endif
        f.body();
        f.done = true;
        // the last switch away: AddressSanitizer may drop this stack's fake frames (nullptr)
#if SIM_FIBERS_ASAN
        __sanitizer_start_switch_fiber(nullptr, p->main_bottom_, p->main_size_);
#endif
#if defined(__x86_64__)
        sim_fibers_switch(&f.sp, p->main_sp_);
#else
        swapcontext(&f.ctx, &p->main_ctx_);
#endif
        __builtin_unreachable();
    }

    void resume(fiber &f, unsigned index)
    {
        if (!f.started) {
            f.started = true;
            f.stack = take_stack();
#if defined(__x86_64__)
            // the stack as sim_fibers_switch leaves it: six registers, then
            // entry's address for its ret, then a null return address for entry
            void **top = (void **)((char *)f.stack + STACK_SIZE);
            void **sp = top - 8;
            for (int r = 0; r < 6; r++) sp[r] = nullptr;
            sp[6] = (void *)&pool::entry;
            sp[7] = nullptr;
            f.sp = sp;
#else
            getcontext(&f.ctx);
            f.ctx.uc_stack.ss_sp = f.stack;
            f.ctx.uc_stack.ss_size = STACK_SIZE;
            f.ctx.uc_link = nullptr;
            makecontext(&f.ctx, &pool::entry, 0);
#endif
        }
        pool *outer_pool = g_pool;
        fiber *outer = g_cur;
        const unsigned outer_index = g_cur_index;
        g_pool = this;
        g_cur = &f;
        g_cur_index = index;
        main_locals_.resize(locals_initial().size());
        save_locals(main_locals_.data());
        load_locals(f.locals.data());
#if SIM_FIBERS_ASAN
        __sanitizer_start_switch_fiber(&main_fake_, f.stack, STACK_SIZE);
#endif
#if defined(__x86_64__)
        sim_fibers_switch(&main_sp_, f.sp);
#else
        swapcontext(&main_ctx_, &f.ctx);
#endif
#if SIM_FIBERS_ASAN
        __sanitizer_finish_switch_fiber(main_fake_, nullptr, nullptr);
#endif
        save_locals(f.locals.data());
        load_locals(main_locals_.data());
        g_pool = outer_pool;
        g_cur = outer;
        g_cur_index = outer_index;
        if (f.done) live_--;
    }
};

inline bool in_fiber() { return g_cur != nullptr; }
inline unsigned self() { return g_cur_index; }
inline void yield()
{
    if (g_cur) g_pool->yield_current();
}
// Give up the turn until pred() holds (tested by the scheduler, without a
// switch); pred lives on this fiber's stack meanwhile. Always gives up the
// turn once, even when pred() holds already: the order stays round robin.
template <class P> inline void wait_until(const P &pred)
{
    if (!g_cur) {
        std::printf("sim: wait_until outside a fiber\n");
        std::fflush(stdout);
        std::_Exit(2);
    }
    g_cur->cond = [](const void *a) { return (*(const P *)a)(); };
    g_cur->cond_arg = &pred;
    g_pool->yield_current();
}

// n fibers, fiber i running body(i), round robin (or lowest first) until
// all have returned.
template <class F> inline void run(unsigned n, F &&body, order o = ROUND_ROBIN)
{
    pool p(o);
    for (unsigned i = 0; i < n; i++) p.spawn([&body, i] { body(i); });
    p.run();
}

// std::barrier over fibers: a phase completes when `expected` arrivals have
// been made; arrive_and_drop also lowers `expected` for the later phases (a
// thread that leaves the kernel is not waited for).
class barrier {
public:
    typedef unsigned long long arrival_token;
    explicit barrier(unsigned expected) : expected_(expected) {}
    barrier(const barrier &) = delete;
    arrival_token arrive()
    {
        const arrival_token t = phase_;
        if (++count_ >= expected_) complete();
        return t;
    }
    void wait(arrival_token t) const
    {
        wait_until([this, t] { return phase_ != t; });
    }
    void arrive_and_wait() { wait(arrive()); }
    void arrive_and_drop()
    {
        expected_--;
        if (count_ >= expected_) complete();
    }
    unsigned long long phase() const { return phase_; }

private:
    unsigned expected_, count_ = 0;
    unsigned long long phase_ = 0;
    void complete()
    {
        count_ = 0;
        phase_++;
    }
};

}  // namespace sim_fibers

#endif  // SIM_FIBERS_H
