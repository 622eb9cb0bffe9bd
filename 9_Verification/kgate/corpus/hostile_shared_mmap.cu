// kgate-task: relu
// planted defect: HOSTILE (host memory outside RLIMIT_DATA). A static
// constructor maps anonymous shared memory (MAP_SHARED|MAP_ANONYMOUS, which
// RLIMIT_DATA does not count) in 256 MiB pieces and touches every page, up
// to 12 GiB (1.5 times the harness's 8 GiB limit), then computes a correct
// relu: a gate that limits only RLIMIT_DATA passes it while it holds 12 GiB
// of the host's memory. The sandbox's memory cgroup counts shared pages
// and kills it at the limit; where no cgroup can be made, the gate's
// watcher of the harness's resident memory (shared pages included) kills
// it at the limit. L2.
#include <cuda_runtime.h>
#include <string.h>
#include <sys/mman.h>

__attribute__((constructor)) static void hold(void)
{
    for (int k = 0; k < 48; k++) {
        char* p = (char*)mmap(NULL, 256u << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            volatile char* q = NULL;
            *q = 1;   /* refused: crash */
        }
        for (size_t i = 0; i < (256u << 20); i += 4096) p[i] = 1;
    }
}

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
