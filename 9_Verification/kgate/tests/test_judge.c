/* test_judge.c: the judge's host side against fake harnesses that lie
 * (judge_host.c, proto.c), and the gate's side against fake judges.
 *
 * A fake harness is a forked process speaking the protocol with a host
 * "candidate" (ReLU on the CPU). It can be right, wrong, write past its
 * output, change the output after its reply, modify an input, or break the
 * protocol: a bad magic, a wrong sequence number, a NaN time, unterminated
 * or control-laden text, an unknown status, half a reply, a forged record
 * of the old gate, silence, death, or a shrunk small-shape memory (the
 * ftruncate that killed the old judge with SIGBUS). Every one must end in
 * the right verdict, never a crash or a hang of the judge; what the harness
 * says is never taken as a verdict. The timing against fake harnesses that
 * cheat is in test_judge_timing.c. No GPU. */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "judge.h"
#include "proto.h"
#include "sandbox.h"
#include "tasks.h"

typedef enum {
    H_GOOD, H_WRONG, H_GUARD, H_CHANGED, H_MODIFY_INPUT, H_BAD_MAGIC, H_WRONG_SEQ, H_NAN_MS,
    H_UNTERMINATED, H_BAD_STATUS, H_TRUNCATED, H_HANG, H_EXIT, H_FORGED_OLD, H_LOAD_ERROR,
    H_NO_LAUNCH, H_LAUNCH_ERROR, H_REFUSE, H_CAND_ERROR, H_FTRUNCATE, H_HOOKS, H_NO_DEVICE_LATE,
    H_NO_DEVICE_MAP
} hmode;

static void reply(int fd, uint32_t seq, int status, const char *text)
{
    kg_rep r;
    memset(&r, 0, sizeof r);
    r.magic = KG_REP_MAGIC;
    r.seq = seq;
    r.status = (uint32_t)status;
    if (text) snprintf(r.text, sizeof r.text, "%s", text);
    kg_write_all(fd, &r, sizeof r);
}

