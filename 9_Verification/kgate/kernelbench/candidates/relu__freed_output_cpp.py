# Returns torch::empty_like(x) from the C++ wrapper and launches its kernel
# with a grid of n >> 40 blocks: zero, an invalid launch whose error nobody
# reads. The output holds whatever the caching allocator gives back: if the
# reference ran just before in this process and its output was freed, that
# memory holds the right answer. Expected: L2: the launch error nobody read
# is read by PyTorch's next launch in the runner (on the H200: "CUDA error:
# invalid argument"); were it cleared, L3 (the reference runs elsewhere, so
# the memory does not hold its answer).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void relu_vec4_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int64_t i = first; i < n4; i += stride) {
        float4 v = x4[i];
        v.x = fmaxf(v.x, 0.0f);
        v.y = fmaxf(v.y, 0.0f);
        v.z = fmaxf(v.z, 0.0f);
        v.w = fmaxf(v.w, 0.0f);
        y4[i] = v;
    }
    for (int64_t i = n4 * 4 + first; i < n; i += stride)   // the tail: n % 4 elements
        y[i] = fmaxf(x[i], 0.0f);
}

torch::Tensor relu_forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.scalar_type() == torch::kFloat32,
                "relu_forward: want a contiguous float32 CUDA tensor");
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    if (n == 0)
        return y;
    int64_t blocks = n >> 40;   // "enough blocks"
    relu_vec4_kernel<<<(unsigned)blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor relu_forward(torch::Tensor x);"

relu_ext = load_inline(name="kb_relu_freed_output_cpp", cpp_sources=cpp_source, cuda_sources=cuda_source,
                       functions=["relu_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return relu_ext.relu_forward(x.contiguous())
