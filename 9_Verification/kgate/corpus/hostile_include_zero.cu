// kgate-task: relu
// planted defect: HOSTILE (endless include). The include name hides in a
// macro: #include DEV with DEV </dev/zero>, an endless file that ate 4.3 GB
// of libclang before it crashed. A computed include is refused before
// anything opens it (P0, KG-INCLUDE).
#include <cuda_runtime.h>
#define DEV </dev/zero>
#include DEV

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
