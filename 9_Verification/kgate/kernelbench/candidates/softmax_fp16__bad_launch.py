# Asks for 2048 threads a block (the limit is 1024): every launch fails, the
# wrapper checks and raises, and forward raises a RuntimeError at every call.
# Expected: L2.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_fp16.h>

// (m, s): a running maximum and the sum of exp(x - m); merge two of them.
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2)
{
    float mn = fmaxf(m, m2);
    float a = (m == -INFINITY) ? 0.0f : s * expf(m - mn);
    float b = (m2 == -INFINITY) ? 0.0f : s2 * expf(m2 - mn);
    m = mn;
    s = a + b;
}

__global__ void softmax_rows_kernel(const __half* __restrict__ x, __half* __restrict__ y, int64_t cols)
{
    __shared__ float sm[32], ss[32];
    const __half* xr = x + (int64_t)blockIdx.x * cols;
    __half* yr = y + (int64_t)blockIdx.x * cols;
    float m = -INFINITY, s = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
        merge(m, s, __half2float(xr[c]), 1.0f);
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
        yr[c] = __float2half(expf(__half2float(xr[c]) - m) * inv);
}

torch::Tensor softmax_forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.is_contiguous() && x.scalar_type() == torch::kHalf,
                "softmax_forward: want a contiguous 2-D float16 CUDA tensor");
    auto y = torch::empty_like(x);
    if (x.numel() == 0)
        return y;
    TORCH_CHECK(x.size(0) <= 2147483647, "softmax_forward: too many rows for one grid");
    softmax_rows_kernel<<<(unsigned)x.size(0), 2048, 0, at::cuda::getCurrentCUDAStream()>>>(
        reinterpret_cast<const __half*>(x.data_ptr<at::Half>()), reinterpret_cast<__half*>(y.data_ptr<at::Half>()),
        x.size(1));
    cudaError_t err = cudaGetLastError();
    TORCH_CHECK(err == cudaSuccess, "softmax_forward: launch failed: ", cudaGetErrorString(err));
    return y;
}
"""

cpp_source = "torch::Tensor softmax_forward(torch::Tensor x);"

softmax_ext = load_inline(name="kb_softmax_fp16_bad_launch", cpp_sources=cpp_source, cuda_sources=cuda_source,
                          functions=["softmax_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return softmax_ext.softmax_forward(x.contiguous())
