// kgate-task: relu
// planted defect: HOSTILE (harm to the next candidate: the GPU's memory taken).
// At its first call at the timed sizes it allocates all the free GPU memory
// and keeps it: against the old gate the next candidate's process could not
// create its CUDA context (a false kill of an honest candidate). Now a
// candidate may keep 4 GiB of GPU memory beyond what it held when loaded
// (more is L2 for itself, the memory named), and the judge waits for the
// memory to come back before the next session. Honest but
// slow underneath (on the GPU only; a dry run does not get there).
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

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    static int taken;
    if (n >= 1000000 && !taken) {
        taken = 1;
        for (size_t chunk = (size_t)4 << 30; chunk >= ((size_t)2 << 20); chunk /= 2) {
            void* p;
            while (cudaMalloc(&p, chunk) == cudaSuccess) {}
            cudaGetLastError();
        }
    }
    slow_relu(x, y, n, stream);
}
