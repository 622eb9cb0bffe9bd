/* Step 12: cluster4_inbox_split. The one change from step 11: a cluster of 4
 * instead of 2, as step 04 was to step 03. Each block keeps 64 KiB of bins;
 * three samples in four are sent, to three peers, each with its own inbox
 * counter and its own staged sends. The inbox must hold three peers' worst
 * case, so a round reads CL_INBOX_VECS4 = 3 vectors per thread, not 4 (4
 * would need 272 KiB of shared memory per block; 3 take 224 KiB).
 * The kernel is step 08's, hist_inbox, with CLUSTER = 4.
 *
 * Why it could help: in steps 03 to 06 a larger cluster only added remote
 * atomics; here a remote sample costs a 2-byte share of a 16-byte store, so
 * the question is what else the size changes: three sends per vector
 * instead of one (each with 8 ballots and a remote atomic), a third more
 * rounds (3 vectors per round, not 4), barriers over 4 blocks instead of 2,
 * and a quarter of the samples added before A's wait instead of half. The
 * prediction: slower than step 11, by the extra sends and barriers; the
 * skewed input worse again (block 0 of a cluster drains most of its
 * cluster's samples, as in steps 04 to 06).
 *
 * Measured: 1.047 ms, 1.98x slower than step 11, as predicted
 * (results/H200/clusters_inbox_steps.txt, commit 39af820). */
constexpr auto hist_cluster4_inbox_split = hist_inbox<4, CL_INBOX_VECS4, 1, 1, 1>;
