// kgate-task: tanh
// planted defect: none (tanhf on float4 loads, grid-stride, scalar tail)
#include <cuda_runtime.h>

__global__ void tanh4(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int n4 = n / 4;
    int tid = blockIdx.x * blockDim.x + threadIdx.x, stride = blockDim.x * gridDim.x;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int i = tid; i < n4; i += stride) {
        float4 v = x4[i];
        y4[i] = make_float4(tanhf(v.x), tanhf(v.y), tanhf(v.z), tanhf(v.w));
    }
    for (int i = 4 * n4 + tid; i < n; i += stride) y[i] = tanhf(x[i]);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    int blocks = (n / 4 + 255) / 256;
    if (blocks < 1) blocks = 1;
    if (blocks > 8192) blocks = 8192;
    tanh4<<<blocks, 256, 0, stream>>>(x, y, n);
}
