// kgate-task: relu
// planted defect: HOSTILE (include-policy evasion). The raw string literal
// holds a quote and a comment opener: a reader that ends it at the quote
// thinks a block comment starts there and misses the absolute #include on
// the next line, which the compilers do read (nvcc's error would quote the
// file). Raw strings are read as the compilers read them
// (P0, KG-INCLUDE).
#include <cuda_runtime.h>

static const char* kBanner = R"tag(relu "/*)tag";
#include "/etc/hostname"
// */

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    (void)kBanner;
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
