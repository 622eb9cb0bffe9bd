// kgate-task: relu
// planted defect: HOSTILE (compile-time bomb). Nested macros expand to 4^32
// tokens: libclang and nvcc's preprocessor would run for hours and take all
// the memory. The static scan's sandbox stops it at its time or memory
// limit, and the compile with it (L1).
#include <cuda_runtime.h>

#define X4(x) x x x x
#define X16(x) X4(X4(x))
#define X256(x) X16(X16(x))
#define X64K(x) X256(X256(x))
#define X4G(x) X64K(X64K(x))

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f X4G(+ 0.0f) X4G(+ 0.0f);
    if (i < n) y[i] = fmaxf(x[i], v);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
