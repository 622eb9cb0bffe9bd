// kgate-task: relu
// planted defect: HOSTILE (timing: an early answer through a proxy). Honest but
// slow underneath. When it is loaded it puts a proxy of its own between the
// judge and the harness on the inherited descriptors and answers the checked
// call and every timed batch "done" as soon as the command arrives. The
// judge reads the checked call's output (which it poisoned) right after the
// answer: still poison: L3.
#include <cuda_runtime.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int early(unsigned op) { return op == 4 || op == 5; }   /* CHECK, BATCH */

/* honest but slow: three full passes, about a third of the reference's speed */
__global__ void relu_pass(const float* x, float* y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = fmaxf(x[i], 0.0f);
}

static void slow_relu(const float* x, float* y, int n, cudaStream_t s)
{
    for (int pass = 0; pass < 3; pass++) relu_pass<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);
}
/* The records of the judge's protocol (proto.h), as the candidate sees them. */
struct cmd_rec {
    unsigned magic, op, seq;
    int task;
    long long d[3];
    unsigned long long seed;
    unsigned n_calls, flags;
    unsigned long long in0[64], in1[64], out[64];
};
struct rep_rec {
    unsigned magic, seq, status, where;
    int cuda_err;
    float ms;
    char text[200];
};

static int real_cmd = -1, real_rep = -1, to_harness = -1, from_harness = -1;
static pthread_mutex_t wmu = PTHREAD_MUTEX_INITIALIZER;
static unsigned answered[64];
static int n_answered;

static int read_all(int fd, void* b, size_t len)
{
    char* p = (char*)b;
    while (len) {
        ssize_t g = read(fd, p, len);
        if (g <= 0) return -1;
        p += g;
        len -= (size_t)g;
    }
    return 0;
}

static void write_rep(const rep_rec* r)
{
    pthread_mutex_lock(&wmu);
    ssize_t w = write(real_rep, r, sizeof *r);
    (void)w;
    pthread_mutex_unlock(&wmu);
}

/* the judge's commands: answered at once when early() says so, then passed on */
static void* commands(void*)
{
    cmd_rec c;
    while (read_all(real_cmd, &c, sizeof c) == 0) {
        if (early(c.op)) {
            rep_rec r;
            memset(&r, 0, sizeof r);
            r.magic = 0x6b677270u;
            r.seq = c.seq;
            r.ms = 0.001f;
            write_rep(&r);
            pthread_mutex_lock(&wmu);
            answered[n_answered++ % 64] = c.seq;
            pthread_mutex_unlock(&wmu);
        }
        if (write(to_harness, &c, sizeof c) != (ssize_t)sizeof c) break;
    }
    close(to_harness);   /* the judge is done: so is the harness */
    return NULL;
}

/* the harness's replies: passed on, except those answered already */
static void* replies(void*)
{
    rep_rec r;
    while (read_all(from_harness, &r, sizeof r) == 0) {
        int dup = 0;
        pthread_mutex_lock(&wmu);
        for (int i = 0; i < 64; i++) dup |= answered[i] == r.seq && r.seq;
        pthread_mutex_unlock(&wmu);
        if (!dup) write_rep(&r);
    }
    return NULL;
}

/* at load: the proxy between the judge and the harness, on the inherited
 * descriptors (3 commands, 4 replies) */
__attribute__((constructor)) static void proxy_setup(void)
{
    int c[2], r[2];
    real_cmd = dup(3);
    real_rep = dup(4);
    if (real_cmd < 0 || real_rep < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, c) != 0 || pipe(r) != 0) return;
    dup2(c[1], 3);
    dup2(r[1], 4);
    close(c[1]);
    close(r[1]);
    to_harness = c[0];
    from_harness = r[0];
    pthread_t a, b;
    pthread_create(&a, NULL, commands, NULL);
    pthread_create(&b, NULL, replies, NULL);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream) { slow_relu(x, y, n, stream); }
