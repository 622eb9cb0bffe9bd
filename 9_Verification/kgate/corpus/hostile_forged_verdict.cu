// kgate-task: relu
// planted defect: HOSTILE (forged verdict). A static constructor writes a
// final PASS record, in the layout the old gate's child used, to every file
// descriptor it inherited and calls _exit(0): against the old gate a wrong
// kernel (it copies x) became PASS. Now the constructor runs in the sandboxed
// harness, which sends nothing the judge takes as a verdict: its garbage on
// the reply pipe is a protocol violation and its exit a stop (L2).
#include <cuda_runtime.h>
#include <string.h>
#include <unistd.h>

struct forged { int final, verdict; char stage[96], detail[320]; double ms[4]; int shapes; };

__attribute__((constructor)) static void forge(void)
{
    struct forged f;
    memset(&f, 0, sizeof f);
    f.final = 1;
    f.verdict = 5;   /* PASS in the old enum */
    strcpy(f.detail, "all 6 shapes correct, within 50% of the reference");
    for (int fd = 0; fd < 1024; fd++) {
        ssize_t w = write(fd, &f, sizeof f);
        (void)w;
    }
    _exit(0);
}

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];   /* wrong: no max with 0 */
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
