/* judge_host.c: the judge's host-side work (judge.h): driving the harness,
 * validating its replies, the timed cycles and their clock (the GPU work
 * around them is judge.cu's, behind kg_gpu_ops), the small shapes against
 * the CPU reference in double, and the gate's side of a session. No CUDA
 * here, so all of it is unit-tested without a GPU, against fake harnesses
 * that lie and cheat (tests/test_judge.c). */
#define _GNU_SOURCE
#include "judge.h"
#include "timing.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rng.h"
#include "sandbox.h"

static int clean(char *s, size_t cap)
{
    char *z = memchr(s, 0, cap);
    if (!z) return 0;
    for (char *p = s; p < z; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) *p = '?';
    return 1;
}

int kg_judge_msg_valid(kg_judge_msg *m)
{
    if (m->magic != KG_JUDGE_MAGIC) return 0;
    if (m->final < 0 || m->final > 1) return 0;
    if (m->final && (m->verdict < 0 || m->verdict >= KG_V_COUNT)) return 0;
    if (m->lost < 0 || m->lost > 1 || m->timed_out < 0 || m->timed_out > 1) return 0;
    if (m->judge_failed < 0 || m->judge_failed > 1) return 0;
    double t[] = {m->cand_ms_mid, m->ref_ms_mid, m->cand_ms_large, m->ref_ms_large, m->t_io,
                  m->t_session, m->rep_ms_mid, m->rep_ms_large};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!isfinite(t[i]) || t[i] < 0 || t[i] > 1e9) return 0;
    if (m->shapes_checked < 0 || m->shapes_checked > 100) return 0;
    if (!isfinite(m->allow_ms) || m->allow_ms < -1 || m->allow_ms > 1e3) return 0;
    if (!isfinite(m->gpu_wait_s) || m->gpu_wait_s < 0 || m->gpu_wait_s > 1e5) return 0;
    if (m->wall_batches < 0 || m->timed_batches < 0 || m->wall_batches > m->timed_batches ||
        m->timed_batches > 1000) return 0;
    if (m->mm_n < 0 || m->mm_n > KG_MAX_MISMATCH || m->mm_count > m->mm_checked) return 0;
    for (int i = 0; i < m->mm_n; i++)
        if (m->mm_index[i] < 0) return 0;   /* the values may be NaN: the candidate's output */
    return clean(m->stage, sizeof m->stage) && clean(m->detail, sizeof m->detail) &&
           clean(m->mm_shape, sizeof m->mm_shape);
}

static void send_msg(kg_judge *j)
{
    if (j->sock < 0) return;
    j->m->magic = KG_JUDGE_MAGIC;
    ssize_t w = send(j->sock, j->m, sizeof *j->m, MSG_NOSIGNAL);
    (void)w;
}

void kg_judge_stage(kg_judge *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->m->stage, sizeof j->m->stage, fmt, ap);
    va_end(ap);
    j->m->final = 0;
    send_msg(j);
}

static int lost(kg_judge *j, int timed_out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->m->detail, sizeof j->m->detail, fmt, ap);
    va_end(ap);
    j->m->lost = 1;
    j->m->timed_out = timed_out;
    return KG_V_L2;
}

uint64_t kg_judge_rand(kg_judge *j)
{
    uint64_t x = j->rng ? j->rng : 0x9e3779b97f4a7c15ULL;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return j->rng = x;
}

