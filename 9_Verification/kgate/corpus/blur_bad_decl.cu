// kgate-task: blur3x3
// planted defect: declares two variables of different types in one statement (float sum = 0, int count = 0): a syntax error
#include <cuda_runtime.h>

__global__ void blur(const float* in, float* out, int w, int h, int pitch)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float sum = 0.0f, int count = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && xx < w && yy >= 0 && yy < h) { sum += in[(size_t)yy * pitch + xx]; count++; }
        }
    out[(size_t)y * pitch + x] = sum / count;
}

extern "C" void launch(const float* in, float* out, int width, int height, int pitch,
                       cudaStream_t stream)
{
    dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
    blur<<<grid, block, 0, stream>>>(in, out, width, height, pitch);
}
