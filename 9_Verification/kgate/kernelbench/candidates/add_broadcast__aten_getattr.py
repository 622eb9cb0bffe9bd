# Reaches PyTorch's own add through torch.ops.aten with a name assembled at
# run time, so that no "torch.add" appears in the text; the compiled kernel
# is called and its result dropped. Expected: P0 (KB-DYNAMIC-ATTR,
# KB-TORCH-COMPUTE).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void add_rows_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                float* __restrict__ c, int64_t rows, int64_t cols)
{
    int64_t col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols)
        return;
    float bv = b[col];
    for (int64_t row = blockIdx.y; row < rows; row += gridDim.y)
        c[row * cols + col] = a[row * cols + col] + bv;
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
    dim3 grid((unsigned)((cols + 255) / 256), (unsigned)(rows < 65535 ? rows : 65535));
    add_rows_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), rows, cols);
    return c;
}
"""

cpp_source = "torch::Tensor add_broadcast_forward(torch::Tensor a, torch::Tensor b);"

add_ext = load_inline(name="kb_add_broadcast_aten_getattr", cpp_sources=cpp_source, cuda_sources=cuda_source,
                      functions=["add_broadcast_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.op_name = "ad" + "d"

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        add_ext.add_broadcast_forward(a, b)
        op = getattr(torch.ops.aten, self.op_name)
        return op.Tensor(a, b)
