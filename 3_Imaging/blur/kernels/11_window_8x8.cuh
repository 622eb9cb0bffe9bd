/* Step 11: window_8x8. The one change from step 09: 8 columns (two float4)
 * per thread instead of 4. The kernel is step 09's, blur_window_4x8, with
 * COLS = 8.
 *
 * Why it could help: half as many shuffles and edge loads per pixel, twice
 * the bytes in flight per thread, at the price of more registers (130 against
 * 80 for the float4 path, -Xptxas -v, sm_90, CUDA 13.0) and so fewer resident
 * warps. It should help if instruction issue is the limit. Measured (H200,
 * 16384x16384 ROI, radius 1; results/H200/blur.txt, commit 13f861f): 3229
 * GB/s, 19% slower than step 09 (76.4% of the copy): issue was not the limit,
 * and the wider thread lost. */
template <bool VEC>
constexpr auto blur_window_8x8 = blur_window_4x8<VEC, 8, 8>;
