// kgate-task: relu
// planted defect: HOSTILE (host memory in CUDA managed memory).
// launch() allocates 12 GiB with cudaMallocManaged and touches every page
// on the host, then computes a correct relu. Managed pages touched on the
// host are a mapping of /dev/nvidia-uvm: they grow RssFile, not RssAnon or
// RssShmem (measured on the H200), and RLIMIT_DATA does not bound them. So
// a watcher that counts only anonymous and shared pages lets it hold host
// memory without bound. The memory cgroup, where there is one, or the
// gate's watcher (which counts file-backed pages past the libraries'
// slack) kills it at the limit: L2.
#include <cuda_runtime.h>
#include <stddef.h>

static void hold(void)
{
    const size_t chunk = (size_t)1 << 30;   /* 1 GiB at a time, 12 in all */
    for (int k = 0; k < 12; k++) {
        char* p = NULL;
        if (cudaMallocManaged((void**)&p, chunk) != cudaSuccess) return;
        for (size_t i = 0; i < chunk; i += 4096) p[i] = 1;   /* on the host: resident here */
    }
}

__global__ void relu_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    static int once;
    if (!once++) hold();
    relu_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
