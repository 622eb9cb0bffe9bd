// tile32_ab.cu: A/B of the classic 32x32 shared-memory tile kernel at 4096^3 (an experiment,
// not a variant: it decided how mm_smem loads its tiles). Run on the H200 with
//   nvcc -O3 -arch=sm_90 -o /tmp/t32 tile32_ab.cu && /tmp/t32
// output: results/H200/matrixMul_tile32_ab.txt
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define T 32
__global__ void __launch_bounds__(1024) k_orig(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C) {
  __shared__ float As[T][T], Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; k++) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = acc;
}
__global__ void __launch_bounds__(1024) k_inside(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C) {
  __shared__ float As[T][T], Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  const float *a = A + (size_t)row * K + tx; const float *b = B + (size_t)ty * N + col;
  const bool inside = (blockIdx.y + 1) * T <= M && (blockIdx.x + 1) * T <= N;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += T, a += T, b += (size_t)T * N) {
    if (inside && k0 + T <= K) { As[ty][tx] = *a; Bs[ty][tx] = *b; }
    else { As[ty][tx] = (row < M && k0 + tx < K) ? *a : 0.f; Bs[ty][tx] = (k0 + ty < K && col < N) ? *b : 0.f; }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; k++) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = acc;
}
// the same, with the next tile's two elements loaded into registers before computing on the current one
__global__ void __launch_bounds__(1024) k_prefetch(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C) {
  __shared__ float As[T][T], Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  const float *a = A + (size_t)row * K + tx; const float *b = B + (size_t)ty * N + col;
  float ra = (row < M && tx < K) ? *a : 0.f, rb = (ty < K && col < N) ? *b : 0.f;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = ra; Bs[ty][tx] = rb;
    __syncthreads();
    a += T; b += (size_t)T * N;
    int k1 = k0 + T;
    ra = (row < M && k1 + tx < K) ? *a : 0.f; rb = (k1 + ty < K && col < N) ? *b : 0.f;
#pragma unroll
    for (int k = 0; k < T; k++) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = acc;
}
typedef void (*kfn)(int, int, int, const float *, const float *, float *);
int main() {
  int n = 4096; size_t bytes = (size_t)n * n * 4;
  float *A, *B, *C; cudaMalloc(&A, bytes); cudaMalloc(&B, bytes); cudaMalloc(&C, bytes);
  std::vector<float> h((size_t)n * n); for (size_t i = 0; i < h.size(); i++) h[i] = (float)((i * 2654435761u) % 1000) / 1000.f - 0.5f;
  cudaMemcpy(A, h.data(), bytes, cudaMemcpyHostToDevice); cudaMemcpy(B, h.data(), bytes, cudaMemcpyHostToDevice);
  kfn fs[3] = {k_orig, k_inside, k_prefetch}; const char *names[3] = {"orig", "inside", "prefetch"};
  std::vector<float> ref((size_t)n * n), out((size_t)n * n);
  dim3 blk(T, T), grd(n / T, n / T);
  for (int v = 0; v < 3; v++) {
    for (int w = 0; w < 3; w++) fs[v]<<<grd, blk>>>(n, n, n, A, B, C);
    std::vector<float> ms;
    for (int r = 0; r < 15; r++) { cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1); cudaEventRecord(e0); fs[v]<<<grd, blk>>>(n, n, n, A, B, C); cudaEventRecord(e1); cudaEventSynchronize(e1); float t; cudaEventElapsedTime(&t, e0, e1); ms.push_back(t); }
    std::sort(ms.begin(), ms.end());
    cudaMemcpy(v == 0 ? ref.data() : out.data(), C, bytes, cudaMemcpyDeviceToHost);
    size_t diff = 0; if (v) for (size_t i = 0; i < out.size(); i++) diff += out[i] != ref[i];
    printf("%-9s median %.3f ms  %.0f GFLOP/s  (elements differing from orig: %zu) %s\n", names[v], ms[7], 2.0 * n * n * (double)n / (ms[7] * 1e6), diff, cudaGetErrorString(cudaGetLastError()));
  }
  return 0;
}
