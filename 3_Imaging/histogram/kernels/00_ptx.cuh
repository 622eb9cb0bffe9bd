/* kernels/00_ptx.cuh: the few instructions the kernels write in inline PTX,
 * each as a small function. The CPU simulator (tests/cpu_sim/sim.cpp)
 * defines HIST_PTX_CUH, so this file is skipped there, and puts C++ of the
 * same meaning in its place. */
#ifndef HIST_PTX_CUH
#define HIST_PTX_CUH

/* One shared-memory atomic add without a return value, on a 32-bit shared
 * address (from step 05 on). atomicAdd on a generic pointer compiles to the
 * same instruction (ATOMS), but nvcc 13.0 then rebuilds every address from
 * the bin with three instructions (shift, or-in the lane, scale and add the
 * shared window's base); from a 32-bit address kept in a register it is one
 * multiply-add: two instructions fewer per byte (read in the SASS). */
__device__ __forceinline__ void red_shared_add(unsigned addr, unsigned v)
{
    asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

/* PTX prmt.b32 (byte permute) of x and 0: result byte i is byte (SEL >> 4i)
 * & 3 of x when that nibble is 0..3, zero when it is 4, and the top bit of
 * that byte copied into all eight bits when the nibble has its 8 set
 * (sign replication, prmt's default mode). __byte_perm is the same
 * instruction but keeps only 3 bits of each nibble, so it cannot replicate. */
template <unsigned SEL>
__device__ __forceinline__ unsigned prmt(unsigned x)
{
    unsigned r;
    asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(x), "n"(SEL));
    return r;
}

/* Ask the L2 to fetch the 16 bytes at p (their 32-byte sector) from memory
 * now: no register waits for it, so a thread can have many such requests
 * out while it counts (step 15, fast_r32_l2pf). A hint: the hardware may
 * drop it, and the result never depends on it. */
__device__ __forceinline__ void prefetch_l2(const void *p)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/* cp.async (sm_80 and later): copy 16 bytes from global memory to the
 * shared address dst without passing through a register; the copy is
 * complete, and visible to this thread, once a later cp_async_wait<N> has
 * returned with at most N of this thread's newer groups pending. Each
 * cp_async_commit closes a group of the copies issued since the previous
 * one. Before sm_80 the copy is an ordinary load and store (complete at
 * once), so the same code runs, without the overlap. (Step 16.) */
__device__ __forceinline__ void cp_async16(unsigned dst, const void *src)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
#else
    const uint4 v = *(const uint4 *)src;
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w)
                 : "memory");
#endif
}

__device__ __forceinline__ void cp_async_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

template <int N>
__device__ __forceinline__ void cp_async_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

/* A 32-bit flag in global memory written with release and read with
 * acquire semantics at GPU scope (step 14, fast_r32_nozero): a block that
 * reads the value another block wrote also sees every write that block made
 * before it. */
__device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void st_release_gpu(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

#endif /* HIST_PTX_CUH */
