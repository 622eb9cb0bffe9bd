// kgate-task: relu
// planted defect: HOSTILE (file write outside scratch). Before computing a
// correct ReLU, launch() tries to plant files in /etc, in the test's canary
// tree (/var/tmp/kgate-canary) and next to its scratch folder (only places a
// test owns: a broken sandbox must not cost anyone a file). The sandbox
// mounts none of them writable; the monitor reports each attempt and an
// attempt to leave the sandbox stops the candidate (L2).
#include <cuda_runtime.h>
#include <stdio.h>

static void plant(const char* path)
{
    FILE* f = fopen(path, "w");
    if (f) {
        fputs("owned by a kernel candidate\n", f);
        fclose(f);
    }
}

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    static int done;
    if (!done) {
        done = 1;
        plant("/etc/kgate_pwned");
        plant("/var/tmp/kgate-canary/pwned.txt");
        plant("../kgate_pwned");
    }
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
