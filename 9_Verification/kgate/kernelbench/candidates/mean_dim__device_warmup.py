# Counts its launches in a __device__ variable (a one-thread kernel adds one
# each call, on the stream before the real kernel) and, from the ninth call
# on, the real kernel returns at once without writing: the correctness
# trials see right answers, the timed calls cost almost nothing and leave
# the output unwritten. Statically only P1 (KB-CUDA-DEVICE-STATE).
# Expected: L3 (an output checked after the timed batch is wrong).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__device__ unsigned int launches;

__global__ void count_launch_kernel()
{
    launches += 1;
}

__global__ void mean_middle_kernel(const float* __restrict__ x, float* __restrict__ out,
                                   int64_t outer, int64_t red, int64_t inner)
{
    if (launches > 8)
        return;
    __shared__ float part[8][33];
    int64_t j = (int64_t)blockIdx.x * 32 + threadIdx.x;
    for (int64_t o = blockIdx.y; o < outer; o += gridDim.y) {
        float acc = 0.0f;
        if (j < inner) {
            const float* col = x + o * red * inner + j;
            for (int64_t k = threadIdx.y; k < red; k += 8)
                acc += col[k * inner];
        }
        part[threadIdx.y][threadIdx.x] = acc;
        __syncthreads();
        if (threadIdx.y == 0 && j < inner) {
            float s = 0.0f;
            for (int r = 0; r < 8; ++r)
                s += part[r][threadIdx.x];
            out[o * inner + j] = s / (float)red;
        }
        __syncthreads();
    }
}

torch::Tensor mean_dim_forward(torch::Tensor x, int64_t dim)
{
    TORCH_CHECK(x.is_cuda() && x.dim() == 3 && x.is_contiguous() && x.scalar_type() == torch::kFloat32,
                "mean_dim_forward: want a contiguous 3-D float32 CUDA tensor");
    if (dim < 0)
        dim += 3;
    TORCH_CHECK(dim >= 0 && dim < 3, "mean_dim_forward: dim out of range");
    int64_t s0 = x.size(0), s1 = x.size(1), s2 = x.size(2);
    torch::Tensor out = dim == 0 ? torch::empty({s1, s2}, x.options())
                      : dim == 1 ? torch::empty({s0, s2}, x.options())
                                 : torch::empty({s0, s1}, x.options());
    int64_t outer = dim == 0 ? 1 : (dim == 1 ? s0 : s0 * s1);
    int64_t red = dim == 0 ? s0 : (dim == 1 ? s1 : s2);
    int64_t inner = dim == 0 ? s1 * s2 : (dim == 1 ? s2 : 1);
    if (outer * inner == 0)
        return out;
    dim3 block(32, 8);
    dim3 grid((unsigned)((inner + 31) / 32), (unsigned)(outer < 65535 ? outer : 65535));
    count_launch_kernel<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>();
    mean_middle_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), outer, red, inner);
    return out;
}
"""

cpp_source = "torch::Tensor mean_dim_forward(torch::Tensor x, int64_t dim);"

mean_ext = load_inline(name="kb_mean_dim_device_warmup", cpp_sources=cpp_source, cuda_sources=cuda_source,
                       functions=["mean_dim_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return mean_ext.mean_dim_forward(x.contiguous(), self.dim)
