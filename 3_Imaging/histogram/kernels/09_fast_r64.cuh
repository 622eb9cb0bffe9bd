/* Step 09: fast_r64. The one change from step 08: two sets of lane copies
 * (GROUPS = 2, 64 copies, 64 KiB per block at 256 bins): even warps count
 * into one set, odd warps into the other. Lane L still hits bank L. The
 * kernel is step 08's, hist_fast_r32, with GROUPS = 2.
 *
 * Why it could help: with the bank conflicts gone, what is left for equal
 * bytes is warps updating the same word back to back; two sets halve that.
 *
 * Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 13f861f): it did not help: 3837 GB/s on
 * uniform bytes against step 08's 3958, 3893 against 4000 on equal bytes
 * (2.8-3.5% slower on every input). Same-word atomics from different warps
 * cost nothing that more copies win back. */
template <int BINS>
constexpr auto hist_fast_r64 = hist_fast_r32<BINS, 2>;
