// kgate-task: softmax_rows
// planted defect: column loops step by 32 while the block has 256 threads: elements are summed up to 8 times
#include <cuda_runtime.h>

__global__ void softmax_kernel(const float* x, float* y, int rows, int cols)
{
    __shared__ float sh[256];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, xr[c]);
    sh[threadIdx.x] = m;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] = fmaxf(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    m = sh[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 32) sum += expf(xr[c] - m);
    sh[threadIdx.x] = sum;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    sum = sh[0];
    for (int c = threadIdx.x; c < cols; c += 32) yr[c] = expf(xr[c] - m) / sum;
}

extern "C" void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream)
{
    softmax_kernel<<<rows, 256, 0, stream>>>(x, y, rows, cols);
}
