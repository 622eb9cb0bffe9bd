// kgate-task: relu
// planted defect: HOSTILE (setsid escape). launch() double-forks a grandchild
// that calls setsid(), names itself kgate_escapee and sleeps ten minutes, to
// outlive the gate (a new session leaves the gate's process group). The PID
// namespace kills it with the sandbox; the fork and setsid are reported (L2).
#include <cuda_runtime.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    static int done;
    if (!done++) {
        pid_t child = fork();
        if (child == 0) {
            setsid();
            if (fork() == 0) {
                prctl(PR_SET_NAME, "kgate_escapee", 0, 0, 0);
                sleep(600);
            }
            _exit(0);
        }
        if (child > 0) waitpid(child, NULL, 0);   /* the daemon is detached when this returns */
    }
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
