// kgate-task: relu
// planted defect: HOSTILE (timing: the PyTorch adapter's hooks in a plain
// candidate). Honest but slow underneath. It exports the hooks the gate's
// PyTorch adapter uses: kgate_adapter_nocopy, set by the old harness during
// timed calls, makes launch() only note the call, and the work runs in
// kgate_adapter_flush(), which the old harness called after the timing. The
// hooks are the gate's own names, for a PyTorch candidate's adapter only:
// refused before it is loaded: L1.
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
int kgate_adapter_nocopy;
static const float* px;
static float* py;
static int pn;
static cudaStream_t ps;
void kgate_adapter_flush(void)
{
    if (py) slow_relu(px, py, pn, ps);
    py = 0;
}
void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    if (kgate_adapter_nocopy) {   /* timed: the work moves into the untimed flush */
        px = x; py = y; pn = n; ps = stream;
        return;
    }
    slow_relu(x, y, n, stream);
}
}
