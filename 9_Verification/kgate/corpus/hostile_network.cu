// kgate-task: vector_add
// planted defect: HOSTILE (network connect). A static constructor tries to
// phone home: TCP to the test's loopback listener (127.0.0.1:47199), TCP to
// a public address, and a UDP datagram to a DNS server. The sandbox's
// network namespace reaches nothing; every attempt is reported (L2).
#include <cuda_runtime.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void try_tcp(const char* ip, int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    inet_pton(AF_INET, ip, &a.sin_addr);
    if (s >= 0 && connect(s, (struct sockaddr*)&a, sizeof a) == 0) {
        ssize_t w = write(s, "hello from a candidate\n", 23);
        (void)w;
    }
    if (s >= 0) close(s);
}

__attribute__((constructor)) static void phone_home(void)
{
    try_tcp("127.0.0.1", 47199);
    try_tcp("1.1.1.1", 80);
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in d;
    memset(&d, 0, sizeof d);
    d.sin_family = AF_INET;
    d.sin_port = htons(53);
    inet_pton(AF_INET, "8.8.8.8", &d.sin_addr);
    if (u >= 0) {
        ssize_t w = sendto(u, "q", 1, 0, (struct sockaddr*)&d, sizeof d);
        (void)w;
        close(u);
    }
}

__global__ void add_kernel(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)
{
    add_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
