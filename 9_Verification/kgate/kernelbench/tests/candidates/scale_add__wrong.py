# Wrong: the kernel forgets the factor 2 (a + b). Expected: L3.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
// PY: def scale_add(a, b):
// PY:     return a + b
__global__ void scale_add_kernel(const float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}
torch::Tensor scale_add(torch::Tensor a, torch::Tensor b) {
    auto out = torch::empty_like(a);
    int n = (int)a.numel();
    scale_add_kernel<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
"""
cpp_src = "torch::Tensor scale_add(torch::Tensor a, torch::Tensor b);"
ext = load_inline(name="kb_scale_add_wrong", cpp_sources=cpp_src, cuda_sources=cuda_src,
                  functions=["scale_add"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return ext.scale_add(a, b)
