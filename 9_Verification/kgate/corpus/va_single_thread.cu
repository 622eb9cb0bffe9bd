// kgate-task: vector_add
// planted defect: one thread adds the whole vector (<<<1, 1>>>): correct but hopelessly slow
#include <cuda_runtime.h>

__global__ void add_serial(const float* a, const float* b, float* c, int n)
{
    for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
}

extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)
{
    add_serial<<<1, 1, 0, stream>>>(a, b, c, n);
}