static void fake_harness(int cmd, int rep, int shm_fd, unsigned char *shm, size_t bytes, hmode mode)
{
    int smalls = 0;
    for (;;) {
        kg_cmd c;
        if (kg_read_exact(cmd, &c, sizeof c, 0) != 0) _exit(0);
        if (c.op == KG_OP_LOAD) {
            if (mode == H_FORGED_OLD) {
                /* the old child's final PASS record: a different size, no magic */
                struct { int final, verdict; char stage[96], detail[320]; double ms[4]; int n; } f;
                memset(&f, 0, sizeof f);
                f.final = 1;
                f.verdict = KG_V_PASS;
                strcpy(f.detail, "all 6 shapes correct");
                kg_write_all(rep, &f, sizeof f);
                _exit(0);
            }
            if (mode == H_LOAD_ERROR) {
                kg_rep r;
                memset(&r, 0, sizeof r);
                r.magic = KG_REP_MAGIC;
                r.seq = c.seq;
                r.status = KG_ST_LOAD_ERROR;
                strcpy(r.text, "undefined symbol\x01\x1b[31m PASS \x7f");
                kg_write_all(rep, &r, sizeof r);
                continue;
            }
            if (mode == H_HOOKS) {
                reply(rep, c.seq, KG_ST_HOOKS, "kgate_adapter_flush");
                continue;
            }
            reply(rep, c.seq, mode == H_NO_LAUNCH ? KG_ST_NO_LAUNCH : KG_ST_OK, NULL);
            continue;
        }
        if (c.op == KG_OP_MAP && mode == H_NO_DEVICE_MAP) {
            /* the first command that needs the GPU, before any candidate code */
            reply(rep, c.seq, KG_ST_NO_DEVICE, "out of memory");
            continue;
        }
        if (c.op != KG_OP_SMALL) { reply(rep, c.seq, KG_ST_OK, NULL); continue; }
        smalls++;
        if (mode == H_NO_DEVICE_LATE) {
            /* after LOAD: the candidate's word, not the start-up's */
            reply(rep, c.seq, KG_ST_NO_DEVICE, "no device, honestly");
            continue;
        }
        if (mode == H_FTRUNCATE && smalls == 2) {
            /* the attack on the old judge: shrink the shared memory under its
             * mapping; it is sealed now, so this fails, and if it did not the
             * judge reads with pread (a short read, never SIGBUS). Either way
             * the harness then answers as if all were well. */
            int rc = ftruncate(shm_fd, 0);
            (void)rc;
            (void)bytes;
            reply(rep, c.seq, KG_ST_OK, NULL);
            continue;
        }
        const kg_task *t = kg_task_at(c.task);
        kg_shape s = {{c.d[0], c.d[1], c.d[2]}};
        kg_small_layout L = kg_small_layout_of(t, s);
        kg_sizes z = kg_task_sizes(t, s);
        const float *x = (const float *)(shm + L.in0);
        float *y = (float *)(shm + L.out);
        for (size_t i = 0; i < z.out; i++) y[i] = mode == H_WRONG ? x[i] : (x[i] > 0 ? x[i] : 0.0f);
        memset(shm + L.out + z.out * 4, 0xA5, KG_GUARD);
        if (mode == H_GUARD) shm[L.out + z.out * 4 + 3] = 0;
        memcpy(shm + L.out2, shm + L.out, L.bo);
        if (mode == H_CHANGED) ((float *)(shm + L.out2))[0] += 1.0f;
        memcpy(shm + L.back0, shm + L.in0, L.b0);
        if (mode == H_MODIFY_INPUT) shm[L.back0] ^= 1;
        kg_rep r;
        memset(&r, 0, sizeof r);
        r.magic = KG_REP_MAGIC;
        r.seq = c.seq;
        switch (mode) {
        case H_BAD_MAGIC: r.magic = 0x50415353; break;   /* "PASS" */
        case H_WRONG_SEQ: r.seq = c.seq + 7; break;
        case H_NAN_MS: r.ms = NAN; break;
        case H_UNTERMINATED: memset(r.text, 'P', sizeof r.text); break;
        case H_BAD_STATUS: r.status = 99; break;
        case H_LAUNCH_ERROR: r.status = KG_ST_LAUNCH_ERROR; r.cuda_err = 98; break;
        case H_CAND_ERROR: r.status = KG_ST_CAND_ERROR; strcpy(r.text, "x must be 2-D\x01"); break;
        case H_REFUSE: r.status = KG_ST_BAD_CMD; break;
        case H_TRUNCATED: kg_write_all(rep, &r, sizeof r / 2); _exit(0);
        case H_HANG: for (;;) pause();
        case H_EXIT: _exit(0);
        default: break;
        }
        kg_write_all(rep, &r, sizeof r);
    }
}

typedef struct {
    int verdict, lost, timed_out, shapes;
    char detail[320];
    kg_judge_msg m;
} outcome;

static const char *fake_err_name(int e) { return e == 98 ? "cudaErrorInvalidDeviceFunction" : "cudaError?"; }

/* sealed: the gate's own memory (kg_shm_create); 0: a plain memfd (the old
 * gate's), to show what the seals and the judge's pread each prevent */
