/* Step 06: cluster16. The one change from the step before: a cluster of 16
 * blocks instead of 8: 16 KiB per block. 16 is non-portable: the launcher
 * sets cudaFuncAttributeNonPortableClusterSizeAllowed, and runs the step only
 * where cudaOccupancyMaxActiveClusters says a cluster of 16 fits (a note says
 * when it does not).
 * The kernel is step 02's, hist_cluster, with CLUSTER = 16 and PASSES = 1;
 * only the launch's cluster dimension (cudaLaunchAttributeClusterDimension)
 * and the dynamic shared memory per block change with it.
 *
 * Why it could help: as step 05, with the same trade-off pushed further:
 * fifteen adds in sixteen are remote.
 *
 * Measured: 3.808 ms at 512 MiB of uniform samples, 7% slower than step
 * 05 (3.562 ms); 16.46 ms on the skewed input, 1.68x slower than step 05
 * (results/H200/clusters.txt, commit 13f861f). Only 14 clusters of 16 fit at
 * once on our H200 (the run's notes), 224 blocks against step 05's 240. */
constexpr auto hist_cluster16 = hist_cluster<16, 1>;
