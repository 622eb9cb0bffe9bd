/* Step 04: cluster4. The one change from the step before: a cluster of 4
 * blocks instead of 2: 64 KiB per block; three adds in four are remote.
 * The kernel is step 02's, hist_cluster, with CLUSTER = 4 and PASSES = 1;
 * only the launch's cluster dimension (cudaLaunchAttributeClusterDimension)
 * and the dynamic shared memory per block change with it.
 *
 * Why it could help: smaller blocks fit more per SM (two of 1024 threads
 * where registers allow), and the adds into one busy bin's neighbours spread
 * over more SMs; against it, a larger share of the adds crosses the SM-to-SM
 * network.
 *
 * Measured: 3.453 ms at 512 MiB of uniform samples, 2.09x slower than step
 * 03 and slower than step 01's global atomics (2.877 ms); 6.217 ms on the
 * skewed input, against 2.605 for step 03 (results/H200/clusters.txt, commit 13f861f).
 * The larger share of remote adds cost more than the extra blocks gained. */
constexpr auto hist_cluster4 = hist_cluster<4, 1>;
