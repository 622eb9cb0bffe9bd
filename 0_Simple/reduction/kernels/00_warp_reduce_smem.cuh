/* 00_warp_reduce_smem.cuh: the last six steps of the tree (64 values -> 1)
 * inside warp 0, with shared memory and __syncwarp. Introduced by step 06
 * (unroll_last_warp), used by steps 06 to 09.
 *
 * All 32 lanes of warp 0 call it (block >= 32); s[0 .. min(block, 64)) holds
 * the values. Only one warp is left, so block-wide barriers are not needed,
 * but ordering between the lanes still is: since Volta, lanes of a warp are
 * scheduled independently and are not guaranteed to run in lockstep, so the
 * classic code (a `volatile` pointer and no barrier) reads values another
 * lane may not have written yet. That is a real data race, and
 * compute-sanitizer's racecheck reports it (8_Debugging/warpSyncVolatile).
 * __syncwarp() between the writes and the reads of each step orders them at
 * the cost of almost nothing. (Step 10 drops shared memory here altogether
 * and uses register shuffles.)
 */
template <typename A>
__device__ __forceinline__ A warp_reduce_smem(A *s, unsigned tid, unsigned block)
{
    A v = s[tid];
    if (block >= 64) v += s[tid + 32];
#pragma unroll
    for (unsigned k = 16; k > 0; k >>= 1) {
        __syncwarp();          /* every lane has read the previous step */
        s[tid] = v;
        __syncwarp();          /* every lane has written this step */
        if (tid < k) v += s[tid + k];
    }
    return v;
}
