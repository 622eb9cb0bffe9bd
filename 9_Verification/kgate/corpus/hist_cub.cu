// kgate-task: histogram256
// planted defect: none (library-only: cub::DeviceHistogram::HistogramEven, 257 levels over [0, 256))
#include <cuda_runtime.h>
#include <cub/cub.cuh>

extern "C" void launch(const unsigned char* data, unsigned int* hist, int n, cudaStream_t stream)
{
    void* temp = nullptr;
    size_t bytes = 0;
    cub::DeviceHistogram::HistogramEven(temp, bytes, data, hist, 257, 0, 256, n, stream);
    cudaMallocAsync(&temp, bytes, stream);
    cub::DeviceHistogram::HistogramEven(temp, bytes, data, hist, 257, 0, 256, n, stream);
    cudaFreeAsync(temp, stream);
}
