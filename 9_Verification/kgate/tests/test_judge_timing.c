/* test_judge_timing.c: the judge's clock (judge_host.c, kg_judge_cycle and
 * the functions around it) against fake harnesses that cheat, without a GPU.
 *
 * The arena is host memory here (a memfd the judge hands the fake harness
 * with MAP, as judge.cu hands it GPU memory), and the judge's GPU work is
 * modelled by host functions with the same contract (kg_gpu_ops): refill
 * writes fresh inputs, snapshot reads sampled outputs the moment the batch
 * is answered, verify checks the chosen calls in full and the samples
 * again. The "candidate" adds one to every 32-bit input word. A fake
 * harness can be honest (a fixed cost per call and per batch), lie about
 * its times, answer before its work is done and finish it afterwards (a
 * private stream, an early reply through a proxy), compute only the last
 * call of a batch (only the last used to be checked), compute only call 0
 * (where it expects the check), or hang past the deadline. Each cheat must
 * end in L3 (or L2), or in the judge's true figure for its time; the same
 * tests with the judge's checks planted out fail (README.md, Timing). */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "judge.h"
#include "proto.h"
#include "sandbox.h"
#include "tasks.h"

#define N_ELEMS 4096          /* a "relu" of 4096 elements: 16 KiB per buffer */
#define CALLS 16
#define SAMPLES 512
#define BATCH_COST_MS 3.0     /* what a batch costs the fake harness beyond its calls */

typedef enum {
    F_HONEST,        /* 1 ms a call of "GPU work", 3 ms beyond each batch, honest events */
    F_LIAR,          /* 3 ms a call, reports 0.1 ms a call */
    F_EARLY,         /* answers at once; a child writes the outputs 30 ms later (private stream, proxy) */
    F_LATE_HALF,     /* answers with the first half of each output written; the rest 5 ms later */
    F_LAST_ONLY,     /* computes only the last call of a batch (the old check's blind spot) */
    F_FIRST_ONLY,    /* computes only call 0 (where it guesses the check is) */
    F_HANG,          /* never answers a batch */
    F_SLOW_HOPELESS  /* 40 ms a call */
} fmode;

static void sleep_ms(double ms)
{
    if (ms <= 0) return;
    struct timespec ts = {(time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6)};
    nanosleep(&ts, NULL);
}

static void reply_ms(int fd, uint32_t seq, int status, float ms)
{
    kg_rep r;
    memset(&r, 0, sizeof r);
    r.magic = KG_REP_MAGIC;
    r.seq = seq;
    r.status = (uint32_t)status;
    r.ms = ms;
    kg_write_all(fd, &r, sizeof r);
}

static void compute(unsigned char *arena, const kg_cmd *c, uint32_t i, size_t from, size_t to)
{
    const uint32_t *x = (const uint32_t *)(arena + c->in0[i]);
    uint32_t *y = (uint32_t *)(arena + c->out[i]);
    for (size_t k = from; k < to; k++) y[k] = x[k] + 1;
}

