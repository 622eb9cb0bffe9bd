/* Step 08: lookback_patient. Step 07's kernel, whose look-back waits
 * before it reads, as CUB's does: it sleeps PT_FIRST_WAIT_NS after
 * publishing its tile's AGGREGATE, before it reads the 32 status words
 * before it, and PT_POLL_WAIT_NS before each new read while one of them
 * is still INVALID (__nanosleep: the warp gives up its issue slots).
 *
 * Why it can be faster: a tile publishes its AGGREGATE as soon as its own
 * loads are in, at about the time its 32 predecessors, which started just
 * before it, publish theirs; none of them has a PREFIX yet. Read at once,
 * the window shows INVALIDs (read again, and again) or only AGGREGATEs
 * (read the 32 before, and so on, far back). Every read is a trip to L2,
 * on the very status words the other tiles are writing, by hundreds of
 * warps at once. Waiting a little first, a tile mostly finds a PREFIX in
 * its first window: one read instead of many, and less traffic on those
 * lines for everyone else. The waits are CUB's own for int32 on Hopper
 * (its scan tuning: 1245 ns first, 648 ns between reads), for a tile of
 * 3072 elements; ours are 4096.
 *
 * The kernel is step 07's (kernels/07_lookback_in_order.cuh), with
 * look_back's waits (kernels/05_decoupled_lookback.cuh) switched on; only
 * the launch in scan.cu changes.
 *
 * Measured on the H200, 2^28 int32, inclusive (results/H200/scan.txt, commit 13f861f):
 * 0.6577 ms, 105.4% of CUB: 1.12x step 07, past CUB (exclusive: 104.6%). */
#define PT_FIRST_WAIT_NS 1245
#define PT_POLL_WAIT_NS 648
