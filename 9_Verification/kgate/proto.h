/* proto.h: how the judge talks to the harness (see README.md, "Judge and
 * harness").
 *
 * The harness (build/libexec/kgate/kgate-harness) is the only process that runs candidate
 * code; it lives in the sandbox and is treated as hostile. The judge (a
 * child of the gate, bin/kgate) owns the inputs, the references, the
 * comparisons, the clock and the verdict, and never loads candidate code.
 * Between them:
 *   - a command socket (judge -> harness: a Unix stream socket, so the judge
 *     can pass a file descriptor with MAP) and a reply pipe (harness ->
 *     judge), fixed-size records, one reply per command, matched by sequence
 *     number;
 *   - the arena: GPU memory the judge allocates (the driver's virtual memory
 *     API, exported as a file descriptor) and the harness maps with MAP. The
 *     mid and large sizes run in it: every call of a timed batch has its own
 *     inputs and output there, at offsets the judge names in the command,
 *     and the judge reads the results from its own memory on its own stream;
 *   - a small sealed memory file (memfd, F_SEAL_SHRINK | F_SEAL_GROW) for the
 *     small shapes: their inputs go in, their outputs (and the inputs read
 *     back) come out. The judge never maps it (it reads and writes it with
 *     pread/pwrite), so nothing the harness does to it can fault the judge.
 *     Where each buffer sits is computed by both sides from the task and
 *     shape (kg_small_layout); nothing the harness says moves it.
 * The judge validates every reply (magic, sequence, status, numbers finite
 * and in range, text NUL-terminated and printable) and waits for every reply
 * under its own deadline. A reply it cannot trust ends the session: the
 * candidate is stopped (L2) with "protocol violation". The times a reply
 * carries are the harness's own CUDA events: information, never a verdict.
 * Host-only C11, shared by the judge (gcc), the harness (nvcc) and the tests.
 */
#ifndef KGATE_PROTO_H
#define KGATE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "tasks.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KG_CMD_MAGIC 0x6b67636du
#define KG_REP_MAGIC 0x6b677270u
#define KG_MAX_BATCH 64        /* calls in one timed batch (each with its own inputs and output) */
#define KG_GUARD 1024          /* bytes after every output (0xA5) and small-shape buffer */
#define KG_SLOT_ALIGN 256      /* every arena buffer starts at a multiple of 256 bytes */
#define KG_SAMPLE 65536        /* output elements the judge reads the moment a batch is answered */
#define KG_CHECKED_CALLS 8     /* calls of each timed batch checked in full, drawn after the reply */
#define KG_CALIB_MAX_NS 20000000ULL /* CALIBRATE: at most 20 ms per delay kernel */

/* Harness fds: 3 commands (a socket, read), 4 replies (write), 5 the small-shape memory. */
#define KG_FD_CMD 3
#define KG_FD_REP 4
#define KG_FD_SHM 5

typedef enum {
    KG_OP_LOAD = 1,    /* dlopen /scratch/cand.so, find launch; flags: KG_LOAD_TORCH */
    KG_OP_SMALL,       /* one small-shape run: inputs from shm, outputs (and inputs read back) to shm */
    KG_OP_MAP,         /* map the arena: its fd comes with the command (SCM_RIGHTS), seed = its bytes */
    KG_OP_CHECK,       /* one call on the arena buffers of call 0 (the judge poisoned the output) */
    KG_OP_BATCH,       /* n_calls calls, each on its own arena buffers, back to back; the reply comes
                        * when the whole device is idle; ms = the harness's events (information) */
    KG_OP_PING,        /* nothing: the judge measures a round trip */
    KG_OP_DRY,         /* no GPU: call launch once with null pointers (sandbox tests) */
    KG_OP_CALIBRATE,   /* before LOAD only: n_calls of the gate's delay kernel, seed ns each,
                        * answered like BATCH (the judge's allowance, see judge.h) */
    KG_OP_COUNT
} kg_op;

#define KG_LOAD_TORCH 1u       /* LOAD: a PyTorch candidate (its adapter's hooks are honoured) */

typedef struct {
    uint32_t magic, op, seq;
    int32_t task;                      /* index in the task table */
    int64_t d[3];                      /* the shape */
    uint64_t seed;                     /* MAP: the arena's bytes; CALIBRATE: ns per call */
    uint32_t n_calls, flags;
    /* CHECK/BATCH: byte offsets into the arena of each call's buffers */
    uint64_t in0[KG_MAX_BATCH], in1[KG_MAX_BATCH], out[KG_MAX_BATCH];
} kg_cmd;

