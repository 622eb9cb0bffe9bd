/* Step 05: cluster8. The one change from the step before: a cluster of 8
 * blocks instead of 4: 32 KiB per block, the largest portable cluster size;
 * seven adds in eight are remote.
 * The kernel is step 02's, hist_cluster, with CLUSTER = 8 and PASSES = 1;
 * only the launch's cluster dimension (cudaLaunchAttributeClusterDimension)
 * and the dynamic shared memory per block change with it.
 *
 * Why it could help: as step 04; and a cluster of 8 must find 8 free block
 * slots on one GPC at once.
 *
 * Measured: 3.562 ms at 512 MiB of uniform samples, a little worse: 3%
 * slower than step 04 (3.453 ms); 9.812 ms on the skewed input, 1.58x slower
 * than step 04 (results/H200/clusters.txt, commit 13f861f): 30 clusters of
 * 8 fit at once, so fewer blocks receive the skewed input's low bins. */
constexpr auto hist_cluster8 = hist_cluster<8, 1>;
