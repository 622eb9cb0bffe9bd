// kgate-task: relu
// planted defect: SILENT (initcheck; --sanitize=all). To "save stores" each
// thread reads y[i] and writes its result only when it differs. The gate
// poisons the output before a checked call, so the comparison always fails
// and every element is written; when the old value happens to equal the
// result, skipping the store leaves the right value too. But the kernel reads
// an output it has not written: where the caller's buffer was never
// initialized, that is a read of uninitialized global memory, which initcheck
// reports (the sanitizer pass leaves the output as cudaMalloc returns it).
// memcheck and racecheck see nothing wrong, so --sanitize=fast passes it.
#include <cuda_runtime.h>

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float r = v > 0.0f ? v : 0.0f;
        if (y[i] != r) y[i] = r;   // reads the output before writing it
    }
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
