/* Step 08: window_4x8_inflight. The one change from step 07: IN_FLIGHT
 * rows are loaded before any of them is used (IN_FLIGHT = 8 instead of 1),
 * so each thread keeps 8 16-byte loads in flight instead of 1. The kernel
 * is step 07's, blur_window_4x8_float4, with IN_FLIGHT = 8.
 *
 * Why it should help: HBM needs many bytes in flight per SM to stream at
 * its rate (Little's law: bytes in flight = rate x latency); a loop that
 * waits for each row before loading the next has one load in flight per
 * thread. (The compiler may already have moved some loads ahead in step 07;
 * this step makes it explicit.)
 * Measured (H200, 16384x16384 ROI, radius 1; results/H200/blur.txt, commit 13f861f):
 * no gain. 2937 GB/s by median, 69.5% of the copy, 23% slower than step 07,
 * and unsteady (median 0.7311 ms, fastest run 0.702) at the full SM clock;
 * with the ROI at x0 = 3, 11% slower than step 07 by median, though its
 * fastest run beats step 07's (0.5856 against 0.5978 ms;
 * results/H200/blur__x0_3.txt, commit 13f861f). Why: not measured (README). */
template <bool VEC>
constexpr auto blur_window_4x8_inflight = blur_window_4x8_float4<VEC, 8>;
