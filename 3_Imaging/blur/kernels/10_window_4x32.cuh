/* Step 10: window_4x32. The one change from step 09: strips of 32 rows
 * instead of 8 (still loaded 8 rows at a time). The kernel is step 09's,
 * blur_window_4x8, with ROWS = 32.
 *
 * Why it could help: the two halo rows above and below a strip fall from 2
 * extra loads per 8 rows to 2 per 32, and there are 4 times fewer blocks. It
 * should help if L2 traffic or the blocks' start-up cost shows, and do
 * nothing if DRAM is the limit. Measured (H200, 16384x16384 ROI, radius 1;
 * results/H200/blur.txt, commit 13f861f): it failed: 3040 GB/s against step
 * 09's 3853 (27% slower, 71.9% of the copy). Longer strips cost more than
 * they save; the run does not show why. */
template <bool VEC>
constexpr auto blur_window_4x32 = blur_window_4x8<VEC, 4, 32>;
