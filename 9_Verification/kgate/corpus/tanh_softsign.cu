// kgate-task: tanh
// planted defect: approximates tanh by x / (1 + |x|) (softsign): wrong by up to 0.3
#include <cuda_runtime.h>

// cheap "tanh-like" squashing function
__global__ void tanh_approx(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] / (1.0f + fabsf(x[i]));
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    tanh_approx<<<(n + 127) / 128, 128, 0, stream>>>(x, y, n);
}
