// kgate-task: transpose
// planted defect: __syncthreads() inside the bounds check: edge blocks have threads that skip the barrier
#include <cuda_runtime.h>

__global__ void transpose_kernel(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    if (x < cols && y < rows) {
        tile[threadIdx.y][threadIdx.x] = in[(size_t)y * cols + x];
        __syncthreads();
        int ox = blockIdx.y * 16 + threadIdx.x;
        int oy = blockIdx.x * 16 + threadIdx.y;
        if (ox < rows && oy < cols) out[(size_t)oy * rows + ox] = tile[threadIdx.x][threadIdx.y];
    }
}

extern "C" void launch(const float* in, float* out, int rows, int cols, cudaStream_t stream)
{
    dim3 block(16, 16);
    dim3 grid((cols + 15) / 16, (rows + 15) / 16);
    transpose_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
}
