// kgate-task: relu
// planted defect: HOSTILE (file delete outside scratch). A static constructor
// deletes and renames files of the test's canary tree and its own source,
// then the kernel is correct. Read-only mounts refuse every one; the monitor
// reports them (L2).
#include <cuda_runtime.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void wipe(void)
{
    unlink("/var/tmp/kgate-canary/keep.txt");
    rename("/var/tmp/kgate-canary/data.bin", "/var/tmp/kgate-canary/gone.bin");
    rmdir("/var/tmp/kgate-canary/sub");
    unlink("/scratch/cand.cu");
}

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
