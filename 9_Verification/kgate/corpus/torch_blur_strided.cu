// kgate-task: blur3x3
// planted defect: none (PyTorch extension: reads the image through its row stride, so a padded image needs no copy; mean of the valid 3x3 neighbours)
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void blur_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h,
                            long long in_stride, long long out_stride)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    int cnt = 0;
    for (int dy = -1; dy <= 1; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx;
            if (xx < 0 || xx >= w) continue;
            s += in[(long long)yy * in_stride + xx];
            cnt++;
        }
    }
    out[(long long)y * out_stride + x] = s / cnt;
}

torch::Tensor forward(torch::Tensor img)
{
    TORCH_CHECK(img.is_cuda() && img.dim() == 2 && img.scalar_type() == torch::kFloat, "a 2-D float32 CUDA image");
    // rows may be padded (stride(0) > width); columns must be dense, else make them so
    auto src = img.stride(1) == 1 ? img : img.contiguous();
    int h = (int)src.size(0), w = (int)src.size(1);
    auto out = torch::empty({h, w}, src.options());
    if (h == 0 || w == 0) return out;
    dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    blur_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(src.data_ptr<float>(), out.data_ptr<float>(),
                                                                       w, h, src.stride(0), out.stride(0));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
