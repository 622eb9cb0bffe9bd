// kgate-task: sum_reduce
// planted defect: none (library-only: cub::DeviceReduce::Sum, stream-ordered temporary storage)
#include <cuda_runtime.h>
#include <cub/cub.cuh>

extern "C" void launch(const float* x, float* out, int n, cudaStream_t stream)
{
    void* temp = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceReduce::Sum(temp, temp_bytes, x, out, n, stream);
    cudaMallocAsync(&temp, temp_bytes, stream);
    cub::DeviceReduce::Sum(temp, temp_bytes, x, out, n, stream);
    cudaFreeAsync(temp, stream);
}
