// kgate-task: vector_add
// planted defect: ignores the stream argument and launches on the legacy default stream, racing the caller's work on stream
#include <cuda_runtime.h>

__global__ void vec_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)
{
    (void)stream;
    vec_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