static void fake_harness(int cmd, int rep, fmode mode)
{
    unsigned char *arena = NULL;
    size_t arena_bytes = 0;
    for (;;) {
        kg_cmd c;
        int fd = -1;
        if (kg_recv_cmd(cmd, &c, &fd) != 0) _exit(0);
        if (c.op == KG_OP_MAP) {
            arena_bytes = (size_t)c.seed;
            arena = mmap(NULL, arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
            reply_ms(rep, c.seq, arena == MAP_FAILED ? KG_ST_CUDA_ERROR : KG_ST_OK, 0);
            continue;
        }
        if (c.op == KG_OP_CALIBRATE) {
            /* the gate's delay kernel: seed ns per call, plus the batch's fixed cost */
            double gpu = (double)c.n_calls * (double)c.seed / 1e6;
            sleep_ms(gpu + BATCH_COST_MS);
            reply_ms(rep, c.seq, KG_ST_OK, (float)gpu);
            continue;
        }
        if (c.op != KG_OP_CHECK && c.op != KG_OP_BATCH) {
            reply_ms(rep, c.seq, KG_ST_OK, 0);
            continue;
        }
        if (!kg_cmd_valid(&c, 1 << 20, arena_bytes)) {
            reply_ms(rep, c.seq, KG_ST_BAD_CMD, 0);
            continue;
        }
        double per = mode == F_LIAR ? 3.0 : mode == F_SLOW_HOPELESS ? 40.0 : 1.0;
        int cheat = c.op == KG_OP_BATCH;   /* the checked call is done honestly */
        if (cheat && mode == F_HANG) for (;;) pause();
        if (cheat && (mode == F_EARLY || mode == F_LATE_HALF)) {
            if (mode == F_LATE_HALF)
                for (uint32_t i = 0; i < c.n_calls; i++) compute(arena, &c, i, 0, N_ELEMS / 2);
            reply_ms(rep, c.seq, KG_ST_OK, 0.001f);
            if (fork() == 0) {   /* the work that goes on after the answer */
                sleep_ms(mode == F_EARLY ? 30 : 5);
                for (uint32_t i = 0; i < c.n_calls; i++) compute(arena, &c, i, 0, N_ELEMS);
                _exit(0);
            }
            continue;
        }
        uint32_t done = 0;
        for (uint32_t i = 0; i < c.n_calls; i++) {
            if (cheat && mode == F_LAST_ONLY && i + 1 != c.n_calls) continue;
            if (cheat && mode == F_FIRST_ONLY && i != 0) continue;
            compute(arena, &c, i, 0, N_ELEMS);
            done++;
        }
        double gpu = per * (mode == F_LAST_ONLY || mode == F_FIRST_ONLY ? done : c.n_calls);
        sleep_ms(gpu + BATCH_COST_MS);
        reply_ms(rep, c.seq, KG_ST_OK, (float)(mode == F_LIAR ? 0.1 * c.n_calls : gpu));
    }
}

/* ---- the judge's GPU work, on host memory ---- */

typedef struct {
    unsigned char *arena;
    uint32_t snap[SAMPLES], snap2[SAMPLES];
    int plant_no_recheck;          /* verify skips the samples' second read */
    int plant_last_only;           /* the old rule: only the batch's last call is checked */
    double verify_delay_ms;        /* the full check takes this long before it reads */
} fake_gpu;

static fake_gpu *G(kg_judge *j) { return (fake_gpu *)j->gpu_ctx; }

static uint32_t word(uint64_t seed, int call, size_t k)
{
    uint64_t x = (seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(call + 1))) + 0x632be59bd9b4e019ULL * (k + 1);
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ULL;
    return (uint32_t)(x ^ (x >> 32));
}

static uint32_t *in_of(kg_judge *j, kg_size_run *z, int i)
{
    return (uint32_t *)(G(j)->arena + z->arena_base + (size_t)i * z->L.slot + z->L.in0);
}

static uint32_t *out_of(kg_judge *j, kg_size_run *z, int i)
{
    return (uint32_t *)(G(j)->arena + z->arena_base + (size_t)i * z->L.slot + z->L.out);
}

static int f_refill(kg_judge *j, kg_size_run *z, int calls, uint64_t seed, int poison0)
{
    for (int i = 0; i < calls; i++) {
        uint32_t *x = in_of(j, z, i);
        for (size_t k = 0; k < N_ELEMS; k++) x[k] = word(seed, i, k);
        memset((char *)out_of(j, z, i) + z->L.out_bytes, 0xA5, KG_GUARD);
    }
    if (poison0) memset(out_of(j, z, 0), 0xFF, z->L.out_bytes);
    return -1;
}

static void snap_into(kg_judge *j, kg_size_run *z, const int *sel, int m, uint64_t seed, uint32_t *dst)
{
    for (uint32_t k = 0; k < SAMPLES; k++)
        dst[k] = out_of(j, z, sel[k % (uint32_t)m])[kg_sample_index(seed, k, N_ELEMS)];
}

