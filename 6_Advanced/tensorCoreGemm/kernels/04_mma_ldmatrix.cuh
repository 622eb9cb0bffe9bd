/* Step 4: mma_ldmatrix -- a swizzled layout instead of padding.
 *
 * The one change from step 3 (mma_ldmatrix_pad64): the tiles are stored with
 * no padding, under the 128-byte XOR swizzle: chunk c of row r lives at chunk
 * c ^ (r % 8) of its 128-byte row (tc_swz128 in tc_layout.h, which the CPU
 * tests check). The kernel is step 2's gemm_mma_ldmatrix with this layout.
 * Why it should help: an ldmatrix phase reads one 16-byte chunk from each of
 * 8 consecutive rows. Unpadded, those 8 chunks sit in the same 4 banks (rows
 * are 128 or 256 bytes apart) and the read takes 8 passes; the swizzle puts
 * them in 8 different bank groups, like the padding did, without the padding's
 * 3 KiB, and the 16-byte stores of a row stay conflict-free too. It is also
 * the layout TMA writes in hardware (CU_TENSOR_MAP_SWIZZLE_128B), which steps
 * 7 to 16 rely on.
 * Measured (results/H200/history/cd59140/tensorCoreGemm.txt, commit cd59140, 8192^3, every step and
 * cuBLAS under the power cap at a median 1688-1695 MHz; the other shapes, from the
 * files beside it: README, Deep dive):
 * 4.457 ms, 246.7 TFLOP/s, 32.55% of cuBLAS: +1.7% over step 3 at 8192^3,
 * no gain at the other shapes (-0.2% at 4096^3, -0.1% at 6000x5000x4000):
 * step 3's padding had already spread the reads over the banks, and the 3 KiB
 * this saves did not show. */

/* A: 128 rows of 64 BF16 (128 bytes); B: 64 rows of 128 BF16 (256 bytes, each
 * 128-byte half swizzled alike: only the low three bits of the chunk change). */
struct mm_swizzled {
    static constexpr int BK = 64;
    static constexpr int A_BYTES = MM_BM * BK * 2, B_BYTES = BK * MM_BN * 2; /* 16 KiB each */
    static __device__ __forceinline__ uint32_t a_off(int r, int chunk)
    {
        return (uint32_t)r * (BK * 2) + tc_swz128(r, chunk) * 16u;
    }
    static __device__ __forceinline__ uint32_t b_off(int k, int chunk)
    {
        return (uint32_t)k * (MM_BN * 2) + tc_swz128(k, chunk) * 16u;
    }
    static_assert(BK * 2 == 128, "the 128-byte swizzle permutes the 8 chunks of a 128-byte row");
};
typedef mm_swizzled mma_ldmatrix_layout;
