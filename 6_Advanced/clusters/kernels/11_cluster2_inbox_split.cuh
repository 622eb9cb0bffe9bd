/* Step 11: cluster2_inbox_split. The one change from step 10: each of the
 * round's two barriers is split into its two halves, arrive and wait
 * (cluster.barrier_arrive() and cluster.barrier_wait(); cluster.sync() is
 * the two back to back), and work that needs nothing from a peer goes in
 * between:
 *   A   arrive when my sends are done; then add the samples of my own slice
 *       (steps 08 to 10 add them before sending); then wait, and drain;
 *   B   arrive when my inbox is drained; then the next round's loads; wait
 *       just before the next round's first send (and once after the last
 *       round, so that every arrive has its wait).
 * What each barrier guards is unchanged: a peer's sends into my inbox still
 * come after my B-arrive (so after my drain), and my drain after every
 * peer's A-arrive (so after their sends). The own-slice adds touch no inbox
 * and no counter, so they may run on either side of A.
 * The kernel is step 08's, hist_inbox, with WIDE = 1, PREFETCH = 1 and
 * SPLIT = 1.
 *
 * Why it should help: a barrier over 2048 threads on two SMs waits for the
 * slowest warp of both blocks and then for the SM-to-SM handshake; in steps
 * 08 to 10 every warp sits idle through both, twice a round. Here a warp
 * that arrives early adds its own samples while the others finish: half the
 * shared-memory atomics of a round move into the wait at A.
 *
 * Measured: 0.5291 ms, 6% faster than step 10, 3% slower than step 08 on
 * uniform samples; on the skewed ones the fastest inbox step, 0.5356 ms
 * (results/H200/clusters_inbox_steps.txt, commit 39af820). */
constexpr auto hist_cluster2_inbox_split = hist_inbox<2, CL_INBOX_VECS2, 1, 1, 1>;