static outcome judge_against_shm(hmode mode, double deadline_s, int sealed)
{
    int cmd[2], rep[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, cmd), 0);
    assert_int_equal(pipe(rep), 0);
    const kg_task *t = kg_task_find("relu");
    size_t bytes = kg_shm_bytes(t);
    int mfd = sealed ? kg_shm_create(t) : memfd_create("test", 0);
    assert_true(mfd >= 0);
    if (!sealed) assert_int_equal(ftruncate(mfd, (off_t)bytes), 0);
    assert_int_equal(kg_shm_sealed(mfd, bytes), sealed);
    pid_t pid = fork();
    if (pid == 0) {
        close(cmd[1]);
        close(rep[0]);
        unsigned char *shm = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
        if (shm == MAP_FAILED) _exit(1);
        signal(SIGBUS, SIG_DFL);
        fake_harness(cmd[0], rep[1], mfd, shm, bytes, mode);
        _exit(0);
    }
    close(cmd[0]);
    close(rep[1]);
    kg_judge_msg m;
    memset(&m, 0, sizeof m);
    kg_judge j;
    memset(&j, 0, sizeof j);
    j.cmd_fd = cmd[1];
    j.rep_fd = rep[0];
    j.sock = -1;
    j.shm_fd = mfd;
    j.shm_bytes = bytes;
    j.t = t;
    for (int k = 0; k < kg_task_count(); k++)
        if (kg_task_at(k) == t) j.task = k;
    j.m = &m;
    j.err_name = fake_err_name;
    j.deadline = kg_now() + deadline_s;
    int v = -1;
    if (mode == H_NO_DEVICE_MAP) v = kg_judge_map(&j, mfd, 4096);   /* any descriptor will do */
    if (v < 0) v = kg_judge_load(&j);
    for (int i = 0; v < 0 && i < t->n_small; i++) v = kg_judge_small(&j, i, 2026);
    close(cmd[1]);
    close(rep[0]);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(mfd);
    outcome o = {v, m.lost, m.timed_out, m.shapes_checked, "", m};
    memcpy(o.detail, m.detail, sizeof o.detail);
    return o;
}

static outcome judge_against(hmode mode, double deadline_s) { return judge_against_shm(mode, deadline_s, 1); }

static void expect(hmode mode, int verdict, int lost, const char *text)
{
    outcome o = judge_against(mode, 2.0);
    if (o.verdict != verdict || o.lost != lost || (text && !strstr(o.detail, text)))
        fail_msg("mode %d: verdict %d lost %d detail '%s'; wanted %d %d '%s'", mode, o.verdict, o.lost,
                 o.detail, verdict, lost, text ? text : "");
    for (const char *p = o.detail; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) fail_msg("control byte in the detail");
}

static void test_good_harness(void **s)
{
    (void)s;
    outcome o = judge_against(H_GOOD, 5.0);
    assert_int_equal(o.verdict, -1);
    assert_int_equal(o.lost, 0);
    assert_int_equal(o.shapes, kg_task_find("relu")->n_small);
}

static void test_wrong_outputs(void **s)
{
    (void)s;
    expect(H_WRONG, KG_V_L3, 0, "wrong result at n=1");
    /* the first failing shape and its first mismatches, for the feedback:
     * relu returned x itself, so element k of n=1 was negative */
    outcome o = judge_against(H_WRONG, 2.0);
    assert_string_equal(o.m.mm_shape, "n=1");
    assert_int_equal(o.m.mm_count, 1);
    assert_int_equal(o.m.mm_checked, 1);
    assert_int_equal(o.m.mm_n, 1);
    assert_int_equal(o.m.mm_index[0], 0);
    assert_true(o.m.mm_expected[0] == 0.0 && o.m.mm_got[0] < 0);
    o.m.magic = KG_JUDGE_MAGIC;   /* as the judge sends it */
    assert_true(kg_judge_msg_valid(&o.m));
    expect(H_GUARD, KG_V_L3, 0, "past the end");
    expect(H_CHANGED, KG_V_L3, 0, "changed after launch returned");
    expect(H_MODIFY_INPUT, KG_V_L3, 0, "modified its (const) input");
}

static void test_protocol_violations(void **s)
{
    (void)s;
    expect(H_BAD_MAGIC, KG_V_L2, 1, "protocol violation");
    expect(H_WRONG_SEQ, KG_V_L2, 1, "wrong sequence");
    expect(H_NAN_MS, KG_V_L2, 1, "impossible time");
    expect(H_UNTERMINATED, KG_V_L2, 1, "unterminated");
    expect(H_BAD_STATUS, KG_V_L2, 1, "unknown status");
    expect(H_REFUSE, KG_V_L2, 1, "refused a command");
    expect(H_FORGED_OLD, KG_V_L2, 1, "protocol violation");   /* the old forged PASS */
    expect(H_TRUNCATED, KG_V_L2, 1, "died");
    expect(H_EXIT, KG_V_L2, 1, "died");
}

