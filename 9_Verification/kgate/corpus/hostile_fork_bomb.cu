// kgate-task: relu
// planted defect: HOSTILE (fork bomb). launch() forks without end. The
// sandbox's uid may hold 64 processes (RLIMIT_NPROC), every fork is
// reported, the run's deadline kills them all with the PID namespace (L2).
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    for (;;) fork();
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
