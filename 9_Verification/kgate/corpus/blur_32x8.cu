// kgate-task: blur3x3
// planted defect: none (one thread per pixel, 32x8 blocks, clipped window, pitch honoured)
#include <cuda_runtime.h>

__global__ void box3(const float* __restrict__ in, float* __restrict__ out, int width, int height, int pitch)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int x0 = max(x - 1, 0), x1 = min(x + 1, width - 1);
    int y0 = max(y - 1, 0), y1 = min(y + 1, height - 1);
    float sum = 0.0f;
    for (int yy = y0; yy <= y1; yy++) {
        const float* row = in + (size_t)yy * pitch;
        for (int xx = x0; xx <= x1; xx++) sum += row[xx];
    }
    out[(size_t)y * pitch + x] = sum / (float)((x1 - x0 + 1) * (y1 - y0 + 1));
}

extern "C" void launch(const float* in, float* out, int width, int height, int pitch,
                       cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    box3<<<grid, block, 0, stream>>>(in, out, width, height, pitch);
}
