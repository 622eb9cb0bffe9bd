/* Step 13: fast_r32_l1. The one change from step 12: the carveout. The
 * kernel is step 12's, hist_fast_r32_bmerge, with FIT = 1; its launch
 * (run_lanes with FIT in histogram.cu) asks for the shared memory its two
 * blocks need (hist_carveout_percent: 30%, which the H200 rounds up to 100
 * KiB) instead of all 228 KiB that can be shared, so L1 keeps 156 KiB
 * instead of 28. (An instantiation of its own, because the carveout is an
 * attribute of the function.)
 *
 * Why it should help: a 16-byte load that misses holds L1 lines until its
 * data arrives, so L1 may cap the bytes in flight: 28 KiB on each of 132 SMs
 * is 3.8 MB, which at 4.4 TB/s covers under 0.9 us of latency (Little's law),
 * about what a read from HBM under load takes, while the threads of an SM
 * want 32-64 KiB in flight. Measured (H200, 512 MiB, 256 bins;
 * results/H200/histogram.txt, commit 13f861f): 4254 GB/s on uniform bytes
 * against step 12's 4163 (+2.2%, 201.1% of CUB), 4261 against 4170 on equal
 * bytes (+2.2%); in the run at 3865df4 the fitted rate rose from 4.40-4.42
 * to 4.55-4.57 TB/s (README). */
template <int BINS>
constexpr auto hist_fast_r32_l1 = hist_fast_r32_bmerge<BINS, 1>;
