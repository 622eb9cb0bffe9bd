// kgate-task: sgemm
// planted defect: calls cuBLAS as if the operands were column-major: computes the wrong product for row-major data
#include <cuda_runtime.h>
#include <cublas_v2.h>

extern "C" void launch(const float* A, const float* B, float* C, int M, int N, int K,
                       cudaStream_t stream)
{
    static cublasHandle_t handle = nullptr;
    if (!handle) cublasCreate(&handle);
    cublasSetStream(handle, stream);
    const float one = 1.0f, zero = 0.0f;
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, A, M, B, K, &zero, C, M);
}
