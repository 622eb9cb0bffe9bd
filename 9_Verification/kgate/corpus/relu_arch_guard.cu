// kgate-task: relu
// planted defect: none (grid-stride relu; preprocessor conditionals used the way nvcc and the
// static track both read them: a default block size under #ifndef, a device-only load path
// under #if __CUDA_ARCH__ >= 350 with its host twin in the #else, and the toolkit's version
// macro in host code)
#include <cuda_runtime.h>

#ifndef RELU_THREADS
#define RELU_THREADS 256
#endif

__host__ __device__ inline float load_ro(const float* p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 350
    return __ldg(p);   /* device side: the read-only data cache */
#else
    return *p;
#endif
}

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = fmaxf(load_ro(x + i), 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12
    int per_sm = 32;   /* CUDA 12 and later: 2048 threads per SM */
#else
    int per_sm = 16;
#endif
    int blocks = (n + RELU_THREADS - 1) / RELU_THREADS;
    if (blocks > sms * per_sm) blocks = sms * per_sm;
    if (blocks < 1) blocks = 1;
    relu_kernel<<<blocks, RELU_THREADS, 0, stream>>>(x, y, n);
}