static void test_hang(void **s)
{
    (void)s;
    double t0 = kg_now();
    outcome o = judge_against(H_HANG, 1.0);
    assert_true(kg_now() - t0 < 3.0);
    assert_int_equal(o.verdict, KG_V_L2);
    assert_int_equal(o.lost, 1);
    assert_int_equal(o.timed_out, 1);
    assert_non_null(strstr(o.detail, "hang"));
}

static void test_statuses(void **s)
{
    (void)s;
    expect(H_LOAD_ERROR, KG_V_L1, 0, "the loader said");
    expect(H_NO_LAUNCH, KG_V_L1, 0, "no extern \"C\" launch()");
    expect(H_LAUNCH_ERROR, KG_V_L2, 0, "launch error");
    expect(H_LAUNCH_ERROR, KG_V_L2, 0, "cudaErrorInvalidDeviceFunction");   /* the judge's own name */
    /* a PyTorch candidate's exception: its text, cleaned */
    expect(H_CAND_ERROR, KG_V_L2, 0, "the candidate raised an error");
    expect(H_CAND_ERROR, KG_V_L2, 0, "x must be 2-D?");
    /* a plain candidate that defines the PyTorch adapter's hooks: refused by name */
    expect(H_HOOKS, KG_V_L1, 0, "a plain candidate defines kgate_adapter_flush");
    /* no CUDA context at MAP, before any candidate code ran: the machine's
     * failure (another process held the GPU's memory), not the candidate's ... */
    expect(H_NO_DEVICE_MAP, KG_V_SKIPPED, 0, "gate: the candidate's process could not create a CUDA context");
    /* ... but from LOAD on (its constructors run inside LOAD), the same
     * status is the candidate's word for a way out */
    expect(H_NO_DEVICE_LATE, KG_V_L2, 1, "claimed to have no CUDA context");
}

/* The small-shape memory (the old judge mapped it, and an ftruncate by the
 * candidate killed the judge with SIGBUS): sealed, the ftruncate fails and
 * the run goes on to a verdict of its own (here the stale outputs: L3);
 * unsealed (the old gate's memfd), the judge's pread comes back short: a
 * protocol violation, and the judge is alive to say so. */
static void test_channel_shrunk(void **s)
{
    (void)s;
    outcome o = judge_against_shm(H_FTRUNCATE, 2.0, 1);
    if (o.verdict != KG_V_L3) fail_msg("sealed: verdict %d (%s)", o.verdict, o.detail);
    o = judge_against_shm(H_FTRUNCATE, 2.0, 0);
    if (o.verdict != KG_V_L2 || !o.lost || !strstr(o.detail, "could not be read back"))
        fail_msg("unsealed: verdict %d lost %d (%s)", o.verdict, o.lost, o.detail);
    /* what the judge checks before it accepts a session's memory */
    const kg_task *t = kg_task_find("sgemm");
    int fd = kg_shm_create(t);
    assert_true(fd >= 0);
    assert_true(kg_shm_sealed(fd, kg_shm_bytes(t)));
    assert_false(kg_shm_sealed(fd, kg_shm_bytes(t) + 4096));   /* not the size the task needs */
    assert_true(ftruncate(fd, 0) != 0);                          /* sealed */
    assert_true(ftruncate(fd, (off_t)kg_shm_bytes(t) * 2) != 0);
    char b[8] = "abcdefg", c[8];
    assert_int_equal(kg_shm_write(fd, 16, b, 8), 0);
    assert_int_equal(kg_shm_read(fd, 16, c, 8), 0);
    assert_memory_equal(b, c, 8);
    assert_int_equal(kg_shm_read(fd, kg_shm_bytes(t) - 4, c, 8), -1);   /* past the end: an error */
    close(fd);
    int plain = memfd_create("plain", 0);
    assert_true(plain >= 0);
    assert_int_equal(ftruncate(plain, (off_t)kg_shm_bytes(t)), 0);
    assert_false(kg_shm_sealed(plain, kg_shm_bytes(t)));
    close(plain);
}

/* MAP's descriptor travels with the command on the socket; a descriptor
 * sent with any other command is dropped; a pipe carries commands without
 * descriptors (kg_recv_cmd falls back to read). */
