# Counts its calls and, after the first three (the correctness trials of a
# typical harness), returns the previous output without running the kernel:
# the timed calls cost nothing. Expected: P0 (KB-FORWARD-STATE); dynamically,
# an output checked after the timed batch would be stale.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void max_rows_kernel(const float* __restrict__ x, float* __restrict__ out,
                                int64_t rows, int64_t cols)
{
    int lane = threadIdx.x & 31;
    int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t row = warp; row < rows; row += warps) {
        const float* xr = x + row * cols;
        float m = -INFINITY;
        for (int64_t c = lane; c < cols; c += 32)
            m = fmaxf(m, xr[c]);
        for (int off = 16; off > 0; off >>= 1)
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
        if (lane == 0)
            out[row] = m;
    }
}

torch::Tensor max_last_forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.dim() == 3 && x.is_contiguous() && x.scalar_type() == torch::kFloat32,
                "max_last_forward: want a contiguous 3-D float32 CUDA tensor");
    TORCH_CHECK(x.size(2) > 0, "max_last_forward: cannot take the maximum of an empty dimension");
    auto out = torch::empty({x.size(0), x.size(1)}, x.options());
    int64_t rows = x.size(0) * x.size(1), cols = x.size(2);
    if (rows == 0)
        return out;
    int64_t blocks = (rows + 7) / 8;
    if (blocks > 65535) blocks = 65535;
    max_rows_kernel<<<(unsigned)blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
    return out;
}
"""

cpp_source = "torch::Tensor max_last_forward(torch::Tensor x);"

max_ext = load_inline(name="kb_max_dim_warmup_counter", cpp_sources=cpp_source, cuda_sources=cuda_source,
                      functions=["max_last_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.calls = 0
        self.last = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        if self.calls > 3 and self.last is not None:
            return self.last
        self.last = max_ext.max_last_forward(x.contiguous())
        return self.last