static int f_snapshot(kg_judge *j, kg_size_run *z, const int *sel, int m, uint64_t seed)
{
    snap_into(j, z, sel, m, seed, G(j)->snap);
    return -1;
}

static int f_verify(kg_judge *j, kg_size_run *z, uint64_t seed, const int *sel, int m, uint64_t sseed, int batch)
{
    fake_gpu *g = G(j);
    sleep_ms(g->verify_delay_ms);
    int last = z->calls - 1;
    const int *chk = sel;
    int mc = m;
    if (g->plant_last_only && batch > 0) {
        chk = &last;
        mc = 1;
    }
    for (int c = 0; c < mc; c++) {
        const uint32_t *x = in_of(j, z, chk[c]), *y = out_of(j, z, chk[c]);
        size_t bad = 0;
        for (size_t k = 0; k < N_ELEMS; k++) {
            if (x[k] != word(seed, chk[c], k)) {
                snprintf(j->m->detail, sizeof j->m->detail, "modified its (const) input");
                return KG_V_L3;
            }
            bad += y[k] != x[k] + 1;
        }
        if (bad) {
            snprintf(j->m->detail, sizeof j->m->detail, "wrong result in batch %d, call %d: %zu of %d", batch,
                     chk[c], bad, N_ELEMS);
            return KG_V_L3;
        }
    }
    if (g->plant_no_recheck) return -1;
    snap_into(j, z, sel, m, sseed, g->snap2);
    if (memcmp(g->snap, g->snap2, sizeof g->snap) != 0) {
        snprintf(j->m->detail, sizeof j->m->detail, "outputs still changing after its answer");
        return KG_V_L3;
    }
    return -1;
}

static const kg_gpu_ops fake_ops = {f_refill, f_snapshot, f_verify};

typedef struct {
    pid_t pid;
    int cmd_w, rep_r, mfd;
    size_t bytes;
    fake_gpu g;
    kg_judge j;
    kg_judge_msg m;
    kg_size_run z;
} ctx;

static void start(ctx *x, fmode mode, double deadline_s)
{
    memset(x, 0, sizeof *x);
    const kg_task *t = kg_task_find("relu");
    kg_shape s = {{N_ELEMS, 0, 0}};
    x->z.s = s;
    snprintf(x->z.which, sizeof x->z.which, "mid");
    kg_shape_text(t, s, x->z.shp, sizeof x->z.shp);
    x->z.L = kg_slot_layout_of(t, s);
    x->z.slots = CALLS;
    x->z.calls = CALLS;
    x->z.ref_one_ms = 1.0;
    x->z.ref_ms = 1.0;
    x->bytes = (size_t)CALLS * x->z.L.slot;
    x->mfd = memfd_create("arena", 0);
    assert_true(x->mfd >= 0);
    assert_int_equal(ftruncate(x->mfd, (off_t)x->bytes), 0);
    x->g.arena = mmap(NULL, x->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, x->mfd, 0);
    assert_true(x->g.arena != MAP_FAILED);
    int cmd[2], rep[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, cmd), 0);
    assert_int_equal(pipe(rep), 0);
    x->pid = fork();
    if (x->pid == 0) {
        close(cmd[1]);
        close(rep[0]);
        fake_harness(cmd[0], rep[1], mode);
        _exit(0);
    }
    close(cmd[0]);
    close(rep[1]);
    x->cmd_w = cmd[1];
    x->rep_r = rep[0];
    x->j.cmd_fd = cmd[1];
    x->j.rep_fd = rep[0];
    x->j.sock = -1;
    x->j.m = &x->m;
    x->j.t = t;
    x->j.task = 1;
    x->j.rng = 12345;
    x->j.deadline = kg_now() + deadline_s;
    x->j.gpu = &fake_ops;
    x->j.gpu_ctx = &x->g;
    assert_int_equal(kg_judge_map(&x->j, x->mfd, x->bytes), -1);
}

