/* Step 19: wgmma_ws_pack_b -- B's rows copied 128 bytes apart first.
 *
 * The one change from step 18 (wgmma_ws_multicast): where a row of B (N * 2
 * bytes) is not a multiple of 128 bytes, the launcher first copies B, on the
 * GPU and inside the timed run, into a buffer whose rows are tc_pitch_128(N)
 * elements apart (pack_rows below), and the TMA boxes are read from that copy.
 * The GEMM kernels are step 18's; where N * 2 is a multiple of 128 (8192^3,
 * 4096^3) nothing is copied and this step is step 18.
 * Why it might help: a TMA box row is 128 bytes (64 BF16). At N = 5000 the
 * rows of B are 10000 bytes apart, 16 bytes past a multiple of 128 (and of 32):
 * 7 of every 8 box rows of B straddle two 128-byte lines, and each touches 5
 * 32-byte sectors instead of 4. At 6000x5000x4000 every wgmma step (8 to 16)
 * ran at 66-78% of its own TFLOP/s at 4096^3, the steps before TMA at 88-95%
 * (results/H200/tensorCoreGemm__m_6000_n_5000_k_4000.txt, commit cd59140, and
 * results/H200/tensorCoreGemm__m_4096_n_4096_k_4096.txt, commit cd59140;
 * README, Deep dive): the strides are the candidate, not a measurement. The
 * copy reads and writes B once (2 x 40 MB at 6000x5000x4000: about 25 us at
 * 3.3 TB/s, about 7% of cuBLAS's 0.3362 ms there), so it pays only if the
 * misaligned rows cost the GEMM more than that.
 * Prediction, to be measured: at 6000x5000x4000 faster than step 18 if B's
 * alignment is what still costs after step 18 halved B's traffic;
 * 6000x5120x4000 (B aligned, A not) against 6000x5000x4000 measures the same
 * question without the copy.
 * Measured: (measured on the H200: see results). */

/* Copy X (rows x cols BF16, row-major, cols a multiple of 8) into Y, whose
 * rows are `pitch` elements apart: one 16-byte chunk per thread and pass,
 * consecutive threads on consecutive chunks of a row (both sides coalesced).
 * The pitch's padding is never written: the tensor map over Y has `cols`
 * columns, so TMA never reads it. rows * cols / 8 < 2^31 (TC_MAX_DIM). */
__global__ void __launch_bounds__(256) pack_rows(const uint16_t *__restrict__ X,
                                                 uint16_t *__restrict__ Y, int rows, int cols,
                                                 int pitch)
{
    const unsigned chunks = (unsigned)cols / 8u, total = (unsigned)rows * chunks;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        const unsigned r = i / chunks, c = i - r * chunks;
        *(uint4 *)(Y + (size_t)r * pitch + c * 8u) = *(const uint4 *)(X + (size_t)r * cols + c * 8u);
    }
}

struct wgmma_ws_pack_b_cfg {
    static constexpr int BN = 256, STAGES = 4;
    static constexpr bool PACK_A = false, PACK_B = true;
};
