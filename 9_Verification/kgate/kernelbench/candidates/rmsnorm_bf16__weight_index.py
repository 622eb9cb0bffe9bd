# Reads the weight at c / 2 instead of c (an index meant for packed pairs):
# every column but the first gets another column's weight. Expected: L3.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_bf16.h>

// The sum of v over the block (blockDim.x a multiple of 32, at most 1024).
__device__ float block_sum(float v, float* shared32)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        shared32[warp] = v;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w)
        total += shared32[w];
    __syncthreads();   // shared32 may be reused by the next call
    return total;
}

__global__ void rmsnorm_rows_kernel(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                                    __nv_bfloat16* __restrict__ y, int64_t cols, float eps)
{
    __shared__ float shared32[32];
    const __nv_bfloat16* xr = x + (int64_t)blockIdx.x * cols;
    __nv_bfloat16* yr = y + (int64_t)blockIdx.x * cols;
    float q = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = __bfloat162float(xr[c]);
        q += v * v;
    }
    float rms = sqrtf(block_sum(q, shared32) / (float)cols + eps);
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = __float2bfloat16(__bfloat162float(xr[c]) / rms * __bfloat162float(w[c >> 1]));
}

torch::Tensor rmsnorm_forward(torch::Tensor x, torch::Tensor w, double eps)
{
    TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.is_contiguous() && x.scalar_type() == torch::kBFloat16,
                "rmsnorm_forward: want a contiguous 2-D bfloat16 CUDA tensor");
    TORCH_CHECK(w.numel() == x.size(1) && w.is_contiguous(), "rmsnorm_forward: want one weight a column");
    auto y = torch::empty_like(x);
    if (x.numel() == 0)
        return y;
    rmsnorm_rows_kernel<<<(unsigned)x.size(0), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        reinterpret_cast<const __nv_bfloat16*>(x.data_ptr<at::BFloat16>()),
        reinterpret_cast<const __nv_bfloat16*>(w.data_ptr<at::BFloat16>()),
        reinterpret_cast<__nv_bfloat16*>(y.data_ptr<at::BFloat16>()), x.size(1), (float)eps);
    return y;
}
"""

cpp_source = "torch::Tensor rmsnorm_forward(torch::Tensor x, torch::Tensor w, double eps);"

rmsnorm_ext = load_inline(name="kb_rmsnorm_bf16_half_weight", cpp_sources=cpp_source, cuda_sources=cuda_source,
                          functions=["rmsnorm_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, features: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(features).to(torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return rmsnorm_ext.rmsnorm_forward(x.contiguous(), self.weight, self.eps)
