# ReLU row by row, one block a row, but the column loop stops at cols - 1:
# the last element of every row is never written. Expected: L3.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void relu_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t cols)
{
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;
    for (int64_t c = threadIdx.x; c < cols - 1; c += blockDim.x)
        yr[c] = fmaxf(xr[c], 0.0f);
}

torch::Tensor relu_forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.is_contiguous() && x.scalar_type() == torch::kFloat32,
                "relu_forward: want a contiguous 2-D float32 CUDA tensor");
    auto y = torch::empty_like(x);
    if (x.numel() == 0)
        return y;
    relu_rows_kernel<<<(unsigned)x.size(0), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    return y;
}
"""

cpp_source = "torch::Tensor relu_forward(torch::Tensor x);"

relu_ext = load_inline(name="kb_relu_off_by_one", cpp_sources=cpp_source, cuda_sources=cuda_source,
                       functions=["relu_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return relu_ext.relu_forward(x.contiguous())
