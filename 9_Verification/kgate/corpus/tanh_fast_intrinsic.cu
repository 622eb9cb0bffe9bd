// kgate-task: tanh
// planted defect: none (uses __expf with the precision intent stated: the task tolerance is rel 1e-2)
#include <cuda_runtime.h>

// precision: __expf (fast approximate exp) is intentional; tanh is checked at
// relative 1e-2, far above its error for |x| <= 10.
__global__ void tanh_fast(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float e = __expf(-2.0f * fabsf(v));  // precision: approximate exp intended
        float t = (1.0f - e) / (1.0f + e);
        y[i] = copysignf(t, v);
    }
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    tanh_fast<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
