// kgate-task: sgemm
// planted defect: none (library-only PyTorch: torch::mm on float32 with TF32 off, so cuBLAS computes in full FP32)
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor A, torch::Tensor B)
{
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2 && A.size(1) == B.size(0), "A (M x K) times B (K x N)");
    at::globalContext().setAllowTF32CuBLAS(false);   // the task is FP32: no TF32 shortcut
    return torch::mm(A, B);
}
