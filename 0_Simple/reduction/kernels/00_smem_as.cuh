/* 00_smem_as.cuh: typed dynamic shared memory, for the steps whose shared
 * array is sized at launch time (steps 01 to 06, and the exercises): the
 * launch's third <<<>>> argument gives its size, blockDim.x accumulators.
 * One raw declaration serves every accumulator type A:
 *     A *s = smem_as<A>();      s[0 .. blockDim.x) is this block's array
 */
template <typename A>
__device__ __forceinline__ A *smem_as()
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    return (A *)smem_raw;
}
