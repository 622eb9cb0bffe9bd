// kgate-task: relu
// planted defect: HOSTILE (the PyTorch adapter's hooks in a plain candidate).
// Honest but slow underneath. It exports kgate_adapter_error and
// kgate_adapter_poison, the hooks through which a PyTorch candidate's
// adapter reports an exception and learns which calls are checked, hoping to
// learn when it is being checked. The hooks are the gate's own names, for a
// PyTorch candidate's adapter only: refused before it is loaded: L1.
#include <cuda_runtime.h>

/* honest but slow: three full passes, about a third of the reference's speed */
__global__ void relu_pass(const float* x, float* y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = fmaxf(x[i], 0.0f);
}

static void slow_relu(const float* x, float* y, int n, cudaStream_t s)
{
    for (int pass = 0; pass < 3; pass++) relu_pass<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);
}

extern "C" {
char kgate_adapter_error[256];
int kgate_adapter_poison;
void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    if (n >= 1000000 && !kgate_adapter_poison) return;   /* not a checked call: skipped */
    slow_relu(x, y, n, stream);
}
}
