/* proto.c: the judge-harness protocol's layouts, validation and I/O
 * (proto.h). */
#define _GNU_SOURCE
#include "proto.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rng.h"

const char *kg_where_text(int w)
{
    static const char *const t[KG_AT_COUNT] = {
        "", "creating the CUDA context", "allocating buffers", "copying the inputs",
        "calling the candidate", "waiting for the candidate's work", "copying the outputs",
        "filling the inputs", "timing"};
    return (w >= 0 && w < KG_AT_COUNT) ? t[w] : "?";
}

kg_small_layout kg_small_layout_of(const kg_task *t, kg_shape s)
{
    kg_small_layout L;
    memset(&L, 0, sizeof L);
    kg_sizes z = kg_task_sizes(t, s);
    L.b0 = z.in0 * z.in_elem + KG_GUARD;
    L.b1 = z.in1 ? z.in1 * z.in_elem + KG_GUARD : 0;
    L.bo = z.out * z.out_elem + KG_GUARD;
    size_t o = 0;
#define PLACE(field, bytes) do { L.field = o; o += ((bytes) + 255) / 256 * 256; } while (0)
    PLACE(in0, L.b0);
    PLACE(in1, L.b1);
    PLACE(out, L.bo);
    PLACE(out2, L.bo);
    PLACE(back0, L.b0);
    PLACE(back1, L.b1);
#undef PLACE
    L.total = o;
    return L;
}

size_t kg_pool_elems(size_t n) { return n + (size_t)KG_POOL_STEP * KG_POOL_SLOTS; }

size_t kg_shm_bytes(const kg_task *t)
{
    size_t need = (size_t)KG_SAMPLE * 4;
    for (int i = 0; i < t->n_small; i++) {
        size_t b = kg_small_layout_of(t, t->small[i]).total;
        if (b > need) need = b;
    }
    kg_shape big[2] = {t->mid, t->large};
    for (int i = 0; i < 2; i++) {
        kg_sizes z = kg_task_sizes(t, big[i]);
        size_t b = z.out * z.out_elem + KG_GUARD;
        if (b > need) need = b;
    }
    return (need + 4095) / 4096 * 4096;
}

size_t kg_sample_index(uint64_t seed, uint32_t i, size_t n_out)
{
    if (n_out == 0) return 0;
    uint64_t r = ((uint64_t)rng_u32(seed, RNG_STREAM_C, i) << 32) | rng_u32(seed, RNG_STREAM_D, i);
    return (size_t)(r % n_out);
}

int kg_rep_valid(kg_rep *r, uint32_t seq, char *why, size_t len)
{
    const char *bad = NULL;
    if (r->magic != KG_REP_MAGIC) bad = "bad magic";
    else if (r->seq != seq) bad = "wrong sequence number";
    else if (r->status >= KG_ST_COUNT) bad = "unknown status";
    else if (r->where >= KG_AT_COUNT) bad = "unknown step";
    else if (!isfinite(r->ms) || r->ms < 0.0f || r->ms >= 1e7f) bad = "impossible time";
    else if (!memchr(r->text, 0, sizeof r->text)) bad = "unterminated text";
    if (bad) {
        if (why && len) snprintf(why, len, "%s", bad);
        return 0;
    }
    for (char *p = r->text; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) *p = '?';
    return 1;
}

int kg_cmd_valid(const kg_cmd *c, size_t shm_bytes)
{
    if (c->magic != KG_CMD_MAGIC || c->op < KG_OP_LOAD || c->op >= KG_OP_COUNT) return 0;
    if (c->op == KG_OP_LOAD || c->op == KG_OP_PING || c->op == KG_OP_DRY || c->op == KG_OP_RELEASE)
        return 1;
    if (c->op == KG_OP_CALIBRATE)
        return c->n_calls >= 1 && c->n_calls <= KG_MAX_BATCH && c->seed >= 1 && c->seed <= KG_CALIB_MAX_NS;
    const kg_task *t = kg_task_at(c->task);
    if (!t) return 0;
    for (int i = 0; i < 3; i++)
        if (c->d[i] < 0 || c->d[i] > (1LL << 31)) return 0;
    kg_shape s = {{c->d[0], c->d[1], c->d[2]}};
    if (c->op == KG_OP_SMALL) return kg_small_layout_of(t, s).total <= shm_bytes;
    if (c->op == KG_OP_BATCH) {
        if (c->n_calls < 1 || c->n_calls > KG_MAX_BATCH) return 0;
        for (uint32_t i = 0; i < c->n_calls; i++)
            if (c->off0[i] > (uint64_t)KG_POOL_STEP * (KG_POOL_SLOTS - 1) ||
                c->off1[i] > (uint64_t)KG_POOL_STEP * (KG_POOL_SLOTS - 1))
                return 0;
    }
    if (c->op == KG_OP_FETCH_FULL) {
        kg_sizes z = kg_task_sizes(t, s);
        if (z.out * z.out_elem + KG_GUARD > shm_bytes) return 0;
    }
    if (c->op == KG_OP_FETCH_SAMPLE && ((size_t)c->n_sample * 4 > shm_bytes || c->n_sample == 0))
        return 0;
    return 1;
}

int kg_write_all(int fd, const void *buf, size_t len)
{
    const char *p = (const char *)buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int kg_read_exact(int fd, void *buf, size_t len, double deadline)
{
    char *p = (char *)buf;
    while (len) {
        if (deadline > 0) {
            double left = deadline - mono();
            if (left <= 0) return -2;
            struct pollfd pf = {fd, POLLIN, 0};
            int pr = poll(&pf, 1, (int)(left * 1000) + 1);
            if (pr < 0 && errno == EINTR) continue;
            if (pr == 0) return -2;
            if (pr < 0) return -1;
        }
        ssize_t g = read(fd, p, len);
        if (g < 0 && errno == EINTR) continue;
        if (g <= 0) return -1;
        p += g;
        len -= (size_t)g;
    }
    return 0;
}
