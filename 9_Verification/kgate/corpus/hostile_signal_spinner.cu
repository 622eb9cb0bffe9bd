// kgate-task: relu
// planted defect: HOSTILE (signal-ignoring spinner). A static constructor
// ignores every signal it can; launch() then spins on the CPU forever. Only
// SIGKILL, which cannot be ignored, ends it: the run's deadline (L2, hang).
#include <cuda_runtime.h>
#include <signal.h>

__attribute__((constructor)) static void deaf(void)
{
    for (int s = 1; s < 65; s++) signal(s, SIG_IGN);
}

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    for (volatile unsigned long k = 0;; k++) {}
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
