# Direct 1-D convolution with 'same' zero padding: a block computes 128
# output positions for 8 output channels, each thread one position for all
# 8, the 8 channels' weights in shared memory, the input read through L1.
# Expected: L4, about 0.4x of cuDNN (each input value is loaded k times from
# L1 and there is no data reuse across positions in registers); if the H200
# measures it above 0.5x, relabel it PASS.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#define CO_PER_BLOCK 8

__global__ void conv1d_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ bias, float* __restrict__ y,
                              int cin, int cout, int len, int k, int pad)
{
    extern __shared__ float ws[];   // [CO_PER_BLOCK][cin][k]
    int n = blockIdx.z, co0 = blockIdx.y * CO_PER_BLOCK;
    int l = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = threadIdx.x; i < CO_PER_BLOCK * cin * k; i += blockDim.x) {
        int co = co0 + i / (cin * k);
        ws[i] = co < cout ? w[(int64_t)co * cin * k + i % (cin * k)] : 0.0f;
    }
    __syncthreads();
    if (l >= len)
        return;
    float acc[CO_PER_BLOCK] = {};
    const float* xn = x + (int64_t)n * cin * len;
    for (int ci = 0; ci < cin; ++ci) {
        for (int t = 0; t < k; ++t) {
            int il = l + t - pad;
            float v = (il >= 0 && il < len) ? xn[(int64_t)ci * len + il] : 0.0f;
            #pragma unroll
            for (int o = 0; o < CO_PER_BLOCK; ++o)
                acc[o] = fmaf(v, ws[(o * cin + ci) * k + t], acc[o]);
        }
    }
    for (int o = 0; o < CO_PER_BLOCK; ++o) {
        int co = co0 + o;
        if (co >= cout)
            break;
        y[((int64_t)n * cout + co) * len + l] = acc[o] + bias[co];
    }
}

torch::Tensor conv1d_forward(torch::Tensor x, torch::Tensor w, torch::Tensor bias)
{
    TORCH_CHECK(x.is_cuda() && x.dim() == 3 && x.is_contiguous() && x.scalar_type() == torch::kFloat32,
                "conv1d_forward: want a contiguous 3-D float32 CUDA tensor");
    TORCH_CHECK(w.dim() == 3 && w.size(1) == x.size(1) && w.is_contiguous() && bias.numel() == w.size(0)
                && w.size(2) % 2 == 1, "conv1d_forward: want (cout, cin, odd k) weights and a bias");
    int n = (int)x.size(0), cin = (int)x.size(1), len = (int)x.size(2);
    int cout = (int)w.size(0), k = (int)w.size(2);
    auto y = torch::empty({x.size(0), w.size(0), x.size(2)}, x.options());
    size_t smem = sizeof(float) * CO_PER_BLOCK * cin * k;
    TORCH_CHECK(smem <= 48 * 1024, "conv1d_forward: too many weights for shared memory");
    if (n == 0 || cout == 0 || len == 0)
        return y;
    dim3 grid((len + 127) / 128, (cout + CO_PER_BLOCK - 1) / CO_PER_BLOCK, n);
    conv1d_kernel<<<grid, 128, smem, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), w.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(),
        cin, cout, len, k, k / 2);
    return y;
}
"""

cpp_source = "torch::Tensor conv1d_forward(torch::Tensor x, torch::Tensor w, torch::Tensor bias);"

conv_ext = load_inline(name="kb_conv1d_direct", cpp_sources=cpp_source, cuda_sources=cuda_source,
                       functions=["conv1d_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.padding = kernel_size // 2
        self.weight = nn.Parameter(torch.randn(out_channels, in_channels, kernel_size) * 0.1)
        self.bias = nn.Parameter(torch.randn(out_channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return conv_ext.conv1d_forward(x.contiguous(), self.weight, self.bias)
