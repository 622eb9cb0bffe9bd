// kgate-task: blur3x3
// planted defect: one thread per image row: a few thousand threads, each walking its row serially
#include <cuda_runtime.h>

__global__ void blur_rows(const float* in, float* out, int w, int h, int pitch)
{
    int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= h) return;
    for (int x = 0; x < w; x++) {
        float s = 0.0f;
        int c = 0;
        for (int yy = y - 1; yy <= y + 1; yy++)
            for (int xx = x - 1; xx <= x + 1; xx++)
                if (yy >= 0 && yy < h && xx >= 0 && xx < w) { s += in[(size_t)yy * pitch + xx]; c++; }
        out[(size_t)y * pitch + x] = s / c;
    }
}

extern "C" void launch(const float* in, float* out, int width, int height, int pitch,
                       cudaStream_t stream)
{
    blur_rows<<<(height + 63) / 64, 64, 0, stream>>>(in, out, width, height, pitch);
}
