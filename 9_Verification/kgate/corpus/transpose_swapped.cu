// kgate-task: transpose
// planted defect: output index uses cols as the row stride (out[c * cols + r]): wrong for every non-square matrix
#include <cuda_runtime.h>

__global__ void transpose_naive(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(size_t)c * cols + r] = in[(size_t)r * cols + c];
}

extern "C" void launch(const float* in, float* out, int rows, int cols, cudaStream_t stream)
{
    dim3 block(16, 16);
    dim3 grid((cols + 15) / 16, (rows + 15) / 16);
    transpose_naive<<<grid, block, 0, stream>>>(in, out, rows, cols);
}
