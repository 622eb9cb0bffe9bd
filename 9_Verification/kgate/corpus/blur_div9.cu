// kgate-task: blur3x3
// planted defect: always divides by 9: edge and corner pixels are too dark
#include <cuda_runtime.h>

__global__ void blur(const float* in, float* out, int w, int h, int pitch)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && xx < w && yy >= 0 && yy < h) s += in[(size_t)yy * pitch + xx];
        }
    out[(size_t)y * pitch + x] = s / 9.0f;
}

extern "C" void launch(const float* in, float* out, int width, int height, int pitch,
                       cudaStream_t stream)
{
    dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
    blur<<<grid, block, 0, stream>>>(in, out, width, height, pitch);
}
