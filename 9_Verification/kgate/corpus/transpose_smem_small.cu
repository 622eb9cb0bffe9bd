// kgate-task: transpose
// planted defect: a 16x17 shared tile for a 32x32 block: threads with threadIdx.x or threadIdx.y of 16 and above write past the tile
#include <cuda_runtime.h>

#define TILE 32

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[16][17];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = (x < cols && y < rows) ? in[(size_t)y * cols + x] : 0.0f;
    __syncthreads();
    int ox = blockIdx.y * TILE + threadIdx.x, oy = blockIdx.x * TILE + threadIdx.y;
    if (ox < rows && oy < cols) out[(size_t)oy * rows + ox] = tile[threadIdx.x][threadIdx.y];
}

extern "C" void launch(const float* in, float* out, int rows, int cols, cudaStream_t stream)
{
    dim3 block(TILE, TILE), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
}
