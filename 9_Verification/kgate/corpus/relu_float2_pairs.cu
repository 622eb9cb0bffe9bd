// kgate-task: relu
// planted defect: SILENT (memcheck). Each thread handles a pair of elements
// with one 8-byte float2 load, and there are (n + 1) / 2 pairs: for an odd n
// the last pair's load also reads x[n], one float past the input. The value
// is never stored (the last pair stores one float), so every output is right,
// and in the gate's checked runs the read lands in the guard bytes after the
// input. Under compute-sanitizer the input is its own allocation of exactly
// n floats: memcheck reports the 8-byte read that ends 4 bytes past it.
#include <cuda_runtime.h>

__global__ void relu_pairs(const float* x, float* y, int n)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;   // pair index
    int i = 2 * p;
    if (i < n) {
        float2 v = reinterpret_cast<const float2*>(x)[p];   // reads x[n] when i + 1 == n
        float2 r = make_float2(v.x > 0.0f ? v.x : 0.0f, v.y > 0.0f ? v.y : 0.0f);
        if (i + 1 < n) reinterpret_cast<float2*>(y)[p] = r;
        else y[i] = r.x;   // the odd last element: its pair's second value is dropped
    }
}

extern "C" void launch(const float* x, float* y, int n, cudaStream_t stream)
{
    int pairs = (n + 1) / 2;
    relu_pairs<<<(pairs + 255) / 256, 256, 0, stream>>>(x, y, n);
}
