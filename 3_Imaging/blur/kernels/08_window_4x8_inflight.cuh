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
 * Measured (H200, 16384x16384 ROI, radius 1; results/H200/history/3865df4/blur.txt, commit 3865df4):
 * no clear gain. 2945 GB/s by median, 69.8% of the copy, 18% slower than
 * step 07, and unsteady (median 0.7292 ms, fastest run 0.6469); with the ROI
 * at x0 = 3, steady and 2.1% faster than step 07
 * (results/H200/history/3865df4/blur__x0_3.txt, commit 3865df4). Why: not measured (README). */
template <bool VEC>
constexpr auto blur_window_4x8_inflight = blur_window_4x8_float4<VEC, 8>;
