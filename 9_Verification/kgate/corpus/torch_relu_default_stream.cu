// kgate-task: relu
// planted defect: launches the kernel without a stream (the legacy default stream) instead of PyTorch's current stream: it is not ordered with the work that produced the input or reads the output
#include <torch/extension.h>

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

torch::Tensor forward(torch::Tensor x)
{
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat, "float32 CUDA tensor");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    long long n = xc.numel();
    if (n == 0) return y;
    relu_kernel<<<(unsigned)((n + 255) / 256), 256>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
