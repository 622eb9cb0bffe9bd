// kgate-task: transpose
// planted defect: none (32x32 shared tile padded to 33 columns, 32x8 threads)
#include <cuda_runtime.h>

#define TILE 32
#define ROWS 8

__global__ void transpose_tiled(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];   // +1: no bank conflicts on the column read
    int x = blockIdx.x * TILE + threadIdx.x;  // input column
    int y = blockIdx.y * TILE + threadIdx.y;  // input row
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;      // output column = input row
    y = blockIdx.x * TILE + threadIdx.y;      // output row = input column
    for (int j = 0; j < TILE; j += ROWS)
        if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" void launch(const float* in, float* out, int rows, int cols, cudaStream_t stream)
{
    dim3 block(TILE, ROWS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tiled<<<grid, block, 0, stream>>>(in, out, rows, cols);
}
