/* test_timing_hold.c: what time_gpu_group puts on the stream around each
 * timed run, without a GPU. The CUDA runtime calls that common/timing.c
 * makes are defined here instead (this program's definitions are the ones
 * its link uses), and each one writes a line to a log: the tests read the
 * order of the work (the hold before the start event, the check after the
 * end event), how long the hold is, what a too-short hold does, and that a
 * with_launches variant is never held. The GPU's side of it (the events'
 * times) is the samples' to show on a GPU. */
#define _POSIX_C_SOURCE 199309L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <cuda_runtime_api.h>

#include "gpu_clocks.h"
#include "timing.h"

/* ---- the stand-in runtime ------------------------------------------------ */

#define LOG_MAX 512
static char log_[LOG_MAX][24];
static int n_log;
static double holds[LOG_MAX];        /* each hold's seconds, in order */
static int n_holds;
static cudaError_t query_answer;     /* what cudaEventQuery says */
static cudaError_t peek_answer;      /* what cudaPeekAtLastError says */
static int get_last_calls;

static void say(const char *what)
{
    if (n_log < LOG_MAX) snprintf(log_[n_log++], sizeof log_[0], "%s", what);
}

static void reset(void)
{
    n_log = n_holds = get_last_calls = 0;
    query_answer = cudaErrorNotReady;
    peek_answer = cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    static uintptr_t next = 1;
    *e = (cudaEvent_t)next++;
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) { (void)e; return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { (void)e; (void)s; say("record"); return cudaSuccess; }
cudaError_t cudaEventQuery(cudaEvent_t e) { (void)e; say("query"); return query_answer; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    (void)a; (void)b;
    *ms = 1.0f;
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) { (void)s; say("sync"); return cudaSuccess; }
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *arg)
{
    (void)s; (void)fn;
    say("hold");
    if (n_holds < LOG_MAX) holds[n_holds++] = *(const double *)arg;
    return cudaSuccess;
}
cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
cudaError_t cudaPeekAtLastError(void) { return peek_answer; }
cudaError_t cudaGetLastError(void)
{
    get_last_calls++;
    cudaError_t e = peek_answer;
    peek_answer = cudaSuccess;
    return e;
}
const char *cudaGetErrorString(cudaError_t e) { (void)e; return "stand-in error"; }
const char *cudaGetErrorName(cudaError_t e) { (void)e; return "standInError"; }
/* no NVML here: no clocks, no side stream */
gpu_clocks_dev *gpu_clocks_open(int dev) { (void)dev; return NULL; }
void gpu_clocks_read(gpu_clocks_dev *g, gpu_clocks *c) { (void)g; c->ok = 0; }
int gpu_clocks_reason_names(unsigned long long r, char *buf, size_t len)
{
    (void)r;
    snprintf(buf, len, "none");
    return 0;
}

/* ---- the timed work -------------------------------------------------------- */

typedef struct {
    const char *name;
    double queue_s;      /* how long the host takes to "queue" a run */
} work;

