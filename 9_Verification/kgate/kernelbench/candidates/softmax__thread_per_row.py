# Correct softmax with one thread a row: three serial passes over 8191
# columns, neighbouring threads 32 KiB apart (no coalescing), 4096 threads
# on 132 SMs. Expected: L4, about 0.03x of PyTorch.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

// (m, s): a running maximum and the sum of exp(x - m); merge two of them.
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2)
{
    float mn = fmaxf(m, m2);
    float a = (m == -INFINITY) ? 0.0f : s * expf(m - mn);
    float b = (m2 == -INFINITY) ? 0.0f : s2 * expf(m2 - mn);
    m = mn;
    s = a + b;
}

__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols)
{
    int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c)
        m = fmaxf(m, xr[c]);
    float s = 0.0f;
    for (int64_t c = 0; c < cols; ++c)
        s += expf(xr[c] - m);
    float inv = 1.0f / s;
    for (int64_t c = 0; c < cols; ++c)
        yr[c] = expf(xr[c] - m) * inv;
}

torch::Tensor softmax_forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.is_contiguous() && x.scalar_type() == torch::kFloat32,
                "softmax_forward: want a contiguous 2-D float32 CUDA tensor");
    auto y = torch::empty_like(x);
    if (x.numel() == 0)
        return y;
    TORCH_CHECK(x.size(0) <= 2147483647, "softmax_forward: too many rows for one grid");
    softmax_rows_kernel<<<(unsigned)((x.size(0) + 127) / 128), 128, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), x.size(0), x.size(1));
    return y;
}
"""

cpp_source = "torch::Tensor softmax_forward(torch::Tensor x);"

softmax_ext = load_inline(name="kb_softmax_thread_per_row", cpp_sources=cpp_source, cuda_sources=cuda_source,
                          functions=["softmax_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return softmax_ext.softmax_forward(x.contiguous())
