# Hard-codes the problem's row length (16383) in the kernel: the column index
# and the broadcast read use the constant, not the tensor's size. Right at
# the module-level sizes, which are all KernelBench's own check ever uses;
# wrong (and out of bounds on b) at any other width. Expected: L3 at a second
# shape; statically only P1 (KB-HARDCODED-SIZE) points at it.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void add_rows_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                float* __restrict__ c, int64_t rows, int64_t cols)
{
    const int64_t kCols = 16383;   // the row length
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t n = rows * cols;
    for (; i < n; i += (int64_t)gridDim.x * blockDim.x)
        c[i] = a[i] + b[i % kCols];
}

torch::Tensor add_broadcast_forward(torch::Tensor a, torch::Tensor b)
{
    TORCH_CHECK(a.is_cuda() && b.is_cuda() && a.dim() == 2 && b.dim() == 1 && a.size(1) == b.size(0),
                "add_broadcast_forward: want a (rows x cols) and b (cols), on the GPU");
    TORCH_CHECK(a.is_contiguous() && b.is_contiguous() && a.scalar_type() == torch::kFloat32
                && b.scalar_type() == torch::kFloat32, "add_broadcast_forward: want contiguous float32");
    auto c = torch::empty_like(a);
    int64_t rows = a.size(0), cols = a.size(1);
    if (rows == 0 || cols == 0)
        return c;
    dim3 block(256);
    dim3 grid(4096);
    add_rows_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), rows, cols);
    return c;
}
"""

cpp_source = "torch::Tensor add_broadcast_forward(torch::Tensor a, torch::Tensor b);"

add_ext = load_inline(name="kb_add_broadcast_hardcoded_dim", cpp_sources=cpp_source, cuda_sources=cuda_source,
                      functions=["add_broadcast_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return add_ext.add_broadcast_forward(a.contiguous(), b.contiguous())
