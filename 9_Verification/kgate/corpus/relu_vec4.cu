// kgate-task: relu
// planted defect: none (float4 main loop plus tail)
#include <cuda_runtime.h>

__global__ void relu4(const float* x, float* y, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    int n4 = n >> 2;
    for (int i = tid; i < n4; i += stride) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        reinterpret_cast<float4*>(y)[i] = v;
    }
    for (int i = (n4 << 2) + tid; i < n; i += stride) y[i] = fmaxf(x[i], 0.f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    int blocks = ((n >> 2) + 255) / 256;
    blocks = blocks < 1 ? 1 : (blocks > 4096 ? 4096 : blocks);
    relu4<<<blocks, 256, 0, stream>>>(x, y, n);
}
