/* proto.h: how the judge talks to the harness (see README.md, "Judge and
 * harness").
 *
 * The harness (bin/kgate-harness) is the only process that runs candidate
 * code; it lives in the sandbox and is treated as hostile. The judge (a
 * child of the gate, bin/kgate) owns the inputs, the references, the
 * comparisons and the verdict, and never loads candidate code. Between them:
 *   - a command pipe (judge -> harness) and a reply pipe (harness -> judge),
 *     fixed-size records, one reply per command, matched by sequence number;
 *   - a shared memory file (memfd) the judge sizes: inputs for the small
 *     shapes go in, outputs (and the inputs read back) come out. Where each
 *     buffer sits is computed by both sides from the task and shape
 *     (kg_small_layout); nothing the harness says moves it.
 * The judge validates every reply (magic, sequence, status, numbers finite
 * and in range, text NUL-terminated and printable), reads each output byte
 * from the shared memory once (a copy), and waits for every reply under its
 * own deadline. A reply it cannot trust ends the session: the candidate is
 * stopped (L2) with "protocol violation".
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
#define KG_MAX_BATCH 64        /* calls in one timed batch (at most KG_POOL_SLOTS: distinct offsets) */
#define KG_GUARD 1024          /* bytes after every buffer */
#define KG_POOL_STEP 64        /* input offsets of timed calls: multiples of 64 elements (256 B) */
#define KG_POOL_SLOTS 64       /* ... out of 64 positions: the pool is n + 64*64 elements */
#define KG_SAMPLE 65536        /* output elements checked after each timed batch */
#define KG_CALIB_MAX_NS 20000000ULL /* CALIBRATE: at most 20 ms per delay kernel */

/* Harness fds: 3 commands (read), 4 replies (write), 5 the shared memory. */
#define KG_FD_CMD 3
#define KG_FD_REP 4
#define KG_FD_SHM 5

typedef enum {
    KG_OP_LOAD = 1,    /* dlopen /scratch/cand.so, find launch */
    KG_OP_SMALL,       /* one small-shape run: inputs from shm, outputs (and inputs read back) to shm */
    KG_OP_PREPARE,     /* mid/large: fill input pools from a seed, allocate the output */
    KG_OP_CHECK,       /* one call at offset 0 after poisoning the output; ms = its time */
    KG_OP_BATCH,       /* n_calls calls at the given offsets, back to back; ms = their time */
    KG_OP_FETCH_FULL,  /* the output and its guard zone into shm */
    KG_OP_FETCH_SAMPLE,/* n_sample output elements at indices from a seed into shm */
    KG_OP_RELEASE,     /* free the mid/large buffers */
    KG_OP_PING,        /* nothing: the judge measures a round trip */
    KG_OP_DRY,         /* no GPU: call launch once with null pointers (sandbox tests) */
    KG_OP_CALIBRATE,   /* before LOAD only: n_calls of the gate's delay kernel, seed ns each,
                        * timed like BATCH (the judge's round-trip allowance, see judge.h) */
    KG_OP_COUNT
} kg_op;

typedef struct {
    uint32_t magic, op, seq;
    int32_t task;                      /* index in the task table */
    int64_t d[3];                      /* the shape */
    uint64_t seed;                     /* PREPARE: inputs; FETCH_SAMPLE: indices */
    uint32_t n_calls, n_sample;
    uint64_t off0[KG_MAX_BATCH], off1[KG_MAX_BATCH];   /* elements, per call */
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
    KG_ST_COUNT
} kg_status;

/* Where in a command the harness was (for a reason like "while copying the
 * inputs"). */
typedef enum {
    KG_AT_NONE = 0, KG_AT_CONTEXT, KG_AT_ALLOC, KG_AT_INPUTS, KG_AT_CALL, KG_AT_SYNC,
    KG_AT_OUTPUTS, KG_AT_FILL, KG_AT_TIMING, KG_AT_COUNT
} kg_where;

typedef struct {
    uint32_t magic, seq, status, where;
    int32_t cuda_err;
    float ms;                          /* CHECK/BATCH: CUDA-event time (untrusted) */
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

/* Shared memory a task needs: the largest of its small layouts, the full
 * output (with guard) of its mid and large sizes, and the sample. */
size_t kg_shm_bytes(const kg_task *t);

/* Element count of the input pools for a mid/large shape (n + 64*64). */
size_t kg_pool_elems(size_t n);

/* The i-th sampled output index (both sides compute the same). */
size_t kg_sample_index(uint64_t seed, uint32_t i, size_t n_out);

/* 1 when the reply is well-formed for the command it answers (magic, seq,
 * status and where in range, ms finite and 0 <= ms < 1e7, text NUL-
 * terminated; control bytes in text replaced). Reason in why otherwise. */
int kg_rep_valid(kg_rep *r, uint32_t seq, char *why, size_t len);

/* 1 when the command is well-formed (the harness's side: it refuses what
 * would make it read or write outside its buffers). */
int kg_cmd_valid(const kg_cmd *c, size_t shm_bytes);

/* Blocking I/O with a deadline (CLOCK_MONOTONIC seconds; 0 = none).
 * 0 on success, -1 on EOF or error, -2 on timeout. */
int kg_write_all(int fd, const void *buf, size_t len);
int kg_read_exact(int fd, void *buf, size_t len, double deadline);

#ifdef __cplusplus
}
#endif
#endif
