# Correct prefix sum with one thread a row walking it serially: 256 threads
# in all (4 blocks of 64), each 32767 dependent additions, neighbouring
# threads 128 KiB apart. Expected: L4, about 0.03x of PyTorch.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void cumsum_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows,
                                   int64_t cols)
{
    int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    float s = 0.0f;
    for (int64_t c = 0; c < cols; ++c) {
        s += x[row * cols + c];
        y[row * cols + c] = s;
    }
}

torch::Tensor cumsum_forward(torch::Tensor x, int64_t dim)
{
    TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.is_contiguous() && x.scalar_type() == torch::kFloat32,
                "cumsum_forward: want a contiguous 2-D float32 CUDA tensor");
    TORCH_CHECK(dim == 1 || dim == -1, "cumsum_forward: scans the last dimension only");
    auto y = torch::empty_like(x);
    if (x.numel() == 0)
        return y;
    cumsum_rows_kernel<<<(unsigned)((x.size(0) + 63) / 64), 64, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), x.size(0), x.size(1));
    return y;
}
"""

cpp_source = "torch::Tensor cumsum_forward(torch::Tensor x, int64_t dim);"

cumsum_ext = load_inline(name="kb_cumsum_serial_rows", cpp_sources=cpp_source, cuda_sources=cuda_source,
                         functions=["cumsum_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return cumsum_ext.cumsum_forward(x.contiguous(), self.dim)
