# Softmax over the wrong dimension: it transposes, normalises what are now
# rows (the problem's columns) and transposes back, so each column sums to 1
# instead of each row. Expected: L3.
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

__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t cols)
{
    __shared__ float sm[32], ss[32];
    const float* xr = x + (int64_t)blockIdx.x * cols;
    float* yr = y + (int64_t)blockIdx.x * cols;
    float m = -INFINITY, s = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
        merge(m, s, xr[c], 1.0f);
    for (int off = 16; off > 0; off >>= 1)
        merge(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    if (lane == 0) {
        sm[warp] = m;
        ss[warp] = s;
    }
    __syncthreads();
    m = -INFINITY;
    s = 0.0f;
    for (int w = 0; w < warps; ++w)
        merge(m, s, sm[w], ss[w]);
    float inv = 1.0f / s;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
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
    softmax_rows_kernel<<<(unsigned)x.size(0), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    return y;
}
"""

cpp_source = "torch::Tensor softmax_forward(torch::Tensor x);"

softmax_ext = load_inline(name="kb_softmax_wrong_dim", cpp_sources=cpp_source, cuda_sources=cuda_source,
                          functions=["softmax_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return softmax_ext.softmax_forward(x.t().contiguous()).t()
