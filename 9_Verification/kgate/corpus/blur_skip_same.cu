// kgate-task: blur3x3
// planted defect: SILENT (initcheck; --sanitize=all). Each pixel's mean is
// stored only when it differs from what out already holds. The outputs are
// right whatever out held (an equal old value is the right value), and the
// gate poisons out before a checked call; but the kernel reads out before
// anything wrote it, and where the buffer was never initialized (the
// sanitizer pass's run) initcheck reports the uninitialized global read.
#include <cuda_runtime.h>

__global__ void blur_kernel(const float* in, float* out, int width, int height, int pitch)
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
    float m = sum / (float)count;
    size_t o = (size_t)y * pitch + x;
    if (out[o] != m) out[o] = m;   // reads out before writing it
}

extern "C" void launch(const float* in, float* out, int width, int height, int pitch, cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    blur_kernel<<<grid, block, 0, stream>>>(in, out, width, height, pitch);
}
