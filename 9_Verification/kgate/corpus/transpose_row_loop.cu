// kgate-task: transpose
// planted defect: one thread per input row walking its columns: every access strided, a few thousand threads
#include <cuda_runtime.h>

__global__ void transpose_rows(const float* in, float* out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    for (int c = 0; c < cols; c++) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

extern "C" void launch(const float* in, float* out, int rows, int cols, cudaStream_t stream)
{
    transpose_rows<<<(rows + 127) / 128, 128, 0, stream>>>(in, out, rows, cols);
}
