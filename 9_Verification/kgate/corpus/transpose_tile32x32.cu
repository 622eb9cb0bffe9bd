// kgate-task: transpose
// planted defect: none (32x33 shared tile, 32x32 threads, one element per thread each way)
#include <cuda_runtime.h>

__global__ void transpose32(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[32][33];
    int c = blockIdx.x * 32 + threadIdx.x, r = blockIdx.y * 32 + threadIdx.y;
    if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = in[(size_t)r * cols + c];
    __syncthreads();
    int oc = blockIdx.y * 32 + threadIdx.x;    // out is cols x rows
    int orow = blockIdx.x * 32 + threadIdx.y;
    if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y];
}

extern "C" void launch(const float* in, float* out, int rows, int cols, cudaStream_t stream)
{
    dim3 block(32, 32), grid((cols + 31) / 32, (rows + 31) / 32);
    transpose32<<<grid, block, 0, stream>>>(in, out, rows, cols);
}
