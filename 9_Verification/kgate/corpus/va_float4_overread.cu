// kgate-task: vector_add
// planted defect: SILENT (memcheck). The kernel reads a and b four floats at
// a time over n rounded up to a multiple of 4; it stores whole float4 groups
// and, in the last group, only the lanes below n. When n is not a multiple
// of 4 the last float4 loads of a and b read up to 12 bytes past both
// inputs. The extra lanes are never stored, so every output is right, and in
// the gate's checked runs the reads land in the guard bytes after each
// input; memcheck, where each input is an allocation of exactly n floats,
// reports the 16-byte reads that cross their ends.
#include <cuda_runtime.h>

__global__ void va_float4(const float* a, const float* b, float* c, int n)
{
    int n4 = (n + 3) / 4;   // rounded up: the last group may run past n
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < n4; q += blockDim.x * gridDim.x) {
        float4 u = a4[q], v = b4[q];   // the last group may read past n
        float4 w = make_float4(u.x + v.x, u.y + v.y, u.z + v.z, u.w + v.w);
        int i = 4 * q;
        if (i + 3 < n) {
            reinterpret_cast<float4*>(c)[q] = w;
        } else {   // the tail: store only the lanes below n
            float s[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (int k = 0; k < 4; k++)
                if (i + k < n) c[i + k] = s[k];
        }
    }
}

extern "C" void launch(const float* a, const float* b, float* c, int n, cudaStream_t stream)
{
    int n4 = (n + 3) / 4;
    int blocks = (n4 + 255) / 256;
    if (blocks > 2048) blocks = 2048;
    if (blocks < 1) blocks = 1;
    va_float4<<<blocks, 256, 0, stream>>>(a, b, c, n);
}
