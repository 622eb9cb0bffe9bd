// kgate-task: tanh
// planted defect: none (tanhf rounded through bfloat16, as a bf16 output would store it: within the task's 1e-2 tolerance; the answer forgot #include <cuda_bf16.h>, which the gate adds)
#include <cuda_runtime.h>

__global__ void tanh_bf16(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        __nv_bfloat16 h = __float2bfloat16(tanhf(x[i]));
        y[i] = __bfloat162float(h);
    }
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    int blocks = (n + 255) / 256;
    if (blocks > sms * 32) blocks = sms * 32;
    if (blocks < 1) blocks = 1;
    tanh_bf16<<<blocks, 256, 0, stream>>>(x, y, n);
}
