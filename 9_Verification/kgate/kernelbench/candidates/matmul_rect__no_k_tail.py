# Register-blocked SGEMM whose K loop runs whole tiles only (k0 + 16 <= K):
# with K = 2049 the last column of A and row of B are never used, and every
# output misses one product (about 1 in magnitude). Right whenever K is a
# multiple of 16. Expected: L3.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#define BM 64
#define BN 64
#define BK 16

// C[b] = A[b] B[b]; A is M x K, B is K x N, C is M x N, all row-major,
// batch b = blockIdx.z at strides sA, sB, sC.
__global__ void sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                             int M, int N, int K, int64_t sA, int64_t sB, int64_t sC)
{
    __shared__ float As[BK][BM + 4];
    __shared__ float Bs[BK][BN];
    const float* Ab = A + blockIdx.z * sA;
    const float* Bb = B + blockIdx.z * sB;
    float* Cb = C + blockIdx.z * sC;
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4] = {};
    for (int k0 = 0; k0 + BK <= K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += 256) {
            int r = i / BK, c = i % BK, gr = row0 + r, gc = k0 + c;
            As[c][r] = (gr < M && gc < K) ? Ab[(int64_t)gr * K + gc] : 0.0f;
        }
        for (int i = threadIdx.x; i < BK * BN; i += 256) {
            int r = i / BN, c = i % BN, gr = k0 + r, gc = col0 + c;
            Bs[r][c] = (gr < K && gc < N) ? Bb[(int64_t)gr * N + gc] : 0.0f;
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
                Cb[(int64_t)r * N + c] = acc[i][j];
        }
}

torch::Tensor matmul_forward(torch::Tensor A, torch::Tensor B)
{
    TORCH_CHECK(A.is_cuda() && B.is_cuda() && A.dim() == 2 && B.dim() == 2 && A.size(1) == B.size(0),
                "matmul_forward: want A (M x K) and B (K x N) on the GPU");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous() && A.scalar_type() == torch::kFloat32
                && B.scalar_type() == torch::kFloat32, "matmul_forward: want contiguous float32");
    TORCH_CHECK(A.size(0) < (1 << 30) && A.size(1) < (1 << 30) && B.size(1) < (1 << 30),
                "matmul_forward: sizes must fit in int");
    int M = (int)A.size(0), K = (int)A.size(1), N = (int)B.size(1);
    auto C = torch::empty({A.size(0), B.size(1)}, A.options());
    if (M == 0 || N == 0)
        return C;
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM, 1);
    sgemm_kernel<<<grid, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, N, K, 0, 0, 0);
    return C;
}
"""

cpp_source = "torch::Tensor matmul_forward(torch::Tensor A, torch::Tensor B);"

matmul_ext = load_inline(name="kb_matmul_rect_no_k_tail", cpp_sources=cpp_source, cuda_sources=cuda_source,
                         functions=["matmul_forward"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return matmul_ext.matmul_forward(A.contiguous(), B.contiguous())
