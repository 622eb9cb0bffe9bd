// kgate-task: relu
// planted defect: HOSTILE (host memory in memfd and POSIX shared memory).
// launch() creates memfd files of 8 MiB (under the 16 MiB file-size limit),
// maps each shared, touches it and closes the descriptor (no open-file
// limit holds them), up to 12 GiB; files in /dev/shm first. None of it is
// RLIMIT_DATA's. The memory cgroup counts the pages (and /dev/shm is a
// small tmpfs of its own): killed at the limit, L2; where no cgroup can be
// made, the gate's watcher (shared pages and memfd files) kills it there.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void hold(void)
{
    static char block[1 << 20];
    memset(block, 7, sizeof block);
    for (int k = 0; k < 64; k++) {   /* /dev/shm: until it is full */
        char p[64];
        snprintf(p, sizeof p, "/dev/shm/kgate_hold_%d", k);
        int fd = open(p, O_WRONLY | O_CREAT, 0600);
        if (fd < 0) break;
        ssize_t w = write(fd, block, sizeof block);
        close(fd);
        if (w != (ssize_t)sizeof block) break;
    }
    for (int k = 0; k < 1536; k++) {
        int fd = memfd_create("hold", 0);
        if (fd < 0 || ftruncate(fd, 8u << 20) != 0) break;
        char* m = (char*)mmap(NULL, 8u << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (m == MAP_FAILED) {
            volatile char* q = NULL;
            *q = 1;   /* refused: crash */
        }
        for (size_t i = 0; i < (8u << 20); i += 4096) m[i] = 1;
    }
}

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    static int once;
    if (!once++) hold();
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
