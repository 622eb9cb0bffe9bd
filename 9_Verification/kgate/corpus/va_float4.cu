// kgate-task: vector_add
// planted defect: none (float4 loads with a scalar tail)
#include <cuda_runtime.h>

// Each thread adds four consecutive floats with 16-byte loads; the last n % 4
// elements are handled by a scalar loop. cudaMalloc pointers are 256-byte aligned.
__global__ void vadd4(const float* a, const float* b, float* c, int n)
{
    int n4 = n / 4;
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* c4 = reinterpret_cast<float4*>(c);
    for (int i = tid; i < n4; i += stride) {
        float4 x = a4[i], y = b4[i];
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    for (int i = 4 * n4 + tid; i < n; i += stride) c[i] = a[i] + b[i];
}

extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)
{
    int blocks = (n / 4 + 255) / 256;
    if (blocks < 1) blocks = 1;
    if (blocks > 4096) blocks = 4096;
    vadd4<<<blocks, 256, 0, stream>>>(a, b, c, n);
}
