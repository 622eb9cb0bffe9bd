/* kernels/00_load_store.cuh: what every step uses: the grid arithmetic, the
 * BLAS epilogue (alpha*acc + beta*C), and the edge-safe float4 load and
 * store of the vectorized steps.
 *
 * Every kernel takes any M, N, K (row-major), not only multiples of its
 * tile: loads outside a matrix read zeros, stores outside C are skipped, and
 * float4 paths are used only where the row length is a multiple of 4 (rows
 * 16-byte aligned) and all four elements are in range.
 */
#pragma once

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))


/* BLAS semantics: with beta == 0, C is not read (it may hold NaN poison). */
__device__ __forceinline__ float axpby(float acc, float alpha, float beta, const float *c)
{
    return beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

/* Four consecutive elements of row `row` of a rows x cols row-major matrix,
 * starting at column col; zeros for anything out of range. One 16-byte load
 * when vec_ok (cols % 4 == 0, so the address is 16-byte aligned) and all four
 * are in range, else element by element. */
__device__ __forceinline__ float4 load4_zero(const float *__restrict__ m, int rows, int cols,
                                             int row, int col, bool vec_ok)
{
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (row >= rows) return v;
    const float *p = m + (size_t)row * cols;
    if (vec_ok && col + 3 < cols) return *reinterpret_cast<const float4 *>(p + col);
    if (col + 0 < cols) v.x = p[col + 0];
    if (col + 1 < cols) v.y = p[col + 1];
    if (col + 2 < cols) v.z = p[col + 2];
    if (col + 3 < cols) v.w = p[col + 3];
    return v;
}

/* C[row][col..col+3] = alpha*v + beta*C, for the elements in range. */
__device__ __forceinline__ void store4_axpby(float *__restrict__ C, int M, int N, int row,
                                             int col, float4 v, float alpha, float beta,
                                             bool vec_ok)
{
    if (row >= M) return;
    float *p = C + (size_t)row * N;
    if (vec_ok && col + 3 < N) {
        float4 *q = reinterpret_cast<float4 *>(p + col);
        float4 o;
        if (beta == 0.0f) {
            o = make_float4(alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w);
        } else {
            float4 c = *q;
            o = make_float4(alpha * v.x + beta * c.x, alpha * v.y + beta * c.y,
                            alpha * v.z + beta * c.z, alpha * v.w + beta * c.w);
        }
        *q = o;
        return;
    }
    const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int c = 0; c < 4; c++)
        if (col + c < N) p[col + c] = axpby(e[c], alpha, beta, p + col + c);
}
