/* Step 09, multi_element. The one change from step 08: the grid. The kernel
 * is step 08's, reduce_grid_stride, unchanged; the launcher (run_grid in
 * reduction.cu) no longer gives every pair of elements its own thread but
 * sizes the grid to fill the GPU once: as many blocks as can be resident at
 * the same time (blocks per SM, from the occupancy calculator, x SMs),
 * fewer when n is small:
 *     step 08:  blocks = ceil(n / (2 BLOCK)), then again over the partials
 *     step 09:  blocks = min(ceil(n / (2 BLOCK)), resident blocks), then
 *               one block over those partial sums
 * Each thread now sums many elements in its grid-stride loop, in a register
 * (about a thousand at 2^28 elements on the H200: 132 SMs x 2048 threads).
 * The shared-memory tree, its barriers and the partial-sum store happen once
 * per block instead of once per 2 BLOCK elements, no block waits to be
 * scheduled, and the second pass has only as many partials as there were
 * blocks. From here on the kernel is limited by how many loads are in
 * flight, not by the tree.
 *
 * Measured (H200, 2^28 floats, block 256; results/H200/reduction.txt, commit 13f861f):
 * 0.2856 ms, 3760 GB/s, 83.1% of CUB (step 08: 2324 GB/s): 1.62x.
 */
