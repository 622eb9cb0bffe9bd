// kgate-task: relu
// planted defect: HOSTILE (speed-check trick). Correct on every small shape
// and on the first call at a large n, then it returns at once: against the
// old gate, whose timed calls reused the checked call's inputs and output, it
// measured as infinitely fast. Now every timed call gets inputs at a fresh
// offset and each batch's output is checked afterwards (L3).
#include <cuda_runtime.h>

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    static int big_calls;
    if (n > 1000000 && ++big_calls > 1) return;
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
