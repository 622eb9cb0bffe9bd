# Applies ReLU before adding the bias (relu(x W^T) + b): wrong wherever
# x W^T + b and x W^T have different signs, and negative outputs survive.
# Expected: L3.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#define BM 64
#define BN 64
#define BK 16

// C = relu(A W^T + bias); A is M x K, W is N x K (a linear layer's weight),
// C is M x N, all row-major.
__global__ void linear_relu_kernel(const float* __restrict__ A, const float* __restrict__ W,
                                   const float* __restrict__ bias, float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[BK][BM + 4];
    __shared__ float Bs[BK][BN];
    const float* Ab = A;
    float* Cb = C;
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += 256) {
            int r = i / BK, c = i % BK, gr = row0 + r, gc = k0 + c;
            As[c][r] = (gr < M && gc < K) ? Ab[(int64_t)gr * K + gc] : 0.0f;
        }
        for (int i = threadIdx.x; i < BK * BN; i += 256) {
            int r = i / BN, c = i % BN, gr = k0 + r, gc = col0 + c;
            Bs[r][c] = (gr < K && gc < N) ? W[(int64_t)gc * K + gr] : 0.0f;
        }
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[4], b[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) {
                a[i] = As[k][ty + 16 * i];
                b[i] = Bs[k][tx + 16 * i];
            }
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int j = 0; j < 4; ++j)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    #pragma unroll
    for (int i = 0; i < 4; ++i)
        #pragma unroll
        for (int j = 0; j < 4; ++j) {
            int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
            if (r < M && c < N)
                Cb[(int64_t)r * N + c] = fmaxf(acc[i][j], 0.0f) + bias[c];
        }
}

torch::Tensor linear_relu_forward(torch::Tensor A, torch::Tensor W, torch::Tensor bias)
{
    TORCH_CHECK(A.is_cuda() && W.is_cuda() && bias.is_cuda() && A.dim() == 2 && W.dim() == 2
                && A.size(1) == W.size(1) && bias.numel() == W.size(0),
                "linear_relu_forward: want A (M x K), W (N x K) and bias (N) on the GPU");
    TORCH_CHECK(A.is_contiguous() && W.is_contiguous() && bias.is_contiguous()
                && A.scalar_type() == torch::kFloat32 && W.scalar_type() == torch::kFloat32,
                "linear_relu_forward: want contiguous float32");
    TORCH_CHECK(A.size(0) < (1 << 30) && A.size(1) < (1 << 30) && W.size(0) < (1 << 30),
                "linear_relu_forward: sizes must fit in int");
    int M = (int)A.size(0), K = (int)A.size(1), N = (int)W.size(0);
    auto C = torch::empty({A.size(0), W.size(0)}, A.options());
    if (M == 0 || N == 0)
        return C;
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM, 1);
    linear_relu_kernel<<<grid, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        A.data_ptr<float>(), W.data_ptr<float>(), bias.data_ptr<float>(), C.data_ptr<float>(), M, N, K);
    return C;
}
"""

cpp_source = "torch::Tensor linear_relu_forward(torch::Tensor A, torch::Tensor W, torch::Tensor bias);"

linear_ext = load_inline(name="kb_matmul_bias_relu_relu_before_bias", cpp_sources=cpp_source, cuda_sources=cuda_source,
                         functions=["linear_relu_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features) * in_features ** -0.5)
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return linear_ext.linear_relu_forward(x.contiguous(), self.weight, self.bias)
