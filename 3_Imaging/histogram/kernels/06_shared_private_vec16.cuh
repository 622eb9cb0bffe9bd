/* Step 06: shared_private_vec16. The one change from step 05: the launch
 * asks for all of the SM's memory that can be shared memory (the carveout,
 * cudaSharedmemCarveoutMaxShared: 228 KiB of the SM's 256 KiB on an H200,
 * leaving 28 KiB of L1); the kernel is step 05's, hist_shared_private_ptx,
 * with ALL_SHARED = 1 (an instantiation of its own). Steps 02 to 05 let the
 * driver choose. The layouts that follow need tens of KiB per block, and
 * every later step is launched this way until step 13 sizes the carveout to
 * what the blocks need.
 *
 * Why it could matter: a 16-byte load that misses holds L1 lines until its
 * data arrives, so a smaller L1 may cap the bytes in flight (step 13 found
 * that it does: +2.0 to 2.2% at 256 bins, +5.6 to 6.9% at 64, when L1 grew
 * back to 156 KiB). Measured (H200,
 * 512 MiB, 256 bins; results/H200/histogram.txt, commit 13f861f): 2354 GB/s on
 * uniform bytes (111.3% of CUB), 3112 skewed, 4197 equal (118.8% of CUB):
 * 3.8% and 6.5% faster than step 05 on uniform and skewed bytes, 2.2% slower
 * on equal ones; why was not measured. Equal bytes run near the memory's
 * rate; uniform ones are held back by bank conflicts in the one copy (README,
 * "Why contention depends on the input"). */
template <int BINS>
constexpr auto hist_shared_private_vec16 = hist_shared_private_ptx<BINS, 1>;
