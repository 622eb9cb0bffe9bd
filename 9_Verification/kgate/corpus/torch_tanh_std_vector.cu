// kgate-task: tanh
// planted defect: the kernel builds a std::vector of coefficients (the host C++ library in device code)
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <vector>

__global__ void tanh_kernel(const float* __restrict__ x, float* __restrict__ y, long long n)
{
    std::vector<float> scale = {1.0f};
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = tanhf(x[i]) * scale[0];
}

torch::Tensor forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    long long n = xc.numel();
    tanh_kernel<<<(unsigned)((n + 255) / 256), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