int kg_judge_call_fd(kg_judge *j, kg_cmd *c, kg_rep *r, double *wall_ms, int fd)
{
    c->magic = KG_CMD_MAGIC;
    c->seq = ++j->seq;
    double t0 = kg_now();
    if (kg_send_cmd(j->cmd_fd, c, fd) != 0) {
        lost(j, 0, "the candidate's process is gone (it stopped reading) while %s", j->m->stage);
        return -1;
    }
    int rc = kg_read_exact_spin(j->rep_fd, r, sizeof *r, j->deadline, j->spin_s);
    double t1 = kg_now();
    /* what the separate process costs: a round trip per command (the
     * candidate's own work inside the wait is not overhead); data copies
     * are counted where they happen */
    j->t_io += j->ping_ms > 0 ? j->ping_ms / 1e3 : (c->op == KG_OP_PING ? t1 - t0 : 0.0);
    if (wall_ms) *wall_ms = 1e3 * (t1 - t0);
    if (rc == -2) {
        lost(j, 1, "hang: no answer within the time limit while %.200s", j->m->stage);
        return -1;
    }
    if (rc != 0) {
        lost(j, 0, "the candidate's process died while %.200s", j->m->stage);
        return -1;
    }
    char why[64];
    if (!kg_rep_valid(r, c->seq, why, sizeof why)) {
        lost(j, 0, "protocol violation: the candidate's process sent a malformed reply (%s) while "
             "%.200s: tampering", why, j->m->stage);
        return -1;
    }
    return 0;
}

int kg_judge_call(kg_judge *j, kg_cmd *c, kg_rep *r, double *wall_ms)
{
    return kg_judge_call_fd(j, c, r, wall_ms, -1);
}

void kg_judge_mismatches(kg_judge *j, const char *shape, size_t bad, size_t checked, const kg_mismatches *mm)
{
    kg_judge_msg *m = j->m;
    snprintf(m->mm_shape, sizeof m->mm_shape, "%.95s", shape ? shape : "");
    m->mm_count = bad;
    m->mm_checked = checked < bad ? bad : checked;
    m->mm_n = 0;
    for (int i = 0; mm && i < mm->n && i < KG_MAX_MISMATCH; i++) {
        m->mm_index[i] = mm->m[i].index < 0 ? 0 : mm->m[i].index;
        m->mm_expected[i] = mm->m[i].expected;
        m->mm_got[i] = mm->m[i].got;
        m->mm_n++;
    }
}

int kg_judge_status_verdict(kg_judge *j, const kg_rep *r)
{
    const char *en = j->err_name ? j->err_name(r->cuda_err) : "CUDA error";
    char *d = j->m->detail;
    size_t dl = sizeof j->m->detail;
    switch (r->status) {
    case KG_ST_LOAD_ERROR:
        snprintf(d, dl, "cannot load the compiled candidate (the loader said: \"%.120s\")", r->text);
        return KG_V_L1;
    case KG_ST_NO_LAUNCH:
        snprintf(d, dl, "no extern \"C\" launch() in the candidate");
        return KG_V_L1;
    case KG_ST_LAUNCH_ERROR:
        snprintf(d, dl, "launch error while %.150s: %s", j->m->stage, en);
        return KG_V_L2;
    case KG_ST_CUDA_ERROR:
        snprintf(d, dl, "%s while %s (%.150s)", en, kg_where_text((int)r->where), j->m->stage);
        return KG_V_L2;
    case KG_ST_NO_DEVICE:
        if (j->loaded) {
            /* only the harness's own start-up can say this: once candidate code
             * is loaded it would be the candidate's word for a way out */
            j->m->lost = 1;
            snprintf(d, dl, "protocol violation: the candidate's process claimed to have no CUDA context "
                     "after it was loaded, while %.150s: tampering", j->m->stage);
            return KG_V_L2;
        }
        /* before any candidate code ran: the machine's failure, not the candidate's */
        snprintf(d, dl, "gate: the candidate's process could not create a CUDA context (%s: %.100s)", en,
                 r->text);
        return KG_V_SKIPPED;
    case KG_ST_HOOKS:
        snprintf(d, dl, "refused: a plain candidate defines %.80s, a hook of the gate's PyTorch adapter (only "
                 "the adapter of a PyTorch candidate may define the gate's kgate_adapter_* symbols)", r->text);
        return KG_V_L1;
    case KG_ST_CAND_ERROR:
        snprintf(d, dl, "the candidate raised an error while %.100s: \"%.150s\"", j->m->stage, r->text);
        return KG_V_L2;
    default:
        j->m->lost = 1;
        snprintf(d, dl, "protocol violation: the candidate's process refused a command while %.150s: "
                 "tampering", j->m->stage);
        return KG_V_L2;
    }
}

