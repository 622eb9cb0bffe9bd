// kgate-task: vector_add
// planted defect: typo: threadIdx.X (capital X) does not compile
#include <cuda_runtime.h>

__global__ void add_kernel(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.X;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)
{
    add_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
