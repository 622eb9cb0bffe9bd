/* cuda_check.h: stop at the first CUDA error, naming the call, file and line.
 *
 *   CUDA_CHECK(cudaMalloc(&p, bytes));   every runtime call
 *   kernel<<<grid, block>>>(...);
 *   CHECK_LAUNCH();                      after every launch (configuration errors
 *                                        show up here, not at the launch itself)
 *   CUBLAS_CHECK(cublasSgemm(...));      cuBLAS status codes (include cublas_v2.h
 *                                        before this header to enable it)
 *
 * On error each prints one line to stderr and exits 1 (FAIL, see CONVENTIONS.md).
 * Usable from C and CUDA C; needs only the runtime API header.
 */
#ifndef COMMON_CUDA_CHECK_H
#define COMMON_CUDA_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "CUDA error at %s:%d: %s failed: %s (%s)\n",        \
                    __FILE__, __LINE__, #call, cudaGetErrorString(err_),        \
                    cudaGetErrorName(err_));                                    \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

/* A launch reports configuration errors (too many threads, too much shared
 * memory) through cudaGetLastError; errors inside the kernel surface at the
 * next synchronizing call, which is checked too. Set COMMON_SYNC_AFTER_LAUNCH
 * to 1 while debugging to pin an in-kernel fault to the launch that caused it. */
#ifndef COMMON_SYNC_AFTER_LAUNCH
#define COMMON_SYNC_AFTER_LAUNCH 0
#endif

#define CHECK_LAUNCH()                                                          \
    do {                                                                        \
        cudaError_t err_ = cudaGetLastError();                                  \
        if (err_ == cudaSuccess && COMMON_SYNC_AFTER_LAUNCH)                    \
            err_ = cudaDeviceSynchronize();                                     \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "CUDA kernel launch error at %s:%d: %s (%s)\n",     \
                    __FILE__, __LINE__, cudaGetErrorString(err_),               \
                    cudaGetErrorName(err_));                                    \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

#ifdef CUBLAS_V2_H_
static inline const char *cublas_status_text(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS:          return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:  return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:     return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:    return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:    return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:    return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:   return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:    return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR:    return "CUBLAS_STATUS_LICENSE_ERROR";
    default:                             return "unknown cuBLAS status";
    }
}

#define CUBLAS_CHECK(call)                                                      \
    do {                                                                        \
        cublasStatus_t st_ = (call);                                            \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                     \
            fprintf(stderr, "cuBLAS error at %s:%d: %s failed: %s (%d)\n",      \
                    __FILE__, __LINE__, #call, cublas_status_text(st_),         \
                    (int)st_);                                                  \
            exit(1);                                                            \
        }                                                                       \
    } while (0)
#endif /* CUBLAS_V2_H_ */

#endif /* COMMON_CUDA_CHECK_H */
