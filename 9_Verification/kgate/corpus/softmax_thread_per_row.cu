// kgate-task: softmax_rows
// planted defect: one thread per row with three serial passes: uncoalesced and mostly idle GPU
#include <cuda_runtime.h>

__global__ void softmax_naive(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float m = xr[0];
    for (int c = 1; c < cols; c++) m = fmaxf(m, xr[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = 0; c < cols; c++) yr[c] = expf(xr[c] - m) / s;
}

extern "C" void launch(const float* x, float* y, int rows, int cols, cudaStream_t stream)
{
    softmax_naive<<<(rows + 255) / 256, 256, 0, stream>>>(x, y, rows, cols);
}