static void run_work(void *ctx, cudaStream_t s)
{
    (void)s;
    const work *w = (const work *)ctx;
    char line[24];
    snprintf(line, sizeof line, "fn %s", w->name);
    say(line);
    if (w->queue_s > 0) {
        struct timespec ts = {0, (long)(w->queue_s * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* The index of the first log line from `from` on equal to what, or -1. */
static int find(int from, const char *what)
{
    for (int i = from; i < n_log; i++)
        if (!strcmp(log_[i], what)) return i;
    return -1;
}

/* One held variant "a" that takes queue_s to queue, timed alone. */
static void time_a(double queue_s, int warmups, int reps, timing_stats *t)
{
    work w = {"a", queue_s};
    timed_variant v = {run_work, &w, "test/a", 0, NULL, 0};
    timing_cfg c = timing_defaults(reps);
    c.warmups = warmups;
    time_gpu_group(&v, 1, &c, t);
}

/* ---- the tests ------------------------------------------------------------- */

/* Each timed run: the stream emptied, the hold, the start event, the work,
 * the end event, then the check of the start event. The warm-ups are the
 * work alone. */
static void a_run_is_held_before_its_start_event(void **state)
{
    (void)state;
    reset();
    timing_stats t;
    time_a(0, 1, 2, &t);
    static const char *want[] = {"fn a",                                              /* warm-up */
                                 "sync", "hold", "record", "fn a", "record", "query", /* run 1 */
                                 "sync", "hold", "record", "fn a", "record", "query", /* run 2 */
                                 "sync"};
    int n_want = (int)(sizeof want / sizeof want[0]);
    assert_int_equal(n_log, n_want);
    for (int i = 0; i < n_want; i++) assert_string_equal(log_[i], want[i]);
    assert_int_equal(t.short_holds, 0);
    assert_true(t.median_ms == 1.0);
}

/* with_launches: the run starts on the emptied stream, unheld and unchecked,
 * also in a group with a held variant. */
static void a_with_launches_variant_is_never_held(void **state)
{
    (void)state;
    reset();
    work a = {"a", 0}, b = {"b", 0};
    timed_variant v[2] = {{run_work, &a, "test/a", 0, NULL, 1}, {run_work, &b, "test/b", 0, NULL, 0}};
    timing_cfg c = timing_defaults(4);
    c.warmups = 1;
    timing_stats t[2];
    time_gpu_group(v, 2, &c, t);
    int runs_a = 0, runs_b = 0;
    for (int i = find(0, "sync"); i >= 0 && i < n_log; i = find(i + 1, "sync")) {
        int fa = find(i, "fn a"), fb = find(i, "fn b"), next = find(i + 1, "sync");
        if (next < 0) break;   /* the last sync: after every run */
        if (fa >= 0 && fa < next) {   /* a's run: sync, record, fn, record */
            runs_a++;
            assert_string_equal(log_[i + 1], "record");
            assert_int_equal(fa, i + 2);
            assert_string_equal(log_[i + 3], "record");
            assert_int_equal(next, i + 4);
        } else {
            assert_true(fb >= 0 && fb < next);
            runs_b++;
            assert_string_equal(log_[i + 1], "hold");
            assert_int_equal(fb, i + 3);
        }
    }
    assert_int_equal(runs_a, 4);
    assert_int_equal(runs_b, 4);
    assert_int_equal(n_holds, 4);
}

/* The hold outlasts the host's time to queue a run, measured in the
 * warm-ups: twice it and more. */
static void the_hold_outlasts_the_queueing(void **state)
{
    (void)state;
    reset();
    timing_stats t;
    time_a(2e-3, 3, 2, &t);   /* 2 ms to queue */
    assert_int_equal(n_holds, 2);
    for (int i = 0; i < n_holds; i++) {
        assert_true(holds[i] >= 4e-3);
        assert_true(holds[i] <= TIMING_HOLD_MAX_S);
    }
}

/* A start event that has fired when the host is done queueing: the run is
 * counted and the next hold is longer (twice and more). */
static void a_short_hold_is_counted_and_grows(void **state)
{
    (void)state;
    reset();
    query_answer = cudaSuccess;
    timing_stats t;
    time_a(0, 1, 3, &t);
    assert_int_equal(t.short_holds, 3);
    assert_int_equal(n_holds, 3);
    assert_true(holds[1] >= 2 * holds[0]);
    assert_true(holds[2] >= 2 * holds[1]);
}

/* "Not ready" is cleared from the last error when the runtime kept it; any
 * other error is left for the sample's own check. */
static void not_ready_is_no_error_for_the_sample(void **state)
{
    (void)state;
    reset();
    peek_answer = cudaErrorNotReady;
    timing_stats t;
    time_a(0, 1, 1, &t);
    assert_int_equal(get_last_calls, 1);
    assert_int_equal(peek_answer, cudaSuccess);

    reset();
    peek_answer = cudaErrorInvalidValue;
    time_a(0, 1, 1, &t);
    assert_int_equal(get_last_calls, 0);
    assert_int_equal(peek_answer, cudaErrorInvalidValue);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_run_is_held_before_its_start_event),
        cmocka_unit_test(a_with_launches_variant_is_never_held),
        cmocka_unit_test(the_hold_outlasts_the_queueing),
        cmocka_unit_test(a_short_hold_is_counted_and_grows),
        cmocka_unit_test(not_ready_is_no_error_for_the_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
