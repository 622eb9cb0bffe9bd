/* Step 09: cluster2_inbox_vec. The one change from step 08: how the offsets
 * travel. Step 08 stores each remote sample's 2-byte offset straight into
 * the owner's inbox: one remote store per sample, as many network requests
 * as step 03's atomics unless the hardware merges a warp's neighbouring
 * stores. Here the warp first packs a peer's offsets into a staging buffer
 * in its own shared memory (local stores, at shared-memory speed), pads the
 * last 16 bytes with CL_EMPTY, and sends them as 16-byte stores, one per
 * lane: 8 samples a request, whatever the network does with a warp. The
 * inbox counters count 16-byte chunks, and the drain skips CL_EMPTY.
 * The kernel is step 08's, hist_inbox, with WIDE = 1 (its two branches sit
 * side by side there); shared memory grows by the staging (512 bytes per
 * warp): 208 KiB per block at cluster 2. The padding needs no room: a send
 * of K samples takes ceil(K / 8) <= 32 chunks, no more than a full vector's
 * 256 samples would (clusters_common.h, cl_inbox_chunks).
 *
 * Why it should help: an eighth of the remote requests, 16 bytes each, at
 * the cost of a local store and a local load per remote sample, and a
 * __syncwarp() on each side of the staging. The DSMEM probe moved 16-byte
 * loads between blocks at 3707 GB/s: the 256 MiB a cluster of 2 sends at
 * 2^28 uniform samples would take about 0.07 ms at that rate, so this step
 * should be bound by the shared-memory atomics (every sample gets one, as
 * in step 02) and the barriers, not by the network.
 *
 * Measured: 0.5604 ms, 9% slower than step 08: the packing's extra
 * shared-memory traffic costs more than the 2-byte stores it saves (results/H200/clusters_inbox_steps.txt, commit 39af820). */
constexpr auto hist_cluster2_inbox_vec = hist_inbox<2, CL_INBOX_VECS2, 1, 0, 0>;
