// Stand-in for PyTorch's <ATen/cuda/CUDAContext.h> (see torch/extension.h here).
#pragma once
#include <torch/extension.h>
namespace at { namespace cuda {
struct CUDAStream { operator cudaStream_t() const; cudaStream_t stream() const; };
CUDAStream getCurrentCUDAStream();
}}  // namespace at::cuda
