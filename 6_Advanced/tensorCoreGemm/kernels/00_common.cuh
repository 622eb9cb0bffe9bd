/* kernels/00_common.cuh: what every step uses. Included by tensorCoreGemm.cu
 * (after TC_SM80, TC_SM90A and CEIL_DIV), before the steps' files. */

/* The 32-bit shared-memory address of a generic pointer into shared memory:
 * the form ldmatrix, cp.async, mbarrier, TMA and the wgmma descriptors take. */
__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* Eight consecutive BF16 of row `row` from column `col` (one 16-byte chunk),
 * zero where row >= rows or a column >= cols. VEC (cols % 8 == 0): the chunk
 * is all in or all out and 16-byte aligned, one vector load; otherwise each
 * element is loaded alone, and never past the end of its row. */
template <bool VEC>
__device__ __forceinline__ uint4 load_chunk(const uint16_t *__restrict__ X, int rows, int cols,
                                            int row, int col)
{
    uint4 v = make_uint4(0, 0, 0, 0);
    if (row >= rows || col >= cols) return v;
    const uint16_t *p = X + (size_t)row * cols + col;
    if constexpr (VEC) {
        return *(const uint4 *)p;
    } else {
        uint32_t e[8];
#pragma unroll
        for (int i = 0; i < 8; i++) e[i] = col + i < cols ? p[i] : 0u;
        v.x = e[0] | (e[1] << 16);
        v.y = e[2] | (e[3] << 16);
        v.z = e[4] | (e[5] << 16);
        v.w = e[6] | (e[7] << 16);
        return v;
    }
}
