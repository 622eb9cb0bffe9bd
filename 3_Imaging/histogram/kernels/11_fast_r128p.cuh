/* Step 11: fast_r128p. The one change from step 10: four sets of lane
 * copies (GROUPS = 4; the kernel is step 10's, hist_fast_r64p): 128 copies
 * of 16-bit counters, 64 KiB + 1 KiB of accumulators per block at 256
 * bins. As 32-bit counters they would take 128 KiB, and only one block of
 * 1024 threads would fit on an SM; packed, two still do. Warps w with the
 * same w mod 4 share a set, so a counter grows by at most 16 x 8 per round
 * and the flush comes every 511 rounds.
 *
 * Why it could help: fewer warps per copy, for the same-word traffic on
 * equal bytes; the run below says whether more copies pay for the 16-bit
 * arithmetic.
 *
 * Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 13f861f): 3833 GB/s on uniform bytes
 * against step 10's 3817, 3950 against 3950 on equal bytes (0 to +0.5% on
 * every input), and 1.3-3.6% behind step 08 (3.3% on uniform bytes, 1.3% on
 * equal); at 64 bins 3.6-7.1% behind step 08
 * (results/H200/histogram__bins_64.txt, commit 13f861f). In the run at
 * d4ff6ab, when steps 06 to 11 were one template kernel, it was 1-3% behind
 * steps 08 and 09 as well, and at 3865df4 up to 1.6% ahead at 256 bins
 * (README, "Which fast configuration wins"): more copies did not pay. Step
 * 12 builds on step 08 (fast_r32). */
template <int BINS>
constexpr auto hist_fast_r128p = hist_fast_r64p<BINS, 4>;
