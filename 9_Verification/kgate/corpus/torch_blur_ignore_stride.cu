// kgate-task: blur3x3
// planted defect: takes data_ptr() of the image as if it were dense (row length = width): the gate's image has padded rows (a strided view), so every row after the first is read from the wrong place
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void blur_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    int cnt = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx, yy = y + dy;
            if (xx < 0 || xx >= w || yy < 0 || yy >= h) continue;
            s += in[yy * w + xx];
            cnt++;
        }
    out[y * w + x] = s / cnt;
}

torch::Tensor forward(torch::Tensor img)
{
    TORCH_CHECK(img.is_cuda() && img.dim() == 2, "a 2-D CUDA image");
    int h = (int)img.size(0), w = (int)img.size(1);
    auto out = torch::empty({h, w}, img.options());
    dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    blur_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(img.data_ptr<float>(), out.data_ptr<float>(), w, h);
    return out;
}
