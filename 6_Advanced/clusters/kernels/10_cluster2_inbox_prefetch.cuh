/* Step 10: cluster2_inbox_prefetch. The one change from step 09: each
 * thread issues the loads of round r + 1 before it sends round r's samples.
 * In steps 08 and 09 a round's loads start only after barrier B of the round
 * before: every block of the cluster waits for HBM (about a microsecond)
 * once per round with nothing else to do, and nothing is read during the
 * barriers and the drain. Here those loads are in flight all that time.
 * The kernel is step 08's, hist_inbox, with WIDE = 1 and PREFETCH = 1: VECS
 * more 16-byte registers per thread (the `next` array).
 *
 * Why it should help: at 2^28 samples, with 66 clusters of 2 at once (as for
 * step 03 in our run), a block makes 63 rounds; a microsecond of idle HBM
 * latency in each is about 0.06 ms (computed, not measured). Against it: more registers (at
 * 1024 threads a thread may have 64; ptxas -v with CUDA 13.0 for sm_90:
 * 64 registers and no spills, as step 09) and the fence: cluster.sync()
 * compiles to a MEMBAR.ALL.GPU before the cluster barrier, which may wait
 * for the loads in flight.
 *
 * Measured: 0.5612 ms, no change from step 09
 * (results/H200/clusters_inbox_steps.txt, commit 39af820). */
constexpr auto hist_cluster2_inbox_prefetch = hist_inbox<2, CL_INBOX_VECS2, 1, 1, 0>;
