# The C++ wrapper hands the launch to a detached host thread and returns at
# once: the kernel starts after the caller's timer (or never before the
# output is read). Expected: P0 (KB-CUDA-THREAD).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <thread>

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
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    float* pc = c.data_ptr<float>();
    std::thread([=] {
        add_rows_kernel<<<grid, block>>>(pa, pb, pc, rows, cols);
    }).detach();
    return c;
}
"""

cpp_source = "torch::Tensor add_broadcast_forward(torch::Tensor a, torch::Tensor b);"

add_ext = load_inline(name="kb_add_broadcast_host_thread", cpp_sources=cpp_source, cuda_sources=cuda_source,
                      functions=["add_broadcast_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return add_ext.add_broadcast_forward(a.contiguous(), b.contiguous())
