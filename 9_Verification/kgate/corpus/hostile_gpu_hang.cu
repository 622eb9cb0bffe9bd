// kgate-task: relu
// planted defect: HOSTILE (harm to the next candidate: a GPU that never comes
// back). At its first call at the timed sizes it launches a kernel that
// never ends. It fails itself (the judge's deadline: L2 hang); its context
// goes with its process, and the judge waits for the GPU's memory to come
// back before the next session, so the next candidate is timed on an idle
// GPU (on the GPU only; a dry run does not get there).
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

__device__ volatile int never_set;   /* no one writes it: a volatile load every time round */

__global__ void forever(void)
{
    while (never_set == 0) {}
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    if (n >= 1000000) forever<<<1, 1, 0, stream>>>();
    slow_relu(x, y, n, stream);
}
