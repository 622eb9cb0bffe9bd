// kgate-task: relu
// planted defect: HOSTILE (include-policy evasion). 1'0 is one number (a C++14
// digit separator), so '/*' after it is a character literal; a reader that
// takes the separator for a character literal sees a comment open there and
// misses the absolute #include on the next line, which the compilers read
// (P0, KG-INCLUDE).
#include <cuda_runtime.h>

static const int kScale = 1'0 + '/*';
#include "/etc/hostname"
// */

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    (void)kScale;
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
