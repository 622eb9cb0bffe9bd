// kgate-task: softmax_rows
// planted defect: __syncthreads() inside if (threadIdx.x < cols): for rows shorter than the block, part of the block skips the barrier
#include <cuda_runtime.h>

__global__ void softmax_kernel(const float* x, float* y, int rows, int cols)
{
    __shared__ float buf[1024];
    __shared__ float row_max, row_sum;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    if (threadIdx.x < cols) {
        buf[threadIdx.x] = xr[threadIdx.x];
        __syncthreads();
        if (threadIdx.x == 0) {
            float m = buf[0], s = 0.0f;
            for (int c = 1; c < cols; c++) m = fmaxf(m, buf[c]);
            for (int c = 0; c < cols; c++) s += expf(buf[c] - m);
            row_max = m;
            row_sum = s;
        }
        __syncthreads();
        yr[threadIdx.x] = expf(buf[threadIdx.x] - row_max) / row_sum;
    }
}

extern "C" void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream)
{
    softmax_kernel<<<rows, 1024, 0, stream>>>(x, y, rows, cols);
}
