// kgate-task: tanh
// planted defect: index built from threadIdx.x alone: every block writes elements 0..255 and the rest stay unwritten
#include <cuda_runtime.h>

__global__ void tanh_kernel(const float* x, float* y, int n)
{
    int i = threadIdx.x;
    if (i < n) y[i] = tanhf(x[i]);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    tanh_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
