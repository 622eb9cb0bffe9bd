// kgate-task: sgemm
// planted defect: none (library-only: cublasSgemm on the row-major operands swapped, handle created once, stream set)
#include <cuda_runtime.h>
#include <cublas_v2.h>

extern "C" void launch(const float* A, const float* B, float* C, int M, int N, int K,
                       cudaStream_t stream)
{
    static cublasHandle_t handle = nullptr;
    if (!handle) cublasCreate(&handle);
    cublasSetStream(handle, stream);
    const float alpha = 1.0f, beta = 0.0f;
    // row-major C = A B is column-major C^T = B^T A^T: swap the operands
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, C, N);
}
