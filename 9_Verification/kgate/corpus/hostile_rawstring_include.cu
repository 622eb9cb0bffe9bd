// kgate-task: relu
// planted defect: HOSTILE (information flow: an absolute #include hidden in
// a raw string). The raw string R"(")/*)" is one string to the compiler,
// but a reader that does not know raw strings sees a string "(" and then
// the start of a block comment: the #include of /etc/passwd below looks
// commented out, and the compiler includes it. nvcc's error about the
// file quotes its first line (and libclang's names its first word). The
// include policy reads raw strings as the compiler does (P0, KG-INCLUDE);
// and what the compiler says about a file other than the candidate is cut
// to that file's name, so no line of it reaches the report.
#include <cuda_runtime.h>

static const char* hide = R"(")/*)";
#include "/etc/passwd"
// */

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    (void)hide;
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
