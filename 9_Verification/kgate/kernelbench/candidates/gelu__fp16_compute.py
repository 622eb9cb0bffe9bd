# GELU computed in half precision for a float32 problem: the input is rounded
# to fp16 (relative error up to 4.9e-4) and the result converted back.
# Faster arithmetic, wrong digits. Expected: P0 (KB-PRECISION); numerically
# it would also miss the 1e-4 tolerance.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#include <cuda_fp16.h>

__device__ __forceinline__ float gelu(float v)
{
    __half h = __float2half(v);
    __half c = __float2half(0.70710678118654752f);
    float e = erff(__half2float(__hmul(h, c)));
    return __half2float(__hmul(__hmul(__float2half(0.5f), h), __float2half(1.0f + e)));
}

__global__ void gelu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int64_t i = first; i < n4; i += stride) {
        float4 v = x4[i];
        v.x = gelu(v.x);
        v.y = gelu(v.y);
        v.z = gelu(v.z);
        v.w = gelu(v.w);
        y4[i] = v;
    }
    for (int64_t i = n4 * 4 + first; i < n; i += stride)   // the tail: n % 4 elements
        y[i] = gelu(x[i]);
}

torch::Tensor gelu_forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.scalar_type() == torch::kFloat32,
                "gelu_forward: want a contiguous float32 CUDA tensor");
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    if (n == 0)
        return y;
    int64_t blocks = (n / 4 + 255) / 256;
    if (blocks > 65535) blocks = 65535;
    if (blocks < 1) blocks = 1;
    gelu_kernel<<<(unsigned)blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor gelu_forward(torch::Tensor x);"

gelu_ext = load_inline(name="kb_gelu_fp16_compute", cpp_sources=cpp_source, cuda_sources=cuda_source,
                       functions=["gelu_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return gelu_ext.gelu_forward(x.contiguous())
