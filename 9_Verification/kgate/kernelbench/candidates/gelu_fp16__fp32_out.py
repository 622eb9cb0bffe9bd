# Right values in the wrong dtype: computes GELU of the half-precision input
# and returns float32 (more digits, twice the bytes written). The problem's
# output is float16. Expected: L3 (dtype).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_fp16.h>

__device__ __forceinline__ float gelu(float v)
{
    return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
}

__global__ void gelu_half_kernel(const __half* __restrict__ x, float* __restrict__ y, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t n2 = n / 2;
    const __half2* x2 = reinterpret_cast<const __half2*>(x);
    float2* y2 = reinterpret_cast<float2*>(y);
    for (int64_t i = first; i < n2; i += stride) {
        float2 v = __half22float2(x2[i]);
        y2[i] = make_float2(gelu(v.x), gelu(v.y));
    }
    if (first == 0 && (n & 1))
        y[n - 1] = gelu(__half2float(x[n - 1]));
}

torch::Tensor gelu_half_forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.scalar_type() == torch::kHalf,
                "gelu_half_forward: want a contiguous float16 CUDA tensor");
    auto y = torch::empty({x.size(0), x.size(1)}, x.options().dtype(torch::kFloat32));
    int64_t n = x.numel();
    if (n == 0)
        return y;
    int64_t blocks = (n / 2 + 255) / 256;
    if (blocks > 65535) blocks = 65535;
    if (blocks < 1) blocks = 1;
    gelu_half_kernel<<<(unsigned)blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        reinterpret_cast<const __half*>(x.data_ptr<at::Half>()), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor gelu_half_forward(torch::Tensor x);"

gelu_ext = load_inline(name="kb_gelu_fp16_fp32_out", cpp_sources=cpp_source, cuda_sources=cuda_source,
                       functions=["gelu_half_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return gelu_ext.gelu_half_forward(x.contiguous())