typedef enum {
    KG_ST_OK = 0,
    KG_ST_CUDA_ERROR,      /* a CUDA call of the harness failed (cuda_err, where) */
    KG_ST_LAUNCH_ERROR,    /* cudaGetLastError after the candidate's launch */
    KG_ST_LOAD_ERROR,      /* dlopen failed (text) */
    KG_ST_NO_LAUNCH,       /* no extern "C" launch */
    KG_ST_BAD_CMD,         /* the harness refused a command */
    KG_ST_NO_DEVICE,       /* no CUDA context (text) */
    KG_ST_CAND_ERROR,      /* the candidate reported an error (a PyTorch exception: text) */
    KG_ST_HOOKS,           /* a plain candidate defines the PyTorch adapter's hooks (text: which) */
    KG_ST_COUNT
} kg_status;

/* Where in a command the harness was (for a reason like "while copying the
 * inputs"). */
typedef enum {
    KG_AT_NONE = 0, KG_AT_CONTEXT, KG_AT_ALLOC, KG_AT_INPUTS, KG_AT_CALL, KG_AT_SYNC,
    KG_AT_OUTPUTS, KG_AT_FILL, KG_AT_TIMING, KG_AT_MAP, KG_AT_COUNT
} kg_where;

typedef struct {
    uint32_t magic, seq, status, where;
    int32_t cuda_err;
    float ms;                          /* CHECK/BATCH/CALIBRATE: CUDA-event time (untrusted) */
    char text[200];                    /* dlerror() and the like (untrusted) */
} kg_rep;

const char *kg_where_text(int w);

/* Byte offsets of the small-shape buffers in the shared memory. Each buffer
 * is followed by its KG_GUARD bytes. total: bytes needed. */
typedef struct {
    size_t b0, b1, bo;                 /* input 0, input 1 (0 if none), output: bytes with guard */
    size_t in0, in1;                   /* where the judge writes the inputs */
    size_t out, out2;                  /* the output after the stream sync / after the device sync */
    size_t back0, back1;               /* the inputs as read back after the run */
    size_t total;
} kg_small_layout;
kg_small_layout kg_small_layout_of(const kg_task *t, kg_shape s);

/* Bytes of the small-shape memory a task needs: its largest small layout. */
size_t kg_shm_bytes(const kg_task *t);

/* The small-shape memory: a memfd of kg_shm_bytes(t), sealed against
 * shrinking and growing (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), so that
 * no process holding it can make another's mapping fault. -1 on failure. */
int kg_shm_create(const kg_task *t);
/* 1 when fd is a memory file of exactly `bytes`, sealed against shrinking
 * and growing (the judge refuses a session otherwise). */
int kg_shm_sealed(int fd, size_t bytes);
/* Exactly len bytes at off (pread/pwrite): 0, or -1 (a short read is an
 * error, never a fault). */
int kg_shm_read(int fd, size_t off, void *buf, size_t len);
int kg_shm_write(int fd, size_t off, const void *buf, size_t len);

/* One call's buffers in the arena (the mid and large sizes): inputs, then
 * the output and its guard zone, each at a multiple of KG_SLOT_ALIGN bytes;
 * call i's buffers start at i * slot. */
typedef struct {
    size_t in0, in1, out;              /* offsets within the slot (in1: 0 and no bytes if unused) */
    size_t in0_bytes, in1_bytes, out_bytes;
    size_t slot;                       /* bytes per call, guard included */
} kg_slot_layout;
kg_slot_layout kg_slot_layout_of(const kg_task *t, kg_shape s);

/* The i-th sampled output index (both the judge's GPU and host code compute it). */
size_t kg_sample_index(uint64_t seed, uint32_t i, size_t n_out);

/* 1 when the reply is well-formed for the command it answers (magic, seq,
 * status and where in range, ms finite and 0 <= ms < 1e7, text NUL-
 * terminated; control bytes in text replaced). Reason in why otherwise. */
int kg_rep_valid(kg_rep *r, uint32_t seq, char *why, size_t len);

/* 1 when the command is well-formed (the harness's side: it refuses what
 * would make it read or write outside its buffers: shm_bytes the small-shape
 * memory, arena_bytes the mapped arena, 0 when none). */
int kg_cmd_valid(const kg_cmd *c, size_t shm_bytes, size_t arena_bytes);

/* Blocking I/O with a deadline (CLOCK_MONOTONIC seconds; 0 = none).
 * 0 on success, -1 on EOF or error, -2 on timeout. */
int kg_write_all(int fd, const void *buf, size_t len);
int kg_read_exact(int fd, void *buf, size_t len, double deadline);
/* kg_read_exact, but polling without sleeping for the first spin_s seconds:
 * the judge's clock then stops when the reply arrives, not when the judge's
 * process wakes up. */
int kg_read_exact_spin(int fd, void *buf, size_t len, double deadline, double spin_s);

/* Commands with a file descriptor: the judge's side sends one with the
 * command (fd < 0: none); the harness's side receives the command and the
 * descriptor that came with it (*fd = -1 if none; a descriptor sent with a
 * command that needs none is closed). 0, -1 on EOF or error. A pipe works
 * too, without descriptors. */
int kg_send_cmd(int sock, const kg_cmd *c, int fd);
int kg_recv_cmd(int sock, kg_cmd *c, int *fd);

#ifdef __cplusplus
}
#endif
#endif
