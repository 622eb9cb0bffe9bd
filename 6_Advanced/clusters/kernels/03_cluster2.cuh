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
 * Measured: (measured on the H200: see results). */
constexpr auto hist_cluster2 = hist_cluster<2, 1>;
