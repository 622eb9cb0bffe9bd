// kgate-task: tanh
// planted defect: grid-stride while loop never advances i: the kernel never ends (hang)
#include <cuda_runtime.h>

__global__ void tanh_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    while (i < n) {
        y[i] = tanhf(x[i]);
        // forgot: i += stride;
        (void)stride;
    }
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    tanh_kernel<<<64, 256, 0, stream>>>(x, y, n);
}
