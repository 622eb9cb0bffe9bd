// kgate-task: tanh
// planted defect: SILENT (memcheck leak, device heap). Thread 0 of block 0
// records the call's first input and n in a small record it allocates with
// the device's malloc() (a debugging aid left in) and never frees. The
// outputs are right; once the 8 MiB device heap is used up malloc() returns
// NULL and the record is skipped, so even the timed runs go on correctly.
// memcheck, run by the sanitizer pass with --check-device-heap yes, tracks
// device-heap allocations too, and its leak check at exit should report the
// records still allocated (not yet seen on our H200).
#include <cuda_runtime.h>

struct call_note {
    float first;
    int n;
};

__global__ void tanh_kernel(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        call_note* note = (call_note*)malloc(sizeof(call_note));   // never freed
        if (note) {
            note->first = x[0];
            note->n = n;
        }
    }
    if (i < n) y[i] = tanhf(x[i]);
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    tanh_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, n);
}
