// kgate-task: vector_add
// planted defect: no bounds check: the last block writes past the end of c when n is not a multiple of 256
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}

extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)
{
    add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c);
}
