// kgate-task: relu
// planted defect: HOSTILE (compile-time disk filler). A 2 GiB initialised
// host array makes the host compiler and assembler write a 2 GiB object
// file. nvcc's sandbox caps any file at 256 MiB (SIGXFSZ) and its /tmp at
// 512 MiB: the compile stops (L1) and the host's disk never sees it.
#include <cuda_runtime.h>

__attribute__((used)) static char filler[1u << 31] = {1};

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n + 0 * filler[0]);
}