static void stop(ctx *x)
{
    close(x->cmd_w);
    close(x->rep_r);
    kill(x->pid, SIGKILL);
    waitpid(x->pid, NULL, 0);
    while (waitpid(-1, NULL, WNOHANG) > 0) {}
    munmap(x->g.arena, x->bytes);
    close(x->mfd);
}

/* calibrate (before LOAD), load, then the size's checked call and batches */
static int run(ctx *x)
{
    int v = kg_judge_calibrate_size(&x->j, &x->z);
    if (v >= 0) return v;
    if ((v = kg_judge_load(&x->j)) >= 0) return v;
    return kg_judge_time_size(&x->j, &x->z, 0);
}

/* An honest harness whose batches cost 3 ms beyond their 16 calls of 1 ms
 * (0.19 ms more a call if it were charged): the allowance (measured before
 * LOAD with the gate's delay kernel) takes that cost away, and the figure is
 * its 1 ms a call. The bounds allow for a loaded machine (load 50-240 on
 * the development machine moved a batch by up to 2.5 ms; a make test beside
 * six builds measured an allowance of 8.1 ms, so 0.69 ms a call). */
static void test_honest(void **s)
{
    (void)s;
    ctx x;
    start(&x, F_HONEST, 30);
    assert_int_equal(run(&x), -1);
    fprintf(stderr, "    honest: %.4f ms a call (1 ms of work), allowance %.3f ms (3 ms planted), events %.4f\n",
            x.z.cand_ms, x.z.allow_ms, x.z.rep_ms);
    assert_true(x.z.allow_ms > 2.9 && x.z.allow_ms < 12.0);
    assert_true(x.z.cand_ms > 0.5 && x.z.cand_ms < 1.0 + 0.5 * 3.0 / CALLS);   /* well below 1.19 */
    assert_int_equal(x.z.timed, KG_TIMED_BATCHES);
    stop(&x);
}

/* A harness that takes 3 ms a call and reports 0.1 ms: its report is never
 * read for the figure (planting the report in as the figure makes this
 * test fail). */
static void test_lying_times(void **s)
{
    (void)s;
    ctx x;
    start(&x, F_LIAR, 30);
    assert_int_equal(run(&x), -1);
    fprintf(stderr, "    liar: %.4f ms a call (3.0 real, 0.1 reported)\n", x.z.cand_ms);
    assert_true(x.z.cand_ms > 2.5);   /* a loaded machine's jitter, never the report */
    assert_true(x.z.rep_ms < 0.2);   /* what it said, kept for information */
    stop(&x);
}

/* Answering before the work is done (a private stream the harness's events
 * never saw, or a proxy answering on the inherited descriptors) and
 * finishing 30 ms later: the outputs are not there when the judge checks
 * at once; when its check takes 250 ms (the work done by then), the
 * snapshot taken at the answer shows it, and with the snapshot's second
 * read planted out the cheat passes. */
static void test_early_reply(void **s)
{
    (void)s;
    ctx x;
    start(&x, F_EARLY, 30);
    int v = run(&x);
    fprintf(stderr, "    early reply: %d (%s)\n", v, x.m.detail);
    assert_int_equal(v, KG_V_L3);
    stop(&x);
    start(&x, F_EARLY, 30);
    x.g.verify_delay_ms = 250;
    v = run(&x);
    fprintf(stderr, "    early reply, slow check: %d (%s)\n", v, x.m.detail);
    assert_int_equal(v, KG_V_L3);
    assert_non_null(strstr(x.m.detail, "still changing"));
    stop(&x);
    start(&x, F_EARLY, 30);
    x.g.verify_delay_ms = 250;
    x.g.plant_no_recheck = 1;
    assert_int_equal(run(&x), -1);
    stop(&x);
}

/* Half of every output written by the answer, the rest 5 ms later, while
 * the judge's full check takes 150 ms: by then the outputs are right, and
 * only the second read of the snapshot's elements catches it. With that
 * read planted out the same cheat passes. */
