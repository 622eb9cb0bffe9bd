// A stand-in for PyTorch's <torch/extension.h>, for compile checks on a
// machine without PyTorch (check_cuda.py). It declares only the small part
// of the C++ API our candidates use; nothing here runs. Candidates that use
// more than this fail the check, on purpose: keep the wrappers small.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

namespace c10 {
struct Half { unsigned short x; };
struct BFloat16 { unsigned short x; };
enum class ScalarType { Float, Half, BFloat16, Double, Int, Long };
struct TensorOptions {
    TensorOptions dtype(ScalarType) const { return *this; }
};
}  // namespace c10

namespace at {
using c10::Half;
using c10::BFloat16;
using c10::ScalarType;
using c10::TensorOptions;
constexpr ScalarType kFloat = ScalarType::Float, kFloat32 = ScalarType::Float, kHalf = ScalarType::Half,
                     kFloat16 = ScalarType::Half, kBFloat16 = ScalarType::BFloat16;
struct Tensor {
    int64_t size(int64_t) const;
    int64_t stride(int64_t) const;
    int64_t numel() const;
    int64_t dim() const;
    bool is_cuda() const;
    bool is_contiguous() const;
    ScalarType scalar_type() const;
    TensorOptions options() const;
    template <typename T> T* data_ptr() const;
    Tensor contiguous() const;
    Tensor view(std::initializer_list<int64_t>) const;
};
Tensor empty(std::initializer_list<int64_t>, TensorOptions);
Tensor zeros(std::initializer_list<int64_t>, TensorOptions);
Tensor empty_like(const Tensor&);
Tensor zeros_like(const Tensor&);
Tensor matmul(const Tensor&, const Tensor&);   // for the candidate that stands ATen in for its kernel
}  // namespace at

namespace torch {
using at::Tensor;
using at::empty;
using at::zeros;
using at::empty_like;
using at::zeros_like;
using at::matmul;
using at::kFloat;
using at::kFloat32;
using at::kHalf;
using at::kFloat16;
using at::kBFloat16;
}  // namespace torch

#define TORCH_CHECK(cond, ...) do { if (!(cond)) { } } while (0)
