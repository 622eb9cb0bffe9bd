// kgate-task: relu
// planted defect: HOSTILE (blocking include). #include "/dev/stdin": libclang
// or nvcc would wait forever for input. An absolute include is refused before
// anything opens it (P0, KG-INCLUDE); stdin is /dev/null in every sandbox too.
#include <cuda_runtime.h>
#include "/dev/stdin"

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
