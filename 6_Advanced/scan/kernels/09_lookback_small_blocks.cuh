/* Step 09: lookback_small_blocks. Step 08's kernel, the same tile of 4096
 * elements, cut differently: 128 threads x 32 elements instead of
 * 256 x 16 (CUB's DeviceScan, tuned for int32 on Hopper, uses 128 x 24).
 *
 * Why it can be faster: a tile's loads are in flight only at the start of its
 * life; then it scans, and while one warp looks back, the other warps of
 * its block wait at the barrier with their elements in registers. The
 * bytes in flight, what a memory-bound kernel lives on, grow with the tiles
 * an SM holds at once. Step 08's blocks hold 64 bytes per thread in
 * registers and the SM's 2048 threads cap them at 8 tiles (128 KiB); these
 * hold 128 bytes per thread, and the registers (48 per thread, ptxas -v)
 * allow 10 blocks of 128 (MIN_BLOCKS below): 10 tiles, 160 KiB, each
 * looking back on its own, with barriers of 4 warps instead of 8. The
 * tile, the number of tiles and so the look-back's work stay the same.
 * (12 blocks would cap registers at 40, and the compiler would spill.)
 *
 * The kernel is step 07's (kernels/07_lookback_in_order.cuh), with step
 * 08's waits; only the launch in scan.cu changes.
 *
 * Measured on the H200, 2^28 int32, inclusive (results/H200/scan.txt, commit 13f861f):
 * 0.6396 ms, 3357 GB/s, 108.3% of CUB: 1.03x step 08, the fastest step
 * (exclusive: 108.1%); the run's note shows 10 blocks per SM. */
#define SB_BLOCK 128
#define SB_ITEMS 32
#define SB_MIN_BLOCKS 10
#define SB_TILE (SB_BLOCK * SB_ITEMS)
