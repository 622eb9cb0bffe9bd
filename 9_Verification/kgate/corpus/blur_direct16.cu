// kgate-task: blur3x3
// planted defect: none (one thread per pixel, 16x16 blocks, pitch honoured, edge counts exact)
#include <cuda_runtime.h>

__global__ void blur3x3(const float* in, float* out, int width, int height, int pitch)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float sum = 0.0f;
    int count = 0;
    for (int dy = -1; dy <= 1; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx;
            if (xx < 0 || xx >= width) continue;
            sum += in[(size_t)yy * pitch + xx];
            count++;
        }
    }
    out[(size_t)y * pitch + x] = sum / (float)count;
}

extern "C" void launch(const float* in, float* out, int width, int height, int pitch,
                       cudaStream_t stream)
{
    dim3 block(16, 16);
    dim3 grid((width + 15) / 16, (height + 15) / 16);
    blur3x3<<<grid, block, 0, stream>>>(in, out, width, height, pitch);
}
