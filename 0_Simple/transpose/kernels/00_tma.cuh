/* kernels/00_tma.cuh: the Hopper instructions step 05 uses, as small inline
 * PTX wrappers: an mbarrier that counts the bytes a TMA load delivers, the
 * TMA load (global -> shared) and store (shared -> global) of one box of a
 * tensor map. The layout in shared memory is tma_layout.h's.
 * cp.async.bulk.tensor and mbarrier transaction counts need sm_90; the
 * kernel is empty when compiled for an older GPU (the sample then skips the
 * variant). */
#include <cuda.h>   /* CUtensorMap (the type only: the map is made on the host) */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TR_HAVE_TMA 1
#else
#define TR_HAVE_TMA 0
#endif

/* the swizzle and which 4 x 4 block each thread takes: plain C, tested on the CPU */
#include "../tma_layout.h"

#if TR_HAVE_TMA
__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
    /* make the initialized barrier visible to the TMA unit (the async proxy) */
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
/* Arrive once and announce the bytes the phase waits for: the phase completes
 * when the TMA copies signalling this barrier have delivered that many. */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n.reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return done != 0;
}
/* Wait for the phase of this parity. A wait of over 2 s is a bug (a wrong
 * byte count never completes the phase): trap, so the sample fails with an
 * error instead of hanging. */
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
    uint64_t t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (!mbar_try_wait(bar, parity)) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > 2000000000ull) __trap();
    }
}
/* One box of the tensor at element coordinates (x = column, y = row) into
 * shared memory at dst, counted on bar. Elements outside the tensor arrive
 * as zeros (and count as bytes delivered). */
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *map, uint32_t bar,
                                            int x, int y)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)map), "r"(bar), "r"(x), "r"(y)
                 : "memory");
}
/* One box from shared memory at src to the tensor at (x, y). Rows past the
 * tensor's last are not written; along a row the store clips in whole
 * 16-byte chunks, so the chunk holding the last column is written whole
 * (step 05 stores that box with the threads instead). */
__device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, uint32_t src, int x, int y)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n"
                 ::"l"((uint64_t)map), "r"(src), "r"(x), "r"(y)
                 : "memory");
}
/* Order this thread's ordinary shared-memory writes before later reads by
 * the TMA unit (a TMA store reads shared memory through the async proxy). */
__device__ __forceinline__ void fence_proxy_async_smem()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
/* Close the group of TMA stores issued since the last commit (step 06). */
__device__ __forceinline__ void tma_store_commit()
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
/* Wait until all but the newest N committed groups of stores have read their
 * shared memory (step 06: the buffer of two tiles ago is free again). */
template <int N>
__device__ __forceinline__ void tma_store_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void tma_store_commit_and_wait_read()
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
    /* the stores have read their shared memory: the block may now exit */
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
#endif
