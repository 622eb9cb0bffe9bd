/* Step 20: wgmma_ws_pack -- A's rows copied 128 bytes apart too.
 *
 * The one change from step 19 (wgmma_ws_pack_b): PACK_A. Where a row of A
 * (K * 2 bytes) is not a multiple of 128 bytes, A is copied first as well,
 * with step 19's pack_rows; the GEMM kernels are step 18's.
 * Why it might help: at K = 4000 the rows of A are 8000 bytes apart, 64 bytes
 * past a multiple of 128: every other box row of A straddles two 128-byte
 * lines (each row still starts on a 32-byte sector, unlike B's at N = 5000).
 * The copy reads and writes A once (2 x 48 MB at 6000x5000x4000: about 30 us
 * at 3.3 TB/s, about 9% of cuBLAS's 0.3362 ms in
 * results/H200/tensorCoreGemm__m_6000_n_5000_k_4000.txt, commit cd59140).
 * Prediction, to be measured: slower than step 19 unless the line-straddling
 * rows of A cost more than 30 us; 6000x5000x4096 (A aligned, B not) against
 * 6000x5000x4000 measures the same question without the copy.
 * Measured: (measured on the H200: see results). */
struct wgmma_ws_pack_cfg {
    static constexpr int BN = 256, STAGES = 4;
    static constexpr bool PACK_A = true, PACK_B = true;
};