static void test_command_descriptors(void **s)
{
    (void)s;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    int mfd = memfd_create("arena", 0);
    assert_true(mfd >= 0);
    assert_int_equal(ftruncate(mfd, 4096), 0);
    kg_cmd c, r;
    memset(&c, 0, sizeof c);
    c.magic = KG_CMD_MAGIC;
    c.op = KG_OP_MAP;
    c.seed = 4096;
    assert_int_equal(kg_send_cmd(sv[0], &c, mfd), 0);
    int got = -1;
    assert_int_equal(kg_recv_cmd(sv[1], &r, &got), 0);
    assert_true(got >= 0);
    struct stat a, b;
    assert_int_equal(fstat(mfd, &a), 0);
    assert_int_equal(fstat(got, &b), 0);
    assert_true(a.st_ino == b.st_ino);   /* the same file */
    assert_int_equal(r.op, KG_OP_MAP);
    close(got);
    c.op = KG_OP_PING;   /* a descriptor with a PING is not kept */
    assert_int_equal(kg_send_cmd(sv[0], &c, mfd), 0);
    assert_int_equal(kg_recv_cmd(sv[1], &r, &got), 0);
    assert_int_equal(got, -1);
    c.op = KG_OP_LOAD;
    assert_int_equal(kg_send_cmd(sv[0], &c, -1), 0);
    assert_int_equal(kg_recv_cmd(sv[1], &r, &got), 0);
    assert_int_equal(r.op, KG_OP_LOAD);
    close(sv[0]);
    assert_int_equal(kg_recv_cmd(sv[1], &r, &got), -1);   /* EOF */
    close(sv[1]);
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(kg_send_cmd(p[1], &c, -1), 0);
    assert_int_equal(kg_recv_cmd(p[0], &r, &got), 0);
    assert_int_equal(r.op, KG_OP_LOAD);
    assert_int_equal(got, -1);
    close(p[0]);
    close(p[1]);
    close(mfd);
}

