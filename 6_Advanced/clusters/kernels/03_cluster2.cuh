/* Step 03: cluster2. The one change from the step before: a cluster of 2
 * blocks instead of one block making 2 passes. The 65,536 bins split in two
 * halves of 128 KiB, one in each block, and the input is read once; half the
 * adds go to the other block through DSMEM.
 * The kernel is step 02's, hist_cluster, with CLUSTER = 2 and PASSES = 1;
 * only the launch's cluster dimension (cudaLaunchAttributeClusterDimension)
 * and the dynamic shared memory per block change with it.
 *
 * Why it could help: one pass over the input instead of two: step 02 reads
 * every sample twice and throws half of each pass away.
 *
 * Measured: 1.649 ms at 512 MiB of uniform samples, 1.74x step 01's global
 * atomics (2.877 ms) but 3.1x slower than step 02 (0.5329 ms); 2.605 ms on
 * the skewed input (results/H200/clusters.txt, commit 13f861f). The read it
 * saves cost less than sending half the adds to the other block. */
constexpr auto hist_cluster2 = hist_cluster<2, 1>;
