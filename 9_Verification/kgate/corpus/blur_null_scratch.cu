// kgate-task: blur3x3
// planted defect: the cached scratch buffer is only allocated when one already exists, so the kernel writes through a null pointer
#include <cuda_runtime.h>

// separable version: horizontal sums into a scratch image, then vertical
__global__ void hsum(const float* in, float* tmp, int w, int h, int pitch)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const float* r = in + (size_t)y * pitch;
    tmp[(size_t)y * w + x] = r[x] + (x > 0 ? r[x - 1] : 0.0f) + (x + 1 < w ? r[x + 1] : 0.0f);
}

__global__ void vsum(const float* tmp, float* out, int w, int h, int pitch)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = tmp[(size_t)y * w + x];
    if (y > 0) s += tmp[(size_t)(y - 1) * w + x];
    if (y + 1 < h) s += tmp[(size_t)(y + 1) * w + x];
    int cx = 1 + (x > 0) + (x + 1 < w), cy = 1 + (y > 0) + (y + 1 < h);
    out[(size_t)y * pitch + x] = s / (cx * cy);
}

static float* g_tmp = nullptr;
static size_t g_cap = 0;

extern "C" void launch(const float* in, float* out, int width, int height, int pitch,
                       cudaStream_t stream)
{
    size_t need = (size_t)width * height * sizeof(float);
    if (need > g_cap && g_tmp) {      // grow the cached buffer
        cudaFree(g_tmp);
        cudaMalloc(&g_tmp, need);
        g_cap = need;
    }
    dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
    hsum<<<grid, block, 0, stream>>>(in, g_tmp, width, height, pitch);
    vsum<<<grid, block, 0, stream>>>(g_tmp, out, width, height, pitch);
}
