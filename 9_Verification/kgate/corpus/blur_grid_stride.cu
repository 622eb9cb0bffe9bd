// kgate-task: blur3x3
// planted defect: none (1-D grid-stride loop over pixels, pitch honoured)
#include <cuda_runtime.h>

__global__ void blur_gs(const float* in, float* out, int width, int height, int pitch)
{
    long long total = (long long)width * height;
    for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < total;
         p += (long long)blockDim.x * gridDim.x) {
        int y = (int)(p / width), x = (int)(p % width);
        float s = 0.0f;
        int c = 0;
        for (int yy = y - 1; yy <= y + 1; yy++) {
            if (yy < 0 || yy >= height) continue;
            const float* row = in + (size_t)yy * pitch;
            if (x > 0) { s += row[x - 1]; c++; }
            s += row[x]; c++;
            if (x + 1 < width) { s += row[x + 1]; c++; }
        }
        out[(size_t)y * pitch + x] = s / c;
    }
}

extern "C" void launch(const float* in, float* out, int width, int height, int pitch,
                       cudaStream_t stream)
{
    long long total = (long long)width * height;
    long long blocks = (total + 255) / 256;
    if (blocks > 65536) blocks = 65536;
    blur_gs<<<(int)blocks, 256, 0, stream>>>(in, out, width, height, pitch);
}