static void test_validators(void **s)
{
    (void)s;
    kg_rep r;
    memset(&r, 0, sizeof r);
    r.magic = KG_REP_MAGIC;
    r.seq = 4;
    char why[64];
    assert_true(kg_rep_valid(&r, 4, why, sizeof why));
    assert_false(kg_rep_valid(&r, 5, why, sizeof why));
    r.ms = -1;
    assert_false(kg_rep_valid(&r, 4, why, sizeof why));
    r.ms = INFINITY;
    assert_false(kg_rep_valid(&r, 4, why, sizeof why));
    r.ms = 1.0f;
    r.where = 1000;
    assert_false(kg_rep_valid(&r, 4, why, sizeof why));
    /* the harness's side refuses commands that would take it out of its buffers */
    kg_cmd c;
    memset(&c, 0, sizeof c);
    c.magic = KG_CMD_MAGIC;
    c.op = KG_OP_BATCH;
    c.task = 1;   /* relu */
    c.d[0] = 1000;
    c.n_calls = 4;
    kg_slot_layout L = kg_slot_layout_of(kg_task_at(1), (kg_shape){{1000, 0, 0}});
    size_t arena = 4 * L.slot;
    for (int i = 0; i < 4; i++) {
        c.in0[i] = (uint64_t)i * L.slot + L.in0;
        c.out[i] = (uint64_t)i * L.slot + L.out;
    }
    assert_true(kg_cmd_valid(&c, 1 << 20, arena));
    assert_false(kg_cmd_valid(&c, 1 << 20, 0));            /* no arena mapped */
    assert_false(kg_cmd_valid(&c, 1 << 20, arena - 256));  /* the last output past its end */
    c.n_calls = 0;
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    c.n_calls = KG_MAX_BATCH + 1;
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    c.n_calls = 2;
    c.out[1] = arena;                                      /* past the arena */
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    c.out[1] = (uint64_t)-256;                             /* an offset that wraps */
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    c.out[1] = L.slot + L.out + 4;                         /* not aligned */
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    c.out[1] = L.slot + L.out;
    assert_true(kg_cmd_valid(&c, 1 << 20, arena));
    c.op = KG_OP_CHECK;                                    /* one call only */
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    c.n_calls = 1;
    assert_true(kg_cmd_valid(&c, 1 << 20, arena));
    c.op = KG_OP_BATCH;
    c.task = 99;
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    c.task = 1;
    c.d[1] = -5;
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    c.d[1] = 0;
    c.op = KG_OP_SMALL;
    c.d[0] = 1 << 24;   /* a small shape that does not fit */
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    c.op = KG_OP_MAP;
    c.seed = 0;
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    c.seed = 1 << 20;
    assert_true(kg_cmd_valid(&c, 1 << 20, arena));
    c.op = 77;
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    c.op = KG_OP_PING;
    c.magic = 0;
    assert_false(kg_cmd_valid(&c, 1 << 20, arena));
    /* the judge's record, checked by the gate */
    kg_judge_msg m;
    memset(&m, 0, sizeof m);
    m.magic = KG_JUDGE_MAGIC;
    m.final = 1;
    m.verdict = KG_V_PASS;
    assert_true(kg_judge_msg_valid(&m));
    m.verdict = 100000;
    assert_false(kg_judge_msg_valid(&m));
    m.verdict = KG_V_PASS;
    m.ref_ms_mid = NAN;
    assert_false(kg_judge_msg_valid(&m));
    m.ref_ms_mid = 0;
    memset(m.detail, 'X', sizeof m.detail);
    assert_false(kg_judge_msg_valid(&m));
    memset(&m, 0xff, sizeof m);
    assert_false(kg_judge_msg_valid(&m));
    /* the mismatch fields: counts in range, indices not negative, strings terminated */
    memset(&m, 0, sizeof m);
    m.magic = KG_JUDGE_MAGIC;
    m.final = 1;
    m.verdict = KG_V_L3;
    m.mm_n = 2;
    m.mm_count = 3;
    m.mm_checked = 37;
    m.mm_got[0] = NAN;   /* the candidate's value may be anything */
    assert_true(kg_judge_msg_valid(&m));
    m.mm_n = KG_MAX_MISMATCH + 1;
    assert_false(kg_judge_msg_valid(&m));
    m.mm_n = 1;
    m.mm_index[0] = -4;
    assert_false(kg_judge_msg_valid(&m));
    m.mm_index[0] = 0;
    m.mm_count = 40;
    assert_false(kg_judge_msg_valid(&m));
    m.mm_count = 3;
    memset(m.mm_shape, 'n', sizeof m.mm_shape);
    assert_false(kg_judge_msg_valid(&m));
}

/* Every task's buffers fit its shared memory and do not overlap. */
static void test_layouts(void **s)
{
    (void)s;
    for (int k = 0; k < kg_task_count(); k++) {
        const kg_task *t = kg_task_at(k);
        size_t bytes = kg_shm_bytes(t);
        for (int i = 0; i < t->n_small; i++) {
            kg_small_layout L = kg_small_layout_of(t, t->small[i]);
            assert_true(L.total <= bytes);
            size_t at[6] = {L.in0, L.in1, L.out, L.out2, L.back0, L.back1};
            size_t len[6] = {L.b0, L.b1, L.bo, L.bo, L.b0, L.b1};
            for (int a = 0; a < 6; a++)
                for (int b = a + 1; b < 6; b++)
                    if (len[a] && len[b]) assert_true(at[a] + len[a] <= at[b] || at[b] + len[b] <= at[a]);
        }
        /* the arena: each call's buffers apart, aligned, the guard inside the slot */
        kg_shape big[2] = {t->mid, t->large};
        for (int k = 0; k < 2; k++) {
            kg_slot_layout L = kg_slot_layout_of(t, big[k]);
            kg_sizes z = kg_task_sizes(t, big[k]);
            assert_int_equal(L.in0_bytes, z.in0 * z.in_elem);
            assert_int_equal(L.out_bytes, z.out * z.out_elem);
            assert_true(L.in0 % KG_SLOT_ALIGN == 0 && L.in1 % KG_SLOT_ALIGN == 0 && L.out % KG_SLOT_ALIGN == 0);
            assert_true(L.slot % KG_SLOT_ALIGN == 0);
            assert_true(L.in0 + L.in0_bytes <= (L.in1_bytes ? L.in1 : L.out));
            if (L.in1_bytes) assert_true(L.in1 + L.in1_bytes <= L.out);
            assert_true(L.out + L.out_bytes + KG_GUARD <= L.slot);
        }
    }
    /* the GPU memory rules: the wait's slack and the candidate's limit */
    size_t gib = (size_t)1 << 30;
    assert_true(kg_gpu_slack(140 * gib) == 8 * gib);
    assert_true(kg_gpu_slack(10 * gib) == 5 * gib);
    assert_true(kg_gpu_limit(140 * gib) == 4 * gib);
    assert_true(kg_gpu_limit(12 * gib) == 3 * gib);
    assert_true(kg_gpu_limit(4 * gib) == 2 * gib);
    for (uint32_t i = 0; i < 1000; i++) {
        assert_true(kg_sample_index(7, i, 37) < 37);
        assert_int_equal(kg_sample_index(7, i, 1000), kg_sample_index(7, i, 1000));
    }
    assert_int_equal(kg_sample_index(7, 3, 0), 0);
}

