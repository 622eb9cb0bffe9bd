// kgate-task: blur3x3
// planted defect: indexes rows with width instead of pitch: wrong whenever pitch > width
#include <cuda_runtime.h>

__global__ void blur(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float s = 0.0f;
    int c = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && xx < width && yy >= 0 && yy < height) { s += in[yy * width + xx]; c++; }
        }
    out[y * width + x] = s / c;
}

extern "C" void launch(const float* in, float* out, int width, int height, int pitch,
                       cudaStream_t stream)
{
    (void)pitch;
    dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
    blur<<<grid, block, 0, stream>>>(in, out, width, height);
}
