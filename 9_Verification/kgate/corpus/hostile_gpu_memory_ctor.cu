// kgate-task: relu
// planted defect: HOSTILE (harm to the next candidate: the GPU's memory taken).
// When it is loaded it allocates GPU memory in 1 GiB pieces until the
// device is full and keeps it. A candidate may keep 4 GiB of GPU memory
// beyond what it held when loaded (more is L2 for itself, the memory named,
// at its first checked call at the mid size), and the judge waits for the
// memory to come back before the next session. Honest but slow underneath
// (on the GPU only; a dry run has no GPU to take).
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

__attribute__((constructor)) static void take(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) return;
    void* p;
    while (cudaMalloc(&p, (size_t)1 << 30) == cudaSuccess) {}
    cudaGetLastError();
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream) { slow_relu(x, y, n, stream); }