int kg_judge_map(kg_judge *j, int fd, size_t bytes)
{
    kg_judge_stage(j, "handing the harness the gate's buffers");
    kg_cmd c;
    kg_rep r;
    memset(&c, 0, sizeof c);
    c.op = KG_OP_MAP;
    c.seed = bytes;
    if (kg_judge_call_fd(j, &c, &r, NULL, fd) != 0) return KG_V_L2;
    if (r.status != KG_ST_OK) return kg_judge_status_verdict(j, &r);
    return -1;
}

int kg_judge_load(kg_judge *j)
{
    kg_judge_stage(j, "loading the shared object");
    kg_cmd c;
    kg_rep r;
    memset(&c, 0, sizeof c);
    c.op = KG_OP_LOAD;
    c.flags = j->torch ? KG_LOAD_TORCH : 0;
    /* from this command on, candidate code may run in the harness */
    j->loaded = 1;
    if (kg_judge_call(j, &c, &r, NULL) != 0) return KG_V_L2;
    if (r.status != KG_ST_OK) return kg_judge_status_verdict(j, &r);
    return -1;
}

int kg_judge_dry(kg_judge *j)
{
    kg_judge_stage(j, "calling launch() once (dry run, no GPU)");
    kg_cmd c;
    kg_rep r;
    memset(&c, 0, sizeof c);
    c.op = KG_OP_DRY;
    c.task = j->task;
    if (kg_judge_call(j, &c, &r, NULL) != 0) return KG_V_L2;
    if (r.status != KG_ST_OK) return kg_judge_status_verdict(j, &r);
    return -1;
}

double kg_judge_figure(double wall_ms, double allow_ms, double copy_ms, int calls)
{
    double f = (wall_ms - allow_ms - copy_ms) / (calls > 0 ? calls : 1);
    return f > 1e-6 ? f : 1e-6;
}

int kg_judge_pick(kg_judge *j, int calls, int *sel)
{
    int all[KG_MAX_BATCH];
    if (calls > KG_MAX_BATCH) calls = KG_MAX_BATCH;
    for (int i = 0; i < calls; i++) all[i] = i;
    int m = calls < KG_CHECKED_CALLS ? calls : KG_CHECKED_CALLS;
    for (int i = 0; i < m; i++) {
        int k = i + (int)(kg_judge_rand(j) % (uint64_t)(calls - i));
        int t = all[i];
        all[i] = all[k];
        all[k] = t;
        sel[i] = all[i];
    }
    return m;
}

