/* Step 09: fast_r64. The one change from step 08: two sets of lane copies
 * (GROUPS = 2, 64 copies, 64 KiB per block at 256 bins): even warps count
 * into one set, odd warps into the other. Lane L still hits bank L. The
 * kernel is step 08's, hist_fast_r32, with GROUPS = 2.
 *
 * Why it could help: with the bank conflicts gone, what is left for equal
 * bytes is warps updating the same word back to back; two sets halve that.
 *
 * Measured (H200, 512 MiB, 256 bins;
 * results/H200/history/3865df4/histogram.txt, commit 3865df4): it did not help: 3922 GB/s on
 * uniform bytes against step 08's 3946, 3939 against 3961 on equal bytes
 * (within 0.6% on every input). Same-word atomics from different warps cost
 * nothing measurable. */
template <int BINS>
constexpr auto hist_fast_r64 = hist_fast_r32<BINS, 2>;