static void test_work_after_reply(void **s)
{
    (void)s;
    ctx x;
    start(&x, F_LATE_HALF, 30);
    x.g.verify_delay_ms = 150;
    int v = run(&x);
    fprintf(stderr, "    late half: %d (%s)\n", v, x.m.detail);
    assert_int_equal(v, KG_V_L3);
    assert_non_null(strstr(x.m.detail, "still changing"));
    stop(&x);
    start(&x, F_LATE_HALF, 30);
    x.g.verify_delay_ms = 150;
    x.g.plant_no_recheck = 1;
    assert_int_equal(run(&x), -1);   /* the check can fail: without it, a bought pass */
    stop(&x);
}

/* Computing only the last call of every batch (which the old check looked
 * at) or only call 0: the calls checked in full are drawn after the answer,
 * KG_CHECKED_CALLS of them. With the old rule planted back in (the last
 * call only), the last-call cheat passes. */
static void test_skipped_calls(void **s)
{
    (void)s;
    ctx x;
    start(&x, F_LAST_ONLY, 30);
    int v = run(&x);
    fprintf(stderr, "    last call only: %d (%s)\n", v, x.m.detail);
    assert_int_equal(v, KG_V_L3);
    stop(&x);
    start(&x, F_FIRST_ONLY, 30);
    assert_int_equal(run(&x), KG_V_L3);
    stop(&x);
    start(&x, F_LAST_ONLY, 30);
    x.g.plant_last_only = 1;
    assert_int_equal(run(&x), -1);
    fprintf(stderr, "    last call only, old rule planted: passes at %.4f ms a call\n", x.z.cand_ms);
    stop(&x);
}

/* A batch never answered: the judge's deadline, L2, and the judge returns. */
static void test_reply_after_deadline(void **s)
{
    (void)s;
    ctx x;
    start(&x, F_HANG, 1.5);
    double t0 = kg_now();
    int v = run(&x);
    assert_true(kg_now() - t0 < 4.0);
    assert_int_equal(v, KG_V_L2);
    assert_int_equal(x.m.lost, 1);
    assert_int_equal(x.m.timed_out, 1);
    assert_non_null(strstr(x.m.detail, "hang"));
    stop(&x);
}

/* Over 20 times the reference and over 20 ms a call: judged on the checked
 * call alone (the whole cycle, an upper bound). */
static void test_hopeless(void **s)
{
    (void)s;
    ctx x;
    start(&x, F_SLOW_HOPELESS, 30);
    assert_int_equal(run(&x), -1);
    assert_int_equal(x.z.timed, 0);
    assert_true(x.z.cand_ms >= 40.0);
    stop(&x);
}

/* The pieces: the figure, the draw of the checked calls. */
static void test_figure_and_pick(void **s)
{
    (void)s;
    assert_true(fabs(kg_judge_figure(5.0, 1.0, 0.5, 10) - 0.35) < 1e-12);
    assert_true(kg_judge_figure(0.5, 1.0, 0.0, 10) > 0);   /* never zero or negative */
    kg_judge j;
    memset(&j, 0, sizeof j);
    j.rng = 99;
    int sel[KG_MAX_BATCH], seen[KG_MAX_BATCH] = {0};
    for (int rep = 0; rep < 200; rep++) {
        int m = kg_judge_pick(&j, 40, sel);
        assert_int_equal(m, KG_CHECKED_CALLS);
        for (int a = 0; a < m; a++) {
            assert_true(sel[a] >= 0 && sel[a] < 40);
            seen[sel[a]]++;
            for (int b = a + 1; b < m; b++) assert_true(sel[a] != sel[b]);
        }
    }
    for (int i = 0; i < 40; i++) assert_true(seen[i] > 0);   /* every call can be drawn */
    assert_int_equal(kg_judge_pick(&j, 3, sel), 3);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure_and_pick), cmocka_unit_test(test_honest),
        cmocka_unit_test(test_lying_times),     cmocka_unit_test(test_early_reply),
        cmocka_unit_test(test_work_after_reply), cmocka_unit_test(test_skipped_calls),
        cmocka_unit_test(test_reply_after_deadline), cmocka_unit_test(test_hopeless),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