int kg_judge_cycle(kg_judge *j, kg_size_run *z, int op, int calls, int batch, uint64_t ns, double *wall_ms,
                   double *rep_ms)
{
    if (calls < 1 || calls > z->slots || calls > KG_MAX_BATCH || !j->gpu) {
        snprintf(j->m->detail, sizeof j->m->detail, "gate: %d calls for %d buffers", calls, z->slots);
        return KG_V_L2;
    }
    kg_cmd c;
    kg_rep r;
    memset(&c, 0, sizeof c);
    c.op = (uint32_t)op;
    c.task = j->task;
    for (int d = 0; d < 3; d++) c.d[d] = z->s.d[d];
    c.seed = ns;
    c.n_calls = (uint32_t)calls;
    for (int i = 0; i < calls; i++) {
        size_t at = z->arena_base + (size_t)i * z->L.slot;
        c.in0[i] = at + z->L.in0;
        c.in1[i] = z->L.in1_bytes ? at + z->L.in1 : 0;
        c.out[i] = at + z->L.out;
    }
    /* the clock starts before the inputs exist: no work on them can start earlier */
    uint64_t seed = kg_judge_rand(j);
    double t0 = kg_now();
    int v = j->gpu->refill(j, z, calls, seed, op == KG_OP_CHECK);
    if (v >= 0) return v;
    if (kg_judge_call(j, &c, &r, NULL) != 0) return KG_V_L2;
    if (r.status != KG_ST_OK) return kg_judge_status_verdict(j, &r);
    /* after the reply: which calls are checked, and which of their elements
     * are read now; the clock stops when the read is done */
    int sel[KG_MAX_BATCH], m = 1;
    sel[0] = 0;
    if (op == KG_OP_BATCH) m = kg_judge_pick(j, calls, sel);
    uint64_t sseed = kg_judge_rand(j);
    v = j->gpu->snapshot(j, z, sel, m, sseed);
    double t1 = kg_now();
    if (v >= 0) return v;
    if (wall_ms) *wall_ms = 1e3 * (t1 - t0);
    if (rep_ms) *rep_ms = r.ms;
    if (op == KG_OP_CALIBRATE) return -1;
    return j->gpu->verify(j, z, seed, sel, m, sseed, batch);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int kg_judge_calibrate_size(kg_judge *j, kg_size_run *z)
{
    kg_judge_stage(j, "measuring what a timed batch costs at the %s size (before loading the candidate)",
                   z->which);
    double ns = z->ref_one_ms * 1e6;
    if (!(ns >= 1000)) ns = 1000;
    if (ns > (double)KG_CALIB_MAX_NS) ns = (double)KG_CALIB_MAX_NS;
    double over[3], t0 = kg_now();
    for (int k = 0; k < 3; k++) {
        double wall = 0, rep = 0;
        int v = kg_judge_cycle(j, z, KG_OP_CALIBRATE, z->calls, 0, (uint64_t)ns, &wall, &rep);
        if (v >= 0) return v;
        over[k] = wall > rep ? wall - rep : 0.0;
    }
    /* the least: the candidate's figure is the least of its batches too, and
     * an allowance too large would be time given to the candidate */
    qsort(over, 3, sizeof over[0], cmp_dbl);
    z->allow_ms = over[0];
    j->t_io += kg_now() - t0;   /* a cost of the separate judge */
    return -1;
}

int kg_judge_time_size(kg_judge *j, kg_size_run *z, int no_timing)
{
    double wall = 0, rep = 0;
    kg_judge_stage(j, "checking the %s size %s", z->which, z->shp);
    int v = kg_judge_cycle(j, z, KG_OP_CHECK, 1, 0, 0, &wall, &rep);
    if (v >= 0 || no_timing) return v;
    /* a hopeless candidate is judged on its checked call alone (the whole
     * cycle: an upper bound on its time), the least of three: one cycle of
     * a busy machine's can take 20 ms on its own (seen on a loaded
     * development machine), which must not make a good candidate hopeless */
    for (int again = 0; again < 2 && wall > 20.0 * z->ref_one_ms && wall > 20.0; again++) {
        double w2 = 0, r2 = 0;
        if ((v = kg_judge_cycle(j, z, KG_OP_CHECK, 1, 0, 0, &w2, &r2)) >= 0) return v;
        if (w2 < wall) { wall = w2; rep = r2; }
    }
    if (wall > 20.0 * z->ref_one_ms && wall > 20.0) {
        z->cand_ms = wall;
        z->rep_ms = rep;
        z->timed = 0;
        return -1;
    }
    kg_judge_stage(j, "timing the candidate at the %s size %s", z->which, z->shp);
    double per[KG_TIMED_BATCHES], reps[KG_TIMED_BATCHES];
    for (int b = 0; b <= KG_TIMED_BATCHES; b++) {   /* batch 0: warm-up (checked, not counted) */
        v = kg_judge_cycle(j, z, KG_OP_BATCH, z->calls, b + 1, 0, &wall, &rep);
        if (v >= 0) return v;
        if (b == 0) continue;
        per[b - 1] = kg_judge_figure(wall, z->allow_ms, z->copy_ms, z->calls);
        reps[b - 1] = rep / z->calls;
    }
    qsort(per, KG_TIMED_BATCHES, sizeof per[0], cmp_dbl);
    qsort(reps, KG_TIMED_BATCHES, sizeof reps[0], cmp_dbl);
    z->cand_ms = per[0];
    z->rep_ms = reps[KG_TIMED_BATCHES / 2];
    z->timed = KG_TIMED_BATCHES;
    return -1;
}

size_t kg_gpu_slack(size_t base)
{
    size_t eight = (size_t)8 << 30;
    return base / 2 < eight ? base / 2 : eight;
}

size_t kg_gpu_limit(size_t total)
{
    size_t two = (size_t)2 << 30, four = (size_t)4 << 30;
    size_t q = total / 4 > two ? total / 4 : two;
    return q < four ? q : four;
}

int kg_quiesce(const int *cmd_w, const int *rep_r, int *state, int n, double deadline)
{
    int failed = 0;
    for (int i = 0; i < n; i++) {
        if (state[i] != 0) continue;
        kg_cmd c;
        memset(&c, 0, sizeof c);
        c.magic = KG_CMD_MAGIC;
        c.op = KG_OP_PING;
        c.seq = KG_QUIESCE_SEQ;
        if (cmd_w[i] < 0 || rep_r[i] < 0 || kg_write_all(cmd_w[i], &c, sizeof c) != 0) {
            state[i] = -1;
            failed++;
        }
    }
    for (int i = 0; i < n; i++) {
        if (state[i] != 0) continue;
        kg_rep r;
        if (kg_read_exact(rep_r[i], &r, sizeof r, deadline) == 0 && kg_rep_valid(&r, KG_QUIESCE_SEQ, NULL, 0) &&
            r.status == KG_ST_OK)
            state[i] = 1;
        else {
            state[i] = -1;
            failed++;
        }
    }
    return failed;
}

/* The round trip of an empty command, the least of three: the part of a
 * timed batch's wall time that is not the candidate's. */
int kg_judge_ping(kg_judge *j)
{
    double best = 1e9;
    for (int i = 0; i < 3; i++) {
        kg_cmd c;
        kg_rep r;
        double w;
        memset(&c, 0, sizeof c);
        c.op = KG_OP_PING;
        if (kg_judge_call(j, &c, &r, &w) != 0) return KG_V_L2;
        if (r.status != KG_ST_OK) return kg_judge_status_verdict(j, &r);
        if (w < best) best = w;
    }
    j->ping_ms = best > 2.0 ? 2.0 : best;   /* a harness slowing its pings buys at most 2 ms */
    return -1;
}

/* ---- small shapes against the CPU ---------------------------------------- */

static void fill_inputs_host(const kg_task *t, kg_shape s, unsigned long long seed, unsigned char *h0,
                             unsigned char *h1, const kg_sizes *z)
{
    if (t->sig == KG_SIG_HIST) {
        for (size_t i = 0; i < z->in0; i++) h0[i] = (unsigned char)(rng_u32(seed, RNG_STREAM_A, i) >> 24);
    } else {
        float *f0 = (float *)h0;
        for (size_t i = 0; i < z->in0; i++) {
            int pad = t->sig == KG_SIG_BLUR && (long long)(i % (size_t)s.d[2]) >= s.d[0];
            f0[i] = pad ? 1.0e4f : rng_uniform(seed, RNG_STREAM_A, i, t->lo, t->hi);
        }
        if (z->in1) rng_fill_uniform((float *)h1, z->in1, seed, RNG_STREAM_B, t->lo, t->hi);
    }
    /* the guard zones after the inputs hold random bytes too */
    for (int g = 0; g < KG_GUARD; g++) {
        h0[z->in0 * z->in_elem + g] = (unsigned char)rng_u32(seed, RNG_STREAM_C, (uint64_t)g);
        if (h1) h1[z->in1 * z->in_elem + g] = (unsigned char)rng_u32(seed, RNG_STREAM_D, (uint64_t)g);
    }
}

int kg_judge_small(kg_judge *j, int idx, unsigned long long seed)
{
    const kg_task *t = j->t;
    kg_shape s = t->small[idx];
    kg_sizes z = kg_task_sizes(t, s);
    kg_small_layout L = kg_small_layout_of(t, s);
    char shp[96];
    kg_shape_text(t, s, shp, sizeof shp);
    if (L.total > j->shm_bytes) {
        snprintf(j->m->detail, sizeof j->m->detail, "gate: the shared memory is too small for %s", shp);
        return KG_V_L2;
    }
    unsigned char *h0 = malloc(L.b0), *h1 = L.b1 ? malloc(L.b1) : NULL;
    unsigned char *out = malloc(L.bo), *out2 = malloc(L.bo);
    unsigned char *back = malloc(L.b0 > L.b1 ? L.b0 : L.b1);
    double *ref = malloc((z.out ? z.out : 1) * sizeof(double));
    double *mag = malloc((z.out ? z.out : 1) * sizeof(double));
    int v = -1;
    if (!h0 || (L.b1 && !h1) || !out || !out2 || !back || !ref || !mag) {
        snprintf(j->m->detail, sizeof j->m->detail, "gate: out of memory");
        v = KG_V_L2;
        goto done;
    }
    unsigned char guard_pat[KG_GUARD];
    memset(guard_pat, 0xA5, KG_GUARD);
    for (int run = 0; run < 2 && v < 0; run++) {
        unsigned long long sd = seed + 1000003ULL * (unsigned long long)(idx * 2 + run + 1);
        kg_judge_stage(j, "checking %s, run %d of 2", shp, run + 1);
        fill_inputs_host(t, s, sd, h0, h1, &z);
        kg_cpu_reference(t, s, h0, h1, ref, mag);
        double t0 = kg_now();
        if (kg_shm_write(j->shm_fd, L.in0, h0, L.b0) != 0 || (L.b1 && kg_shm_write(j->shm_fd, L.in1, h1, L.b1) != 0)) {
            snprintf(j->m->detail, sizeof j->m->detail, "gate: cannot write the small-shape memory");
            v = KG_V_L2;
            break;
        }
        j->t_io += kg_now() - t0;
        kg_cmd c;
        kg_rep r;
        memset(&c, 0, sizeof c);
        c.op = KG_OP_SMALL;
        c.task = j->task;
        for (int d = 0; d < 3; d++) c.d[d] = s.d[d];
        if (kg_judge_call(j, &c, &r, NULL) != 0) { v = KG_V_L2; break; }
        if (r.status != KG_ST_OK) { v = kg_judge_status_verdict(j, &r); break; }
        /* one read of each byte the harness wrote: from here on only the judge's copies count */
        t0 = kg_now();
        if (kg_shm_read(j->shm_fd, L.out, out, L.bo) != 0 || kg_shm_read(j->shm_fd, L.out2, out2, L.bo) != 0 ||
            kg_shm_read(j->shm_fd, L.back0, back, L.b0) != 0) {
            v = lost(j, 0, "protocol violation: the small-shape memory could not be read back at %s: tampering", shp);
            break;
        }
        j->t_io += kg_now() - t0;
        char msg[200];
        size_t bad;
        kg_mismatches mm;
        if (t->prof == KG_PROF_INT) {
            unsigned refu[256];
            for (int i = 0; i < 256; i++) refu[i] = (unsigned)ref[i];
            bad = kg_compare_u32_mm((const unsigned *)out, refu, z.out, msg, sizeof msg, &mm);
        } else {
            bad = kg_compare_f32_mm(t, s, (const float *)out, ref, NULL, mag, 0.0, msg, sizeof msg, &mm);
        }
        if (bad) {
            kg_judge_mismatches(j, shp, bad, z.out, &mm);
            snprintf(j->m->detail, sizeof j->m->detail,
                     "wrong result at %.80s (run %d): %zu of %zu elements; first: %.120s%s", shp, run + 1, bad,
                     z.out, msg, run == 1 ? " (run 1 passed: a result cached by pointer?)" : "");
            v = KG_V_L3;
            break;
        }
        if (memcmp(out + L.bo - KG_GUARD, guard_pat, KG_GUARD) != 0) {
            snprintf(j->m->detail, sizeof j->m->detail, "wrote past the end of the output at %s", shp);
            v = KG_V_L3;
            break;
        }
        if (memcmp(out, out2, L.bo) != 0) {
            snprintf(j->m->detail, sizeof j->m->detail,
                     "output changed after launch returned and the stream was synchronised at %s: "
                     "work on another stream or still running", shp);
            v = KG_V_L3;
            break;
        }
        if (memcmp(back, h0, L.b0) != 0) {
            snprintf(j->m->detail, sizeof j->m->detail, "modified its (const) input at %s", shp);
            v = KG_V_L3;
            break;
        }
        if (L.b1) {
            if (kg_shm_read(j->shm_fd, L.back1, back, L.b1) != 0) {
                v = lost(j, 0, "protocol violation: the small-shape memory could not be read back at %s: "
                         "tampering", shp);
                break;
            }
            if (memcmp(back, h1, L.b1) != 0) {
                snprintf(j->m->detail, sizeof j->m->detail, "modified its (const) input at %s", shp);
                v = KG_V_L3;
                break;
            }
        }
    }
    if (v < 0) j->m->shapes_checked++;
done:
    free(h0); free(h1); free(out); free(out2); free(back); free(ref); free(mag);
    return v;
}

/* ---- the gate's side ----------------------------------------------------- */

int kg_judge_start(kg_judge_proc *jp, kg_judge_main_fn fn, int device, int dry)
{
    int sv[2];
    memset(jp, 0, sizeof *jp);
    jp->pid = -1;
    jp->sock = -1;
    jp->device = device;
    jp->dry = dry;
    jp->main = fn;
    jp->slack_s = 10.0;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGPIPE, SIGCHLD};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
        kg_close_fds_except(sv[1], -1);
        fn(sv[1], device, dry);
        _exit(0);
    }
    setpgid(pid, pid);
    close(sv[1]);
    jp->pid = pid;
    jp->sock = sv[0];
    return 0;
}

