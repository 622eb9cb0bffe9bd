// kgate-task: sum_reduce
// planted defect: SILENT (racecheck). The shared-memory tree stops its
// __syncthreads() at 64 partial sums and lets the first warp finish the last
// six steps through a volatile pointer with no synchronization at all: the
// warp-synchronous idiom of pre-Volta GPUs. Since Volta the lanes of a warp
// are not guaranteed to run in step, so each step's read of another lane's
// sum races with that lane's write; on the H200 the warp stays converged and
// the sums come out right (8_Debugging/warpSyncVolatile shows both), and
// racecheck reports the hazards. The fix is __syncwarp() between the reads
// and the writes of each step, or shuffles.
#include <cuda_runtime.h>

#define THREADS 256

__global__ void sum_kernel(const float* x, float* out, int n)
{
    __shared__ float s[THREADS];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int st = THREADS / 2; st > 32; st >>= 1) {
        if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        volatile float* v = s;
        v[threadIdx.x] += v[threadIdx.x + 32];
        v[threadIdx.x] += v[threadIdx.x + 16];
        v[threadIdx.x] += v[threadIdx.x + 8];
        v[threadIdx.x] += v[threadIdx.x + 4];
        v[threadIdx.x] += v[threadIdx.x + 2];
        v[threadIdx.x] += v[threadIdx.x + 1];
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    int blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 2048) blocks = 2048;
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    sum_kernel<<<blocks, THREADS, 0, stream>>>(x, out, n);
}