/* ---- the gate's side against fake judges --------------------------------- */

static int recv_req(int sock)
{
    kg_session_req q;
    char cbuf[CMSG_SPACE(3 * sizeof(int))];
    struct iovec io = {&q, sizeof q};
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &io;
    mh.msg_iovlen = 1;
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof cbuf;
    return recvmsg(sock, &mh, 0) == (ssize_t)sizeof q ? 0 : -1;
}

static void judge_ok(int sock, int dev, int dry)
{
    (void)dev;
    (void)dry;
    while (recv_req(sock) == 0) {
        kg_judge_msg m;
        memset(&m, 0, sizeof m);
        m.magic = KG_JUDGE_MAGIC;
        snprintf(m.stage, sizeof m.stage, "checking n=37");
        send(sock, &m, sizeof m, 0);   /* progress */
        m.final = 1;
        m.verdict = KG_V_L3;
        snprintf(m.detail, sizeof m.detail, "wrong result at n=37");
        send(sock, &m, sizeof m, 0);
    }
    _exit(0);
}

static void judge_forger(int sock, int dev, int dry)
{
    (void)dev;
    (void)dry;
    recv_req(sock);
    kg_judge_msg m;
    memset(&m, 0, sizeof m);
    m.magic = KG_JUDGE_MAGIC;
    m.final = 1;
    m.verdict = 100000;
    send(sock, &m, sizeof m, 0);
    _exit(0);
}

static void judge_dies(int sock, int dev, int dry)
{
    (void)dev;
    (void)dry;
    recv_req(sock);
    _exit(3);
}

static void judge_hangs(int sock, int dev, int dry)
{
    (void)dev;
    (void)dry;
    recv_req(sock);
    for (;;) pause();
}

static int session_with(kg_judge_main_fn fn, kg_judge_msg *out)
{
    kg_judge_proc jp;
    assert_int_equal(kg_judge_start(&jp, fn, 0, 1), 0);
    jp.slack_s = 0.5;
    kg_session_req q;
    memset(&q, 0, sizeof q);
    q.magic = KG_SESSION_MAGIC;
    q.timeout_s = 0.5;
    int p[2];
    assert_int_equal(pipe(p), 0);
    int rc = kg_judge_session(&jp, &q, p[0], p[1], p[0], out);
    close(p[0]);
    close(p[1]);
    kg_judge_stop(&jp);
    return rc;
}

static void test_gate_side(void **s)
{
    (void)s;
    kg_judge_msg m;
    assert_int_equal(session_with(judge_ok, &m), 0);
    assert_int_equal(m.verdict, KG_V_L3);
    assert_string_equal(m.detail, "wrong result at n=37");
    assert_int_equal(session_with(judge_forger, &m), -1);
    assert_non_null(strstr(m.detail, "malformed"));
    assert_true(m.judge_failed);
    assert_int_equal(session_with(judge_dies, &m), -1);
    assert_non_null(strstr(m.detail, "died"));
    double t0 = kg_now();
    assert_int_equal(session_with(judge_hangs, &m), -1);
    assert_true(kg_now() - t0 < 5.0);
    assert_non_null(strstr(m.detail, "did not answer"));
}


