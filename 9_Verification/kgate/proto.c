/* proto.c: the judge-harness protocol's layouts, validation and I/O
 * (proto.h). */
#define _GNU_SOURCE
#include "proto.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rng.h"

const char *kg_where_text(int w)
{
    static const char *const t[KG_AT_COUNT] = {
        "", "creating the CUDA context", "allocating buffers", "copying the inputs",
        "calling the candidate", "waiting for the candidate's work", "copying the outputs",
        "filling the inputs", "timing", "mapping the gate's buffers"};
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

size_t kg_shm_bytes(const kg_task *t)
{
    size_t need = 4096;
    for (int i = 0; i < t->n_small; i++) {
        size_t b = kg_small_layout_of(t, t->small[i]).total;
        if (b > need) need = b;
    }
    return (need + 4095) / 4096 * 4096;
}

#define KG_SEALS (F_SEAL_SHRINK | F_SEAL_GROW)

int kg_shm_create(const kg_task *t)
{
    int fd = memfd_create("kgate-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)kg_shm_bytes(t)) != 0 || fcntl(fd, F_ADD_SEALS, KG_SEALS | F_SEAL_SEAL) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int kg_shm_sealed(int fd, size_t bytes)
{
    struct stat st;
    int seals = fcntl(fd, F_GET_SEALS);
    return seals >= 0 && (seals & KG_SEALS) == KG_SEALS && fstat(fd, &st) == 0 &&
           S_ISREG(st.st_mode) && (size_t)st.st_size == bytes;
}

int kg_shm_read(int fd, size_t off, void *buf, size_t len)
{
    char *p = (char *)buf;
    while (len) {
        ssize_t g = pread(fd, p, len, (off_t)off);
        if (g < 0 && errno == EINTR) continue;
        if (g <= 0) return -1;
        p += g;
        off += (size_t)g;
        len -= (size_t)g;
    }
    return 0;
}

int kg_shm_write(int fd, size_t off, const void *buf, size_t len)
{
    const char *p = (const char *)buf;
    while (len) {
        ssize_t w = pwrite(fd, p, len, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        off += (size_t)w;
        len -= (size_t)w;
    }
    return 0;
}

kg_slot_layout kg_slot_layout_of(const kg_task *t, kg_shape s)
{
    kg_slot_layout L;
    memset(&L, 0, sizeof L);
    kg_sizes z = kg_task_sizes(t, s);
    L.in0_bytes = z.in0 * z.in_elem;
    L.in1_bytes = z.in1 * z.in_elem;
    L.out_bytes = z.out * z.out_elem;
    size_t o = 0;
#define UP(x) (((x) + KG_SLOT_ALIGN - 1) / KG_SLOT_ALIGN * KG_SLOT_ALIGN)
    L.in0 = o;
    o += UP(L.in0_bytes);
    L.in1 = L.in1_bytes ? o : 0;
    o += UP(L.in1_bytes);
    L.out = o;
    o += UP(L.out_bytes + KG_GUARD);
#undef UP
    L.slot = o;
    return L;
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

/* one buffer of len bytes at off fits in an arena of `bytes`, aligned */
static int fits(uint64_t off, size_t len, size_t bytes)
{
    return off % KG_SLOT_ALIGN == 0 && off <= bytes && len <= bytes - off;
}

int kg_cmd_valid(const kg_cmd *c, size_t shm_bytes, size_t arena_bytes)
{
    if (c->magic != KG_CMD_MAGIC || c->op < KG_OP_LOAD || c->op >= KG_OP_COUNT) return 0;
    if (c->op == KG_OP_LOAD || c->op == KG_OP_PING || c->op == KG_OP_DRY) return 1;
    if (c->op == KG_OP_MAP) return c->seed > 0 && c->seed <= (1ULL << 50);
    if (c->op == KG_OP_CALIBRATE)
        return c->n_calls >= 1 && c->n_calls <= KG_MAX_BATCH && c->seed >= 1 && c->seed <= KG_CALIB_MAX_NS;
    const kg_task *t = kg_task_at(c->task);
    if (!t) return 0;
    for (int i = 0; i < 3; i++)
        if (c->d[i] < 0 || c->d[i] > (1LL << 31)) return 0;
    kg_shape s = {{c->d[0], c->d[1], c->d[2]}};
    if (c->op == KG_OP_SMALL) return kg_small_layout_of(t, s).total <= shm_bytes;
    /* CHECK and BATCH: every call's buffers (an output with its guard zone) inside the arena */
    if (c->n_calls < 1 || c->n_calls > KG_MAX_BATCH || (c->op == KG_OP_CHECK && c->n_calls != 1)) return 0;
    kg_slot_layout L = kg_slot_layout_of(t, s);
    for (uint32_t i = 0; i < c->n_calls; i++)
        if (!fits(c->in0[i], L.in0_bytes, arena_bytes) || !fits(c->out[i], L.out_bytes + KG_GUARD, arena_bytes) ||
            (L.in1_bytes && !fits(c->in1[i], L.in1_bytes, arena_bytes)))
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

int kg_read_exact_spin(int fd, void *buf, size_t len, double deadline, double spin_s)
{
    double spin_until = mono() + spin_s;
    char *p = (char *)buf;
    while (len && mono() < spin_until && (deadline <= 0 || mono() < deadline)) {
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, 0);
        if (pr < 0 && errno != EINTR) return -1;
        if (pr <= 0) continue;
        ssize_t g = read(fd, p, len);
        if (g < 0 && errno == EINTR) continue;
        if (g <= 0) return -1;
        p += g;
        len -= (size_t)g;
    }
    return len ? kg_read_exact(fd, p, len, deadline) : 0;
}

int kg_send_cmd(int sock, const kg_cmd *c, int fd)
{
    if (fd < 0) {
        /* a socket: no SIGPIPE when the harness is gone; a pipe (the tests): write */
        const char *p = (const char *)c;
        size_t len = sizeof *c;
        while (len) {
            ssize_t w = send(sock, p, len, MSG_NOSIGNAL);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0 && errno == ENOTSOCK) return kg_write_all(sock, p, len);
            if (w <= 0) return -1;
            p += w;
            len -= (size_t)w;
        }
        return 0;
    }
    char cbuf[CMSG_SPACE(sizeof(int))];
    memset(cbuf, 0, sizeof cbuf);
    struct iovec io = {(void *)c, sizeof *c};
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &io;
    mh.msg_iovlen = 1;
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof cbuf;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    ssize_t w;
    do w = sendmsg(sock, &mh, MSG_NOSIGNAL); while (w < 0 && errno == EINTR);
    if (w < 0) return -1;
    /* the descriptor went with the first byte; the rest as a plain write */
    return (size_t)w == sizeof *c ? 0 : kg_write_all(sock, (const char *)c + w, sizeof *c - (size_t)w);
}

int kg_recv_cmd(int sock, kg_cmd *c, int *fd)
{
    *fd = -1;
    char cbuf[CMSG_SPACE(4 * sizeof(int))];
    struct iovec io = {c, sizeof *c};
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &io;
    mh.msg_iovlen = 1;
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof cbuf;
    ssize_t g;
    do g = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC); while (g < 0 && errno == EINTR);
    if (g < 0 && errno == ENOTSOCK) return kg_read_exact(sock, c, sizeof *c, 0);
    if (g <= 0) return -1;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
        size_t n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t k = 0; k < n; k++) {
            int f;
            memcpy(&f, CMSG_DATA(cm) + k * sizeof(int), sizeof f);
            if (*fd < 0) *fd = f;
            else close(f);
        }
    }
    if ((size_t)g < sizeof *c && kg_read_exact(sock, (char *)c + g, sizeof *c - (size_t)g, 0) != 0) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
        return -1;
    }
    if (*fd >= 0 && c->op != KG_OP_MAP) {
        close(*fd);
        *fd = -1;
    }
    return 0;
}