static void judge_failure(kg_judge_msg *out, const char *why)
{
    memset(out, 0, sizeof *out);
    out->magic = KG_JUDGE_MAGIC;
    out->final = 1;
    out->verdict = KG_V_L2;
    out->judge_failed = 1;
    snprintf(out->detail, sizeof out->detail, "gate: %s", why);
}

int kg_judge_session(kg_judge_proc *jp, const kg_session_req *req, int cmd_w, int rep_r, int shm_fd,
                     kg_judge_msg *out)
{
    int fds[3] = {cmd_w, rep_r, shm_fd};
    char cbuf[CMSG_SPACE(sizeof fds)];
    memset(cbuf, 0, sizeof cbuf);
    struct iovec io = {(void *)req, sizeof *req};
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &io;
    mh.msg_iovlen = 1;
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof cbuf;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(cm), fds, sizeof fds);
    if (jp->sock < 0 || sendmsg(jp->sock, &mh, MSG_NOSIGNAL) != (ssize_t)sizeof *req) {
        judge_failure(out, "cannot reach the judge");
        return -1;
    }
    double deadline = kg_now() + req->timeout_s + jp->slack_s;
    kg_judge_msg m;
    char stage[96] = "starting";
    for (;;) {
        double left = deadline - kg_now();
        if (left <= 0) {
            char why[200];
            snprintf(why, sizeof why, "the judge did not answer while %.96s", stage);
            judge_failure(out, why);
            return -1;
        }
        struct pollfd pf = {jp->sock, POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        ssize_t g = recv(jp->sock, &m, sizeof m, 0);
        if (g != (ssize_t)sizeof m || !kg_judge_msg_valid(&m)) {
            judge_failure(out, g == 0 ? "the judge died" : "the judge sent a malformed record");
            return -1;
        }
        memcpy(stage, m.stage, sizeof stage);
        if (m.final) {
            *out = m;
            return 0;
        }
    }
}

void kg_judge_stop(kg_judge_proc *jp)
{
    if (jp->sock >= 0) close(jp->sock);
    jp->sock = -1;
    if (jp->pid > 0) {
        /* EOF makes it exit; give it a moment, then make sure */
        for (int i = 0; i < 200; i++) {
            if (waitpid(jp->pid, NULL, WNOHANG) == jp->pid) { jp->pid = -1; return; }
            usleep(5000);
        }
        kill(-jp->pid, SIGKILL);
        waitpid(jp->pid, NULL, 0);
    }
    jp->pid = -1;
}