/* Exclusive timing: other harnesses of the run create their CUDA contexts
 * while their candidates compile. A fake harness records its start-up window
 * (50-250 ms, then it answers PINGs); after kg_quiesce no start-up window may
 * overlap the timed window that follows. The same harnesses without the
 * barrier overlap it: the check can fail. */
typedef struct { double start[4], end[4]; } startup_log;

static void startup_harness(int cmd, int rep, startup_log *log, int i, int never)
{
    log->start[i] = kg_now();
    struct timespec ts = {0, (50 + 60 * i) * 1000000L};
    nanosleep(&ts, NULL);
    if (never) for (;;) pause();
    log->end[i] = kg_now();
    for (;;) {
        kg_cmd c;
        if (kg_read_exact(cmd, &c, sizeof c, 0) != 0) _exit(0);
        reply(rep, c.seq, KG_ST_OK, NULL);
    }
}

static int overlaps(int quiesce, int never_last, int *failed_out)
{
    startup_log *log = mmap(NULL, sizeof *log, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(log != MAP_FAILED);
    memset(log, 0, sizeof *log);
    int cw[4], rr[4], st[4] = {0, 0, 0, 0};
    pid_t pid[4];
    for (int i = 0; i < 4; i++) {
        int cmd[2], rep[2];
        assert_int_equal(pipe(cmd), 0);
        assert_int_equal(pipe(rep), 0);
        pid[i] = fork();
        if (pid[i] == 0) {
            close(cmd[1]);
            close(rep[0]);
            startup_harness(cmd[0], rep[1], log, i, never_last && i == 3);
            _exit(0);
        }
        close(cmd[0]);
        close(rep[1]);
        cw[i] = cmd[1];
        rr[i] = rep[0];
    }
    int failed = quiesce ? kg_quiesce(cw, rr, st, 4, kg_now() + (never_last ? 0.6 : 5)) : 0;
    if (failed_out) *failed_out = failed;
    /* the timed window: the session's batches */
    double t0 = kg_now();
    struct timespec ts = {0, 30000000L};
    nanosleep(&ts, NULL);
    int over = 0;
    for (int i = 0; i < 4; i++) {
        if (st[i] < 0) continue;   /* stopped by the gate: it does nothing more */
        if (log->end[i] == 0 || log->end[i] > t0) over++;
    }
    for (int i = 0; i < 4; i++) {
        close(cw[i]);
        close(rr[i]);
        kill(pid[i], SIGKILL);
        waitpid(pid[i], NULL, 0);
    }
    if (quiesce && !never_last)
        for (int i = 0; i < 4; i++) assert_int_equal(st[i], 1);
    if (never_last) assert_int_equal(st[3], -1);
    munmap(log, sizeof *log);
    return over;
}

static void test_quiesce_exclusive(void **s)
{
    (void)s;
    assert_int_equal(overlaps(1, 0, NULL), 0);
    assert_true(overlaps(0, 0, NULL) > 0);
    /* one that never finishes its start-up is reported failed (the gate stops it) */
    int failed = 0;
    assert_int_equal(overlaps(1, 1, &failed), 0);
    assert_int_equal(failed, 1);
    /* a harness that is gone counts as failed, never as ready */
    int cw[1] = {-1}, rr[1] = {-1}, st[1] = {0};
    assert_int_equal(kg_quiesce(cw, rr, st, 1, kg_now() + 1), 1);
    assert_int_equal(st[0], -1);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quiesce_exclusive), cmocka_unit_test(test_channel_shrunk),
        cmocka_unit_test(test_command_descriptors),
        cmocka_unit_test(test_good_harness),   cmocka_unit_test(test_wrong_outputs),
        cmocka_unit_test(test_protocol_violations), cmocka_unit_test(test_hang),
        cmocka_unit_test(test_statuses),       cmocka_unit_test(test_validators),
        cmocka_unit_test(test_layouts),        cmocka_unit_test(test_gate_side),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
